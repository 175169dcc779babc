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

#ifdef __cplusplus
}
#endif

#endif
