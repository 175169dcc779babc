// SPDX-License-Identifier: MIT
/*
 * SQLite's fault-injection loop on the public create, map and export calls:
 * for N = 1, 2, … the Nth malloc/calloc, ioctl or Vulkan create/allocate/map
 * call libllmem makes fails (tests/fault/inject.h), until the operation
 * succeeds without reaching N.  Each failure must return -ENOMEM (what every
 * such failure is documented to give), leave the output handle unset, and
 * leave nothing behind: no object or page in the memory, no fd, and, at
 * teardown, no Vulkan object (the validation layer reports them at device
 * destruction) and no heap block (LeakSanitizer under -Db_sanitize=address).
 * Export and import run where DMA-BUFs can be shared: in the VM, on both
 * kernels (Vulkan's export on 6.12, llmem.ko on 6.1).
 */
#include <dirent.h>
#include <stdlib.h>

#include <llmem/llmem.h>
#include <vulkan/vulkan.h>

#include "inject.h"
#include "kselftest_harness.h"
#include "vk_test.h"

/* No operation here needs more: a loop that reaches it has lost count. */
#define MAX_N 500

static const struct {
	unsigned int kind;
	const char *name;
} kinds[] = {
	{ INJECT_MALLOC, "malloc" },
	{ INJECT_IOCTL, "ioctl" },
	{ INJECT_VULKAN, "vulkan" },
};

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

FIXTURE(fault)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	struct llmem_image *img;
};

FIXTURE_SETUP(fault)
{
	struct llmem_memory_create_info ci = {
		.page_size = 1 << 20,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.name = "fault",
	};
	struct llmem_buffer_create_info bci = { .size = 4096 };
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 16, 16, 4 } };

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0);
	ASSERT_EQ(llmem_image_create(self->m, &ici, &self->img), 0);
}

FIXTURE_TEARDOWN(fault)
{
	llmem_image_destroy(self->img);
	llmem_buffer_destroy(self->b);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/*
 * One operation: @run makes the object into *@out (0 or -errno), @undo
 * destroys it, @state counts what the fixture's memory holds (objects and
 * pages) so that a failure can be seen to leave it as it was.
 */
struct op {
	const char *name;
	int (*run)(FIXTURE_DATA(fault) * f, void **out);
	void (*undo)(FIXTURE_DATA(fault) * f, void *obj);
};

static uint64_t memory_state(struct llmem_memory *m)
{
	struct llmem_memory_info mi;

	if (llmem_memory_get_info(m, &mi))
		return UINT64_MAX;
	return (uint64_t)mi.object_count << 32 | mi.page_count;
}

/* Loops N over every kind for @op; returns the failures it saw, or -1. */
static int fault_loop(struct __test_metadata *_metadata, FIXTURE_DATA(fault) * f,
		      const struct op *op)
{
	int injected = 0;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		unsigned long n;

		for (n = 1; n <= MAX_N; n++) {
			uint64_t before = memory_state(f->m);
			int fds = count_fds(), ret;
			void *obj = NULL;

			inject_arm(kinds[k].kind, n);
			ret = op->run(f, &obj);
			inject_disarm();
			if (!inject_fired()) {
				EXPECT_EQ(ret, 0)
				TH_LOG("%s with no failure: %s", op->name, llmem_strerror(ret));
				if (!ret)
					op->undo(f, obj);
				break;
			}
			injected++;
			if (!ret) {
				/* A failure the operation may absorb (a retry, a fallback). */
				op->undo(f, obj);
				continue;
			}
			EXPECT_EQ(ret, -ENOMEM)
			TH_LOG("%s, %s call %lu failing: %s (%s)", op->name, kinds[k].name, n,
			       llmem_strerror(ret), llmem_last_error());
			EXPECT_EQ(obj, NULL)
			TH_LOG("%s, %s call %lu: handle set", op->name, kinds[k].name, n);
			EXPECT_EQ(memory_state(f->m), before)
			TH_LOG("%s, %s call %lu failing left objects or pages", op->name,
			       kinds[k].name, n);
			EXPECT_EQ(count_fds(), fds)
			TH_LOG("%s, %s call %lu failing left an fd", op->name, kinds[k].name, n);
		}
		EXPECT_LE(n, MAX_N);
		printf("# %s: %lu %s calls, each failed once\n", op->name, n - 1, kinds[k].name);
		fflush(stdout);
	}
	return injected;
}

