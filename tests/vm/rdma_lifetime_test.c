// SPDX-License-Identifier: MIT
/*
 * What an RDMA region on llmem.ko's pages leaves behind (issue 32, item 1),
 * on software RoCE: a process killed while it has a region registered
 * gives every page back; llmem.ko counts the pages a region pins (INFO's
 * gup_pinned_pages, debugfs's total) and none after deregistration;
 * llmem.ko cannot be unloaded while a registered mapping holds its
 * DMA-BUF, and can once the region and the mapping are gone.  And the
 * tracker's blind spot: a region pins pages by GUP (FOLL_PIN |
 * FOLL_LONGTERM), which holds the pages but not the DMA-BUF, so once the
 * mapping and the fds are gone llmem.ko frees its buffer and stops
 * counting pages the card still reads and writes; they stay whole (the
 * card reads what was written), go back to the kernel at deregistration,
 * and llmem.ko can be unloaded meanwhile: the pages are the page
 * allocator's, with nothing of llmem.ko's left on them.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llmem/llmem.h>

#include "../../tools/bench_rdma_verbs.h"
#include "../module/llmem_test.h"
#include "kselftest_harness.h"
#include "rxe.h"

#define PAGES 64
#define SIZE (PAGES * 4096u)
#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define OP_TIMEOUT_MS 60000

/* llmem.ko's count of its pages pinned by GUP (FOLL_PIN), or -1. */
static long gup_pinned_pages(void)
{
	return llmem_debugfs_count("/sys/kernel/debug/llmem/gup_pinned_pages");
}

static uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 29 + (i >> 12) + 1);
}

FIXTURE(lifetime)
{
	struct rdma_end a, z;
	long before;
};

/* Two queue pairs on one device, connected through its loopback. */
FIXTURE_SETUP(lifetime)
{
	ASSERT_EQ(rxe_device(), 0) TH_LOG("rdma_rxe and " RXE_DEVICE " could not be set up");
	ASSERT_EQ(rdma_end_open(&self->a, RXE_DEVICE), 0) TH_LOG("%s", self->a.why);
	ASSERT_EQ(rdma_end_open(&self->z, RXE_DEVICE), 0) TH_LOG("%s", self->z.why);
	ASSERT_EQ(rdma_end_connect(&self->a, &self->z.addr), 0) TH_LOG("%s", self->a.why);
	ASSERT_EQ(rdma_end_connect(&self->z, &self->a.addr), 0) TH_LOG("%s", self->z.why);
	self->before = llmem_live_pages();
	ASSERT_GE(self->before, 0) TH_LOG("no %s", LLMEM_LIVE_PAGES);
}

FIXTURE_TEARDOWN(lifetime)
{
	rdma_end_close(&self->a);
	rdma_end_close(&self->z);
}

