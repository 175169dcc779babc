// SPDX-License-Identifier: MIT
/*
 * The DRM listings' answers to bad arguments and to missing nodes, on any
 * machine; real cards and render nodes are tested in the VM
 * (tests/vm/display_test.c).
 */
#include <errno.h>
#include <string.h>

#include <llmem/display.h>
#include <llmem/error.h>

#include "kselftest_harness.h"

/* A capacity without room to write to is refused; none only counts. */
TEST(null_devices)
{
	int cards = llmem_drm_list_devices(NULL, 0), render = llmem_drm_list_render_nodes(NULL, 0);

	EXPECT_GE(cards, 0);
	EXPECT_GE(render, 0);
	EXPECT_EQ(llmem_drm_list_devices(NULL, 1), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_drm_list_devices: NULL devices"), NULL);
	EXPECT_EQ(llmem_drm_list_render_nodes(NULL, 1), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_drm_list_render_nodes: NULL devices"), NULL);
}

/* One node by path: NULL refused, a missing one named with open()'s errno. */
TEST(get_device)
{
	struct llmem_drm_device dev;

	EXPECT_EQ(llmem_drm_get_device(NULL, &dev), -EINVAL);
	EXPECT_EQ(llmem_drm_get_device("/dev/dri/card0", NULL), -EINVAL);
	EXPECT_EQ(llmem_drm_get_device("/nonexistent/card0", &dev), -ENOENT);
	EXPECT_EQ(dev.error, -ENOENT);
	EXPECT_STREQ(dev.path, "/nonexistent/card0");
	EXPECT_STREQ(dev.description, "");
	EXPECT_NE(strstr(llmem_last_error(), "/nonexistent/card0"), NULL);
}

TEST_HARNESS_MAIN
