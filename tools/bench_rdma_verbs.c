// SPDX-License-Identifier: MIT
/*
 * libibverbs.so.1 at run time, and an RC queue pair's end (bench_rdma_verbs.h).
 * ibv_post_send(), ibv_post_recv() and ibv_poll_cq() are verbs.h's inline
 * calls through the device's own table: they need no symbol.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_rdma_verbs.h"

static struct rdma_verbs verbs;
static char load_error[160];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

#define SYM(field, name)                                                                      \
	do {                                                                                  \
		*(void **)&verbs.field = dlsym(lib, name);                                    \
		if (!verbs.field && !load_error[0])                                           \
			snprintf(load_error, sizeof(load_error), "libibverbs.so.1 has no %s", \
				 name);                                                       \
	} while (0)

/* libibverbs is never unloaded: its providers keep threads and state. */
static void load(void)
{
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(load_error, sizeof(load_error), "cannot load libibverbs.so.1 (%s)",
			 dlerror());
		return;
	}
	SYM(get_device_list, "ibv_get_device_list");
	SYM(free_device_list, "ibv_free_device_list");
	SYM(get_device_name, "ibv_get_device_name");
	SYM(open_device, "ibv_open_device");
	SYM(close_device, "ibv_close_device");
	SYM(query_gid, "ibv_query_gid");
	SYM(alloc_pd, "ibv_alloc_pd");
	SYM(dealloc_pd, "ibv_dealloc_pd");
	SYM(create_cq, "ibv_create_cq");
	SYM(destroy_cq, "ibv_destroy_cq");
	SYM(create_qp, "ibv_create_qp");
	SYM(modify_qp, "ibv_modify_qp");
	SYM(destroy_qp, "ibv_destroy_qp");
	SYM(reg_mr, "ibv_reg_mr");
	SYM(dereg_mr, "ibv_dereg_mr");
}

const struct rdma_verbs *rdma_verbs_load(char *why, size_t len)
{
	pthread_once(&load_once, load);
	if (load_error[0]) {
		snprintf(why, len, "%s", load_error);
		return NULL;
	}
	return &verbs;
}

static int fail(struct rdma_end *e, int err, const char *what)
{
	snprintf(e->why, sizeof(e->why), "%s: %s", what, strerror(err));
	return -err;
}

/* The port's RoCE v2 GID of an IPv4 address (::ffff:a.b.c.d). */
static int ipv4_gid(struct rdma_end *e)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	union ibv_gid gid;

	for (int i = 0; i < 16; i++)
		if (!e->v->query_gid(e->ctx, 1, i, &gid) && !memcmp(gid.raw, mapped, 12)) {
			memcpy(e->addr.gid, gid.raw, 16);
			return i;
		}
	return -1;
}

int rdma_end_open(struct rdma_end *e, const char *name)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device **list;
	int n;

	*e = (struct rdma_end){ .gid_index = -1 };
	e->v = rdma_verbs_load(e->why, sizeof(e->why));
	if (!e->v)
		return -ENOTSUP;
	/* Without ib_uverbs, or any device, rdma-core fails with ENOSYS. */
	list = e->v->get_device_list(&n);
	if (!list)
		return fail(e, errno, "no verbs device: ibv_get_device_list");
	for (int i = 0; i < n && !e->ctx; i++)
		if (!name || !strcmp(e->v->get_device_name(list[i]), name))
			e->ctx = e->v->open_device(list[i]);
	e->v->free_device_list(list);
	if (!e->ctx) {
		snprintf(e->why, sizeof(e->why), "no verbs device %s among %d", name ? name : "",
			 n);
		errno = ENODEV;
		return -ENODEV;
	}
	e->gid_index = ipv4_gid(e);
	if (e->gid_index < 0) {
		snprintf(e->why, sizeof(e->why), "%s has no GID of an IPv4 address",
			 e->ctx->device->name);
		return -EADDRNOTAVAIL;
	}
	e->pd = e->v->alloc_pd(e->ctx);
	if (!e->pd)
		return fail(e, errno, "ibv_alloc_pd");
	e->cq = e->v->create_cq(e->ctx, 8, NULL, NULL, 0);
	if (!e->cq)
		return fail(e, errno, "ibv_create_cq");
	qa.send_cq = qa.recv_cq = e->cq;
	e->qp = e->v->create_qp(e->pd, &qa);
	if (!e->qp)
		return fail(e, errno, "ibv_create_qp");
	e->addr.qpn = e->qp->qp_num;
	return 0;
}

int rdma_end_connect(struct rdma_end *e, const struct rdma_end_addr *peer)
{
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT,
				    .port_num = 1,
				    .qp_access_flags =
					    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = peer->qpn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1,
			     .port_num = 1,
			     .grh = { .sgid_index = (uint8_t)e->gid_index, .hop_limit = 1 } },
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	int ret;

	memcpy(rtr.ah_attr.grh.dgid.raw, peer->gid, 16);
	ret = e->v->modify_qp(e->qp, &init,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return fail(e, ret, "queue pair to INIT");
	/* Here the kernel resolves the peer's GID to a MAC address. */
	ret = e->v->modify_qp(e->qp, &rtr,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return fail(e, ret, "queue pair to RTR");
	ret = e->v->modify_qp(e->qp, &rts,
			      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	return ret ? fail(e, ret, "queue pair to RTS") : 0;
}

/* One completion; rxe works in softirqs, a frame takes a while under TCG. */
static int wait_one(struct rdma_end *e, int timeout_ms, struct ibv_wc *wc)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(n = ibv_poll_cq(e->cq, 1, wc))) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >
		    timeout_ms) {
			snprintf(e->why, sizeof(e->why), "no completion in %d ms", timeout_ms);
			return -ETIMEDOUT;
		}
		usleep(20);
	}
	if (n < 0)
		return fail(e, EIO, "ibv_poll_cq");
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(e->why, sizeof(e->why), "completion status %d (enum ibv_wc_status)",
			 wc->status);
		return -EIO;
	}
	return 0;
}

int rdma_end_op(struct rdma_end *e, enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		uint32_t len, uint64_t raddr, uint32_t rkey, uint32_t imm, int timeout_ms)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = 1,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED,
				  .imm_data = htonl(imm),
				  .wr.rdma = { .remote_addr = raddr, .rkey = rkey } };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret = ibv_post_send(e->qp, &wr, &bad);

	return ret ? fail(e, ret, "ibv_post_send") : wait_one(e, timeout_ms, &wc);
}

int rdma_end_post_recv(struct rdma_end *e)
{
	struct ibv_recv_wr wr = { .wr_id = 2 }, *bad;
	int ret = ibv_post_recv(e->qp, &wr, &bad);

	return ret ? fail(e, ret, "ibv_post_recv") : 0;
}

int rdma_end_wait_recv(struct rdma_end *e, int timeout_ms, uint32_t *imm)
{
	struct ibv_wc wc;
	int ret = wait_one(e, timeout_ms, &wc);

	if (!ret)
		*imm = ntohl(wc.imm_data);
	return ret;
}

void rdma_end_close(struct rdma_end *e)
{
	if (!e->v)
		return;
	if (e->qp)
		e->v->destroy_qp(e->qp);
	if (e->cq)
		e->v->destroy_cq(e->cq);
	if (e->pd)
		e->v->dealloc_pd(e->pd);
	if (e->ctx)
		e->v->close_device(e->ctx);
	*e = (struct rdma_end){ 0 };
}
