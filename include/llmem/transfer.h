/* SPDX-License-Identifier: MIT */
/*
 * Transfers: copies between host memory, buffers and images, fills and
 * clears, recorded on a queue the way PyOpenCL's enqueue_copy records them.
 *
 * A queue is in order: each operation starts after every operation
 * enqueued before it on the same queue has finished, and after every
 * operation submitted earlier on another queue of the same session (they
 * share one Vulkan queue).  An operation is blocking when its @event
 * argument is NULL: it returns once its bytes have arrived.  With an
 * @event, it returns once it is submitted and hands back an event to wait
 * for or to list in a later operation's @wait_for.
 *
 * Host data goes directly through a mapping when the object's memory is
 * host visible (reads only when it is also host cached or not device
 * local: the CPU reads uncached device memory very slowly) and the queue
 * has nothing in flight; otherwise through the queue's staging ring, a
 * host-visible buffer reused from operation to operation, in chunks.  A
 * non-blocking read from a device lands in the host buffer when its event
 * is waited for (or polled, or a later operation retires it): the memcpy
 * out of the staging ring runs in that thread.  A non-blocking write reads
 * the host data before it returns when it fits the ring; larger writes
 * return once their last chunk is submitted.
 *
 * Batches: between llmem_queue_begin_batch() and llmem_queue_submit_batch()
 * every operation on the queue is recorded into one command buffer and
 * goes to the device in one submission; nothing waits in between.
 *
 * Thread safety: a queue may be used from several threads; a mutex in it
 * serialises its operations and the waits on its events (a blocking call
 * holds it until its work is done).  With a batch open, every operation on
 * the queue joins the batch, from whichever thread.  Events may be waited
 * for from any thread; llmem_queue_destroy() must be ordered after every
 * other call on the queue and on its events but llmem_event_release().
 */
#ifndef LLMEM_TRANSFER_H
#define LLMEM_TRANSFER_H

#include <stdint.h>

#include "buffer.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_session;
struct llmem_queue;
struct llmem_event;
struct llmem_frame_layout;
struct llmem_wait_list;

enum llmem_queue_flags {
	/* Never copy through a mapping: always through the staging ring. */
	LLMEM_QUEUE_NO_MAPPING = 1u << 0,
	/* Events carry profiling times (llmem_event_get_profile()): each
	 * submission writes a timestamp before and after its work.  Needs a
	 * queue family with timestamps (-ENOTSUP otherwise). */
	LLMEM_QUEUE_PROFILING = 1u << 1,
};

struct llmem_queue_create_info {
	/* enum llmem_queue_flags; leave 0 to map where it pays. */
	uint32_t flags;
	/* Bytes of the staging ring, a multiple of 4096; leave 0 for 32 MiB. */
	uint64_t staging_size;
	/* Largest piece of a transfer staged at once, at most staging_size
	 * (a transfer cut in pieces pipelines host copies with device copies);
	 * leave 0 for a quarter of staging_size. */
	uint64_t chunk_size;
};

/**
 * llmem_queue_create() - a transfer queue on @session's device queue.
 *
 * The staging ring lives in a host-visible (preferably host-cached) memory
 * of the queue's own, allocated on first use.
 *
 * Return: 0; -EINVAL for NULL, unknown flags or bad sizes; -ENOMEM; -EIO.
 */
int llmem_queue_create(struct llmem_session *session, const struct llmem_queue_create_info *info,
		       struct llmem_queue **out);

/* Waits for everything enqueued (discarding an open batch), then frees the
 * queue.  NULL is a no-op. */
void llmem_queue_destroy(struct llmem_queue *queue);

/**
 * llmem_queue_get_info() - what @queue was created with, defaults resolved:
 * the flags, the ring's bytes and the chunk's.
 *
 * They never change, so this takes no lock.
 *
 * Return: 0; -EINVAL for NULL.
 */
int llmem_queue_get_info(const struct llmem_queue *queue, struct llmem_queue_create_info *out);

