/* SPDX-License-Identifier: MIT */
/*
 * Codecs: V4L2 memory-to-memory devices (stateful encoders and decoders,
 * converters) fed and drained through DMA-BUFs, llmem buffers on both queues.
 *
 * V4L2 names the queues from the application's side: the OUTPUT queue takes
 * what the application gives the device (raw frames for an encoder, the
 * bitstream for a decoder), the CAPTURE queue gives back what it made.  Both
 * queues are single- or multi-planar, whichever the driver offers; the
 * library picks the type and the caller sees planes either way.
 *
 * A DMA-BUF reaches V4L2 without an offset: each plane starts at its fd's
 * first byte.  A buffer at offset 0 of its page can go as the page's fd
 * (llmem_buffer_export()); any other as a DMA-BUF of its own
 * (llmem_buffer_export_range()).
 *
 * States follow the kernel's dev-encoder.rst and dev-decoder.rst:
 *
 *   INITIAL --stream_on both--> STREAMING --drain--> DRAINING
 *   DRAINING --CAPTURE buffer flagged LAST--> STOPPED --resume--> STREAMING
 *   decoder: INITIAL --stream_on OUTPUT, source change--> SOURCE_CHANGE
 *   STREAMING or DRAINING --new resolution: LAST--> SOURCE_CHANGE
 *   SOURCE_CHANGE --CAPTURE reallocated, stream_on CAPTURE--> STREAMING
 *                 (or DRAINING where a drain was interrupted)
 *   any --stream_off both--> INITIAL
 *
 * A decoder that meets a new resolution mid-stream sends
 * V4L2_EVENT_SOURCE_CHANGE and flags the last CAPTURE buffer of the old
 * resolution LAST: the state becomes SOURCE_CHANGE, even in the middle of a
 * drain, and llmem_codec_follow_source_change() stops CAPTURE, releases its
 * buffers and gives the new format; the caller queues buffers of the new
 * size and streams CAPTURE again, which resumes the decoding (and the drain
 * it interrupted: the state goes back to DRAINING).
 *
 * Errors from the driver come back as the ioctl's negative errno, and
 * llmem_last_error() names the ioctl and the node.
 *
 * Thread-safety: a struct llmem_codec is not thread-safe; use it from one
 * thread at a time.
 */
#ifndef LLMEM_CODEC_H
#define LLMEM_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "v4l2.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_codec;

/* What a memory-to-memory node does, judged by its queues' formats. */
enum llmem_codec_kind {
	/* OUTPUT takes raw frames, CAPTURE gives a compressed format. */
	LLMEM_CODEC_ENCODER = 1,
	/* OUTPUT takes a compressed format, CAPTURE gives raw frames, and the
	 * driver runs the stateful protocol (no media requests required). */
	LLMEM_CODEC_DECODER = 2,
	/* Raw frames on both queues (scalers, colour converters). */
	LLMEM_CODEC_CONVERTER = 3,
};

/* The queues, as V4L2 names them (above). */
enum llmem_codec_queue {
	LLMEM_CODEC_OUTPUT = 1,
	LLMEM_CODEC_CAPTURE = 2,
};

enum llmem_codec_state {
	LLMEM_CODEC_INITIAL = 1,
	LLMEM_CODEC_STREAMING = 2,
	LLMEM_CODEC_DRAINING = 3,
	LLMEM_CODEC_STOPPED = 4,
	LLMEM_CODEC_SOURCE_CHANGE = 5,
};

/**
 * struct llmem_codec_find_info - which node llmem_codec_find() looks for.
 * @kind: enum llmem_codec_kind; leave 0 for any.
 * @coded_fourcc: the V4L2 pixel format of the compressed side (e.g.
 *                V4L2_PIX_FMT_FWHT); leave 0 for any.
 * @raw_fourcc: a raw format the node takes or gives; leave 0 for any.
 * @driver: the driver's name (v4l2_capability.driver); leave NULL for any.
 */
struct llmem_codec_find_info {
	uint32_t kind;
	uint32_t coded_fourcc;
	uint32_t raw_fourcc;
	uint32_t reserved;
	const char *driver;
};

/**
 * llmem_codec_find() - the first node, /dev/video0 up, that is a streaming
 * memory-to-memory device of @info's kind, formats and driver, and imports
 * DMA-BUFs on both queues.
 * @info: what to look for; NULL for any codec.
 * @path: receives the node's path.
 * @size: bytes at @path.
 *
 * Return: 0; -EINVAL for a NULL @path or one too short; -ENODEV when no
 * node qualifies (the message says what was looked for).
 */
int llmem_codec_find(const struct llmem_codec_find_info *info, char *path, size_t size);

/**
 * llmem_codec_open() - open a memory-to-memory node.
 * @path: e.g. "/dev/video3".
 * @out: the new handle.
 *
 * The node is opened close-on-exec; it must be a streaming memory-to-memory
 * device.  A decoder's source-change and end-of-stream events are subscribed
 * to here.
 *
 * Return: 0; -ENOENT, -EACCES... from open(); -ENODEV when the node is no
 * memory-to-memory device or is none of the kinds above; the driver's errno
 * when VIDIOC_QUERYCAP or VIDIOC_ENUM_FMT fails otherwise than a node that
 * is not V4L2 or a list's end; -EINVAL for NULL arguments; -ENOMEM.
 */
int llmem_codec_open(const char *path, struct llmem_codec **out);