/* A child registers an llmem buffer through the library and is killed. */
static void registered_then_wait(int ready)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_DMABUF,
					       .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					       .page_size = SIZE,
					       .name = "rdma killed" };
	struct llmem_session_create_info sci = { .app_name = "rdma killed" };
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	struct llmem_rdma_mr *mr;
	struct rdma_end e;

	if (rdma_end_open(&e, RXE_DEVICE) || llmem_session_create(&sci, &s) ||
	    llmem_memory_create(s, &ci, &m) ||
	    llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = SIZE }, &b) ||
	    llmem_rdma_register_buffer(e.pd, b, ACCESS, 0, &mr))
		_exit(1);
	if (write(ready, "R", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

TEST_F_TIMEOUT(lifetime, killed_with_a_region, 120)
{
	int p[2], status;
	char c;
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(p[0]);
		registered_then_wait(p[1]);
	}
	close(p[1]);
	ASSERT_EQ(read(p[0], &c, 1), 1) TH_LOG("the child did not register its buffer");
	close(p[0]);
	EXPECT_EQ(llmem_live_pages(), self->before + PAGES);
	EXPECT_EQ(gup_pinned_pages(), PAGES);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(llmem_live_pages_back_to(self->before), self->before);
	EXPECT_EQ(gup_pinned_pages(), 0);
}

/* An llmem.ko buffer's mapping, filled with the pattern. */
static uint8_t *map_pattern(int fd)
{
	uint8_t *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return NULL;
	for (uint32_t i = 0; i < SIZE; i++)
		p[i] = pattern(i);
	return p;
}

/* An llmem.ko buffer's mapping, its fds closed: the mapping holds it alone. */
static uint8_t *mapped_buffer(void)
{
	int dev = llmem_open(), fd = dev >= 0 ? llmem_alloc(dev, SIZE) : -1;
	uint8_t *p = fd >= 0 ? map_pattern(fd) : NULL;

	if (fd >= 0)
		close(fd);
	if (dev >= 0)
		close(dev);
	return p;
}

/* llmem.ko unloaded and loaded again as the rig loaded it; 0, or a skip. */
static int reload_llmem(struct __test_metadata *_metadata)
{
	char entry[1024];

	if (module_entry("llmem.ko", entry, sizeof(entry)))
		return -ENOENT;
	EXPECT_EQ(delete_module("llmem"), 0);
	EXPECT_EQ(insmod(entry), 0);
	return 0;
}

/*
 * INFO counts the buffer's pinned pages while the region exists; with the
 * fds closed, the registered mapping keeps llmem.ko loaded.
 */
TEST_F(lifetime, unload_refused_while_registered)
{
	int dev = llmem_open(), fd = dev >= 0 ? llmem_alloc(dev, SIZE) : -1;
	struct llmem_info info;
	struct ibv_mr *mr;
	uint8_t *p;

	ASSERT_GE(fd, 0);
	p = map_pattern(fd);
	ASSERT_NE(p, NULL);
	ASSERT_EQ(llmem_info(dev, fd, &info, NULL, 0), 0);
	EXPECT_TRUE(info.known & LLMEM_KNOWN_GUP_PINS);
	EXPECT_EQ(info.gup_pinned_pages, 0);
	EXPECT_EQ(gup_pinned_pages(), 0);
	mr = self->a.v->reg_mr(self->a.pd, p, SIZE, ACCESS);
	ASSERT_NE(mr, NULL) TH_LOG("ibv_reg_mr: %s", strerror(errno));
	ASSERT_EQ(llmem_info(dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.gup_pinned_pages, PAGES);
	EXPECT_EQ(gup_pinned_pages(), PAGES);
	EXPECT_EQ(llmem_live_pages(), self->before + PAGES);
	close(fd);
	close(dev);
	EXPECT_EQ(delete_module("llmem"), -EWOULDBLOCK);
	EXPECT_EQ(access(LLMEM_DEV, F_OK), 0);
	EXPECT_EQ(self->a.v->dereg_mr(mr), 0);
	EXPECT_EQ(gup_pinned_pages(), 0);
	EXPECT_EQ(munmap(p, SIZE), 0);
	EXPECT_EQ(llmem_live_pages_back_to(self->before), self->before);
	if (reload_llmem(_metadata))
		SKIP(return, "LLMEM_VM_MODULES does not name llmem.ko (tests/vm/run sets it)");
	EXPECT_EQ(access(LLMEM_DEV, F_OK), 0);
}

TEST_F_TIMEOUT(lifetime, released_while_registered, 120)
{
	uint8_t *p = mapped_buffer(), *dst = NULL;
	struct ibv_mr *mr, *dst_mr;
	bool reloaded;

	ASSERT_NE(p, NULL);
	mr = self->a.v->reg_mr(self->a.pd, p, SIZE, ACCESS);
	ASSERT_NE(mr, NULL) TH_LOG("ibv_reg_mr: %s", strerror(errno));
	ASSERT_EQ(posix_memalign((void **)&dst, 4096, SIZE), 0);
	memset(dst, 0, SIZE);
	dst_mr = self->z.v->reg_mr(self->z.pd, dst, SIZE, ACCESS);
	ASSERT_NE(dst_mr, NULL);
	/* The mapping goes, the region stays: llmem.ko frees its buffer and
	 * no longer counts the pages the card pins. */
	EXPECT_EQ(gup_pinned_pages(), PAGES);
	EXPECT_EQ(munmap(p, SIZE), 0);
	EXPECT_EQ(llmem_live_pages_back_to(self->before), self->before);
	EXPECT_EQ(gup_pinned_pages(), 0);
	/* Unloading does not wait for the card: nothing of llmem.ko's holds. */
	reloaded = !reload_llmem(_metadata);
	if (!reloaded)
		TH_LOG("llmem.ko not reloaded: LLMEM_VM_MODULES does not name it");
	/* The card still reads the pages whole (init_on_free would have
	 * cleared them, had they been freed). */
	ASSERT_EQ(rdma_end_op(&self->a, IBV_WR_RDMA_WRITE, (uint64_t)(uintptr_t)p, mr->lkey, SIZE,
			      (uint64_t)(uintptr_t)dst, dst_mr->rkey, 0, OP_TIMEOUT_MS),
		  0)
	TH_LOG("%s", self->a.why);
	for (uint32_t i = 0; i < SIZE; i++)
		if (dst[i] != pattern(i)) {
			EXPECT_EQ(dst[i], pattern(i)) TH_LOG("byte %u", i);
			break;
		}
	EXPECT_EQ(self->a.v->dereg_mr(mr), 0);
	EXPECT_EQ(self->z.v->dereg_mr(dst_mr), 0);
	free(dst);
	/* A module loaded again counts from 0; one not unloaded, from before. */
	EXPECT_EQ(llmem_live_pages(), reloaded ? 0 : self->before);
}

TEST_HARNESS_MAIN
