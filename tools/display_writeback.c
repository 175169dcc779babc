// SPDX-License-Identifier: MIT
/*
 * The writeback connector's frame (display_writeback.h): what the display
 * really scanned out, read back by the CPU, so that a test can tell a frame
 * shown from a frame merely committed.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/error.h>

#include "display_source.h"
#include "display_writeback.h"
#include "mapped_io.h"

int display_writeback_open(struct llmem_session *session, struct llmem_display *display,
			   const struct llmem_display_info *info, const char *path,
			   struct display_writeback *wb)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.sharing = LLMEM_SHARING_DMABUF,
		.name = "display writeback",
	};
	struct llmem_frame_constraints c = { .pitch_alignment = DISPLAY_PITCH_ALIGNMENT };
	void *map;
	int ret;

	wb->path = path;
	ret = llmem_frame_layout_init(DRM_FORMAT_XRGB8888, info->width, info->height, &c,
				      &wb->layout);
	if (!ret)
		ret = llmem_memory_create(session, &mci, &wb->memory);
	if (!ret)
		ret = llmem_buffer_create(
			wb->memory,
			&(struct llmem_buffer_create_info){ .size = wb->layout.size,
							    .alignment = 4096,
							    .name = "display writeback" },
			&wb->buffer);
	if (!ret)
		ret = llmem_buffer_map(wb->buffer, &map);
	if (!ret)
		ret = llmem_display_fb_create_from_buffer(display, wb->buffer, &wb->layout,
							  LLMEM_DISPLAY_FB_WRITEBACK, &wb->fb);
	if (ret) {
		fprintf(stderr, "llmem display: writeback frame: %s\n", llmem_last_error());
		return ret;
	}
	wb->map = map;
	if (path && !(wb->file = fopen(path, "we"))) {
		ret = -errno;
		fprintf(stderr, "llmem display: %s: %s\n", path, strerror(-ret));
	}
	return ret;
}

int display_writeback_check(struct display_writeback *wb, const struct llmem_frame_layout *src,
			    struct llmem_buffer *buf, const uint8_t *data)
{
	const struct llmem_frame_layout *back = &wb->layout;
	const uint8_t *a = data + src->offset[0];
	const uint8_t *b = wb->map + back->offset[0];
	int ret = 1;

	llmem_buffer_begin_cpu_access(buf, LLMEM_CPU_READ);
	llmem_buffer_begin_cpu_access(wb->buffer, LLMEM_CPU_READ);
	for (uint32_t y = 0; ret == 1 && y < src->height; y++) {
		const uint32_t *pa = (const uint32_t *)(a + (size_t)y * src->pitch[0]);
		const uint32_t *pb = (const uint32_t *)(b + (size_t)y * back->pitch[0]);

		for (uint32_t x = 0; x < src->width; x++)
			if ((pa[x] ^ pb[x]) & 0xffffff) {
				ret = 0;
				break;
			}
	}
	for (uint32_t y = 0; wb->file && y < back->height; y++) {
		int err = mapped_fwrite(wb->file, b + (size_t)y * back->pitch[0],
					(size_t)back->width * 4);

		if (err) {
			fprintf(stderr, "llmem display: %s: %s\n", wb->path, strerror(-err));
			ret = err;
			break;
		}
	}
	llmem_buffer_end_cpu_access(wb->buffer, LLMEM_CPU_READ);
	llmem_buffer_end_cpu_access(buf, LLMEM_CPU_READ);
	return ret;
}

int display_writeback_close_file(struct display_writeback *wb, int ret)
{
	if (wb->file && fclose(wb->file) && !ret) {
		ret = -errno;
		fprintf(stderr, "llmem display: %s: %s\n", wb->path, strerror(-ret));
	}
	if (wb->file && ret)
		unlink(wb->path);
	return ret;
}

void display_writeback_destroy(struct display_writeback *wb)
{
	llmem_buffer_destroy(wb->buffer);
	llmem_memory_destroy(wb->memory);
}
