/* SPDX-License-Identifier: MIT */
/*
 * Sharing pages with other devices and processes as DMA-BUFs.
 *
 * A memory created with llmem_memory_create_info.sharing =
 * LLMEM_SHARING_DMABUF gets every page from a backend that puts a DMA-BUF
 * behind it, the best the machine has, in this order:
 *   1. Vulkan exports the DMA-BUF itself (VK_EXT_external_memory_dma_buf);
 *   2. llmem.ko allocates it and Vulkan imports it as a DMA-BUF;
 *   3. llmem.ko allocates it and Vulkan imports its mapping as a host
 *      pointer (VK_EXT_external_memory_host).
 * Each is probed at creation; when none works creation fails with -ENOTSUP
 * and a message naming what each one lacked.  The memory reports its choice
 * in llmem_memory_info.backend.
 *
 * Every fd these calls return is new, close-on-exec and the caller's to
 * close; every fd they take stays the caller's.
 *
 * Thread-safety: as for the memory and buffer these calls act on.
 */
#ifndef LLMEM_SHARE_H
#define LLMEM_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "memory.h"
#include "negotiate.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;

/**
 * struct llmem_dmabuf_region - a buffer as a DMA-BUF importers take it.
 * @fd: the page's DMA-BUF; the caller's to close.
 * @offset: where the buffer starts inside it.
 * @size: the buffer's bytes.
 */
struct llmem_dmabuf_region {
	int fd;
	uint32_t reserved;
	uint64_t offset;
	uint64_t size;
};

/**
 * struct llmem_dmabuf_frame - a frame as V4L2, drmModeAddFB2 and codecs take it.
 * @fd: the page's DMA-BUF; the caller's to close.
 * @fourcc: DRM fourcc.
 * @width: pixels.
 * @height: pixels.
 * @num_planes: planes described below.
 * @modifier: DRM_FORMAT_MOD_LINEAR.
 * @offset: each plane's offset from the start of the DMA-BUF.
 * @pitch: each plane's bytes per row.
 */
struct llmem_dmabuf_frame {
	int fd;
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t num_planes;
	uint32_t reserved;
	uint64_t modifier;
	uint64_t offset[LLMEM_FRAME_MAX_PLANES];
	uint32_t pitch[LLMEM_FRAME_MAX_PLANES];
};

/**
 * llmem_memory_export_page() - a page of a shared memory as a DMA-BUF.
 * @fd: receives the new fd.
 *
 * Return: 0; -EINVAL for NULL arguments or no live page @page; -ENOTSUP for
 * a memory that is not shared; -EIO when the driver fails.
 */
int llmem_memory_export_page(struct llmem_memory *memory, uint32_t page, int *fd);

/**
 * llmem_memory_import_dmabuf() - a foreign DMA-BUF as a new page.
 * @memory: a memory created with LLMEM_SHARING_IMPORT.
 * @fd: the DMA-BUF (from VIDIOC_EXPBUF, a DMA heap, another process); it
 *      stays the caller's, the page holds its own reference.
 * @size: bytes to import, at most the DMA-BUF's size; 0 for all of it.
 * @page: receives the page's index.
 *
 * Objects created in @memory afterwards are laid out in imported pages; the
 * page lives until the memory is destroyed.
 *
 * Return: 0; -EINVAL for NULL arguments, a memory not made for imports, a
 * @size past the DMA-BUF's end; -EBADF for an fd that is not open;
 * -ENOTSUP when the device cannot import it into this memory's type.
 */
int llmem_memory_import_dmabuf(struct llmem_memory *memory, int fd, uint64_t size, uint32_t *page);

/**
 * llmem_memory_import_host() - wrap host memory the caller allocated as a page.
 * @memory: a memory created with LLMEM_SHARING_IMPORT and backend
 *	LLMEM_BACKEND_IMPORT_HOST_POINTER, whose flags match a memory type
 *	the device imports host memory into (LLMEM_MEMORY_HOST_VISIBLE).
 * @ptr: the start of the memory (malloc'ed, mmap'ed, a file mapping), a
 *	multiple of llmem_session_info.min_imported_host_pointer_alignment.
 * @size: bytes, a non-zero multiple of that alignment.
 * @page: receives the page's index.
 *
 * The device reads and writes @ptr in place (VK_EXT_external_memory_host),
 * as objects laid out in the page: the counterpart of OpenCL's SVM.  The
 * allocation stays the caller's: it is never freed nor unmapped by llmem, and
 * must stay alive and mapped until @memory is destroyed.  The page lives
 * until then.  Device writes are visible in @ptr once the work that made
 * them has completed (a blocking transfer, llmem_event_wait()).
 *
 * Return: 0; -EINVAL for NULL arguments, a memory not made for host imports,
 * or a pointer or size that is not a multiple of the alignment (the message
 * names it); -ENOTSUP when the device cannot import host memory into this
 * memory's type; -ENOMEM.
 */