/**
 * llmem_codec_close() - stop both queues, release their buffers, close.
 * @codec: the handle, or NULL.
 *
 * DMA-BUF fds the caller queued stay open and the caller's.
 */
void llmem_codec_close(struct llmem_codec *codec);

/* enum llmem_codec_kind of the node. */
uint32_t llmem_codec_kind(const struct llmem_codec *codec);
/* enum llmem_codec_state now. */
uint32_t llmem_codec_state(const struct llmem_codec *codec);
/* 1 when the node's queues are multi-planar, 0 when single-planar. */
int llmem_codec_multiplanar(const struct llmem_codec *codec);
/* The driver's name, e.g. "vicodec". */
const char *llmem_codec_driver(const struct llmem_codec *codec);

/**
 * struct llmem_codec_format - a queue's format.
 * @fourcc: V4L2 pixel format.
 * @width: pixels (a decoder's coded size).
 * @height: pixels.
 * @num_planes: memory planes, each its own buffer: 1 on a single-planar
 *              queue, and for formats whose colour planes share a buffer.
 * @sizeimage: bytes each plane's buffer must hold at least; on the
 *             compressed side, in llmem_codec_set_format(), the bitstream
 *             buffer size wanted (leave 0 for the driver's choice).
 * @bytesperline: each plane's pitch; 0 for a compressed format.
 */
struct llmem_codec_format {
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t num_planes;
	uint32_t sizeimage[LLMEM_FRAME_MAX_PLANES];
	uint32_t bytesperline[LLMEM_FRAME_MAX_PLANES];
};

/**
 * llmem_codec_set_format() - negotiate a queue's format.
 * @codec: the codec, its queue without buffers.
 * @queue: enum llmem_codec_queue.
 * @want: fourcc, width and height wanted (and @sizeimage[0] for the
 *        compressed side); the other fields are ignored.
 * @got: the format agreed; may be NULL.
 *
 * The driver may adjust the size (an encoder's CAPTURE follows its OUTPUT)
 * but another pixel format is an error: buffers laid out for one format must
 * not receive another.  Set an encoder's CAPTURE (coded) format first and
 * then its OUTPUT, a decoder's OUTPUT first, as the kernel's documents say.
 *
 * Return: 0; -EINVAL for NULL arguments, an unknown queue, a zero size, or
 * a format the driver replaced (the message says by what); -EBUSY while the
 * queue has buffers; other VIDIOC_S_FMT errors.
 */
int llmem_codec_set_format(struct llmem_codec *codec, uint32_t queue,
			   const struct llmem_codec_format *want, struct llmem_codec_format *got);

/**
 * llmem_codec_get_format() - a queue's current format: a decoder's CAPTURE
 * format after a source change.
 *
 * Return: 0; -EINVAL for NULL arguments or an unknown queue; other
 * VIDIOC_G_FMT errors.
 */
int llmem_codec_get_format(struct llmem_codec *codec, uint32_t queue,
			   struct llmem_codec_format *out);

/**
 * struct llmem_codec_rect - a rectangle of a queue's frames, in pixels.
 * @left: columns left of it.
 * @top: rows above it.
 * @width: pixels.
 * @height: rows.
 */
struct llmem_codec_rect {
	int32_t left;
	int32_t top;
	uint32_t width;
	uint32_t height;
};

/**
 * llmem_codec_set_picture() - the picture inside a queue's frames, at
 * their top left: an encoder's OUTPUT crop rectangle, the part of each
 * frame of the coded size (the OUTPUT format) that it codes.  Set it after
 * the OUTPUT format, as dev-encoder.rst says; a format set again resets it.
 * @queue: enum llmem_codec_queue.
 * @width: pixels, at most the format's.
 * @height: rows, at most the format's.
 *
 * Return: 0; -EINVAL for NULL, an unknown queue or a zero size; -ENOTSUP
 * where the queue has no such rectangle, or the driver sets another than
 * asked (the message gives it); other VIDIOC_S_SELECTION errors.
 */
int llmem_codec_set_picture(struct llmem_codec *codec, uint32_t queue, uint32_t width,
			    uint32_t height);

/**
 * llmem_codec_get_picture() - the picture inside a queue's frames: a
 * decoder's CAPTURE compose rectangle, the part of each frame it writes
 * that is the stream's picture (dev-decoder.rst: read it with the CAPTURE
 * format at each source change); an encoder's OUTPUT crop rectangle.
 * @out: receives it.
 *
 * Return: 0; -EINVAL for NULL or an unknown queue; -ENOTSUP where the
 * queue has no such rectangle (its frames are all picture); other
 * VIDIOC_G_SELECTION errors.
 */
int llmem_codec_get_picture(struct llmem_codec *codec, uint32_t queue,
			    struct llmem_codec_rect *out);

/**
 * llmem_codec_request_buffers() - allocate (or, with @count 0, release) a
 * queue's buffer slots.
 * @memory: LLMEM_V4L2_MEMORY_DMABUF for the caller's DMA-BUFs, or
 *          LLMEM_V4L2_MEMORY_MMAP for the driver's own buffers.
 *
 * Return: the number of slots the driver granted (it may differ from
 * @count; a request of 0 returns 0); -EINVAL for an unknown queue or
 * memory; -EBUSY while the queue streams; other VIDIOC_REQBUFS errors.
 */
int llmem_codec_request_buffers(struct llmem_codec *codec, uint32_t queue, uint32_t memory,
				uint32_t count);

