// SPDX-License-Identifier: MIT
/*
 * llmem buffers through UCX (issue 32, item 3), on the two rxe devices of
 * tests/lib/rxe.c: one UCP context and worker per device, as two hosts
 * would have, an llmem buffer on llmem.ko's pages registered on each with
 * ucp_mem_map() of its mapping (UCX 1.13 registers host virtual addresses,
 * which llmem.ko's pages allow), the connection made by UCX's client and
 * server API over rdma_cm, and a put of a pattern from A's buffer into
 * B's and a get back, byte for byte, over rc_verbs alone (UCX_TLS: no
 * shared memory, no self, no TCP).
 *
 * UCX's other way to connect, an endpoint to a worker's address, wires up
 * over ud_verbs first, and never gets past it on rxe (docs/rdma.md).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucp/api/ucp.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "rxe.h"
#include "vk_test.h"

#define SIZE (1u << 20)
#define PORT 13337
#define LIMIT_S 120

/* One host: its UCX context and worker, its llmem buffer registered. */
struct host {
	ucp_context_h ctx;
	ucp_worker_h worker;
	struct llmem_buffer *b;
	uint8_t *map;
	ucp_mem_h memh;
};

FIXTURE(ucx)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct host a, b;
	ucp_listener_h listener;
	ucp_ep_h ep, server_ep;
	ucp_rkey_h rkey;
};

/* The index of @dev's RoCE v2 GID of an IPv4 address, from sysfs. */
static int ipv4_gid_index(const char *dev)
{
	for (int i = 0; i < 16; i++) {
		char path[96], gid[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gids/%d", dev, i);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(gid, sizeof(gid), f))
			gid[0] = '\0';
		fclose(f);
		if (!strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30))
			return i;
	}
	return -1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Both workers progressed (one thread plays both hosts) until @done or the limit. */
static void progress_until(FIXTURE_DATA(ucx) * self, ucp_ep_h *done)
{
	double t0 = now();

	while (!*done && now() - t0 < LIMIT_S) {
		ucp_worker_progress(self->a.worker);
		ucp_worker_progress(self->b.worker);
	}
}

static ucs_status_t wait_for(FIXTURE_DATA(ucx) * self, void *req)
{
	ucs_status_t status;
	double t0 = now();

	if (!UCS_PTR_IS_PTR(req))
		return UCS_PTR_STATUS(req);
	do {
		ucp_worker_progress(self->a.worker);
		ucp_worker_progress(self->b.worker);
		status = ucp_request_check_status(req);
	} while (status == UCS_INPROGRESS && now() - t0 < LIMIT_S);
	if (status != UCS_INPROGRESS)
		ucp_request_free(req);
	return status;
}

static void on_connection(ucp_conn_request_h req, void *arg)
{
	FIXTURE_DATA(ucx) *self = arg;
	ucp_ep_params_t p = { .field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST, .conn_request = req };

	if (ucp_ep_create(self->b.worker, &p, &self->server_ep) != UCS_OK)
		self->server_ep = NULL;
}

/* A host on verbs device @dev, rc_verbs alone. */
static int make_host(FIXTURE_DATA(ucx) * self, struct host *h, const char *dev)
{
	ucp_params_t params = { .field_mask = UCP_PARAM_FIELD_FEATURES,
				.features = UCP_FEATURE_RMA };
	ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
						  UCP_MEM_MAP_PARAM_FIELD_LENGTH,
				    .length = SIZE };
	char devices[64];
	ucp_config_t *cfg;
	ucs_status_t st;
	int ret;

	snprintf(devices, sizeof(devices), "%s:1", dev);
	if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
		return -EIO;
	st = ucp_config_modify(cfg, "TLS", "rc_verbs");
	if (st == UCS_OK)
		st = ucp_config_modify(cfg, "NET_DEVICES", devices);
	if (st == UCS_OK)
		st = ucp_init(&params, cfg, &h->ctx);
	ucp_config_release(cfg);
	if (st == UCS_OK)
		st = ucp_worker_create(h->ctx, &wp, &h->worker);
	if (st != UCS_OK)
		return -EIO;
	ret = llmem_buffer_create(
		self->m, &(struct llmem_buffer_create_info){ .size = SIZE, .alignment = 4096 },
		&h->b);
	if (!ret)
		ret = llmem_buffer_map(h->b, (void **)&h->map);
	if (ret)
		return ret;
	mp.address = h->map;
	return ucp_mem_map(h->ctx, &mp, &h->memh) == UCS_OK ? 0 : -EIO;
}