int llmem_memory_import_host(struct llmem_memory *memory, void *ptr, uint64_t size, uint32_t *page);

/**
 * llmem_memory_create_from_host() - a memory over host bytes the caller
 * owns, at any address and of any size: PyOpenCL's coarse-grained SVM
 * (a malloc'ed block, a mapping, a pointer into the middle of either).
 * @ptr: the first byte; any alignment.
 * @size: bytes from @ptr, not 0.
 * @name: for messages and listings; copied; NULL for "host".
 * @out: receives the memory, an LLMEM_SHARING_IMPORT memory of backend
 *	LLMEM_BACKEND_IMPORT_HOST_POINTER with one page and no more.
 * @offset: receives where @ptr lies in that page (page 0).
 *
 * The page is the span of whole minImportedHostPointerAlignment units that
 * encloses [@ptr, @ptr + @size): it starts @offset bytes before @ptr and may
 * reach past its end.  Objects are laid out in it as in any memory; a buffer
 * of the page's size (llmem_memory_get_info()'s bytes_reserved) covers it
 * all, the caller's bytes at [@offset, @offset + @size) of the buffer.  The
 * bytes around the caller's in those units belong to whatever else the
 * process keeps there: touch only the caller's range.
 *
 * Both directions see each other's writes at the points coarse-grained SVM
 * names: the device sees what the host wrote before enqueuing the work, the
 * host sees what the device wrote once that work is done (a blocking call
 * returned, llmem_event_wait()).  Where the imported memory type is not
 * HOST_COHERENT (llmem_memory_info.coherent), llmem_memory_flush_page() and
 * llmem_memory_invalidate_page() of page 0 are the map and unmap in between.
 * The allocation stays the caller's and must outlive the memory.
 *
 * Return: 0; -EINVAL for NULL arguments, size 0 or a range that wraps
 * around; -EFAULT when part of the enclosing units is not mapped in this
 * process (mincore(); a mapping without access is not detected: keep the
 * range readable and writable); -ENOTSUP where the device cannot import
 * host memory (LLMEM_CAP_HOST_POINTER_IMPORT); the driver's failure, as
 * llmem_memory_import_host() gives it; -ENOMEM.
 */
int llmem_memory_create_from_host(struct llmem_session *session, void *ptr, uint64_t size,
				  const char *name, struct llmem_memory **out, uint64_t *offset);

/**
 * llmem_memory_export_page_opaque_fd() - a page of an LLMEM_SHARING_OPAQUE_FD
 * memory as an opaque fd (vkGetMemoryFdKHR).
 * @fd: receives a new close-on-exec fd, the caller's: close it, or hand it to
 *	an importer that takes ownership (cuImportExternalMemory does, on
 *	success; llmem_cuda_import_page() calls this itself).
 *
 * Return: 0; -EINVAL for NULL arguments or no live page @page; -ENOTSUP for a
 * memory of another sharing mode; -EIO when the driver fails.
 */
int llmem_memory_export_page_opaque_fd(struct llmem_memory *memory, uint32_t page, int *fd);

/**
 * llmem_buffer_export() - a buffer as {fd, offset, size}.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOTSUP when the buffer's memory is
 * not shared.
 */
int llmem_buffer_export(struct llmem_buffer *buffer, struct llmem_dmabuf_region *out);