/**
 * struct llmem_codec_plane - one plane of a buffer being queued.
 * @fd: the DMA-BUF (DMABUF memory; ignored for MMAP); it stays the
 *      caller's, the kernel takes its own reference while the buffer is
 *      queued.  The plane starts at its first byte.
 * @length: bytes of @fd the device may use; leave 0 for the whole fd.
 * @bytesused: bytes of data in the plane (OUTPUT queue); 0 on CAPTURE.
 */
struct llmem_codec_plane {
	int fd;
	uint32_t length;
	uint32_t bytesused;
	uint32_t reserved;
};

/**
 * llmem_codec_queue() - hand the device buffer slot @index.
 * @queue: enum llmem_codec_queue.
 * @index: below the count granted.
 * @planes: one per plane of the queue's format.
 * @num_planes: the format's num_planes.
 * @timestamp_us: carried from an OUTPUT buffer to the CAPTURE buffer made
 *                from it (microseconds, as V4L2 keeps it).
 *
 * A DMA-BUF smaller than the plane size the driver asked for (sizeimage) is
 * refused here, before VIDIOC_QBUF: some kernels' videobuf2 leak their
 * reference to the buffer on that error path.
 *
 * Return: 0; -EINVAL for NULL @planes, a wrong @num_planes, an index outside
 * the slots, a plane smaller than the driver's plane size (the message gives
 * both sizes), @bytesused past @length, or OUTPUT buffers while draining;
 * -EBADF for a plane fd that is not a DMA-BUF; other VIDIOC_QBUF errors.
 */
int llmem_codec_queue(struct llmem_codec *codec, uint32_t queue, uint32_t index,
		      const struct llmem_codec_plane *planes, uint32_t num_planes,
		      uint64_t timestamp_us);

/* Flags of struct llmem_codec_buffer. */
enum llmem_codec_buffer_flags {
	LLMEM_CODEC_BUF_LAST = 1u << 0, /* the last buffer of a drain or a source change */
	LLMEM_CODEC_BUF_ERROR = 1u << 1, /* the driver flagged the data corrupt */
	LLMEM_CODEC_BUF_KEYFRAME = 1u << 2, /* an intra-coded frame */
};

/**
 * struct llmem_codec_buffer - a dequeued buffer.
 * @index: its slot.
 * @flags: enum llmem_codec_buffer_flags.
 * @num_planes: planes below.
 * @bytesused: bytes of data in each plane.
 * @sequence: the driver's counter.
 * @timestamp_us: the timestamp of the OUTPUT buffer it came from.
 */
struct llmem_codec_buffer {
	uint32_t index;
	uint32_t flags;
	uint32_t num_planes;
	uint32_t sequence;
	uint32_t bytesused[LLMEM_FRAME_MAX_PLANES];
	uint64_t timestamp_us;
};

/**
 * llmem_codec_dequeue() - wait for a buffer the device is done with.
 * @queue: enum llmem_codec_queue.
 * @timeout_ms: how long to wait; negative waits forever.
 *
 * A CAPTURE buffer flagged LAST ends a drain (state STOPPED) or, on a
 * decoder, announces a new resolution (state SOURCE_CHANGE): the decoder's
 * source-change event, queued before the buffer, tells which; without it,
 * a LAST buffer outside a drain counts as a source change.  It may carry no
 * data (bytesused 0).
 *
 * Return: 0; -ETIMEDOUT when none came in time; -EPIPE on CAPTURE after the
 * LAST buffer, until the codec resumes; -EAGAIN when nothing is queued that
 * could ever come back; -EINVAL for NULL arguments or a queue that does not
 * stream; other VIDIOC_DQBUF errors.
 */
int llmem_codec_dequeue(struct llmem_codec *codec, uint32_t queue, int timeout_ms,
			struct llmem_codec_buffer *out);

/**
 * llmem_codec_map() - the driver's own buffer (MMAP memory) mapped.
 * @ptr: receives the mapping, valid until the queue's buffers are released.
 * @length: receives its bytes; may be NULL.
 *
 * Return: 0; -EINVAL for NULL @ptr, an index or plane outside the slots, or
 * a queue without MMAP buffers; other VIDIOC_QUERYBUF and mmap errors.
 */
int llmem_codec_map(struct llmem_codec *codec, uint32_t queue, uint32_t index, uint32_t plane,
		    void **ptr, size_t *length);

/**
 * llmem_codec_stream_on() - start a queue; with both started the codec
 * streams.  Restarting a decoder's CAPTURE after a resolution change that
 * interrupted a drain asks for the drain again (the driver ended it when
 * CAPTURE stopped): the state is DRAINING then.
 *
 * Return: 0; -EINVAL for an unknown queue; other VIDIOC_STREAMON errors;
 * VIDIOC_DECODER_CMD's when the drain cannot be asked for again.
 */
int llmem_codec_stream_on(struct llmem_codec *codec, uint32_t queue);

/**
 * llmem_codec_stream_off() - stop a queue; the device gives back every
 * buffer of it without dequeueing.  Stopping CAPTURE after a source change
 * lets the caller reallocate it; stopping both returns to INITIAL.
 *
 * Return: 0; -EINVAL for an unknown queue; other VIDIOC_STREAMOFF errors.
 */
int llmem_codec_stream_off(struct llmem_codec *codec, uint32_t queue);

