/* SPDX-License-Identifier: MIT */
/*
 * SQLite's fault-injection loop, shared by the fault programs: for each kind
 * of call (inject.h) and N = 1, 2, … the Nth call of that kind libllmem
 * makes fails, until the operation succeeds without reaching N.  Each
 * failure must return the injected errno (-ENOMEM, or -EMFILE for an fd),
 * leave the output handle NULL, and leave nothing behind: the state the
 * caller watches (objects, pages, mapped pages of its memories), fds
 * (/proc/self/fd) and mappings (/proc/self/maps).  Vulkan objects and heap
 * blocks are checked at teardown, by the validation layer and LeakSanitizer.
 *
 * Drivers open fds and map memory on first use, some per device and some per
 * queue (NVIDIA's does both; lavapipe neither): one unarmed try comes first,
 * and an fd or mapping a failure seems to leave counts only if it is still
 * there once the try's own setup is torn down.
 *
 * Header-only: the harness's EXPECT macros need the test program's
 * _metadata, and each program includes the harness once.
 */
#ifndef LLMEM_TEST_FAULT_LOOP_H
#define LLMEM_TEST_FAULT_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <llmem/buffer.h>
#include <llmem/error.h>
#include <llmem/memory.h>

#include "inject.h"
#include "test_util.h"

/*
 * The harness ends each test's process with _exit(), which skips
 * LeakSanitizer's check at exit: under ASan a teardown runs it itself.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define fault_leak_check() __lsan_do_recoverable_leak_check()
#else
#define fault_leak_check() 0
#endif

/*
 * What up to three memories hold (objects, pages, mapped pages), as one
 * number an operation's @state gives: a failure must leave it as it was.
 * A NULL memory counts nothing.
 */
static inline uint64_t fault_memory_state(struct llmem_memory *m)
{
	struct llmem_memory_info mi;

	if (!m)
		return 0;
	if (llmem_memory_get_info(m, &mi))
		return UINT64_MAX;
	return (uint64_t)mi.object_count << 42 | (uint64_t)mi.page_count << 21 | mi.mapped_pages;
}

static inline uint64_t fault_memories_state(struct llmem_memory *a, struct llmem_memory *b,
					    struct llmem_memory *c)
{
	return fault_memory_state(a) ^ fault_memory_state(b) * 0x9E3779B97F4A7C15ULL ^
	       fault_memory_state(c) * 0xC2B2AE3D27D4EB4FULL;
}

/* The page a buffer lies in, for the calls that take a page. */
static inline uint32_t fault_page_of(struct llmem_buffer *b)
{
	struct llmem_allocation a;

	llmem_buffer_get_allocation(b, &a);
	return a.page;
}

/* No operation here needs more: a loop that reaches it has lost count. */
#define FAULT_MAX_N 500

static const struct {
	unsigned int kind;
	const char *name;
} fault_kinds[] = {
	{ INJECT_MALLOC, "malloc" },
	{ INJECT_IOCTL, "ioctl" },
	{ INJECT_VULKAN, "vulkan" },
	{ INJECT_SYSCALL, "syscall" },
};

/*
 * One operation.  @setup and @teardown run unarmed around each try (a
 * fresh queue, a message to receive); @run makes the object into *@out
 * (0 or -errno) and @undo destroys it; @state sums up what the program's
 * memories hold, so that a failure can be seen to leave them as they were.
 * @also: an error the call documents that a failure may give besides the
 * injected errno (0: none).
 */
struct fault_op {
	const char *name;
	int (*setup)(void *ctx);
	int (*run)(void *ctx, void **out);
	void (*undo)(void *ctx, void *obj);
	void (*teardown)(void *ctx);
	uint64_t (*state)(void *ctx);
	int also;
};

/* An operation on objects that last; one with fresh ones made around each try. */
#define FAULT_OP(n, r, u)                            \
	{                                            \
		.name = (n), .run = (r), .undo = (u) \
	}
#define FAULT_OP_FRESH(n, s, r, u, t)                                               \
	{                                                                           \
		.name = (n), .setup = (s), .run = (r), .undo = (u), .teardown = (t) \
	}