/**
 * llmem_buffer_export_range() - a buffer as a DMA-BUF of its own, whose
 * first byte is the buffer's: {fd, 0, size}.
 *
 * V4L2 takes no offset into a capture DMA-BUF, so frames sub-allocated in
 * one page reach a camera each as a DMA-BUF over its own bytes of the page
 * (llmem.ko's LLMEM_IOC_EXPORT_RANGE): they share the page's memory, and
 * llmem.ko tracks each fd as a buffer of its own.  The buffer must start at
 * a multiple of 4096 in its page (llmem_buffer_create_info.alignment); the
 * DMA-BUF covers the whole pages its bytes touch, so @out->size is the
 * buffer's size rounded up to 4096.
 *
 * Return: 0; -EINVAL for NULL arguments or a buffer that does not start at
 * a multiple of 4096; -ENOTSUP for a memory that is not shared or whose
 * pages are not llmem.ko's (backends llmem-dmabuf and llmem-host-pointer,
 * or imports of llmem.ko's DMA-BUFs); -ENODEV without /dev/llmem; the
 * ioctl's errno otherwise.
 */
int llmem_buffer_export_range(struct llmem_buffer *buffer, struct llmem_dmabuf_region *out);

/* Flags of llmem_buffer_export_frame(). */
enum llmem_export_flags {
	/* The frame in a DMA-BUF of the buffer's own (as
	 * llmem_buffer_export_range() makes it), offsets counted from the
	 * buffer's first byte; without it, the page's DMA-BUF, offsets counted
	 * from the page's. */
	LLMEM_EXPORT_RANGE = 1u << 0,
	/* For an importer that takes no offset into a DMA-BUF (V4L2 capture):
	 * the frame's first plane must start at the fd's first byte, -EINVAL
	 * otherwise. */
	LLMEM_EXPORT_NO_OFFSET = 1u << 1,
};

/**
 * llmem_buffer_export_frame() - a frame laid out in a buffer, for importers.
 * @layout: where the frame lies in @buffer (llmem_frame_layout_init()).
 * @flags: enum llmem_export_flags; 0 for the page's DMA-BUF and the frame's
 *	offsets in it, what DRM/KMS (drmModeAddFB2) and codecs that take an
 *	offset want.
 *
 * Return: 0; -EINVAL for NULL arguments, unknown flags, a layout that is
 * not of a format llmem_frame_layout_init() makes (fourcc, planes, linear
 * modifier) or has a plane outside its size, a layout that does not fit the
 * buffer, or with LLMEM_EXPORT_NO_OFFSET a frame that does not
 * start at the fd's first byte (the message says where it starts); the
 * errors of llmem_buffer_export_range() with LLMEM_EXPORT_RANGE; -ENOTSUP
 * when the buffer's memory is not shared.
 */
int llmem_buffer_export_frame(struct llmem_buffer *buffer, const struct llmem_frame_layout *layout,
			      uint32_t flags, struct llmem_dmabuf_frame *out);

/* Directions for llmem_buffer_begin_cpu_access(), as DMA_BUF_SYNC_*. */
enum llmem_cpu_access {
	LLMEM_CPU_READ = 1u << 0,
	LLMEM_CPU_WRITE = 1u << 1,
};

/**
 * llmem_buffer_begin_cpu_access() - bracket CPU access to a shared buffer.
 * @access: enum llmem_cpu_access bits.
 *
 * Issues DMA_BUF_IOCTL_SYNC on the page's DMA-BUF so that the exporter makes
 * device writes visible to the CPU (begin) and CPU writes visible to devices
 * (end).  On pages with no DMA-BUF behind them (memory that is not shared,
 * wrapped host memory, opaque fds) these do nothing and return 0.
 *
 * Return: 0; -EINVAL for NULL or unknown @access bits; the ioctl's errno.
 */
int llmem_buffer_begin_cpu_access(struct llmem_buffer *buffer, uint32_t access);
int llmem_buffer_end_cpu_access(struct llmem_buffer *buffer, uint32_t access);

/**
 * llmem_dmabuf_begin_cpu_access() - bracket CPU access to any DMA-BUF.
 * @fd: a DMA-BUF (llmem's, a camera's VIDIOC_EXPBUF, a codec's, a heap's);
 *	it stays the caller's.
 * @access: enum llmem_cpu_access bits, at least one.
 *
 * DMA_BUF_IOCTL_SYNC's start (begin) and end, retried when a signal
 * interrupts it: every CPU read or write of a mapping of a DMA-BUF that a
 * device also uses goes between the two, with the same @access.
 *
 * Return: 0; -EINVAL for no or unknown @access bits or an @fd that is not a
 * DMA-BUF; -EBADF for one that is not open; the ioctl's errno otherwise.
 */
