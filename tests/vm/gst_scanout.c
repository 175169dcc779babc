// SPDX-License-Identifier: MIT
/*
 * The two sides of gst-pipeline-check's scan-out comparison, each written
 * as WIDTH x HEIGHT XRGB8888 rows with no padding, so that the check
 * compares bytes whatever pitch either side chose:
 *
 *   gst_scanout reference RAW WIDTH HEIGHT ENCODING RANGE OUT
 *	llmem_convert_to_rgba() of RAW, a YUYV frame of packed rows (what
 *	V4L2 MMAP capture wrote), into XRGB8888;
 *   gst_scanout read WIDTH HEIGHT TIMEOUT_S OUT
 *	what vkms's plane scans out, from another process than the one that
 *	committed it: the plane whose framebuffer is WIDTH x HEIGHT
 *	XRGB8888, that framebuffer's handle (GETFB2; root's), its PRIME
 *	export mapped (the importer's DMA-BUF: llmem's own frame).  Polls
 *	until such a plane shows a second framebuffer: the pipeline starts
 *	slowly under TCG.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/llmem.h>

static int write_rows(const char *path, const uint8_t *px, uint32_t pitch, uint32_t width,
		      uint32_t height)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f)
		return -errno;
	for (uint32_t row = 0; row < height && !ret; row++)
		if (fwrite(px + (size_t)row * pitch, 4, width, f) != width)
			ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

static int reference(char **argv)
{
	uint32_t width = strtoul(argv[1], NULL, 0), height = strtoul(argv[2], NULL, 0);
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_session *s = NULL;
	struct llmem_memory *m = NULL;
	struct llmem_buffer *src = NULL, *dst = NULL;
	uint8_t *src_px, *dst_px;
	FILE *raw;
	int ret;

	ret = llmem_frame_layout_init(DRM_FORMAT_YUYV, width, height, NULL, &src_l);
	if (!ret)
		ret = llmem_frame_layout_init(DRM_FORMAT_XRGB8888, width, height, NULL, &dst_l);
	if (!ret)
		ret = llmem_session_create(&(struct llmem_session_create_info){ 0 }, &s);
	if (!ret)
		ret = llmem_memory_create(
			s,
			&(struct llmem_memory_create_info){ .flags = LLMEM_MEMORY_HOST_VISIBLE,
							    .name = "gst_scanout reference" },
			&m);
	if (!ret)
		ret = llmem_buffer_create(
			m, &(struct llmem_buffer_create_info){ .size = src_l.size }, &src);
	if (!ret)
		ret = llmem_buffer_create(
			m, &(struct llmem_buffer_create_info){ .size = dst_l.size }, &dst);
	if (!ret)
		ret = llmem_buffer_map(src, (void **)&src_px);
	if (!ret)
		ret = llmem_buffer_map(dst, (void **)&dst_px);
	if (ret) {
		fprintf(stderr, "gst_scanout: %s\n", llmem_last_error());
		goto out;
	}
	raw = fopen(argv[0], "rb");
	for (uint32_t row = 0; raw && row < height && !ret; row++)
		if (fread(src_px + src_l.offset[0] + (size_t)row * src_l.pitch[0], 2, width, raw) !=
		    width)
			ret = -EIO;
	if (!raw || ret) {
		fprintf(stderr, "gst_scanout: %s: not a %ux%u YUYV frame\n", argv[0], width,
			height);
		ret = -EIO;
	}
	if (raw)
		fclose(raw);
	if (!ret)
		ret = llmem_buffer_flush(src, 0, src_l.size);
	if (!ret)
		ret = llmem_convert_to_rgba(
			&(struct llmem_convert_info){ .src = src,
						      .src_layout = &src_l,
						      .dst = dst,
						      .dst_layout = &dst_l,
						      .encoding = strtoul(argv[3], NULL, 0),
						      .range = strtoul(argv[4], NULL, 0) });
	if (!ret)
		ret = llmem_buffer_invalidate(dst, 0, dst_l.size);
	if (ret)
		fprintf(stderr, "gst_scanout: convert: %s\n", llmem_last_error());
	else
		ret = write_rows(argv[5], dst_px + dst_l.offset[0], dst_l.pitch[0], width, height);
out:
	llmem_buffer_destroy(src);
	llmem_buffer_destroy(dst);
	llmem_memory_destroy(m);
	llmem_session_destroy(s);
	return ret;
}

/* vkms's node: the one whose driver is "vkms". */
static int open_vkms(void)
{
	char path[32];

	for (int i = 0; i < 16; i++) {
		drmVersionPtr v;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, "vkms")) {
			drmFreeVersion(v);
			return fd;
		}
		drmFreeVersion(v);
		close(fd);
	}
	return -ENODEV;
}

