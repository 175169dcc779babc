// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/share.h>

#include "cli.h"
#include "encode_files.h"
#include "mapped_io.h"
#include "png_writer.h"

static FILE *open_in(const struct encode_files *f, const char *name)
{
	char path[4096];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	file = fopen(path, "we");
	if (!file)
		fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
	return file;
}

int encode_files_open(struct encode_files *f, const char *dir, bool keep_raw)
{
	f->dir = dir;
	f->keep_raw = keep_raw;
	if (!dir)
		return 0;
	f->made_dir = mkdir(dir, 0755) == 0;
	if (!f->made_dir && errno != EEXIST) {
		fprintf(stderr, "llmem encode: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	f->stream = open_in(f, "stream.fwht");
	if (f->stream && keep_raw)
		f->raw = open_in(f, "raw.yuv");
	return f->stream && (f->raw || !keep_raw) ? 0 : -EIO;
}

int encode_files_packet(struct encode_files *f, const struct llmem_codec_packet *p)
{
	int ret = f->stream ? mapped_fwrite(f->stream, p->data, p->size) : 0;

	if (ret) {
		fprintf(stderr, "llmem encode: writing the bitstream: %s\n", strerror(-ret));
		return ret;
	}
	f->bitstream_bytes += p->size;
	f->packets_written += f->stream != NULL;
	return 0;
}

int encode_files_raw(struct encode_files *f, const struct llmem_camera_frame *cf, uint32_t size)
{
	void **map = &f->frame_map[cf->index];
	int ret = 0;

	f->raw_frame_size = size;
	if (!*map)
		ret = llmem_dmabuf_map(cf->fd[0], 0, size, LLMEM_CPU_READ, map);
	if (!ret)
		ret = llmem_dmabuf_begin_cpu_access(cf->fd[0], LLMEM_CPU_READ);
	if (ret) {
		fprintf(stderr, "llmem encode: reading frame %u: %s\n", cf->index,
			llmem_last_error());
		return ret;
	}
	ret = mapped_fwrite(f->raw, *map, size);
	llmem_dmabuf_end_cpu_access(cf->fd[0], LLMEM_CPU_READ);
	if (ret) {
		fprintf(stderr, "llmem encode: writing raw.yuv: %s\n", strerror(-ret));
		return ret;
	}
	f->raw_written++;
	return 0;
}

int encode_files_png(struct encode_files *f, struct llmem_camera *cam,
		     struct llmem_camera_frame *cf, uint32_t n)
{
	struct llmem_camera_info info;
	const struct llmem_frame_layout *l = &info.rgba_layout;
	char path[4096];
	int ret;

	llmem_camera_get_info(cam, &info);
	ret = llmem_camera_convert(cam, cf);
	if (ret) {
		fprintf(stderr, "llmem encode: convert on the device: %s\n", llmem_last_error());
		return ret;
	}
	snprintf(path, sizeof(path), "%s/frame-%03u.png", f->dir, n);
	ret = write_png_rgba(path, (const uint8_t *)cf->rgba_data + l->offset[0], l->width,
			     l->height, l->pitch[0]);
	f->pngs_written += !ret;
	return ret;
}

static int close_file(FILE **file, const char *what)
{
	int ret = *file && fclose(*file) ? -EIO : 0;

	if (ret)
		fprintf(stderr, "llmem encode: closing %s: %s\n", what, strerror(errno));
	*file = NULL;
	return ret;
}

int encode_files_close(struct encode_files *f)
{
	int ret = close_file(&f->stream, "the bitstream");

	return close_file(&f->raw, "raw.yuv") ? -EIO : ret;
}

/* @name in the folder, if there, cut to its first @size bytes or removed
 * when 0. */
static void cut_file(const struct encode_files *f, const char *name, uint64_t size)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	if ((size ? truncate(path, (off_t)size) : unlink(path)) && errno != ENOENT)
		fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
}

void encode_files_keep(struct encode_files *f)
{
	if (!f->dir)
		return;
	encode_files_close(f);
	cut_file(f, "stream.fwht", f->bitstream_bytes);
	if (f->keep_raw)
		cut_file(f, "raw.yuv", (uint64_t)f->raw_written * f->raw_frame_size);
	if (!f->packets_written && !f->raw_written && !f->pngs_written) {
		if (f->made_dir)
			rmdir(f->dir);
		return;
	}
	fprintf(stderr,
		"llmem encode: kept in %s what was written before the error: stream.fwht with "
		"%u frame%s (%llu bytes), %u PNG%s",
		f->dir, f->packets_written, cli_plural(f->packets_written),
		(unsigned long long)f->bitstream_bytes, f->pngs_written,
		cli_plural(f->pngs_written));
	if (f->keep_raw)
		fprintf(stderr, ", raw.yuv with %u frame%s", f->raw_written,
			cli_plural(f->raw_written));
	fputs("; no summary.json\n", stderr);
}

void encode_files_release(struct encode_files *f)
{
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		llmem_dmabuf_unmap(f->frame_map[i], f->raw_frame_size);
	memset(f->frame_map, 0, sizeof(f->frame_map));
	if (f->stream)
		fclose(f->stream);
	if (f->raw)
		fclose(f->raw);
	f->stream = f->raw = NULL;
}