int llmem_dmabuf_begin_cpu_access(int fd, uint32_t access);
int llmem_dmabuf_end_cpu_access(int fd, uint32_t access);

/**
 * llmem_dmabuf_map() - map part of a DMA-BUF for the CPU.
 * @fd: a DMA-BUF; it stays the caller's, and may be closed while the
 *	mapping lives (the mapping holds the buffer).
 * @offset: where the mapping starts: a multiple of the CPU's page size.
 * @size: bytes, above 0.
 * @access: enum llmem_cpu_access bits, at least one: the mapping's
 *	protection.
 * @ptr: receives the mapping, for llmem_dmabuf_unmap() with the same @size.
 *
 * Access through it still needs the brackets above.  Some exporters have no
 * mmap (CUDA's nv_dmabuf answers -ENOTSUP, a Vulkan driver's may too).
 * Thread-safe.
 *
 * Return: 0; -EINVAL for NULL @ptr, a size of 0, an unaligned @offset,
 * @offset + @size past the largest file offset, or bad @access bits; -EBADF
 * for an fd that is not open; mmap's errno otherwise (-ENODEV for an fd
 * that cannot be mapped).
 */
int llmem_dmabuf_map(int fd, uint64_t offset, uint64_t size, uint32_t access, void **ptr);
/* Unmaps what llmem_dmabuf_map() mapped; NULL is a no-op.  -EINVAL for a
 * size of 0, munmap's errno otherwise. */
int llmem_dmabuf_unmap(void *ptr, uint64_t size);

/* llmem_dmabuf_state.known: which counts llmem.ko could see.  A count whose
 * bit is clear reads 0 and is unknown, not zero. */
enum llmem_dmabuf_known {
	LLMEM_DMABUF_KNOWN_ATTACHMENTS = 1u << 0,
	/* device_maps and device_write_maps. */
	LLMEM_DMABUF_KNOWN_DEVICE_MAPS = 1u << 1,
	LLMEM_DMABUF_KNOWN_CPU_MMAPS = 1u << 2,
	LLMEM_DMABUF_KNOWN_VMAPS = 1u << 3,
	/* fences and write_fences. */
	LLMEM_DMABUF_KNOWN_FENCES = 1u << 4,
	/* LLMEM_DMABUF_CPU_MAPPABLE in flags. */
	LLMEM_DMABUF_KNOWN_MAPPABLE = 1u << 5,
	/* pins (llmem.ko's own buffers only). */
	LLMEM_DMABUF_KNOWN_PINS = 1u << 6,
};

/* llmem_dmabuf_state.flags. */
enum llmem_dmabuf_flags {
	/* llmem.ko exported the buffer: every count is known. */
	LLMEM_DMABUF_EXPORTED_BY_LLMEM = 1u << 0,
	/* The CPU may map it now: no device mapping that lets a device write
	 * and no unsignalled write fence (only with
	 * LLMEM_DMABUF_KNOWN_MAPPABLE). */
	LLMEM_DMABUF_CPU_MAPPABLE = 1u << 1,
	/* Its pages are physically contiguous (never set for a buffer llmem.ko
	 * did not export). */
	LLMEM_DMABUF_CONTIGUOUS = 1u << 2,
};

/* Length of llmem_dmabuf_state.exporter and .name, NUL included. */
#define LLMEM_DMABUF_NAME_LEN 32

/**
 * struct llmem_dmabuf_state - what llmem.ko's tracker sees of a DMA-BUF.
 * @known: enum llmem_dmabuf_known.
 * @flags: enum llmem_dmabuf_flags.
 * @size: the buffer's bytes.
 * @attachments: devices attached.
 * @device_maps: mappings of those attachments outstanding.
 * @device_write_maps: those of @device_maps that let the device write.
 * @cpu_mmaps: user-space mappings (VMAs) of the buffer.
 * @vmaps: kernel vmap references: an importer that does not attach
 *	(videobuf2-vmalloc, vivid's default) shows up here.
 * @fences: unsignalled fences on the buffer.
 * @write_fences: those of @fences a writer added.
 * @pins: attachments holding a pin on the buffer: an importer that pins
 *	(an RDMA NIC registering it, dma_buf_pin()), and, for a buffer
 *	exported with pin and unpin, every importer the kernel pins for
 *	(a static one, or a mapped one without CONFIG_DMABUF_MOVE_NOTIFY, as
 *	in Debian's kernels).  llmem.ko's pages never move: a pin does not
 *	make a buffer unmappable.
 * @exporter: the exporter's name ("llmem", "udmabuf", "videobuf2_vmalloc",
 *	...), NUL-terminated.
 * @name: the name given with DMA_BUF_SET_NAME, or "".
 *
 * As with the other structs the library fills, fields may be added at the
 * end; the call writes every byte of the struct it knows.
 */