/**
 * llmem_queue_finish() - wait for every submitted operation of the queue.
 *
 * Return: 0; -EINVAL for NULL; -EBUSY with a batch open; -EIO.
 */
int llmem_queue_finish(struct llmem_queue *queue);

/**
 * llmem_queue_begin_batch() - record the operations that follow into one
 * submission.
 *
 * Operations in a batch never wait; their @event, when asked for, is the
 * batch's and completes with it.  Staging beyond what the ring has free is
 * allocated for the batch and released when it completes.
 *
 * Return: 0; -EINVAL for NULL; -EBUSY when a batch is already open.
 */
int llmem_queue_begin_batch(struct llmem_queue *queue);

/**
 * llmem_queue_submit_batch() - send the batch to the device.
 * @event: NULL to wait for the batch, or (out) its event.
 *
 * Return: 0; -EINVAL for NULL or without an open batch; -EIO.
 */
int llmem_queue_submit_batch(struct llmem_queue *queue, struct llmem_event **event);

/* Drops the open batch unsubmitted; its reads never land.  NULL is a no-op. */
void llmem_queue_discard_batch(struct llmem_queue *queue);

/**
 * llmem_event_wait() - wait until the operation behind @event is done.
 * @timeout_ns: 0 to poll, UINT64_MAX for no limit.
 *
 * Return: 0 when done (a read's bytes have landed); -ETIMEDOUT; -EINVAL
 * for NULL; -EBUSY for the event of a batch not yet submitted; -EIO.
 */
int llmem_event_wait(struct llmem_event *event, uint64_t timeout_ns);

/* Frees @event, done or not (the work goes on; its callback, if any, is
 * not called).  NULL is a no-op. */
void llmem_event_release(struct llmem_event *event);

/* What llmem_event_status() returns besides errors. */
enum llmem_event_state {
	LLMEM_EVENT_COMPLETE = 0,
	/* Submitted to the device, not known done. */
	LLMEM_EVENT_SUBMITTED = 1,
	/* In a batch not yet submitted, or a user event not yet set. */
	LLMEM_EVENT_QUEUED = 2,
};

/**
 * llmem_event_status() - where @event stands, without waiting (PyOpenCL's
 * command_execution_status).
 *
 * Finding a transfer's event done retires its work (a read's bytes land)
 * as llmem_event_wait() would.
 *
 * Return: enum llmem_event_state; for a user event set to an error, that
 * error; -EINVAL for NULL; -EIO.
 */
int llmem_event_status(struct llmem_event *event);

/**
 * llmem_event_wait_all() - wait until every event of @events is done.
 * @timeout_ns: for the whole wait; 0 to poll, UINT64_MAX for no limit.
 *
 * Return: 0 when all are done; the first error of an event in list order
 * (a user event set to an error gives that error); -ETIMEDOUT; -EINVAL for
 * NULL or a NULL event; -EBUSY for the event of a batch not yet submitted.
 */
int llmem_event_wait_all(const struct llmem_wait_list *events, uint64_t timeout_ns);

/*
 * Profiling times of a done event, in nanoseconds (PyOpenCL's
 * event.profile): @queued and @submitted on the host's CLOCK_MONOTONIC
 * (when the operation was enqueued, and when its last submission went to
 * the device); @start and @end on the device's timestamp clock, with the
 * device's timestampPeriod applied (a clock of its own: compare them with
 * each other, not with the host's).  An operation cut into several
 * submissions starts with its first and ends with its last; operations of
 * one batch share the batch's times.
 */
struct llmem_event_profile {
	uint64_t queued, submitted, start, end;
};

/**
 * llmem_event_get_profile() - the profiling times of @event.
 *
 * Return: 0; -EINVAL for NULL arguments or a user event; -EBUSY while the
 * event is not done (wait for it first); -ENOTSUP when its queue was made
 * without LLMEM_QUEUE_PROFILING.
 */
int llmem_event_get_profile(struct llmem_event *event, struct llmem_event_profile *profile);

