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
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "rxe.h"
#include "vk_test.h"

#define SIZE (1u << 20)

/* The device's IPv4-mapped GID (RoCE v2 over the veth's address). */
static int ipv4_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	for (int i = 0; i < 16; i++)
		if (!ibv_query_gid(ctx, 1, i, gid) && !memcmp(gid->raw, prefix, 12) &&
		    gid->raw[12] == 10)
			return i;
	return -ENOENT;
}

struct end {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct llmem_buffer *b;
	struct llmem_rdma_mr *mr;
	struct llmem_rdma_mr_info info;
	uint8_t *map;
};

FIXTURE(rdma)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	int gid_index;
	struct end a, z;
};

static int make_end(FIXTURE_DATA(rdma) * self, struct end *e)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int ret = llmem_buffer_create(
		self->m, &(struct llmem_buffer_create_info){ .size = SIZE, .alignment = 4096 },
		&e->b);

	if (!ret)
		ret = llmem_rdma_register_buffer(self->pd, e->b,
						 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
							 IBV_ACCESS_REMOTE_READ,
						 0, &e->mr);
	if (!ret)
		ret = llmem_rdma_mr_get_info(e->mr, &e->info);
	if (!ret)
		ret = llmem_buffer_map(e->b, (void **)&e->map);
	if (ret)
		return ret;
	e->cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0);
	qa.send_cq = qa.recv_cq = e->cq;
	e->qp = e->cq ? ibv_create_qp(self->pd, &qa) : NULL;
	return e->qp ? 0 : -errno;
}

/* @e's queue pair connected to @peer's: INIT, ready to receive, to send. */
static int connect_end(FIXTURE_DATA(rdma) * self, struct end *e, const struct end *peer)
{
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT,
				    .port_num = 1,
				    .qp_access_flags =
					    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = peer->qp->qp_num,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1,
			     .port_num = 1,
			     .grh = { .dgid = self->gid,
				      .sgid_index = (uint8_t)self->gid_index,
				      .hop_limit = 1 } },
	};
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS,
				   .timeout = 14,
				   .retry_cnt = 7,
				   .rnr_retry = 7,
				   .sq_psn = 0,
				   .max_rd_atomic = 1 };
	int ret = ibv_modify_qp(
		e->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);

	if (!ret)
		ret = ibv_modify_qp(e->qp, &rtr,
				    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					    IBV_QP_MIN_RNR_TIMER);
	if (!ret)
		ret = ibv_modify_qp(e->qp, &rts,
				    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					    IBV_QP_MAX_QP_RD_ATOMIC);
	return ret ? -ret : 0;
}

FIXTURE_SETUP(rdma)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_DMABUF,
					       .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					       .name = "rdma" };
	struct ibv_device **list;
	int n;

	ASSERT_EQ(rxe_device(), 0) TH_LOG("rdma_rxe and " RXE_DEVICE " could not be set up");
	list = ibv_get_device_list(&n);
	ASSERT_NE(list, NULL);
	for (int i = 0; i < n && !self->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), RXE_DEVICE))
			self->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ASSERT_NE(self->ctx, NULL) TH_LOG("no %s among %d verbs devices", RXE_DEVICE, n);
	self->gid_index = ipv4_gid(self->ctx, &self->gid);
	ASSERT_GE(self->gid_index, 0);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(self->pd, NULL);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(make_end(self, &self->a), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(make_end(self, &self->z), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(connect_end(self, &self->a, &self->z), 0);
	ASSERT_EQ(connect_end(self, &self->z, &self->a), 0);
}

static void drop_end(struct end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->map)
		llmem_buffer_unmap(e->b);
	llmem_rdma_deregister(e->mr);
	llmem_buffer_destroy(e->b);
}

FIXTURE_TEARDOWN(rdma)
{
	drop_end(&self->a);
	drop_end(&self->z);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
	VK_TEST_SESSION_END(self->s);
}

/* One RDMA operation of @from's bytes against @to's, waited for. */
static int rdma_op(struct end *from, const struct end *to, enum ibv_wr_opcode op)
{
	struct ibv_sge sge = { .addr = from->info.addr, .length = SIZE, .lkey = from->info.lkey };
	struct ibv_send_wr wr = { .wr_id = 1,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { .remote_addr = to->info.addr,
					       .rkey = to->info.rkey } };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n, tries = 0;

	if (ibv_post_send(from->qp, &wr, &bad))
		return -errno;
	/* rxe runs in softirqs: under TCG a megabyte takes a while. */
	while (!(n = ibv_poll_cq(from->cq, 1, &wc)) && tries++ < 600000)
		usleep(100);
	if (n <= 0)
		return -ETIMEDOUT;
	return wc.status == IBV_WC_SUCCESS ? 0 : -EIO;
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

	EXPECT_FAILS(llmem_rdma_register_buffer(self->pd, self->a.b, IBV_ACCESS_LOCAL_WRITE,
						LLMEM_RDMA_DMABUF_ONLY, &mr),
		     -EOPNOTSUPP);
	EXPECT_NE(strstr(llmem_last_error(), "ibv_reg_dmabuf_mr"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(mr, NULL);
	EXPECT_FAILS(llmem_rdma_register_buffer(self->pd, self->a.b, 0,
						LLMEM_RDMA_DMABUF_ONLY | LLMEM_RDMA_MAPPING_ONLY,
						&mr),
		     -EINVAL);
	EXPECT_FAILS(llmem_rdma_register_buffer(NULL, self->a.b, 0, 0, &mr), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "RDMA: NULL protection domain");
	EXPECT_EQ(llmem_rdma_deregister(NULL), 0);
}

TEST_HARNESS_MAIN