/**
 * llmem_codec_drain() - finish the frames queued so far
 * (V4L2_ENC_CMD_STOP, V4L2_DEC_CMD_STOP): state DRAINING, then STOPPED once
 * the CAPTURE buffer flagged LAST is dequeued.
 *
 * Return: 0; -EINVAL unless streaming; -ENOTSUP for a converter, which has
 * no drain; other VIDIOC_*_CMD errors.
 */
int llmem_codec_drain(struct llmem_codec *codec);

/**
 * llmem_codec_resume() - after a drain, take frames again
 * (V4L2_*_CMD_START): state STREAMING.
 *
 * Return: 0; -EINVAL unless STOPPED; other VIDIOC_*_CMD errors.
 */
int llmem_codec_resume(struct llmem_codec *codec);

/**
 * llmem_codec_follow_source_change() - the first step of following a
 * decoder's new resolution (state SOURCE_CHANGE): stop CAPTURE, release its
 * buffers, so that the driver lets go of the caller's DMA-BUFs, and read
 * the format the stream needs now.
 * @format: receives CAPTURE's new format.
 *
 * The caller then may pick another pixel format of the same chroma
 * subsampling (llmem_codec_set_format()), requests buffers, queues DMA-BUFs
 * of the new size and streams CAPTURE again: decoding goes on with the
 * frame that changed.  At the stream's first source change, before CAPTURE
 * ever streamed, it only reads the format.
 *
 * Return: 0; -EINVAL for NULL arguments or a codec not in SOURCE_CHANGE;
 * the errors of VIDIOC_STREAMOFF, VIDIOC_REQBUFS and VIDIOC_G_FMT.
 */
int llmem_codec_follow_source_change(struct llmem_codec *codec, struct llmem_codec_format *format);

/* Events of llmem_codec_wait_event(). */
enum llmem_codec_event_type {
	/* A decoder found the stream's format: read CAPTURE's. */
	LLMEM_CODEC_EVENT_SOURCE_CHANGE = 1,
	/* The last frame of a drain was produced. */
	LLMEM_CODEC_EVENT_EOS = 2,
};

/**
 * llmem_codec_wait_event() - wait for the next event of a decoder.
 * @timeout_ms: how long to wait; negative waits forever.
 * @type: receives enum llmem_codec_event_type.
 *
 * A source change before CAPTURE streams moves the state to SOURCE_CHANGE.
 * Events that llmem_codec_dequeue() took to tell a LAST buffer's meaning
 * are handed out here all the same; a source change that came before
 * CAPTURE last started streaming is one the caller followed already, and
 * is not.
 *
 * Return: 0; -ETIMEDOUT when none came; -EINVAL for NULL arguments or a
 * node that is not a decoder; other VIDIOC_DQEVENT errors.
 */
int llmem_codec_wait_event(struct llmem_codec *codec, int timeout_ms, uint32_t *type);

/*
 * Encoders, decoders and bitstream sources: the camera's twins.
 *
 * The calls above drive a node's queues one buffer at a time.  The objects
 * below do what every program around a codec does with them: find and
 * open the node, negotiate its formats, allocate the bitstream buffers
 * (and, where the caller has none, the frames) in llmem memory shared as
 * DMA-BUFs, and then take or give one frame per call.  An encoder takes
 * frames by the DMA-BUFs they carry (a camera's frame carries its own,
 * llmem_camera_frame.fd) and gives back bitstream packets; a decoder reads
 * a bitstream source into its buffers, follows the stream's source changes
 * (reallocating its frames), drains at the source's end and gives back
 * frames, converted to RGBA on the device if asked (as the camera does).
 *
 * Thread-safety: an encoder, a decoder and a bitstream source are each
 * used from one thread at a time.
 */

struct llmem_session;
struct llmem_buffer;
struct llmem_encoder;
struct llmem_decoder;
struct llmem_bitstream;

/* The most frames and bitstream buffers an encoder or decoder asks for. */
#define LLMEM_CODEC_MAX_FRAMES 16
#define LLMEM_CODEC_MAX_BITSTREAM_BUFFERS 8
/* The most RGBA buffers a decoder's conversion writes in turn. */
#define LLMEM_DECODER_MAX_RGBA_BUFFERS 4

/**
 * struct llmem_codec_frame - a raw frame on its way into an encoder or out
 * of a decoder.
 * @fd: per memory plane, a DMA-BUF whose first byte is the plane's (V4L2
 *	takes no offset); -1 past @num_planes.  The frame's owner's: a codec
 *	never closes it.  An encoder reads the DMA-BUF where it lies.
 * @num_planes: memory planes: 1, or 2 for a format such as NV12M.
 * @bytesused: per plane, bytes of data; 0 on the way in means the
 *	format's whole plane (sizeimage).
 * @buffer: per plane, the llmem buffer holding it, where it is one (a
 *	decoder's frames, llmem_encoder_get_frame()'s); NULL otherwise.
 * @data: per plane, the host's mapping of the plane, or NULL.  An encoder
 *	on the copy path reads the frame here.
 * @id: the caller's on the way in, given back with the packet made of the
 *	frame; on a decoder's frame, the ordinal of the bitstream unit it
 *	was decoded from (0 up).
 * @index: the codec's slot for the frame.
 * @flags: enum llmem_codec_buffer_flags the driver set (a decoder's).
 * @sequence: the driver's counter (a decoder's).
 * @generation: a decoder's count of the formats followed so far: 1 for
 *	the stream's first, one more at each source change.
 * @rgba: a decoder's frame converted to RGBA (LLMEM_DECODER_CONVERT), laid
 *	out as its info's @rgba_layout; NULL without conversion.  For a
 *	stream decoded straight into the RGBA format, the frame's own buffer.
 * @rgba_data: @rgba mapped, its first byte.
 * @rgba_index: the RGBA buffer (llmem_decoder_rgba_buffer()) @rgba is.
 */