/*
 * Called once when the event is found done (@status 0) or, for a user
 * event, set (@status 0 or its error).  The library runs no thread of its
 * own: the call comes from the thread that finds the event done — a wait or
 * status query of any event of the queue, a later operation on it,
 * llmem_queue_finish() — or that sets the user event, with no lock of the
 * library held: it may enqueue work and release @event.
 */
typedef void (*llmem_event_callback)(struct llmem_event *event, int status, void *user);

/**
 * llmem_event_set_callback() - call @fn(@event, status, @user) once the
 * event is done (PyOpenCL's / OpenCL's clSetEventCallback on complete).
 *
 * One callback per event.  An event already done calls it at once, from
 * this thread.
 *
 * Return: 0; -EINVAL for NULL arguments; -EBUSY when the event has one.
 */
int llmem_event_set_callback(struct llmem_event *event, llmem_event_callback fn, void *user);

/**
 * llmem_user_event_create() - an event the host completes itself
 * (clCreateUserEvent): it may stand in wait lists of any queue of @session
 * and gates what lists it on host-side work.
 *
 * An operation whose wait list holds a user event not yet set waits for it
 * in the calling thread before anything is recorded, as a blocking call
 * waits for its bytes: set user events from another thread, or before
 * enqueuing.  Nothing ever waits for the host on the device, since every
 * queue of a session shares one Vulkan queue and one stalled submission
 * would stall them all.  A user event set to an error fails every
 * operation that lists it (that error, nothing enqueued).
 *
 * Release it with llmem_event_release(), set or not (an operation waiting
 * for it must have returned first).
 *
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int llmem_user_event_create(struct llmem_session *session, struct llmem_event **out);

/**
 * llmem_user_event_set() - complete a user event: @status 0 for success,
 * or a negative errno that fails whatever waits for it.
 *
 * Return: 0; -EINVAL for NULL, an event that is not a user event, a
 * positive status, or an event already set.
 */
int llmem_user_event_set(struct llmem_event *event, int status);

/**
 * llmem_queue_wait_sync_file() - operations enqueued on @queue from now on
 * start once the sync_file @fd has signalled: another device's or
 * process's work on a buffer (llmem_buffer_export_sync_file(), a display's
 * out-fence).
 * @fd: the sync_file; it stays the caller's.
 *
 * Where the device imports sync_file payloads (LLMEM_CAP_SYNC_FD_IMPORT)
 * the wait is the device's: the queue's next submission waits on a
 * semaphore holding the fence, and the call returns at once.  Elsewhere the
 * call waits on the CPU until the fence signals (for as long as it takes).
 * Other queues do not wait.
 *
 * Return: 0; -EINVAL for a NULL queue or an @fd that is not a sync_file;
 * -EBADF for one that is not open; -ENOMEM; -EIO.
 */
int llmem_queue_wait_sync_file(struct llmem_queue *queue, int fd);

/**
 * llmem_queue_signal_sync_file() - a sync_file that signals once every
 * operation enqueued on @queue so far is done, for another device or
 * process to wait for (llmem_buffer_import_sync_file(), a display's
 * in-fence).
 * @fd: receives a new close-on-exec sync_file, the caller's.
 *
 * Needs LLMEM_CAP_SYNC_FD_EXPORT: the queue submits a semaphore whose
 * payload becomes the sync_file.
 *
 * Return: 0; -EINVAL for NULL arguments; -EBUSY with a batch open;
 * -ENOTSUP where the device cannot export sync_files (wait for an event
 * instead); -ENOMEM; -EIO.
 */
int llmem_queue_signal_sync_file(struct llmem_queue *queue, int *fd);

/* Events a new operation must wait for; events of other queues are allowed. */
struct llmem_wait_list {
	uint32_t count;
	struct llmem_event *const *events;
};

/*
 * A rectangular copy between two linear spaces (host memory or buffers),
 * as clEnqueueCopyBufferRect describes one: a box of region[0] bytes by
 * region[1] rows by region[2] slices, at src_origin in the source and
 * dst_origin in the destination, each given in {bytes, rows, slices}.
 */
