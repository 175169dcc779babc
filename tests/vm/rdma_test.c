// SPDX-License-Identifier: MIT
/*
 * llmem buffers as RDMA memory regions (rdma.h) on software RoCE (rxe), in
 * the VM: a veth pair carries an rxe device, two reliable-connected queue
 * pairs on it talk to each other through rxe's loopback, and an RDMA WRITE
 * and an RDMA READ move a pattern between two llmem buffers on llmem.ko's
 * pages, registered through the library.  rxe imports no DMA-BUF: the
 * library registers the buffers' mappings and says why, and with
 * LLMEM_RDMA_DMABUF_ONLY refuses.  The rig loads nothing for RDMA: the
 * fixture loads rdma_rxe (and crc32_generic, which rxe asks the crypto API
 * for) and makes the device once.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <llmem/llmem.h>

#include "../../tools/bench_rdma_verbs.h"
#include "kselftest_harness.h"
#include "rxe.h"
#include "vk_test.h"

#define SIZE (1u << 20)
/* rxe runs in softirqs: under TCG a megabyte takes a while. */
#define OP_TIMEOUT_MS 60000

/* A queue pair's end (tools/bench_rdma_verbs.h) and its registered buffer. */
struct end {
	struct rdma_end qp;
	struct llmem_buffer *b;
	struct llmem_rdma_mr *mr;
	struct llmem_rdma_mr_info info;
	uint8_t *map;
};

FIXTURE(rdma)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct end a, z;
};

static int make_end(FIXTURE_DATA(rdma) * self, struct end *e)
{
	int ret = llmem_buffer_create(
		self->m, &(struct llmem_buffer_create_info){ .size = SIZE, .alignment = 4096 },
		&e->b);

	if (!ret)
		ret = llmem_rdma_register_buffer(e->qp.pd, e->b,
						 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
							 IBV_ACCESS_REMOTE_READ,
						 0, &e->mr);
	if (!ret)
		ret = llmem_rdma_mr_get_info(e->mr, &e->info);
	if (!ret)
		ret = llmem_buffer_map(e->b, (void **)&e->map);
	return ret;
}

FIXTURE_SETUP(rdma)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_DMABUF,
					       .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					       .name = "rdma" };

	ASSERT_EQ(rxe_device(), 0) TH_LOG("rdma_rxe and " RXE_DEVICE " could not be set up");
	ASSERT_EQ(rdma_end_open(&self->a.qp, RXE_DEVICE), 0) TH_LOG("%s", self->a.qp.why);
	ASSERT_EQ(rdma_end_open(&self->z.qp, RXE_DEVICE), 0) TH_LOG("%s", self->z.qp.why);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(make_end(self, &self->a), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(make_end(self, &self->z), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(rdma_end_connect(&self->a.qp, &self->z.qp.addr), 0) TH_LOG("%s", self->a.qp.why);
	ASSERT_EQ(rdma_end_connect(&self->z.qp, &self->a.qp.addr), 0) TH_LOG("%s", self->z.qp.why);
}

/* The registration goes before its protection domain, in rdma_end_close(). */
static void drop_end(struct end *e)
{
	if (e->map)
		llmem_buffer_unmap(e->b);
	llmem_rdma_deregister(e->mr);
	llmem_buffer_destroy(e->b);
	rdma_end_close(&e->qp);
}

FIXTURE_TEARDOWN(rdma)
{
	drop_end(&self->a);
	drop_end(&self->z);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* One RDMA operation of @from's bytes against @to's, waited for. */
static int rdma_op(struct end *from, const struct end *to, enum ibv_wr_opcode op)
{
	return rdma_end_op(&from->qp, op, from->info.addr, from->info.lkey, SIZE, to->info.addr,
			   to->info.rkey, 0, OP_TIMEOUT_MS);
}

/* rxe takes no DMA-BUF: the mappings are registered, and the reason shown. */
TEST_F(rdma, registered_by_mapping)
{
	EXPECT_EQ(self->a.info.path, LLMEM_RDMA_PATH_MAPPING);
	EXPECT_EQ(self->a.info.size, SIZE);
	EXPECT_EQ(self->a.info.addr, (uint64_t)(uintptr_t)self->a.map);
	EXPECT_NE(self->a.info.mr, NULL);
	EXPECT_NE(self->a.info.rkey, self->z.info.rkey);
	EXPECT_NE(strstr(self->a.info.dmabuf_refusal, "ibv_reg_dmabuf_mr: "), NULL)
	TH_LOG("%s", self->a.info.dmabuf_refusal);
}

/* A WRITE from one buffer into the other, a READ back into the first. */
TEST_F_TIMEOUT(rdma, write_and_read, 300)
{
	for (uint32_t i = 0; i < SIZE; i++) {
		self->a.map[i] = (uint8_t)(i * 7 + (i >> 12));
		self->z.map[i] = 0;
	}
	ASSERT_EQ(rdma_op(&self->a, &self->z, IBV_WR_RDMA_WRITE), 0);
	EXPECT_EQ(memcmp(self->a.map, self->z.map, SIZE), 0);
	for (uint32_t i = 0; i < SIZE; i++)
		self->z.map[i] ^= 0x5a;
	ASSERT_EQ(rdma_op(&self->a, &self->z, IBV_WR_RDMA_READ), 0);
	EXPECT_EQ(memcmp(self->a.map, self->z.map, SIZE), 0);
}

/* The DMA-BUF path alone is refused by name; bad arguments are refused. */
TEST_F(rdma, refusals)
{
	struct llmem_rdma_mr *mr = (struct llmem_rdma_mr *)1;

	EXPECT_FAILS(llmem_rdma_register_buffer(self->a.qp.pd, self->a.b, IBV_ACCESS_LOCAL_WRITE,
						LLMEM_RDMA_DMABUF_ONLY, &mr),
		     -EOPNOTSUPP);
	EXPECT_NE(strstr(llmem_last_error(), "ibv_reg_dmabuf_mr"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(mr, NULL);
	EXPECT_FAILS(llmem_rdma_register_buffer(self->a.qp.pd, self->a.b, 0,
						LLMEM_RDMA_DMABUF_ONLY | LLMEM_RDMA_MAPPING_ONLY,
						&mr),
		     -EINVAL);
	EXPECT_FAILS(llmem_rdma_register_buffer(NULL, self->a.b, 0, 0, &mr), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL protection domain");
	EXPECT_EQ(llmem_rdma_deregister(NULL), 0);
}

TEST_HARNESS_MAIN