struct llmem_dmabuf_state {
	uint32_t known;
	uint32_t flags;
	uint64_t size;
	uint32_t attachments;
	uint32_t device_maps;
	uint32_t device_write_maps;
	uint32_t cpu_mmaps;
	uint32_t vmaps;
	uint32_t fences;
	uint32_t write_fences;
	uint32_t pins;
	char exporter[LLMEM_DMABUF_NAME_LEN];
	char name[LLMEM_DMABUF_NAME_LEN];
};

/*
 * Explicit sync: a DMA-BUF carries the fences of the work that reads and
 * writes it (its reservation object).  The calls below turn them into a
 * sync_file for whoever must wait (export), and add a sync_file of the
 * caller's to them before the buffer is handed on (import), through
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE and DMA_BUF_IOCTL_IMPORT_SYNC_FILE (Linux
 * 6.0 and later).  Queues wait for and signal sync_files in transfer.h.
 */

/* What the access a fence is exported for or imported as is. */
enum llmem_sync_access {
	/* Export: the fences a reader must wait for (those of writers).
	 * Import: the fence of a reader. */
	LLMEM_SYNC_READ = 1u << 0,
	/* Export: the fences a writer must wait for (all of them).
	 * Import: the fence of a writer. */
	LLMEM_SYNC_WRITE = 1u << 1,
};

/**
 * llmem_dmabuf_export_sync_file() - the fences of DMA-BUF @dmabuf that an
 * access of @access must wait for, as one sync_file.
 * @dmabuf: any DMA-BUF; it stays the caller's.
 * @access: enum llmem_sync_access bits, at least one.
 * @fd: receives a new close-on-exec sync_file, the caller's.  It is
 *	signalled already when there is nothing to wait for.
 *
 * Return: 0; -EINVAL for NULL @fd, no or unknown @access bits, or a
 * @dmabuf that is not a DMA-BUF (or a kernel older than 6.0); -EBADF for
 * one that is not open; the ioctl's errno otherwise.
 */
int llmem_dmabuf_export_sync_file(int dmabuf, uint32_t access, int *fd);

/**
 * llmem_dmabuf_import_sync_file() - add the fence of sync_file @fd to
 * DMA-BUF @dmabuf as the fence of a reader or a writer (@access: exactly
 * one of LLMEM_SYNC_READ, LLMEM_SYNC_WRITE).  Both fds stay the caller's.
 *
 * Importers that sync implicitly (a display, a camera, mmap with
 * DMA_BUF_IOCTL_SYNC) then wait for it.
 *
 * Return: 0; -EINVAL for bad @access bits, a @dmabuf that is not a DMA-BUF
 * or an @fd that is not a sync_file; -EBADF for an fd that is not open;
 * the ioctl's errno otherwise.
 */
int llmem_dmabuf_import_sync_file(int dmabuf, uint32_t access, int fd);

/* The same for the DMA-BUF of @buffer's page.  -ENOTSUP for a buffer of a
 * memory with no DMA-BUF behind its pages (not shared, wrapped host memory,
 * opaque fds). */
int llmem_buffer_export_sync_file(struct llmem_buffer *buffer, uint32_t access, int *fd);
int llmem_buffer_import_sync_file(struct llmem_buffer *buffer, uint32_t access, int fd);

/**
 * llmem_sync_file_wait() - wait until sync_file @fd has signalled.
 * @timeout_ms: 0 to poll, negative to wait for as long as it takes.
 *
 * Return: 0 when signalled; -ETIMEDOUT; -EINVAL for an fd that is not a
 * sync_file; -EBADF for one that is not open.
 */