/*
 * Lines of /proc/self/maps: one per mapping (neighbours of the same kind
 * merge).  Under AddressSanitizer, whose allocator maps more anonymous
 * memory as it grows and never gives it back, only mappings of a file or
 * device count (a DMA-BUF, a memfd, /dev/llmem): what a leaked map of the
 * library's is; LeakSanitizer answers for the heap.
 */
static inline int fault_count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
#if defined(__SANITIZE_ADDRESS__)
		/* address perms offset dev inode [path]: inode 0 is anonymous. */
		unsigned long inode = 1;

		if (sscanf(line, "%*s %*s %*s %*s %lu", &inode) == 1 && inode == 0 &&
		    !strchr(line, '/'))
			continue;
#endif
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Loops N over every kind for @op; returns the failures it injected, or -1
 * when a setup failed.  Prints, per kind, the calls that could fail.
 */
static int fault_loop(struct __test_metadata *_metadata, const struct fault_op *op, void *ctx)
{
	int injected = 0;
	void *warm = NULL;
	int ret;

	if (op->setup && (ret = op->setup(ctx))) {
		EXPECT_EQ(ret, 0)
		TH_LOG("%s: setup: %s", op->name, llmem_last_error());
		return -1;
	}
	if (!op->run(ctx, &warm))
		op->undo(ctx, warm);
	if (op->teardown)
		op->teardown(ctx);

	for (size_t k = 0; k < sizeof(fault_kinds) / sizeof(fault_kinds[0]); k++) {
		const char *kind = fault_kinds[k].name;
		unsigned long n;

		for (n = 1; n <= FAULT_MAX_N; n++) {
			int fds_before_setup = count_open_fds();
			int maps_before_setup = fault_count_maps();
			bool fd_left, map_left;
			uint64_t before;
			int fds, maps;
			void *obj = NULL;

			if (op->setup && (ret = op->setup(ctx))) {
				EXPECT_EQ(ret, 0)
				TH_LOG("%s: setup: %s", op->name, llmem_last_error());
				return -1;
			}
			before = op->state ? op->state(ctx) : 0;
			fds = count_open_fds();
			maps = fault_count_maps();
			inject_arm(fault_kinds[k].kind, n);
			ret = op->run(ctx, &obj);
			inject_disarm();
			if (!inject_fired()) {
				EXPECT_EQ(ret, 0)
				TH_LOG("%s with no failure: %s (%s)", op->name, llmem_strerror(ret),
				       llmem_last_error());
				if (!ret)
					op->undo(ctx, obj);
				if (op->teardown)
					op->teardown(ctx);
				break;
			}
			injected++;
			fd_left = map_left = false;
			if (!ret) {
				/* A failure the operation may absorb (a retry, a fallback). */
				op->undo(ctx, obj);
			} else {
				EXPECT_TRUE(ret == -inject_errno() || (op->also && ret == op->also))
				TH_LOG("%s, %s call %lu failing: %s (%s)", op->name, kind, n,
				       llmem_strerror(ret), llmem_last_error());
				EXPECT_EQ(obj, NULL)
				TH_LOG("%s, %s call %lu: handle set", op->name, kind, n);
				EXPECT_EQ(op->state ? op->state(ctx) : 0, before)
				TH_LOG("%s, %s call %lu failing left objects, pages or maps",
				       op->name, kind, n);
				fd_left = count_open_fds() != fds;
				map_left = fault_count_maps() != maps;
			}
			if (op->teardown)
				op->teardown(ctx);
			if (fd_left) {
				EXPECT_EQ(count_open_fds(), fds_before_setup)
				TH_LOG("%s, %s call %lu failing left an fd", op->name, kind, n);
			}
			if (map_left) {
				EXPECT_EQ(fault_count_maps(), maps_before_setup)
				TH_LOG("%s, %s call %lu failing left a mapping", op->name, kind, n);
			}
		}
		EXPECT_LE(n, FAULT_MAX_N);
		printf("# %s: %lu %s calls, each failed once\n", op->name, n - 1, kind);
		fflush(stdout);
	}
	return injected;
}

#endif
