// SPDX-License-Identifier: MIT
/*
 * A memory's layout as numbers and as JSON: the pool's pages and ranges and
 * the objects in them.
 */
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "memory/memory.h"

LLMEM_PUBLIC int llmem_memory_get_page_stats(struct llmem_memory *m, uint32_t page,
					     struct llmem_page_stats *stats)
{
	struct llmem_block_stats bs;
	struct llmem_pool_stats ps;
	int ret = 0;

	if (!m || !stats)
		return llmem_error(-EINVAL, "memory page stats: NULL argument");
	memset(stats, 0, sizeof(*stats));
	pthread_mutex_lock(&m->lock);
	if (page == LLMEM_ALL_PAGES) {
		llmem_pool_stats(m->pool, &ps);
		stats->pages = ps.pages;
		stats->dedicated_pages = ps.dedicated_pages;
		stats->bytes = ps.bytes;
		stats->used_bytes = ps.used_bytes;
		stats->free_bytes = ps.free_bytes;
		stats->free_ranges = ps.free_ranges;
		stats->largest_free = ps.largest_free;
		stats->objects = ps.allocations;
	} else if (llmem_pool_page_stats(m->pool, page, &bs)) {
		ret = llmem_error(-ENOENT, "memory '%s': no page %u", m->name, page);
	} else {
		stats->pages = 1;
		stats->dedicated_pages = llmem_pool_page_dedicated(m->pool, page) == 1;
		stats->bytes = bs.size;
		stats->used_bytes = bs.used_bytes;
		stats->free_bytes = bs.free_bytes;
		stats->free_ranges = bs.free_ranges;
		stats->largest_free = bs.largest_free;
		stats->objects = bs.allocations;
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

LLMEM_PUBLIC int llmem_memory_dump_json(struct llmem_memory *m, FILE *out)
{
	int ret;

	if (!m || !out)
		return llmem_error(-EINVAL, "memory dump: NULL argument");
	pthread_mutex_lock(&m->lock);
	fprintf(out, "{\"name\": ");
	json_string(out, m->name);
	fprintf(out, ", \"memory_type_index\": %u, \"flags\": %u, \"pool\": ", m->type_index,
		m->flags);
	ret = llmem_pool_dump_json(m->pool, out);
	fprintf(out, ", \"objects\": [");
	for (struct llmem_object *o = m->first; o; o = o->next) {
		fprintf(out, "%s\n  {\"kind\": \"%s\", \"id\": %llu, \"name\": ",
			o == m->first ? "" : ",", llmem_object_kind_name(o->kind),
			(unsigned long long)o->id);
		json_string(out, o->name);
		fprintf(out,
			", \"page\": %u, \"offset\": %llu, \"left_padding\": %llu, "
			"\"size\": %llu}",
			o->alloc.page, (unsigned long long)o->alloc.offset,
			(unsigned long long)o->alloc.left_padding,
			(unsigned long long)o->alloc.size);
	}
	fprintf(out, "]}\n");
	pthread_mutex_unlock(&m->lock);
	if (ret || ferror(out))
		return llmem_error(-EIO, "memory '%s': writing the JSON dump failed", m->name);
	return 0;
}