FIXTURE_SETUP(ucx)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_DMABUF,
					       .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					       .name = "ucx" };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	ucp_listener_params_t lp = {
		.field_mask =
			UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
		.sockaddr = { .addr = (struct sockaddr *)&sa, .addrlen = sizeof(sa) },
		.conn_handler = { .cb = on_connection, .arg = self },
	};
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.sockaddr = { .addr = (struct sockaddr *)&sa, .addrlen = sizeof(sa) },
	};
	char gid[16];
	size_t rkey_len;
	void *rkey;
	int index;

	ASSERT_EQ(rxe_two_devices(), 0) TH_LOG("rdma_rxe, " RXE_DEVICE " and " RXE_DEVICE_B);
	/* UCX's client and server API connects through rdma_cm. */
	ASSERT_EQ(system("modprobe rdma_ucm"), 0);
	/* UCX would pick a GID by its own rule; the veth's IPv4 one is the
	 * address that routes. One index for both: an environment variable. */
	index = ipv4_gid_index(RXE_DEVICE);
	ASSERT_GE(index, 0);
	ASSERT_EQ(ipv4_gid_index(RXE_DEVICE_B), index);
	snprintf(gid, sizeof(gid), "%d", index);
	setenv("UCX_IB_GID_INDEX", gid, 1);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(make_host(self, &self->a, RXE_DEVICE), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(make_host(self, &self->b, RXE_DEVICE_B), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(inet_pton(AF_INET, RXE_ADDRESS_B, &sa.sin_addr), 1);
	ASSERT_EQ(ucp_listener_create(self->b.worker, &lp, &self->listener), UCS_OK);
	ASSERT_EQ(ucp_ep_create(self->a.worker, &ep, &self->ep), UCS_OK);
	progress_until(self, &self->server_ep);
	ASSERT_NE(self->server_ep, NULL) TH_LOG("B accepted no connection in %d s", LIMIT_S);
	/* B's key travels to A as it would in a message of the program's. */
	ASSERT_EQ(ucp_rkey_pack(self->b.ctx, self->b.memh, &rkey, &rkey_len), UCS_OK);
	ASSERT_EQ(ucp_ep_rkey_unpack(self->ep, rkey, &self->rkey), UCS_OK);
	ucp_rkey_buffer_release(rkey);
}

static void close_ep(FIXTURE_DATA(ucx) * self, ucp_ep_h ep)
{
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_EP_CLOSE_FLAG_FORCE };

	if (ep)
		wait_for(self, ucp_ep_close_nbx(ep, &p));
}

static void drop_host(struct host *h)
{
	if (h->memh)
		ucp_mem_unmap(h->ctx, h->memh);
	if (h->map)
		llmem_buffer_unmap(h->b);
	llmem_buffer_destroy(h->b);
	if (h->worker)
		ucp_worker_destroy(h->worker);
	if (h->ctx)
		ucp_cleanup(h->ctx);
}

FIXTURE_TEARDOWN(ucx)
{
	if (self->rkey)
		ucp_rkey_destroy(self->rkey);
	close_ep(self, self->ep);
	close_ep(self, self->server_ep);
	if (self->listener)
		ucp_listener_destroy(self->listener);
	drop_host(&self->a);
	drop_host(&self->b);
	if (self->m)
		EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* A put into B's llmem buffer, then a get back into A's, over rc_verbs. */
TEST_F_TIMEOUT(ucx, put_and_get, 300)
{
	uint64_t remote = (uint64_t)(uintptr_t)self->b.map;
	ucp_request_param_t p = { 0 };

	for (uint32_t i = 0; i < SIZE; i++) {
		self->a.map[i] = (uint8_t)(i * 7 + (i >> 12));
		self->b.map[i] = 0;
	}
	ASSERT_EQ(wait_for(self, ucp_put_nbx(self->ep, self->a.map, SIZE, remote, self->rkey, &p)),
		  UCS_OK);
	ASSERT_EQ(wait_for(self, ucp_ep_flush_nbx(self->ep, &p)), UCS_OK);
	EXPECT_EQ(memcmp(self->a.map, self->b.map, SIZE), 0);
	for (uint32_t i = 0; i < SIZE; i++)
		self->b.map[i] ^= 0x5a;
	ASSERT_EQ(wait_for(self, ucp_get_nbx(self->ep, self->a.map, SIZE, remote, self->rkey, &p)),
		  UCS_OK);
	EXPECT_EQ(memcmp(self->a.map, self->b.map, SIZE), 0);
}

TEST_HARNESS_MAIN
