// SPDX-License-Identifier: MIT
/*
 * rdma.h's refusals of bad arguments, on any machine: before libibverbs is
 * loaded or any device is asked.  Registration itself is tested on
 * software RoCE in the VM (tests/vm/rdma_test.c).
 */
#include <errno.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "vk_test.h"

/* Never dereferenced: every call below is refused before it is used. */
#define SOME_PD ((struct ibv_pd *)16)
#define SOME_BUFFER ((struct llmem_buffer *)32)
#define SOME_REGION ((struct llmem_rdma_mr *)48)

TEST(null_arguments)
{
	struct llmem_rdma_mr *mr = (struct llmem_rdma_mr *)1;
	struct llmem_rdma_mr_info info;

	EXPECT_FAILS(llmem_rdma_register_buffer(NULL, SOME_BUFFER, 0, 0, &mr), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL protection domain");
	EXPECT_FAILS(llmem_rdma_register_buffer(SOME_PD, NULL, 0, 0, &mr), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL buffer");
	EXPECT_FAILS(llmem_rdma_register_buffer(SOME_PD, SOME_BUFFER, 0, 0, NULL), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL out");
	EXPECT_FAILS(llmem_rdma_mr_get_info(NULL, &info), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL region");
	EXPECT_FAILS(llmem_rdma_mr_get_info(SOME_REGION, NULL), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL info");
	EXPECT_EQ(llmem_rdma_deregister(NULL), 0);
}

TEST(bad_flags)
{
	struct llmem_rdma_mr *mr = (struct llmem_rdma_mr *)1;

	EXPECT_FAILS(llmem_rdma_register_buffer(SOME_PD, SOME_BUFFER, 0,
						LLMEM_RDMA_DMABUF_ONLY | LLMEM_RDMA_MAPPING_ONLY,
						&mr),
		     -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: flags 0x3");
	EXPECT_EQ(mr, NULL);
	EXPECT_FAILS(llmem_rdma_register_buffer(SOME_PD, SOME_BUFFER, 0, 1u << 5, &mr), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: flags 0x20");
}

TEST_HARNESS_MAIN