struct llmem_rect {
	uint64_t src_origin[3];
	uint64_t dst_origin[3];
	/* region[0] must not be 0; leave region[1] and region[2] 0 for 1. */
	uint64_t region[3];
	/* Bytes between rows and between slices; leave 0 for region[0] and
	 * row pitch × region[1] (tightly packed). */
	uint64_t src_pitch[2];
	uint64_t dst_pitch[2];
};

/* A box of an image, in texels; the zero value is the whole image. */
struct llmem_image_region {
	uint32_t origin[3];
	/* Width, height, depth; leave 0 to reach the image's edge. */
	uint32_t extent[3];
};

/* Where an image box lies in a linear space (host memory or a buffer). */
struct llmem_linear_layout {
	/* Bytes to the box's first texel. */
	uint64_t offset;
	/* Bytes between rows and between slices; leave 0 for tightly packed.
	 * In a buffer, multiples of the texel size, and the slice pitch a
	 * multiple of the row pitch (what Vulkan can describe). */
	uint64_t row_pitch;
	uint64_t slice_pitch;
};

/*
 * Common arguments of the operations below:
 * @queue: where the operation runs.
 * @wait_for: NULL, or events that must complete first.
 * @event: NULL for a blocking call, or (out) the operation's event, which the
 *	caller releases with llmem_event_release().
 *
 * Common returns: 0; -EINVAL for NULL objects, a size of 0, a range outside
 * an object, objects or events of another session, an event of a batch not
 * yet submitted; -EPERM when an object lacks the TRANSFER_SRC or
 * TRANSFER_DST usage the path needs; -ENOMEM; -EIO; the error of a user
 * event of @wait_for set to one.
 */

/* @size bytes from @src to [@offset, @offset + @size) of @buffer. */
int llmem_enqueue_write_buffer(struct llmem_queue *queue, struct llmem_buffer *buffer,
			       uint64_t offset, const void *src, uint64_t size,
			       const struct llmem_wait_list *wait_for, struct llmem_event **event);

/* [@offset, @offset + @size) of @buffer to @dst. */
int llmem_enqueue_read_buffer(struct llmem_queue *queue, struct llmem_buffer *buffer,
			      uint64_t offset, void *dst, uint64_t size,
			      const struct llmem_wait_list *wait_for, struct llmem_event **event);

/* Between buffers; -EINVAL when the ranges overlap in memory. */
int llmem_enqueue_copy_buffer(struct llmem_queue *queue, struct llmem_buffer *src,
			      uint64_t src_offset, struct llmem_buffer *dst, uint64_t dst_offset,
			      uint64_t size, const struct llmem_wait_list *wait_for,
			      struct llmem_event **event);

/* Host (the rect's source) to buffer (its destination). */
int llmem_enqueue_write_buffer_rect(struct llmem_queue *queue, struct llmem_buffer *buffer,
				    const void *src, const struct llmem_rect *rect,
				    const struct llmem_wait_list *wait_for,
				    struct llmem_event **event);

/* Buffer (the rect's source) to host (its destination). */
int llmem_enqueue_read_buffer_rect(struct llmem_queue *queue, struct llmem_buffer *buffer,
				   void *dst, const struct llmem_rect *rect,
				   const struct llmem_wait_list *wait_for,
				   struct llmem_event **event);

/* Between buffers; -EINVAL when a source row overlaps a destination row. */
int llmem_enqueue_copy_buffer_rect(struct llmem_queue *queue, struct llmem_buffer *src,
				   struct llmem_buffer *dst, const struct llmem_rect *rect,
				   const struct llmem_wait_list *wait_for,
				   struct llmem_event **event);

/**
 * llmem_enqueue_fill_buffer() - repeat a pattern over a range of @buffer.
 * @pattern_size: 1, 2, 4, 8 or 16 bytes.
 *
 * @offset and @size must be multiples of @pattern_size (-EINVAL).  The
 * device writes the range itself, with no staging: vkCmdFillBuffer for
 * patterns of up to 4 bytes, the fill shader for 8 and 16 bytes when the
 * buffer has STORAGE usage (LLMEM_BUFFER_DEFAULT_USAGE has it).  Bytes
 * outside whole 32-bit words, and 8- and 16-byte patterns in buffers
 * without STORAGE, are copied from a staged tile of the pattern.
 *
 * Needs TRANSFER_DST, except for a word-aligned range of a STORAGE buffer,
 * which the shader fills whatever the pattern (-EPERM otherwise).
 */