struct llmem_codec_frame {
	int fd[LLMEM_V4L2_MAX_MEM_PLANES];
	uint32_t num_planes;
	uint32_t bytesused[LLMEM_V4L2_MAX_MEM_PLANES];
	struct llmem_buffer *buffer[LLMEM_V4L2_MAX_MEM_PLANES];
	void *data[LLMEM_V4L2_MAX_MEM_PLANES];
	uint64_t id;
	uint32_t index;
	uint32_t flags;
	uint32_t sequence;
	uint32_t generation;
	struct llmem_buffer *rgba;
	const void *rgba_data;
	uint32_t rgba_index;
	uint32_t reserved;
};

/**
 * struct llmem_codec_packet - a unit of bitstream an encoder made.
 * @data: its bytes, mapped for the host (invalidated for the CPU to read);
 *	valid until the packet is released.
 * @buffer: the llmem buffer holding it; the encoder's.
 * @fd: that buffer's DMA-BUF; the encoder's, not to close.
 * @size: bytes of bitstream at @data.
 * @index: the encoder's slot.
 * @flags: enum llmem_codec_buffer_flags: KEYFRAME for an intra-coded
 *	frame (read from the bitstream where the driver does not flag it),
 *	LAST for the last of a drain.
 * @sequence: the driver's counter.
 * @id: the id of the frame it was made of.
 */
struct llmem_codec_packet {
	const void *data;
	struct llmem_buffer *buffer;
	int fd;
	uint32_t size;
	uint32_t index;
	uint32_t flags;
	uint32_t sequence;
	uint32_t reserved;
	uint64_t id;
};

/* Flags of struct llmem_encoder_create_info. */
enum llmem_encoder_flags {
	/*
	 * The copy path: the encoder reads its own buffers (V4L2_MEMORY_MMAP),
	 * and each frame pushed is copied into one by the CPU from its @data,
	 * between its DMA-BUF's CPU-access brackets.  For encoders that cannot
	 * import DMA-BUFs, and the peer `llmem bench codec` measures the
	 * zero-copy path against.
	 */
	LLMEM_ENCODER_COPY = 1u << 0,
};

/**
 * struct llmem_encoder_create_info - what an encoder is opened for.
 * @device: the node; NULL for the first encoder (/dev/video0 up) of these
 *	formats that imports DMA-BUFs (llmem_codec_find()).  Copied.
 * @coded_fourcc: V4L2 pixel format of the bitstream; 0 for
 *	V4L2_PIX_FMT_FWHT.
 * @fourcc: V4L2 pixel format of the frames; 0 for V4L2_PIX_FMT_YUYV.
 * @width: pixels of the picture; leave both 0 for 640x480.
 * @height: rows of the picture.
 * @pitch: the frames' bytesperline, where they are laid out already (a
 *	camera's); the encoder must take exactly that, or the open fails.
 *	0 for the driver's choice.
 * @coded_width: the frames' coded size, where they are laid out already
 *	(a camera's negotiated frames: llmem_camera_info.layout's coded
 *	size); the OUTPUT format is set to exactly that, or the open fails.
 *	Leave both 0 for the size the driver rounds the picture up to (its
 *	blocks: vicodec's 8 or 16 pixels).  Where the coded size is larger
 *	than the picture, the picture is the OUTPUT queue's crop rectangle
 *	(llmem_codec_set_picture()), and an encoder without one fails the
 *	open.
 * @coded_height: rows of the coded frames.
 * @frames: frames the encoder may hold at once (its OUTPUT buffers), at
 *	most LLMEM_CODEC_MAX_FRAMES; 0 for 4.
 * @bitstream_buffers: at most LLMEM_CODEC_MAX_BITSTREAM_BUFFERS; 0 for 2.
 * @flags: enum llmem_encoder_flags.
 * @backend: enum llmem_backend of the bitstream buffers and of the frames
 *	llmem_encoder_get_frame() gives; 0 for the best that shares.
 */
struct llmem_encoder_create_info {
	const char *device;
	uint32_t coded_fourcc;
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t pitch;
	uint32_t frames;
	uint32_t bitstream_buffers;
	uint32_t flags;
	uint32_t backend;
	uint32_t coded_width;
	uint32_t coded_height;
};

/**
 * struct llmem_encoder_info - what an encoder agreed to.
 * @device: the node's path.
 * @driver: the driver's name.
 * @raw: the frames' format (OUTPUT): their coded size.
 * @coded: the bitstream's format (CAPTURE); @coded.sizeimage[0] is each
 *	bitstream buffer's size.
 * @frames: OUTPUT buffers granted.
 * @bitstream_buffers: CAPTURE buffers granted.
 * @flags: enum llmem_encoder_flags in effect.
 * @backend: enum llmem_backend of the bitstream buffers.
 * @picture: the part of each frame it codes, at the top left: the
 *	picture, its crop rectangle where the coded size is larger.
 */
