// SPDX-License-Identifier: MIT
/*
 * The V4L2 enumeration's answers to bad arguments and to nodes that are
 * missing or no V4L2 device, on any machine; the nodes of a real driver
 * are tested in the VM (tests/vm/v4l2_test.c).
 */
#include <errno.h>
#include <string.h>

#include <llmem/error.h>
#include <llmem/v4l2.h>

#include "kselftest_harness.h"

/* The list needs somewhere to go; the predicate needs a node. */
TEST(null_arguments)
{
	EXPECT_EQ(llmem_v4l2_list_nodes(NULL, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL out"), NULL);
	EXPECT_EQ(llmem_v4l2_list_nodes("/dev/null", NULL), -EINVAL);
	EXPECT_EQ(llmem_v4l2_node_captures_dmabuf(NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL node"), NULL);
	llmem_v4l2_node_list_free(NULL);
}

/* A missing node is listed with open()'s errno, and is no camera. */
TEST(missing_node_listed_with_its_error)
{
	struct llmem_v4l2_node_list *list = NULL;

	ASSERT_EQ(llmem_v4l2_list_nodes("/nonexistent/video0", &list), 0);
	ASSERT_EQ(list->count, 1);
	EXPECT_STREQ(list->nodes[0].path, "/nonexistent/video0");
	EXPECT_EQ(list->nodes[0].error, -ENOENT);
	EXPECT_EQ(list->nodes[0].num_queues, 0);
	EXPECT_EQ(llmem_v4l2_node_captures_dmabuf(&list->nodes[0]), 0);
	llmem_v4l2_node_list_free(list);
}

/* A node that answers no V4L2 ioctl is listed with VIDIOC_QUERYCAP's ENOTTY. */
TEST(no_v4l2_node)
{
	struct llmem_v4l2_node_list *list = NULL;

	ASSERT_EQ(llmem_v4l2_list_nodes("/dev/null", &list), 0);
	ASSERT_EQ(list->count, 1);
	EXPECT_EQ(list->nodes[0].error, -ENOTTY);
	EXPECT_STREQ(list->nodes[0].driver, "");
	EXPECT_EQ(llmem_v4l2_node_captures_dmabuf(&list->nodes[0]), 0);
	llmem_v4l2_node_list_free(list);
}

/* Every node of the machine, however many (none here, most likely), is
 * listed in number order, and the finder agrees with the predicate. */
TEST(whole_machine)
{
	struct llmem_v4l2_node_list *list = NULL;
	const char *first = NULL;
	char path[32];
	int ret;

	ASSERT_EQ(llmem_v4l2_list_nodes(NULL, &list), 0);
	for (uint32_t i = 0; i < list->count; i++) {
		EXPECT_EQ(strncmp(list->nodes[i].path, "/dev/video", 10), 0);
		if (!first && llmem_v4l2_node_captures_dmabuf(&list->nodes[i]) == 1)
			first = list->nodes[i].path;
	}
	ret = llmem_v4l2_find_capture(path, sizeof(path));
	if (first) {
		EXPECT_EQ(ret, 0);
		EXPECT_STREQ(path, first);
	} else {
		EXPECT_EQ(ret, -ENODEV);
	}
	llmem_v4l2_node_list_free(list);
}

TEST_HARNESS_MAIN