/* GETFB2 made a GEM handle of each plane: they stay until closed. */
static void drop_fb(int fd, drmModeFB2Ptr fb)
{
	if (fb && fb->handles[0])
		drmCloseBufferHandle(fd, fb->handles[0]);
	drmModeFreeFB2(fb);
}

/* The framebuffer a plane of @fd scans out that is @width x @height XRGB8888, or NULL. */
static drmModeFB2Ptr shown_fb(int fd, uint32_t width, uint32_t height)
{
	drmModePlaneResPtr res = drmModeGetPlaneResources(fd);
	drmModeFB2Ptr found = NULL;

	for (uint32_t i = 0; res && i < res->count_planes && !found; i++) {
		drmModePlanePtr plane = drmModeGetPlane(fd, res->planes[i]);
		drmModeFB2Ptr fb = plane && plane->fb_id ? drmModeGetFB2(fd, plane->fb_id) : NULL;

		if (fb && fb->width == width && fb->height == height &&
		    fb->pixel_format == DRM_FORMAT_XRGB8888 && fb->handles[0])
			found = fb;
		else
			drop_fb(fd, fb);
		drmModeFreePlane(plane);
	}
	drmModeFreePlaneResources(res);
	return found;
}

static int read_back(char **argv)
{
	uint32_t width = strtoul(argv[0], NULL, 0), height = strtoul(argv[1], NULL, 0);
	time_t end = time(NULL) + strtol(argv[2], NULL, 0);
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	drmModeFB2Ptr fb = NULL;
	uint32_t first = 0;
	size_t size;
	uint8_t *px;
	int fd, dmabuf = -1, ret;

	fd = open_vkms();
	if (fd < 0) {
		fprintf(stderr, "gst_scanout: no vkms node\n");
		return fd;
	}
	if (drmIsMaster(fd)) {
		/* Then kmssink is not, and cannot set its plane. */
		fprintf(stderr, "gst_scanout: vkms had no master: start the pipeline first\n");
		close(fd);
		return -EBUSY;
	}
	/* Primary planes, where kmssink shows its frames, are listed only with this. */
	drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	/*
	 * The first framebuffer of the size may be kmssink's own, the black
	 * one it sets the mode with; its frames' come after, so take the
	 * first that differs from it.
	 */
	while (time(NULL) < end) {
		fb = shown_fb(fd, width, height);
		if (fb && !first)
			first = fb->fb_id;
		else if (fb && fb->fb_id != first)
			break;
		drop_fb(fd, fb);
		fb = NULL;
		usleep(20000);
	}
	if (!fb) {
		fprintf(stderr,
			"gst_scanout: no plane showed a second %ux%u XRGB8888 framebuffer\n", width,
			height);
		close(fd);
		return -ETIMEDOUT;
	}
	ret = drmPrimeHandleToFD(fd, fb->handles[0], DRM_CLOEXEC, &dmabuf);
	size = fb->offsets[0] + (size_t)fb->pitches[0] * height;
	px = ret ? MAP_FAILED : mmap(NULL, size, PROT_READ, MAP_SHARED, dmabuf, 0);
	if (px == MAP_FAILED) {
		fprintf(stderr, "gst_scanout: framebuffer %u: %s\n", fb->fb_id,
			ret ? "no PRIME export" : strerror(errno));
		ret = -EIO;
	} else {
		printf("framebuffer %u: %ux%u pitch %u offset %u modifier 0x%llx\n", fb->fb_id,
		       fb->width, fb->height, fb->pitches[0], fb->offsets[0],
		       (unsigned long long)fb->modifier);
		ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
		ret = write_rows(argv[3], px + fb->offsets[0], fb->pitches[0], width, height);
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
		munmap(px, size);
	}
	if (dmabuf >= 0)
		close(dmabuf);
	drop_fb(fd, fb);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc == 8 && !strcmp(argv[1], "reference"))
		ret = reference(argv + 2);
	else if (argc == 6 && !strcmp(argv[1], "read"))
		ret = read_back(argv + 2);
	else {
		fprintf(stderr, "usage: gst_scanout reference RAW WIDTH HEIGHT ENCODING RANGE OUT\n"
				"       gst_scanout read WIDTH HEIGHT TIMEOUT_S OUT\n");
		return 2;
	}
	return ret ? 1 : 0;
}