struct llmem_encoder_info {
	char device[64];
	char driver[16];
	struct llmem_codec_format raw;
	struct llmem_codec_format coded;
	uint32_t frames;
	uint32_t bitstream_buffers;
	uint32_t flags;
	uint32_t backend;
	struct llmem_codec_rect picture;
};

/**
 * llmem_encoder_open() - open an encoder, its formats set and its
 * bitstream buffers allocated, streaming.
 * @session: where the llmem buffers are allocated.
 * @info: the choices; NULL for all defaults.
 * @out: the new encoder.
 *
 * Return: 0; -EINVAL for NULL @session or @out, unknown flags, too many
 * frames or bitstream buffers, a size or coded size of which one side only
 * is 0, a coded size below the picture, a format the driver replaces, a
 * size, coded size or pitch it will not take (the message says what it
 * offered); -ENOTSUP for a picture smaller than the coded frames on an
 * encoder without a crop rectangle; -ENODEV when no encoder qualifies or
 * @device is not one; -ENOBUFS when the driver grants fewer buffers than asked; the
 * driver's and the allocation's errors.
 */
int llmem_encoder_open(struct llmem_session *session, const struct llmem_encoder_create_info *info,
		       struct llmem_encoder **out);

/* Stops both queues and releases every buffer; frames pushed are let go
 * of, packets held become invalid.  NULL is fine. */
void llmem_encoder_close(struct llmem_encoder *encoder);

/* Return: 0, or -EINVAL for NULL. */
int llmem_encoder_get_info(const struct llmem_encoder *encoder, struct llmem_encoder_info *info);

/**
 * llmem_encoder_get_frame() - a frame of the encoder's own to fill and
 * push: llmem buffers of the raw format, mapped for the host (@data), each
 * plane its own DMA-BUF.  Made at the first call, one per frame slot.
 * The encoder's, valid until it is closed; pushing it hands it over until
 * its packet is pulled.
 *
 * Return: 0; -EINVAL for NULL, or on the copy path (whose frames are the
 * driver's); -EBUSY while every one of them is pushed and not yet back;
 * the allocation's errors.
 */
int llmem_encoder_get_frame(struct llmem_encoder *encoder, struct llmem_codec_frame *frame);

/**
 * llmem_encoder_push() - hand the encoder a frame to encode.
 * @frame: @fd (and on the copy path @data) of each plane, @bytesused (0:
 *	the whole plane), @id.  Its DMA-BUFs stay the caller's, and must not
 *	be written until the packet made of it is pulled.
 *
 * A V4L2 driver imports the DMA-BUF of a slot once and keeps it while the
 * same one comes back: a frame goes to the slot that last held its fd.
 *
 * Return: 0; -EINVAL for NULL, a wrong @num_planes, a plane larger than
 * its DMA-BUF or smaller than the encoder's plane, a copy path frame
 * without @data, or after a drain; -EBUSY while every slot holds a frame
 * (pull first); -EBADF for an fd that is not a DMA-BUF; the driver's
 * errors.
 */
int llmem_encoder_push(struct llmem_encoder *encoder, const struct llmem_codec_frame *frame);

/**
 * llmem_encoder_pull() - the next packet, once the frame it was made of is
 * back from the encoder (the caller may write that frame again).
 * @timeout_ms: how long to wait; negative waits forever.
 * @packet: receives it; release it to give its buffer back.
 *
 * The bitstream buffers not held by the caller are queued here, not at
 * push: a memory-to-memory driver runs its job when both sides have a
 * buffer, so the encoding happens in this call on a driver that encodes
 * on the CPU (vicodec).
 *
 * Return: 0; -ENODATA once a drain has ended (the last packet came);
 * -ETIMEDOUT; -EAGAIN when no frame is pushed and no drain asked, or every
 * bitstream buffer is held by the caller; -EINVAL for NULL; the driver's
 * errors.
 */
int llmem_encoder_pull(struct llmem_encoder *encoder, int timeout_ms,
		       struct llmem_codec_packet *packet);

/* Gives a pulled packet's buffer back.  Return: 0; -EINVAL for NULL or a
 * packet that is not held. */
int llmem_encoder_release_packet(struct llmem_encoder *encoder,
				 const struct llmem_codec_packet *packet);

/**
 * llmem_encoder_encode() - push @frame and pull its packet: one frame in,
 * its bitstream out, the frame free again on return.  For encoders that
 * give each frame's bitstream before they take the next (FWHT, and any
 * without reordering or lookahead).
 *
 * Return: as llmem_encoder_push() and llmem_encoder_pull().
 */
int llmem_encoder_encode(struct llmem_encoder *encoder, const struct llmem_codec_frame *frame,
			 int timeout_ms, struct llmem_codec_packet *packet);

/**
 * llmem_encoder_drain() - finish the frames pushed so far: pulls give
 * their packets, the last flagged LAST, then -ENODATA.  No frame is taken
 * after it.
 *
 * Return: 0; -EINVAL for NULL or a drain asked already; the driver's
 * errors.
 */
int llmem_encoder_drain(struct llmem_encoder *encoder);

/**
 * struct llmem_bitstream_info - what a bitstream source holds.
 * @coded_fourcc: V4L2 pixel format of the units.
 * @width: pixels of the first unit's frame.
 * @height: pixels.
 * @flags: the first unit's header flags (FWHT: V4L2_FWHT_FL_*: its
 *	components, chroma subsampling and pixel encoding).
 * @units: units (frames) in the source.
 * @bytes: bytes of the whole source.
 * @max_unit: bytes of the largest unit.
 * @read: units read so far.
 */