static int run_memory(FIXTURE_DATA(fault) * f, void **out)
{
	struct llmem_memory_create_info ci = { .page_size = 1 << 20 };

	return llmem_memory_create(f->s, &ci, (struct llmem_memory **)out);
}

static void undo_memory(FIXTURE_DATA(fault) * f, void *obj)
{
	llmem_memory_destroy(obj);
}

/* A buffer large enough to need a page of its own. */
static int run_buffer(FIXTURE_DATA(fault) * f, void **out)
{
	struct llmem_buffer_create_info bci = { .size = 2 << 20 };

	return llmem_buffer_create(f->m, &bci, (struct llmem_buffer **)out);
}

static void undo_buffer(FIXTURE_DATA(fault) * f, void *obj)
{
	llmem_buffer_destroy(obj);
}

static int run_buffer_from_host(FIXTURE_DATA(fault) * f, void **out)
{
	static const uint8_t data[4096] = { 1, 2, 3 };
	struct llmem_buffer_create_info bci = { .size = sizeof(data) };

	return llmem_buffer_create_from_host(f->m, &bci, data, sizeof(data),
					     (struct llmem_buffer **)out);
}

static int run_image(FIXTURE_DATA(fault) * f, void **out)
{
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 64, 64, 4 } };

	return llmem_image_create(f->m, &ici, (struct llmem_image **)out);
}

static void undo_image(FIXTURE_DATA(fault) * f, void *obj)
{
	llmem_image_destroy(obj);
}

static int run_view(FIXTURE_DATA(fault) * f, void **out)
{
	struct llmem_image_view_create_info vci = { 0 };

	return llmem_image_view_create(f->img, &vci, (struct llmem_image_view **)out);
}

static void undo_view(FIXTURE_DATA(fault) * f, void *obj)
{
	llmem_image_view_destroy(obj);
}

/* The fixture's buffer is mapped; the handle is the pointer. */
static int run_map(FIXTURE_DATA(fault) * f, void **out)
{
	return llmem_buffer_map(f->b, out);
}

static void undo_map(FIXTURE_DATA(fault) * f, void *obj)
{
	llmem_buffer_unmap(f->b);
}

/*
 * Sharing: a buffer in a DMA-BUF memory (its page comes from the backend:
 * Vulkan's export on 6.12, llmem.ko on 6.1), exported; and a fresh import
 * memory taking that DMA-BUF in.  The fixture's @shared and @fd hold them.
 */
struct exported {
	struct llmem_buffer *b;
	int fd;
};

static struct llmem_memory *shared;
static int shared_fd = -1;

static int run_export(FIXTURE_DATA(fault) * f, void **out)
{
	struct llmem_buffer_create_info bci = { .size = 2 << 20 };
	struct exported *e = calloc(1, sizeof(*e));
	struct llmem_dmabuf_region r;
	int ret;

	if (!e)
		return -ENOMEM;
	ret = llmem_buffer_create(shared, &bci, &e->b);
	if (!ret) {
		ret = llmem_buffer_export(e->b, &r);
		if (ret)
			llmem_buffer_destroy(e->b);
	}
	if (ret) {
		free(e);
		return ret;
	}
	e->fd = r.fd;
	*out = e;
	return 0;
}

static void undo_export(FIXTURE_DATA(fault) * f, void *obj)
{
	struct exported *e = obj;

	close(e->fd);
	llmem_buffer_destroy(e->b);
	free(e);
}