int llmem_enqueue_fill_buffer(struct llmem_queue *queue, struct llmem_buffer *buffer,
			      uint64_t offset, uint64_t size, const void *pattern,
			      uint32_t pattern_size, const struct llmem_wait_list *wait_for,
			      struct llmem_event **event);

/*
 * Host and images.  @region: NULL or a box of the image; @host: NULL, or
 * where the box lies around @src/@dst (NULL: tightly packed at @src/@dst).
 */
int llmem_enqueue_write_image(struct llmem_queue *queue, struct llmem_image *image,
			      const struct llmem_image_region *region, const void *src,
			      const struct llmem_linear_layout *host,
			      const struct llmem_wait_list *wait_for, struct llmem_event **event);
int llmem_enqueue_read_image(struct llmem_queue *queue, struct llmem_image *image,
			     const struct llmem_image_region *region, void *dst,
			     const struct llmem_linear_layout *host,
			     const struct llmem_wait_list *wait_for, struct llmem_event **event);

/* Buffers and images; @layout: NULL for tightly packed at offset 0. */
int llmem_enqueue_copy_buffer_to_image(struct llmem_queue *queue, struct llmem_buffer *buffer,
				       const struct llmem_linear_layout *layout,
				       struct llmem_image *image,
				       const struct llmem_image_region *region,
				       const struct llmem_wait_list *wait_for,
				       struct llmem_event **event);
int llmem_enqueue_copy_image_to_buffer(struct llmem_queue *queue, struct llmem_image *image,
				       const struct llmem_image_region *region,
				       struct llmem_buffer *buffer,
				       const struct llmem_linear_layout *layout,
				       const struct llmem_wait_list *wait_for,
				       struct llmem_event **event);

/* A colour as VkClearColorValue holds one, channels named R, G, B, A
 * whatever the image's channel order: u32 for the unsigned integer channel
 * types, i32 for the signed ones, f32 for f16, f32 and the normalised types
 * (in [0, 1], [-1, 1] for SNORM; linear colour for SRGB8, which the clear
 * encodes with the sRGB curve). */
union llmem_color {
	float f32[4];
	int32_t i32[4];
	uint32_t u32[4];
};

/**
 * llmem_enqueue_clear_image() - set every texel of a box of @image.
 *
 * Channels beyond the image's are ignored.  The whole image is cleared by
 * the device (vkCmdClearColorImage), a box by a copy of the colour the
 * library encodes as the device would (normalised values rounded to
 * nearest).  Return: also -EINVAL for an integer value that its channel
 * type cannot hold, a normalised value outside its range or NaN.  Needs
 * TRANSFER_DST.
 */
int llmem_enqueue_clear_image(struct llmem_queue *queue, struct llmem_image *image,
			      const struct llmem_image_region *region,
			      const union llmem_color *color,
			      const struct llmem_wait_list *wait_for, struct llmem_event **event);

/**
 * llmem_enqueue_fill_image() - set every texel of a box of @image to
 * @texel, a value of the image's own type (PyOpenCL's enqueue_fill_image).
 * @texel: one texel as the image stores it: llmem_image_channels() values
 *	of the channel type, in the image's channel order (B, G, R, A for
 *	BGRA), little-endian; its bits are copied unchanged.
 * @texel_size: bytes at @texel: llmem_image_texel_size() (-EINVAL otherwise).
 *
 * Where llmem_enqueue_clear_image() converts a colour, this one takes the
 * stored bits, so any value the type holds (a NaN payload, an exact 16-bit
 * level) is written as given.  Needs TRANSFER_DST.
 */
