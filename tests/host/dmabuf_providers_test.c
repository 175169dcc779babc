// SPDX-License-Identifier: MIT
/*
 * The kernel's DMA-BUF providers as the library describes them, against
 * what /dev shows, on any machine (most have none of them); bad arguments
 * refused by name.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <llmem/error.h>
#include <llmem/share.h>

#include "kselftest_harness.h"

/* Only the two single nodes have a kind to ask by; NULL is refused. */
TEST(bad_arguments)
{
	struct llmem_dmabuf_provider p;

	EXPECT_EQ(llmem_dmabuf_provider_get(LLMEM_DMABUF_PROVIDER_LLMEM, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL provider"), NULL);
	EXPECT_EQ(llmem_dmabuf_provider_get(0, &p), -EINVAL);
	EXPECT_EQ(llmem_dmabuf_provider_get(LLMEM_DMABUF_PROVIDER_HEAP, &p), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "kind 3 is no single node"), NULL);
	EXPECT_EQ(llmem_dmabuf_provider_get(99, &p), -EINVAL);
	EXPECT_EQ(llmem_dma_heap_list(NULL, 1), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_dma_heap_list: NULL heaps"), NULL);
}

/* /dev/llmem and /dev/udmabuf are present exactly when /dev has them;
 * a missing one says -ENOENT. */
TEST(single_nodes_match_dev)
{
	static const struct {
		uint32_t kind;
		const char *name, *path;
	} nodes[] = {
		{ LLMEM_DMABUF_PROVIDER_LLMEM, "llmem", "/dev/llmem" },
		{ LLMEM_DMABUF_PROVIDER_UDMABUF, "udmabuf", "/dev/udmabuf" },
	};

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		struct llmem_dmabuf_provider p;
		int present = access(nodes[i].path, F_OK) == 0;

		ASSERT_EQ(llmem_dmabuf_provider_get(nodes[i].kind, &p), 0);
		EXPECT_EQ(p.kind, nodes[i].kind);
		EXPECT_STREQ(p.name, nodes[i].name);
		EXPECT_STREQ(p.path, nodes[i].path);
		EXPECT_EQ(p.present, present);
		if (!present)
			EXPECT_EQ(p.error, -ENOENT);
	}
}

/* The heaps listed are the entries of /dev/dma_heap, however many. */
TEST(heaps_match_dev)
{
	struct llmem_dmabuf_provider heaps[64];
	DIR *dir = opendir("/dev/dma_heap");
	int entries = 0, n = llmem_dma_heap_list(heaps, 64);
	struct dirent *d;

	while (dir && (d = readdir(dir)))
		entries += d->d_name[0] != '.';
	if (dir)
		closedir(dir);
	EXPECT_EQ(n, entries);
	EXPECT_EQ(llmem_dma_heap_list(NULL, 0), n);
	for (int i = 0; i < n && i < 64; i++) {
		EXPECT_EQ(heaps[i].kind, LLMEM_DMABUF_PROVIDER_HEAP);
		EXPECT_EQ(heaps[i].present, 1);
		EXPECT_EQ(strncmp(heaps[i].path, "/dev/dma_heap/", 14), 0);
		EXPECT_STREQ(heaps[i].path + 14, heaps[i].name);
		if (i)
			EXPECT_LT(strcmp(heaps[i - 1].name, heaps[i].name), 0);
	}
}

TEST_HARNESS_MAIN