int llmem_sync_file_wait(int fd, int timeout_ms);

/**
 * llmem_dmabuf_query() - ask llmem.ko who holds a DMA-BUF and how.
 * @fd: any DMA-BUF the caller holds (llmem's own pages, Vulkan's exports,
 *	VIDIOC_EXPBUF, a DMA heap, another process); it stays the caller's and
 *	is never closed.
 * @state: receives the counts; all zero (nothing known) on failure.
 *
 * Opens /dev/llmem, issues LLMEM_IOC_INFO on @fd and closes it again: one
 * open, one ioctl and one close per call.  For llmem's own buffers every
 * count is known; for a foreign one only the attachments, vmaps and fences
 * (docs/uapi.md).  The call has no side effect on the buffer: INFO answers
 * for any DMA-BUF without LLMEM_IOC_TRACK, so the buffer is not tracked (a
 * track taken through the call's own /dev/llmem file would end at its close
 * anyway).  The counts are a snapshot: importers may come and go as soon as
 * it returns.
 *
 * Thread-safe: it shares no state between calls.
 *
 * Return: 0, or, checked in this order: -EINVAL for a NULL @state; -EBADF
 * for a negative @fd or one that is not open; -ENODEV when /dev/llmem does
 * not exist (llmem.ko is not loaded); -EINVAL for an @fd that is not a
 * DMA-BUF; open()'s or the ioctl's errno otherwise.
 */
int llmem_dmabuf_query(int fd, struct llmem_dmabuf_state *state);

/**
 * struct llmem_shared_object - an object of a page sent to another process.
 * @offset: where it starts in the page.
 * @size: its bytes.
 * @kind: enum llmem_object_kind.
 * @reserved: zero.
 * @name: its debug name, NUL-terminated.
 */
struct llmem_shared_object {
	uint64_t offset;
	uint64_t size;
	uint32_t kind;
	uint32_t reserved;
	char name[64];
};

/**
 * llmem_share_send_page() - send a page and the layout of its objects.
 * @sock: a connected AF_UNIX socket; stays the caller's.
 * @memory: a shared memory.
 * @page: the page to send.
 *
 * One message carries the page's DMA-BUF (SCM_RIGHTS), its size and the
 * {offset, size, kind, name} of every object on it, so that the receiver can
 * rebuild them with llmem_share_recv_page().  Blocking.
 *
 * Return: 0; -EINVAL for NULL or no live page @page; -ENOTSUP for memory that
 * is not shared; sendmsg()'s errno.
 */
int llmem_share_send_page(int sock, struct llmem_memory *memory, uint32_t page);

/**
 * llmem_share_recv_page() - receive a page and rebuild its buffers.
 * @sock: a connected AF_UNIX socket; stays the caller's.
 * @memory: an LLMEM_SHARING_IMPORT memory with no imported page that has
 *          room left (a fresh one is simplest).
 * @objects: receives the sender's objects, in its creation order.
 * @buffers: receives, for each object that is a buffer, a buffer over the
 *           same bytes of the same memory; NULL for images, whose tiled
 *           layout belongs to the sender's device.  The caller destroys them.
 * @capacity: entries in @objects and @buffers.
 * @page: receives the new page's index.
 *
 * Blocking.  The page stays in @memory until the memory is destroyed; a
 * receive that fails keeps no page.
 *
 * Return: the number of objects received; -EINVAL for NULL arguments or a
 * memory not made for imports; -EPROTO for a message that is not a page;
 * -ENOSPC when more than @capacity objects came (nothing is kept);
 * -ECONNRESET when the peer closed the socket; recvmsg()'s errno; the
 * import's errors.
 */
int llmem_share_recv_page(int sock, struct llmem_memory *memory,
			  struct llmem_shared_object *objects, struct llmem_buffer **buffers,
			  uint32_t capacity, uint32_t *page);