int llmem_enqueue_fill_image(struct llmem_queue *queue, struct llmem_image *image,
			     const struct llmem_image_region *region, const void *texel,
			     uint32_t texel_size, const struct llmem_wait_list *wait_for,
			     struct llmem_event **event);

/* A box copied from one image to another; the zero value copies the whole
 * source to the destination's origin. */
struct llmem_image_copy {
	uint32_t src_origin[3];
	uint32_t dst_origin[3];
	/* Width, height, depth; leave 0 to reach the source's edge. */
	uint32_t extent[3];
};

/**
 * llmem_enqueue_copy_image() - a box of texels from @src to @dst
 * (vkCmdCopyImage; PyOpenCL's enqueue_copy between images).
 * @copy: NULL for the whole of @src at @dst's origin.
 *
 * The images are compatible when their texels have the same size (u8 ×4,
 * unorm8 ×4, srgb8 ×4, BGRA or not, u32 ×1, f16 ×2 …): the bits are copied
 * unchanged, never converted.  Both may be one image when the boxes do not
 * overlap.  Needs TRANSFER_SRC on @src and TRANSFER_DST on @dst.
 *
 * Return: also -EINVAL for texels of different sizes, a box outside either
 * image (a 2D image has a depth of 1, a 1D one a height of 1), or
 * overlapping boxes in one image.
 */
int llmem_enqueue_copy_image(struct llmem_queue *queue, struct llmem_image *src,
			     struct llmem_image *dst, const struct llmem_image_copy *copy,
			     const struct llmem_wait_list *wait_for, struct llmem_event **event);

/**
 * llmem_enqueue_clear_frame() - set every pixel of a rectangle of a frame
 * held in @buffer, in place.
 * @layout: where the frame lies in @buffer (frame.h): one linear
 *	DRM_FORMAT_ABGR8888 plane, with any pitch of at least 4 × width.
 * @region: NULL or a rectangle of the frame in pixels; origin[2] must be 0
 *	and extent[2] 0 or 1.  The zero value is the whole frame.
 * @color: R, G, B and A in u32[0..3], each at most 255.
 *
 * Frames shared with cameras, displays and codecs live in buffers, where
 * llmem_enqueue_clear_image() cannot reach them.  The clear shader writes
 * the rectangle in one dispatch when @buffer has STORAGE usage and the
 * plane's offset and pitch are multiples of 4; otherwise each row is copied
 * from a staged run of the colour, which needs TRANSFER_DST.  Only the
 * rectangle's pixels are written: padding between rows keeps its bytes.
 *
 * Return: also -EINVAL for NULL @layout or @color, a layout that is not one
 * linear ABGR8888 plane, a frame of 0 pixels, a pitch below 4 × width,
 * rows that lie outside @buffer, a rectangle outside the frame, a channel
 * above 255; -EPERM when neither path can write the buffer.
 */
int llmem_enqueue_clear_frame(struct llmem_queue *queue, struct llmem_buffer *buffer,
			      const struct llmem_frame_layout *layout,
			      const struct llmem_image_region *region,
			      const union llmem_color *color,
			      const struct llmem_wait_list *wait_for, struct llmem_event **event);

/**
 * llmem_enqueue_migrate_buffer() - move a buffer's bytes to another memory.
 * @buffer: (in/out) the buffer; on success, a new buffer in @to with the
 *	same size, usage, name and bytes.  The old one is destroyed when the
 *	copy is done; the caller must not use it after the call.
 *
 * Typically between host-visible staging and device-local memory.
 * Return: also -EBUSY when sub-regions of the buffer are alive.
 */
int llmem_enqueue_migrate_buffer(struct llmem_queue *queue, struct llmem_buffer **buffer,
				 struct llmem_memory *to, const struct llmem_wait_list *wait_for,
				 struct llmem_event **event);