struct llmem_bitstream_info {
	uint32_t coded_fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t flags;
	uint32_t units;
	uint32_t read;
	uint64_t bytes;
	uint64_t max_unit;
};

/**
 * llmem_bitstream_open_fwht() - a file of FWHT frames (as vicodec's encoder
 * and `llmem encode` write them, each a header and its payload) as a
 * bitstream source, read with pread() straight into the buffer it is given.
 * @path: a regular file; opened close-on-exec and non-blocking (a fifo is
 *	refused, not waited on).
 * @out: the new source.
 *
 * The frames are walked by their headers at open: the file must hold at
 * least one whole frame, and nothing but whole frames back to back.
 *
 * Return: 0; -EINVAL for NULL arguments, a file that is not regular, an
 * empty file, or bytes that start no whole FWHT frame (the message gives
 * the byte and the frames before it); -EISDIR; open()'s and read()'s
 * errors; -ENOMEM.
 */
int llmem_bitstream_open_fwht(const char *path, struct llmem_bitstream **out);

/* Closes the file.  NULL is fine. */
void llmem_bitstream_close(struct llmem_bitstream *source);

/* Return: 0, or -EINVAL for NULL. */
int llmem_bitstream_get_info(const struct llmem_bitstream *source,
			     struct llmem_bitstream_info *info);

/**
 * llmem_bitstream_read() - the next unit into @dst.
 * @size: bytes at @dst.
 * @len: receives the unit's bytes.
 *
 * Return: 0; -ENODATA after the last unit; -ENOSPC when the unit is larger
 * than @size (the message gives both; the unit stays next); -EINVAL for
 * NULL arguments; read()'s errors, and -EIO when the file changed since it
 * was opened.
 */
int llmem_bitstream_read(struct llmem_bitstream *source, void *dst, size_t size, size_t *len);

/* Flags of struct llmem_decoder_create_info. */
enum llmem_decoder_flags {
	/*
	 * Convert each frame to RGBA on the device (convert.h), into the
	 * RGBA buffers in turn, where the decoded format is one the shaders
	 * read (YUYV, NV12); a stream decoded straight into the RGBA format
	 * (V4L2's XBGR32 is DRM's XRGB8888 in memory) is handed out as it
	 * is.  For any other format the frames come without RGBA, and the
	 * info's flags lose this one.
	 */
	LLMEM_DECODER_CONVERT = 1u << 0,
	/* The RGBA buffers in shared pages (to export, or to display), each
	 * a page of its own; without it, in host-visible memory. */
	LLMEM_DECODER_SHARED_RGBA = 1u << 1,
};

/**
 * struct llmem_decoder_create_info - what a decoder is opened for.
 * @source: where the bitstream comes from; the caller's, to close after
 *	the decoder.  Required.
 * @device: the node; NULL for the first stateful decoder of the source's
 *	format that imports DMA-BUFs.  Copied.
 * @fourcc: V4L2 pixel format to decode into; 0 for one the conversion
 *	reads of the chroma subsampling the decoder chose for the stream
 *	(YUYV for 4:2:2, NV12 for 4:2:0, XBGR32 for RGB of four components),
 *	or the decoder's own choice where there is none.  A format of other
 *	subsampling than the stream's fails when decoding starts.
 * @frames: frame buffers (CAPTURE), at most LLMEM_CODEC_MAX_FRAMES; 0 for
 *	3.  The caller may hold them all, but the decoder needs one to
 *	decode the next frame into.
 * @bitstream_buffers: at most LLMEM_CODEC_MAX_BITSTREAM_BUFFERS; 0 for 2.
 * @flags: enum llmem_decoder_flags.
 * @backend: enum llmem_backend of the frames' and bitstream's pages; 0
 *	for the best that shares.
 * @rgba_fourcc: with LLMEM_DECODER_CONVERT, DRM fourcc of the RGBA frames
 *	(as llmem_camera_create_info's); 0 for DRM_FORMAT_ABGR8888.
 * @rgba_buffers: at most LLMEM_DECODER_MAX_RGBA_BUFFERS; 0 for 1.
 * @rgba_pitch_alignment: every RGBA row's pitch a multiple of this (a
 *	power of two); 0 for no demand.
 * @num_rgba_participants: entries of @rgba_participants, at most
 *	LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2.
 * @rgba_participants: who else takes the RGBA frames (a KMS plane that
 *	scans them out: negotiate.h); copied.  The RGBA frames are laid out
 *	at each format followed for them, the device's conversion that writes
 *	them and @rgba_pitch_alignment together, and a stream decoded into
 *	the RGBA format is handed out as it is only where its layout meets
 *	every one of their demands; the open fails, naming who refuses, where
 *	they share nothing.  NULL with 0 for none.
 */
struct llmem_decoder_create_info {
	struct llmem_bitstream *source;
	const char *device;
	uint32_t fourcc;
	uint32_t frames;
	uint32_t bitstream_buffers;
	uint32_t flags;
	uint32_t backend;
	uint32_t rgba_fourcc;
	uint32_t rgba_buffers;
	uint32_t rgba_pitch_alignment;
	uint32_t num_rgba_participants;
	const struct llmem_participant *rgba_participants;
};

