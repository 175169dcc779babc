// SPDX-License-Identifier: MIT
/*
 * The allocator's statistics through the public API: per page and in total,
 * and the JSON dump of a memory's layout, read back by Python's json module.
 */
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)

FIXTURE(stats)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_SETUP(stats)
{
	struct llmem_memory_create_info ci = {
		.page_size = 1 * MiB,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.name = "stats \"test\"",
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
}

FIXTURE_TEARDOWN(stats)
{
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

static struct llmem_buffer *buffer(struct llmem_memory *m, uint64_t size, const char *name)
{
	struct llmem_buffer_create_info ci = { .size = size, .name = name };
	struct llmem_buffer *b = NULL;

	return llmem_buffer_create(m, &ci, &b) ? NULL : b;
}

/* No page: totals are zero and every page index is -ENOENT. */
TEST_F(stats, empty_memory)
{
	struct llmem_page_stats ps = { .pages = 7 };

	ASSERT_EQ(llmem_memory_get_page_stats(self->m, LLMEM_ALL_PAGES, &ps), 0);
	EXPECT_EQ(ps.pages, 0);
	EXPECT_EQ(ps.bytes, 0);
	EXPECT_EQ(ps.free_ranges, 0);
	EXPECT_EQ(ps.largest_free, 0);
	EXPECT_EQ(llmem_memory_get_page_stats(self->m, 0, &ps), -ENOENT);
	EXPECT_NE(strstr(llmem_last_error(), "no page 0"), NULL);
}

/*
 * A hole between two buffers is a free range of its own; the tail is
 * another; a dedicated page is full.  Totals add the pages up.
 */
TEST_F(stats, per_page_and_total)
{
	struct llmem_buffer *a, *b, *c, *big;
	struct llmem_allocation aa, ab, ac, abig;
	struct llmem_page_stats p, d, t;

	ASSERT_NE(a = buffer(self->m, 64 * KiB, "a"), NULL);
	ASSERT_NE(b = buffer(self->m, 128 * KiB, "b"), NULL);
	ASSERT_NE(c = buffer(self->m, 64 * KiB, "c"), NULL);
	ASSERT_NE(big = buffer(self->m, 3 * MiB, "big"), NULL);
	ASSERT_EQ(llmem_buffer_get_allocation(a, &aa), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(b, &ab), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(c, &ac), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(big, &abig), 0);
	ASSERT_EQ(aa.page, ac.page);
	ASSERT_NE(aa.page, abig.page);
	/* Sizes are multiples of any buffer alignment: packed from 0, no padding. */
	ASSERT_EQ(aa.offset, 0);
	ASSERT_EQ(ab.offset, 64 * KiB);
	ASSERT_EQ(ac.offset, 192 * KiB);

	llmem_buffer_destroy(b);
	ASSERT_EQ(llmem_memory_get_page_stats(self->m, aa.page, &p), 0);
	EXPECT_EQ(p.pages, 1);
	EXPECT_EQ(p.dedicated_pages, 0);
	EXPECT_EQ(p.bytes, 1 * MiB);
	EXPECT_EQ(p.used_bytes, 128 * KiB);
	EXPECT_EQ(p.free_bytes, 1 * MiB - 128 * KiB);
	EXPECT_EQ(p.free_ranges, 2);
	EXPECT_EQ(p.largest_free, 1 * MiB - 256 * KiB);
	EXPECT_EQ(p.objects, 2);

	ASSERT_EQ(llmem_memory_get_page_stats(self->m, abig.page, &d), 0);
	EXPECT_EQ(d.pages, 1);
	EXPECT_EQ(d.dedicated_pages, 1);
	EXPECT_GE(d.bytes, 3 * MiB);
	EXPECT_EQ(d.used_bytes, d.bytes);
	EXPECT_EQ(d.free_bytes, 0);
	EXPECT_EQ(d.free_ranges, 0);
	EXPECT_EQ(d.largest_free, 0);
	EXPECT_EQ(d.objects, 1);

	ASSERT_EQ(llmem_memory_get_page_stats(self->m, LLMEM_ALL_PAGES, &t), 0);
	EXPECT_EQ(t.pages, 2);
	EXPECT_EQ(t.dedicated_pages, 1);
	EXPECT_EQ(t.bytes, p.bytes + d.bytes);
	EXPECT_EQ(t.used_bytes, p.used_bytes + d.used_bytes);
	EXPECT_EQ(t.free_bytes, p.free_bytes);
	EXPECT_EQ(t.free_ranges, 2);
	EXPECT_EQ(t.largest_free, p.largest_free);
	EXPECT_EQ(t.objects, 3);

	/* Freeing c merges the hole, c's range and the tail into one range. */
	llmem_buffer_destroy(c);
	ASSERT_EQ(llmem_memory_get_page_stats(self->m, aa.page, &p), 0);
	EXPECT_EQ(p.free_ranges, 1);
	EXPECT_EQ(p.largest_free, 1 * MiB - 64 * KiB);
	llmem_buffer_destroy(big);
	EXPECT_EQ(llmem_memory_get_page_stats(self->m, abig.page, &d), -ENOENT);
	llmem_buffer_destroy(a);
	ASSERT_EQ(llmem_memory_get_page_stats(self->m, LLMEM_ALL_PAGES, &t), 0);
	EXPECT_EQ(t.pages, 0);
}

/*
 * Checks a dump against the statistics given as arguments: ranges tile each
 * page, objects line up with them (a range may be longer than its object:
 * the device's size requirement), totals agree.
 */
static const char check_py[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"pages, objects, used, free_ranges = map(int, sys.argv[2:6])\n"
	"assert d['name'] == 'stats \"test\"', d['name']\n"
	"p = d['pool']\n"
	"assert (p['pages'], p['allocations'], p['used_bytes'], p['free_ranges']) == "
	"(pages, objects, used, free_ranges), p\n"
	"assert p['used_bytes'] + p['free_bytes'] == p['bytes']\n"
	"seen = {}\n"
	"for pl in p['page_layouts']:\n"
	"    at = 0\n"
	"    for r in pl['layout']['ranges']:\n"
	"        start = r['offset'] - r.get('left_padding', 0)\n"
	"        assert start == at, (pl['index'], r, at)\n"
	"        at = r['offset'] + r['size']\n"
	"        if not r['free']:\n"
	"            seen[(pl['index'], r['offset'])] = (r['size'], r['kind'])\n"
	"    assert at == pl['layout']['size']\n"
	"assert len(d['objects']) == objects\n"
	"for o in d['objects']:\n"
	"    size, kind = seen[(o['page'], o['offset'])]\n"
	"    assert o['size'] <= size, (o, size)\n"
	"    assert kind == ('optimal' if o['kind'] == 'image' else 'linear'), (o, kind)\n";

/* The dump is JSON, and says what the statistics say. */
TEST_F(stats, json_dump)
{
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 64, 64, 4 }, .name = "rgba" };
	char path[] = "/tmp/llmem-stats-XXXXXX", script[] = "/tmp/llmem-check-XXXXXX";
	char cmd[256];
	struct llmem_buffer *a, *b, *big;
	struct llmem_page_stats t;
	struct llmem_image *img;
	FILE *f;
	int fd, ret;

	ASSERT_NE(a = buffer(self->m, 1000, "a\\1"), NULL);
	ASSERT_EQ(llmem_image_create(self->m, &ici, &img), 0);
	ASSERT_NE(b = buffer(self->m, 5000, "b"), NULL);
	ASSERT_NE(big = buffer(self->m, 2 * MiB, "big"), NULL);
	llmem_buffer_destroy(a);
	ASSERT_EQ(llmem_memory_get_page_stats(self->m, LLMEM_ALL_PAGES, &t), 0);

	ASSERT_GE(fd = mkstemp(path), 0);
	ASSERT_NE(f = fdopen(fd, "w"), NULL);
	EXPECT_EQ(llmem_memory_dump_json(self->m, f), 0);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_GE(fd = mkstemp(script), 0);
	ASSERT_NE(f = fdopen(fd, "w"), NULL);
	fputs(check_py, f);
	ASSERT_EQ(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s %u %llu %llu %llu", script, path, t.pages,
		 (unsigned long long)t.objects, (unsigned long long)t.used_bytes,
		 (unsigned long long)t.free_ranges);
	ret = system(cmd);
	EXPECT_EQ(ret, 0)
	TH_LOG("%s failed: the dump is kept in %s", cmd, path);
	if (ret == 0)
		unlink(path);
	unlink(script);

	llmem_buffer_destroy(big);
	llmem_buffer_destroy(b);
	llmem_image_destroy(img);
}

TEST_HARNESS_MAIN