/**
 * llmem_enqueue_migrate_image() - move an image's texels to another memory.
 * @image: (in/out) the image; on success, a new image in @to with the same
 *	shape, channel type, usage and name, in the tracked layout (GENERAL),
 *	holding the same texels (a device copy, vkCmdCopyImage).  The old one
 *	is destroyed when the copy is done: before the call returns when it
 *	blocks, otherwise when the event completes (llmem_event_wait(), or a
 *	later operation of the queue finding it done) or, in a batch, with the
 *	batch (also when the batch is discarded or fails: the caller holds the
 *	new image by then, its texels undefined).  The caller must not use the
 *	old one after the call.
 * @to: the memory to move to, of the queue's session, not the image's own.
 *
 * The counterpart of llmem_enqueue_migrate_buffer(), typically between
 * host-visible staging and device-local memory.  Views look at one image
 * and would be left on a destroyed one, so an image with live views is
 * refused: destroy them, migrate, make new views of the new image.
 *
 * On any error *@image is left as it was: the same image, in its memory, its
 * texels and layout untouched; nothing is left in @to.
 *
 * Return: 0; -EINVAL for a NULL queue, image pointer, image or memory,
 * an image or memory of another session than the queue's, @to being the
 * image's memory already, or the common wait-list errors; -EBUSY while
 * views of the image are alive; -EPERM unless the image has both
 * TRANSFER_SRC and TRANSFER_DST usage; -ENOTSUP when @to cannot hold such
 * an image (its memory type, or its sharing's handle type, not allowed for
 * the format and usage); -ENOMEM, also when @to has no room (an import
 * memory without a page large enough); -EIO.
 */
int llmem_enqueue_migrate_image(struct llmem_queue *queue, struct llmem_image **image,
				struct llmem_memory *to, const struct llmem_wait_list *wait_for,
				struct llmem_event **event);

/*
 * Blocking calls without a queue, for programs that want one transfer and
 * its result.  Each is the llmem_enqueue_* operation it names, with no wait
 * list and no event, on a queue the session keeps for them: made on first
 * use with an 8 MiB staging ring (2 MiB chunks), destroyed with the session.
 * They are ordered with the session's other queues like any operation, and
 * calls from several threads are serialised on that queue.
 */

/* llmem_enqueue_copy_buffer(), blocking. */
int llmem_buffer_copy(struct llmem_buffer *src, uint64_t src_offset, struct llmem_buffer *dst,
		      uint64_t dst_offset, uint64_t size);

/**
 * llmem_image_copy_from_buffer() - fill the whole image from @buffer, whose
 * first llmem_image_size() bytes hold the texels tightly packed, row after
 * row: llmem_enqueue_copy_buffer_to_image() of the whole image, blocking.
 *
 * Return: 0; -EINVAL for NULL, a buffer that is too small, or objects of
 * different sessions; -EPERM without TRANSFER_DST on the image or
 * TRANSFER_SRC on the buffer; -ENOMEM; -EIO.
 */
int llmem_image_copy_from_buffer(struct llmem_image *image, struct llmem_buffer *buffer);

/* The reverse, llmem_enqueue_copy_image_to_buffer(): the image's texels into
 * @buffer.  Needs TRANSFER_SRC on the image and TRANSFER_DST on the buffer. */
int llmem_image_copy_to_buffer(struct llmem_image *image, struct llmem_buffer *buffer);

/* llmem_enqueue_write_image() and llmem_enqueue_read_image() of the whole
 * image, tightly packed at @data: @size must equal llmem_image_size(). */
int llmem_image_upload(struct llmem_image *image, const void *data, uint64_t size);
int llmem_image_download(struct llmem_image *image, void *data, uint64_t size);

/**
 * llmem_image_create_from_host() - llmem_image_create(), then
 * llmem_image_upload() of @data.
 * @size: bytes of @data: the image's tightly packed size, deduced from
 *	info's shape and channel type (-EINVAL when it differs).
 *
 * The texels go through the staging ring, so @memory need not be mappable.
 * The image needs LLMEM_IMAGE_TRANSFER_DST.  On failure nothing is left.
 */
int llmem_image_create_from_host(struct llmem_memory *memory,
				 const struct llmem_image_create_info *info, const void *data,
				 uint64_t size, struct llmem_image **out);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_TRANSFER_H */