/**
 * struct llmem_decoder_info - what a decoder runs on and decodes into.
 * @device: the node's path.
 * @driver: the driver's name.
 * @format: the frames' format (CAPTURE) since the last source change;
 *	zero before llmem_decoder_start().
 * @layout: where a frame lies in its buffer, for formats frame.h lays
 *	out (YUYV, NV12, and V4L2's XBGR32, ABGR32 and RGBA32 as DRM's
 *	XRGB8888, ARGB8888 and ABGR8888) in one buffer; num_planes 0 for
 *	others.
 * @rgba_layout: the RGBA frames' (with LLMEM_DECODER_CONVERT in effect).
 * @frames: frame buffers granted.
 * @rgba_buffers: buffers the RGBA frames come in: the RGBA buffers, or the
 *	frame buffers where the stream is decoded into the RGBA format.
 * @flags: enum llmem_decoder_flags in effect.
 * @backend: enum llmem_backend of the frames' pages.
 * @source_changes: formats followed: the stream's first, and each change.
 * @units_fed: bitstream units queued to the decoder.
 * @frames_decoded: frames handed out.
 */
struct llmem_decoder_info {
	char device[64];
	char driver[16];
	struct llmem_codec_format format;
	struct llmem_frame_layout layout;
	struct llmem_frame_layout rgba_layout;
	uint32_t frames;
	uint32_t rgba_buffers;
	uint32_t flags;
	uint32_t backend;
	uint32_t source_changes;
	uint32_t units_fed;
	uint32_t frames_decoded;
	uint32_t reserved;
};

/**
 * llmem_decoder_open() - open a decoder for a bitstream source, its
 * bitstream format set and its bitstream buffers allocated.
 * @session: where the llmem buffers are allocated, and the conversion runs.
 * @info: the choices; @source is required.
 * @out: the new decoder.
 *
 * Return: 0; -EINVAL for NULL arguments or @source, unknown flags, too
 * many buffers, an RGBA fourcc the shaders do not write or a pitch
 * alignment that is not a power of two; -ENODEV when no decoder
 * qualifies or @device is not one; -ENOBUFS when the driver grants fewer
 * buffers than asked; the driver's and the allocation's errors.
 */
int llmem_decoder_open(struct llmem_session *session, const struct llmem_decoder_create_info *info,
		       struct llmem_decoder **out);

/* Stops both queues and releases every buffer; frames held become
 * invalid.  NULL is fine. */
void llmem_decoder_close(struct llmem_decoder *decoder);

/* Return: 0, or -EINVAL for NULL. */
int llmem_decoder_get_info(const struct llmem_decoder *decoder, struct llmem_decoder_info *info);

/**
 * llmem_decoder_start() - feed the stream until the decoder knows its
 * format, and set the frames up in it: after this the info gives the
 * format and layouts, and the buffers exist (to make a display's
 * framebuffers of them).  llmem_decoder_next() starts a decoder that was
 * not.
 * @timeout_ms: how long to wait for the format; negative waits forever.
 *
 * Return: 0 (also when started already); -EIO when the stream ended
 * before the decoder found a frame; -ENOTSUP for a decoded format the
 * library cannot lay out with LLMEM_DECODER_SHARED_RGBA; -ETIMEDOUT; the
 * source's, the driver's and the allocation's errors.
 */
int llmem_decoder_start(struct llmem_decoder *decoder, int timeout_ms);

/**
 * llmem_decoder_frame_buffer() - frame buffer @index, to make a display's
 * framebuffer of it, or export it.  The decoder's, valid until the next
 * source change.
 *
 * Return: 0; -EINVAL for NULL, an @index past the frames, or before the
 * decoder started.
 */
int llmem_decoder_frame_buffer(const struct llmem_decoder *decoder, uint32_t index,
			       struct llmem_buffer **out);

/**
 * llmem_decoder_rgba_buffer() - RGBA buffer @index (the info's
 * @rgba_buffers): the conversion's, or the frame buffer itself where the
 * stream is decoded into the RGBA format.
 *
 * Return: 0; -EINVAL for NULL, an @index past them, or before the decoder
 * started or without conversion.
 */
int llmem_decoder_rgba_buffer(const struct llmem_decoder *decoder, uint32_t index,
			      struct llmem_buffer **out);

/**
 * llmem_decoder_next() - the next decoded frame.
 * @timeout_ms: how long to wait for it; negative waits forever.
 * @frame: receives it; release it to give its buffer back.
 *
 * Feeds the source as the decoder frees bitstream buffers, and drains once
 * all of it is queued.  At a source change the frames of the old format
 * must all be released: the decoder then reallocates them in the new one
 * (the frame's @generation counts up) and goes on.
 *
 * Return: 0; -ENODATA after the last frame; -EBUSY when every frame buffer
 * is held, or at a source change while a frame is held (the
 * message says which); -ETIMEDOUT; -EINVAL for NULL; llmem_decoder_start()'s
 * errors; the conversion's.
 */
int llmem_decoder_next(struct llmem_decoder *decoder, int timeout_ms,
		       struct llmem_codec_frame *frame);

/* Gives a frame's buffer back to the decoder.  Return: 0; -EINVAL for NULL
 * or a frame that is not held; the driver's VIDIOC_QBUF errors. */
int llmem_decoder_release(struct llmem_decoder *decoder, const struct llmem_codec_frame *frame);

#ifdef __cplusplus
}
#endif

#endif
