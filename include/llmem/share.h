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

#include <stdint.h>

#include <llmem/frame.h>
#include <llmem/memory.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;

/* llmem_memory_create_info.sharing. */
enum llmem_sharing {
	LLMEM_SHARING_NONE = 0,
	/* Pages that can be exported as DMA-BUFs. */
	LLMEM_SHARING_DMABUF = 1,
	/* Pages only from llmem_memory_import_dmabuf(); none are allocated. */
	LLMEM_SHARING_IMPORT = 2,
};

/* Where a memory's pages come from (llmem_memory_info.backend). */
enum llmem_backend {
	/* Plain Vulkan memory: cannot be shared. */
	LLMEM_BACKEND_VULKAN = 0,
	LLMEM_BACKEND_VULKAN_DMABUF = 1,
	LLMEM_BACKEND_LLMEM_DMABUF = 2,
	LLMEM_BACKEND_LLMEM_HOST_POINTER = 3,
	/* LLMEM_SHARING_IMPORT: foreign DMA-BUFs imported as such, or their
	 * mapping imported as a host pointer. */
	LLMEM_BACKEND_IMPORT_DMABUF = 4,
	LLMEM_BACKEND_IMPORT_HOST_POINTER = 5,
};

/* "vulkan", "vulkan-dmabuf", "llmem-dmabuf", "llmem-host-pointer",
 * "import-dmabuf", "import-host-pointer"; "unknown" otherwise. */
const char *llmem_backend_name(uint32_t backend);

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
 * llmem_buffer_export() - a buffer as {fd, offset, size}.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOTSUP when the buffer's memory is
 * not shared.
 */
int llmem_buffer_export(struct llmem_buffer *buffer, struct llmem_dmabuf_region *out);

/**
 * llmem_buffer_export_frame() - a frame laid out in a buffer, for importers.
 * @layout: where the frame lies in @buffer (llmem_frame_layout_init()).
 *
 * Return: 0; -EINVAL for NULL arguments or a layout that does not fit the
 * buffer; -ENOTSUP when the buffer's memory is not shared.
 */
int llmem_buffer_export_frame(struct llmem_buffer *buffer, const struct llmem_frame_layout *layout,
			      struct llmem_dmabuf_frame *out);

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
 * (end).  On memory that is not shared these do nothing and return 0.
 *
 * Return: 0; -EINVAL for NULL or unknown @access bits; the ioctl's errno.
 */
int llmem_buffer_begin_cpu_access(struct llmem_buffer *buffer, uint32_t access);
int llmem_buffer_end_cpu_access(struct llmem_buffer *buffer, uint32_t access);

#ifdef __cplusplus
}
#endif

#endif