/*
 * Negotiation across processes: each side sends what its devices accept
 * (struct llmem_participant, negotiate.h), the allocating side merges them
 * with llmem_negotiate() and sends back the layout (struct
 * llmem_negotiated), then the frames (llmem_share_send_page()).
 *
 * On the wire each is one message in an explicit encoding: a 24-byte
 * header (magic "LLMEMNEG", version, type, count, length) and the fields
 * little-endian at fixed offsets, never a struct's bytes; docs/api.md has
 * the table.  A peer's message is untrusted: it is checked whole (lengths,
 * counts, enums, flag bits, zero reserved fields and padding, names
 * NUL-terminated and free of control characters, a layout whose planes lie
 * in the frame) before a field is used.  Whether a statement is consistent
 * (a minimum past its maximum) is llmem_negotiate()'s to say, naming it.
 *
 * Versioning: a message carries its version; any change to the encoding
 * (a field, an enum value, a flag bit) makes a new version, and a receiver
 * refuses versions it does not speak with -EPROTO naming them.  This
 * library speaks LLMEM_NEGOTIATE_WIRE_MIN_VERSION to
 * LLMEM_NEGOTIATE_WIRE_VERSION and sends each message in the lowest
 * version that holds it: version 2 adds coded sizes (frame.h's padding),
 * what participants state of them and the result's coded size, so a
 * message that says nothing of padding is version 1, which readers of
 * version 1 read as before.  One that does is refused by them by its
 * version, never misread.
 *
 * The encode and decode calls touch only their arguments (thread-safe);
 * the socket calls are blocking, retry on EINTR, and pass no fds.  After a
 * -EPROTO or a transport error the stream's framing is lost: close it.
 */
#define LLMEM_NEGOTIATE_WIRE_VERSION 2
#define LLMEM_NEGOTIATE_WIRE_MIN_VERSION 1
/* Bytes of the largest message: a statement of 16 participants of 32
 * formats of 8 modifiers each, in version 2. */
#define LLMEM_NEGOTIATE_WIRE_MAX 59800

/**
 * llmem_negotiate_encode_statement() - participants' statements as a message.
 * @participants: what each accepts; names NUL-terminated and not empty.
 * @count: 1 to LLMEM_NEGOTIATE_MAX_PARTICIPANTS.
 * @buf: receives the message; NULL with @capacity 0 to learn its size.
 * @capacity: bytes at @buf.
 *
 * Return: the message's bytes (at most LLMEM_NEGOTIATE_WIRE_MAX); -EINVAL
 * for NULL @participants, a @count out of range, or a statement the wire
 * cannot carry: a name without its NUL, empty or with a control character,
 * an unknown kind, fact source, flag or field bit, counts of formats or
 * modifiers past their maximum, a non-zero reserved field; -ENOSPC when
 * @capacity is too small.
 */
int llmem_negotiate_encode_statement(const struct llmem_participant *participants, uint32_t count,
				     void *buf, size_t capacity);

/**
 * llmem_negotiate_decode_statement() - a message's participants.
 * @buf: one whole message.
 * @len: its bytes.
 * @participants: receives them, each zeroed past what the message states.
 * @capacity: entries at @participants.
 * @count: receives how many came.
 *
 * Return: 0; -EINVAL for NULL arguments; -EPROTO for a message that is
 * malformed (wrong magic, version or type, truncated or with bytes past
 * its end, counts past their limits, and anything encode refuses); -ENOSPC
 * when more than @capacity came.  The message names what is wrong.  On
 * failure *@count is left alone and @participants may hold part of the
 * message.
 */
int llmem_negotiate_decode_statement(const void *buf, size_t len,
				     struct llmem_participant *participants, uint32_t capacity,
				     uint32_t *count);

/**
 * llmem_negotiate_encode_result() - a negotiated layout as a message.
 * @result: from llmem_negotiate(); its layout one llmem_frame_layout_init()
 *	makes (a known fourcc and its planes, linear, every plane inside the
 *	size); planes past num_planes are sent as zero.
 * @buf: receives the message; NULL with @capacity 0 to learn its size.
 * @capacity: bytes at @buf.
 *
 * Return: the message's bytes; -EINVAL for NULL @result, a layout as above
 * that is not, or constraints the wire cannot carry (unknown flag or field
 * bits, a non-zero reserved field); -ENOSPC when @capacity is too small.
 */
int llmem_negotiate_encode_result(const struct llmem_negotiated *result, void *buf,
				  size_t capacity);

/**
 * llmem_negotiate_decode_result() - a message's negotiated layout.
 *
 * Return: 0; -EINVAL for NULL arguments; -EPROTO for a malformed message,
 * as llmem_negotiate_decode_statement() says, or a layout whose planes do
 * not lie in its frame.
 */
