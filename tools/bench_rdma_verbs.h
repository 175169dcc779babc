/* SPDX-License-Identifier: MIT */
/*
 * The verbs llmem bench rdma (and the VM test of two hosts) needs, from
 * libibverbs.so.1 loaded at run time as the library loads it, so that
 * `llmem` starts where rdma-core is not installed; and one end of a
 * reliable-connected queue pair on a RoCE device, connected to a peer by
 * its queue pair number and GID.
 */
#ifndef LLMEM_TOOLS_BENCH_RDMA_VERBS_H
#define LLMEM_TOOLS_BENCH_RDMA_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct rdma_verbs {
	struct ibv_device **(*get_device_list)(int *n);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *user,
				    struct ibv_comp_channel *ch, int vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
};

/* What a peer needs to connect to an end. */
struct rdma_end_addr {
	uint32_t qpn;
	uint8_t gid[16];
};

struct rdma_end {
	const struct rdma_verbs *v;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int gid_index;
	struct rdma_end_addr addr;
	/* Why the last call failed. */
	char why[160];
};

/* Loads libibverbs.so.1 once.  Return: the table, or NULL with @why. */
const struct rdma_verbs *rdma_verbs_load(char *why, size_t len);

/*
 * Opens verbs device @name (NULL: the first), its protection domain, a
 * completion queue and an RC queue pair on port 1, and finds the port's
 * RoCE v2 GID of an IPv4 address.  Return: 0 or a negative errno, with
 * @e->why; rdma_end_close() either way.
 */
int rdma_end_open(struct rdma_end *e, const char *name);

/* The queue pair to INIT, RTR towards @peer, RTS.  Return: 0 or -errno. */
int rdma_end_connect(struct rdma_end *e, const struct rdma_end_addr *peer);

/*
 * Posts one signalled work request of @op (RDMA WRITE, WRITE WITH IMM,
 * READ) of @len bytes between the local @laddr/@lkey and the peer's
 * @raddr/@rkey, and waits up to @timeout_ms for its completion.
 * Return: 0, -ETIMEDOUT, -EIO for a completion in error, or -errno.
 */
int rdma_end_op(struct rdma_end *e, enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		uint32_t len, uint64_t raddr, uint32_t rkey, uint32_t imm, int timeout_ms);

/* A receive without buffer, for a peer's WRITE WITH IMM.  0 or -errno. */
int rdma_end_post_recv(struct rdma_end *e);

/* Waits for one completion: 0 with *@imm, -ETIMEDOUT, -EIO. */
int rdma_end_wait_recv(struct rdma_end *e, int timeout_ms, uint32_t *imm);

void rdma_end_close(struct rdma_end *e);

#endif