static int run_import(FIXTURE_DATA(fault) * f, void **out)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_memory *m;
	uint32_t page;
	int ret = llmem_memory_create(f->s, &ci, &m);

	if (ret)
		return ret;
	ret = llmem_memory_import_dmabuf(m, shared_fd, 0, &page);
	if (ret) {
		llmem_memory_destroy(m);
		return ret;
	}
	*out = m;
	return 0;
}

static const struct op ops[] = {
	{ "llmem_memory_create", run_memory, undo_memory },
	{ "llmem_buffer_create", run_buffer, undo_buffer },
	{ "llmem_buffer_create_from_host", run_buffer_from_host, undo_buffer },
	{ "llmem_image_create", run_image, undo_image },
	{ "llmem_image_view_create", run_view, undo_view },
	{ "llmem_buffer_map", run_map, undo_map },
};

/* Every create and map call, every failure point of each kind; slow under TCG. */
TEST_F_TIMEOUT(fault, create_and_map, 600)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		EXPECT_GT(fault_loop(_metadata, self, &ops[i]), 0)
		TH_LOG("%s reached no call that can fail", ops[i].name);
	}
}

/*
 * Export and import, where the device shares DMA-BUFs: always in the VM
 * (llmem.ko or Vulkan's export), never on a host without either.
 */
TEST_F_TIMEOUT(fault, export_and_import, 600)
{
	static const struct op export_op = { "llmem_buffer_export", run_export, undo_export };
	static const struct op import_op = { "llmem_memory_import_dmabuf", run_import,
					     undo_memory };
	struct llmem_memory_create_info ci = { .page_size = 4 << 20,
					       .sharing = LLMEM_SHARING_DMABUF };
	struct exported *e;
	int ret = llmem_memory_create(self->s, &ci, &shared);

	if (ret == -ENOTSUP && !getenv("LLMEM_VM")) {
		printf("# this host cannot share DMA-BUFs: %s\n", llmem_last_error());
		fflush(stdout);
		return;
	}
	ASSERT_EQ(ret, 0) TH_LOG("sharing memory: %s", llmem_last_error());
	EXPECT_GT(fault_loop(_metadata, self, &export_op), 0);
	ASSERT_EQ(run_export(self, (void **)&e), 0);
	shared_fd = e->fd;
	EXPECT_GT(fault_loop(_metadata, self, &import_op), 0);
	undo_export(self, e);
	EXPECT_EQ(llmem_memory_destroy(shared), 0);
}

FIXTURE(session_fault){};
FIXTURE_SETUP(session_fault)
{
}
FIXTURE_TEARDOWN(session_fault)
{
}

/* A session: instance, device, queues, pipelines; no validation layer, to stay quick. */
TEST_F_TIMEOUT(session_fault, session_create, 600)
{
	unsigned long n;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (n = 1; n <= MAX_N; n++) {
			struct llmem_session_create_info ci = { .app_name = "fault" };
			struct llmem_session *s = NULL;
			int fds = count_fds(), ret;

			inject_arm(kinds[k].kind, n);
			ret = llmem_session_create(&ci, &s);
			inject_disarm();
			if (!ret) {
				llmem_session_destroy(s);
				if (!inject_fired())
					break;
				continue;
			}
			EXPECT_TRUE(inject_fired())
			TH_LOG("no failure injected: %s", llmem_last_error());
			EXPECT_EQ(ret, -ENOMEM)
			TH_LOG("%s call %lu failing: %s (%s)", kinds[k].name, n,
			       llmem_strerror(ret), llmem_last_error());
			EXPECT_EQ(s, NULL);
			EXPECT_EQ(count_fds(), fds)
			TH_LOG("%s call %lu failing left an fd", kinds[k].name, n);
		}
		EXPECT_LE(n, MAX_N);
		printf("# llmem_session_create: %lu %s calls, each failed once\n", n - 1,
		       kinds[k].name);
		fflush(stdout);
	}
	EXPECT_EQ(vk_test_leak_check(), 0);
}

TEST_HARNESS_MAIN