int llmem_negotiate_decode_result(const void *buf, size_t len, struct llmem_negotiated *result);

/**
 * llmem_negotiate_send_statement() - send participants' statements.
 * @sock: a connected stream socket (AF_UNIX); stays the caller's.
 *
 * Return: 0; the errors of llmem_negotiate_encode_statement(); send()'s
 * errno (-EPIPE when the peer has gone: no SIGPIPE is raised).
 */
int llmem_negotiate_send_statement(int sock, const struct llmem_participant *participants,
				   uint32_t count);

/**
 * llmem_negotiate_recv_statement() - receive a peer's statements.
 * @sock: a connected stream socket; stays the caller's.
 *
 * Reads exactly one message, so that the next one starts where it ends,
 * also when it answers -ENOSPC.  Fds a peer sends along are closed unseen.
 *
 * Return: 0; the errors of llmem_negotiate_decode_statement(); -EPROTO for
 * a header that is not a negotiation statement (nothing more is read);
 * -ECONNRESET when the peer closed the socket; -ENOMEM; recv()'s errno
 * (-EAGAIN past a SO_RCVTIMEO).
 */
int llmem_negotiate_recv_statement(int sock, struct llmem_participant *participants,
				   uint32_t capacity, uint32_t *count);

/* The same for a negotiated layout, with the errors of
 * llmem_negotiate_encode_result() and llmem_negotiate_decode_result(). */
int llmem_negotiate_send_result(int sock, const struct llmem_negotiated *result);
int llmem_negotiate_recv_result(int sock, struct llmem_negotiated *result);

/* The kernel's allocators of DMA-BUFs that need no GPU. */
enum llmem_dmabuf_provider_kind {
	LLMEM_DMABUF_PROVIDER_LLMEM = 1, /* llmem.ko's /dev/llmem */
	LLMEM_DMABUF_PROVIDER_UDMABUF = 2, /* /dev/udmabuf */
	LLMEM_DMABUF_PROVIDER_HEAP = 3, /* a DMA heap, /dev/dma_heap/NAME */
};

/**
 * struct llmem_dmabuf_provider - a kernel allocator of DMA-BUFs and
 * whether this process may use it.
 * @kind: enum llmem_dmabuf_provider_kind.
 * @name: "llmem", "udmabuf", or the heap's name ("system").
 * @path: its node.
 * @present: 1 when the node exists.
 * @error: 0 when the node opens read-write (it is opened and closed, since
 *         a node the caller may not open is of no use to it), or open()'s
 *         negative errno (-EACCES); -ENOENT when not @present.
 * @has_max_bytes: 1 when @max_bytes is known: llmem.ko loaded, its
 *                 parameter readable in sysfs.
 * @max_bytes: the bytes llmem.ko hands out at most (its max_bytes).
 */
struct llmem_dmabuf_provider {
	uint32_t kind;
	char name[64];
	char path[96];
	uint32_t present;
	int32_t error;
	uint32_t has_max_bytes;
	uint64_t max_bytes;
};

/**
 * llmem_dmabuf_provider_get() - /dev/llmem or /dev/udmabuf, described.
 * @kind: LLMEM_DMABUF_PROVIDER_LLMEM or LLMEM_DMABUF_PROVIDER_UDMABUF.
 * @provider: receives it; a missing node is described as such, not an
 *            error.
 *
 * Return: 0; -EINVAL for NULL @provider or another @kind (a heap has a
 * name: llmem_dma_heap_list()).
 */
int llmem_dmabuf_provider_get(uint32_t kind, struct llmem_dmabuf_provider *provider);

/**
 * llmem_dma_heap_list() - every DMA heap (/dev/dma_heap/NAME), by name.
 * @heaps: receives up to @capacity of them; may be NULL with @capacity 0.
 * @capacity: entries in @heaps.
 *
 * Return: the number of heaps (more than @capacity when they did not all
 * fit), 0 when /dev/dma_heap does not exist (kernels without heaps);
 * -EINVAL for NULL @heaps with a @capacity; -ENOMEM; scandir()'s errno
 * for a /dev/dma_heap it cannot read.
 */
int llmem_dma_heap_list(struct llmem_dmabuf_provider *heaps, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif
