// SPDX-License-Identifier: MIT
/*
 * The fault-injection loop (tests/fault/loop.h) on every public create,
 * import and map call that runs on the host: memories (over pages of their
 * own, host memory imported or wrapped), buffers and images (plain, from
 * host data, like another object, sub-regions), views, maps of buffers,
 * images and pages, queues, events and user events, converters (made, and
 * fed their first frames), user kernels, and the session.  Each failure
 * must give the injected errno (-ENOMEM, -EMFILE for an fd), no handle, and
 * leave no object, page, mapped page, fd or mapping behind; the validation
 * layer and LeakSanitizer (build-san) look for Vulkan objects and heap
 * blocks at teardown.  The calls that need DMA-BUFs, V4L2 or KMS are looped
 * in the VM (tests/fault/vm_test.c).
 */
#include <stdlib.h>

#include <drm_fourcc.h>
#include <llmem/llmem.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "loop.h"
#include "vk_test.h"

static const uint32_t sample_spv[] =
#include "sample.spv.inc"
	;

FIXTURE(fault)
{
	struct llmem_session *s;
	/* Device-local pages, and host-visible ones for what the host maps. */
	struct llmem_memory *m, *hm;
	struct llmem_buffer *b, *hb;
	struct llmem_image *img, *linear;
	/* What an operation makes fresh for each try, in setup. */
	struct llmem_memory *scratch;
	struct llmem_queue *q;
	void *host;
	size_t host_size;
};

FIXTURE_SETUP(fault)
{
	struct llmem_memory_create_info ci = {
		.page_size = 1 << 20,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.name = "fault",
	};
	struct llmem_memory_create_info hci = ci;
	struct llmem_buffer_create_info bci = { .size = 4096 };
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 16, 16, 4 } };
	struct llmem_image_create_info lci = { .ndim = 3,
					       .shape = { 16, 16, 4 },
					       .tiling = LLMEM_TILING_LINEAR };

	hci.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT;
	hci.name = "fault-host";
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &hci, &self->hm), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0);
	ASSERT_EQ(llmem_buffer_create(self->hm, &bci, &self->hb), 0);
	ASSERT_EQ(llmem_image_create(self->m, &ici, &self->img), 0);
	ASSERT_EQ(llmem_image_create(self->hm, &lci, &self->linear), 0);
}

FIXTURE_TEARDOWN(fault)
{
	llmem_image_destroy(self->linear);
	llmem_image_destroy(self->img);
	llmem_buffer_destroy(self->hb);
	llmem_buffer_destroy(self->b);
	EXPECT_EQ(llmem_memory_destroy(self->hm), 0);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

typedef FIXTURE_DATA(fault) fault_t;

/* Objects, pages and mapped pages of the fixture's memories and the try's. */
static uint64_t state(void *ctx)
{
	fault_t *f = ctx;

	return fault_memories_state(f->m, f->hm, f->scratch);
}

static int run_memory(void *ctx, void **out)
{
	struct llmem_memory_create_info ci = { .page_size = 1 << 20 };
	fault_t *f = ctx;

	return llmem_memory_create(f->s, &ci, (struct llmem_memory **)out);
}

static void undo_memory(void *ctx, void *obj)
{
	llmem_memory_destroy(obj);
}

/* A buffer large enough to need a page of its own. */
static int run_buffer(void *ctx, void **out)
{
	struct llmem_buffer_create_info bci = { .size = 2 << 20 };
	fault_t *f = ctx;

	return llmem_buffer_create(f->m, &bci, (struct llmem_buffer **)out);
}

static void undo_buffer(void *ctx, void *obj)
{
	llmem_buffer_destroy(obj);
}

static int run_buffer_from_host(void *ctx, void **out)
{
	static const uint8_t data[4096] = { 1, 2, 3 };
	struct llmem_buffer_create_info bci = { .size = sizeof(data) };
	fault_t *f = ctx;

	return llmem_buffer_create_from_host(f->hm, &bci, data, sizeof(data),
					     (struct llmem_buffer **)out);
}

static int run_buffer_like_buffer(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_buffer_create_like_buffer(f->m, f->b, NULL, (struct llmem_buffer **)out);
}

static int run_buffer_like_image(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_buffer_create_like_image(f->m, f->img, NULL, (struct llmem_buffer **)out);
}

static int run_buffer_sub(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_buffer_create_sub(f->b, 0, 256, "sub", (struct llmem_buffer **)out);
}

static int run_image(void *ctx, void **out)
{
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 64, 64, 4 } };
	fault_t *f = ctx;

	return llmem_image_create(f->m, &ici, (struct llmem_image **)out);
}

static void undo_image(void *ctx, void *obj)
{
	llmem_image_destroy(obj);
}

/* Through the staging ring of the session's own queue. */
static int run_image_from_host(void *ctx, void **out)
{
	static const uint8_t texels[16 * 16 * 4] = { 9, 8, 7 };
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 16, 16, 4 } };
	fault_t *f = ctx;

	return llmem_image_create_from_host(f->m, &ici, texels, sizeof(texels),
					    (struct llmem_image **)out);
}

static int run_image_like_image(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_image_create_like_image(f->m, f->img, NULL, (struct llmem_image **)out);
}

static int run_view(void *ctx, void **out)
{
	struct llmem_image_view_create_info vci = { 0 };
	fault_t *f = ctx;

	return llmem_image_view_create(f->img, &vci, (struct llmem_image_view **)out);
}

static void undo_view(void *ctx, void *obj)
{
	llmem_image_view_destroy(obj);
}

/* Maps: the handle is the pointer. */
static int run_buffer_map(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_buffer_map(f->hb, out);
}

static void undo_buffer_map(void *ctx, void *obj)
{
	fault_t *f = ctx;

	llmem_buffer_unmap(f->hb);
}

static int run_image_map(void *ctx, void **out)
{
	struct llmem_image_mapping map = { 0 };
	fault_t *f = ctx;
	int ret = llmem_image_map(f->linear, &map);

	*out = map.data;
	return ret;
}

static void undo_image_map(void *ctx, void *obj)
{
	fault_t *f = ctx;

	llmem_image_unmap(f->linear);
}

static int run_page_map(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_memory_map_page(f->hm, fault_page_of(f->hb), out);
}

static void undo_page_map(void *ctx, void *obj)
{
	fault_t *f = ctx;

	llmem_memory_unmap_page(f->hm, fault_page_of(f->hb));
}

/* A page stays until its memory goes: each try adds one to a fresh memory. */
static int setup_scratch(void *ctx)
{
	struct llmem_memory_create_info ci = { .page_size = 1 << 20 };
	fault_t *f = ctx;

	return llmem_memory_create(f->s, &ci, &f->scratch);
}

static void teardown_scratch(void *ctx)
{
	fault_t *f = ctx;

	llmem_memory_destroy(f->scratch);
	f->scratch = NULL;
}

/* The page's index, plus one: a handle that is never NULL on success. */
static int run_add_page(void *ctx, void **out)
{
	fault_t *f = ctx;
	uint32_t page;
	int ret = llmem_memory_add_page(f->scratch, 256 << 10, &page);

	if (!ret)
		*out = (void *)(uintptr_t)(page + 1);
	return ret;
}

static void undo_nothing(void *ctx, void *obj)
{
}

static int setup_host_import(void *ctx)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.sharing = LLMEM_SHARING_IMPORT,
		.backend = LLMEM_BACKEND_IMPORT_HOST_POINTER,
	};
	fault_t *f = ctx;

	return llmem_memory_create(f->s, &ci, &f->scratch);
}

static int run_import_host(void *ctx, void **out)
{
	fault_t *f = ctx;
	uint32_t page;
	int ret = llmem_memory_import_host(f->scratch, f->host, f->host_size, &page);

	if (!ret)
		*out = (void *)(uintptr_t)(page + 1);
	return ret;
}

/* Host bytes at no particular alignment. */
static int run_memory_from_host(void *ctx, void **out)
{
	fault_t *f = ctx;
	uint64_t offset;

	return llmem_memory_create_from_host(f->s, (char *)f->host + 100, 5000, "wrapped",
					     (struct llmem_memory **)out, &offset);
}

static int run_queue(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_queue_create(f->s, NULL, (struct llmem_queue **)out);
}

static void undo_queue(void *ctx, void *obj)
{
	llmem_queue_destroy(obj);
}

/*
 * A fresh queue for each try, which stages what it writes (lavapipe's
 * memory is all mappable): its first operation also makes its staging ring.
 */
static int setup_queue(void *ctx)
{
	struct llmem_queue_create_info ci = { .flags = LLMEM_QUEUE_NO_MAPPING,
					      .staging_size = 1 << 20 };
	fault_t *f = ctx;

	return llmem_queue_create(f->s, &ci, &f->q);
}

static void teardown_queue(void *ctx)
{
	fault_t *f = ctx;

	llmem_queue_destroy(f->q);
	f->q = NULL;
}

static int run_enqueue_event(void *ctx, void **out)
{
	static const uint8_t data[4096] = { 5 };
	fault_t *f = ctx;

	return llmem_enqueue_write_buffer(f->q, f->b, 0, data, sizeof(data), NULL,
					  (struct llmem_event **)out);
}

static void undo_event(void *ctx, void *obj)
{
	llmem_event_wait(obj, UINT64_MAX);
	llmem_event_release(obj);
}

static int run_user_event(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_user_event_create(f->s, (struct llmem_event **)out);
}

static void undo_user_event(void *ctx, void *obj)
{
	llmem_event_release(obj);
}

/* Two YUYV frames to RGBA, 64x32, in buffers of the fixture's memory. */
static struct llmem_buffer *conv_src[2], *conv_dst;
static struct llmem_frame_layout conv_src_l, conv_dst_l;

static int run_converter(void *ctx, void **out)
{
	struct llmem_converter_create_info ci = {
		.srcs = conv_src,
		.src_count = 2,
		.src_layout = &conv_src_l,
		.dst = conv_dst,
		.dst_layout = &conv_dst_l,
	};

	return llmem_converter_create(&ci, (struct llmem_converter **)out);
}

static void undo_converter(void *ctx, void *obj)
{
	llmem_converter_destroy(obj);
}

/* A converter made before any buffer, fed both frames: its device objects
 * and recordings are made by the submissions. */
static int run_converter_submit(void *ctx, void **out)
{
	struct llmem_converter_create_info ci = {
		.src_layout = &conv_src_l,
		.dst_layout = &conv_dst_l,
	};
	struct llmem_converter *c;
	uint64_t ticket = 0;
	int ret;

	ret = llmem_converter_create(&ci, &c);
	for (int i = 0; !ret && i < 2; i++)
		ret = llmem_converter_submit(
			c, &(struct llmem_convert_frame){ .src = conv_src[i], .dst = conv_dst },
			&ticket);
	if (!ret)
		ret = llmem_converter_wait(c, ticket, UINT64_MAX);
	if (ret) {
		llmem_converter_destroy(c);
		return ret;
	}
	*out = c;
	return 0;
}

static int run_kernel(void *ctx, void **out)
{
	static const uint32_t bindings[] = { LLMEM_BINDING_SAMPLED_IMAGE,
					     LLMEM_BINDING_STORAGE_BUFFER };
	struct llmem_kernel_create_info ci = {
		.spirv = sample_spv,
		.spirv_size = sizeof(sample_spv),
		.bindings = bindings,
		.binding_count = 2,
	};
	fault_t *f = ctx;

	return llmem_kernel_create(f->s, &ci, (struct llmem_kernel **)out);
}

static void undo_kernel(void *ctx, void *obj)
{
	llmem_kernel_destroy(obj);
}

static const struct fault_op objects[] = {
	FAULT_OP("llmem_memory_create", run_memory, undo_memory),
	FAULT_OP("llmem_buffer_create", run_buffer, undo_buffer),
	FAULT_OP("llmem_buffer_create_from_host", run_buffer_from_host, undo_buffer),
	FAULT_OP("llmem_buffer_create_like_buffer", run_buffer_like_buffer, undo_buffer),
	FAULT_OP("llmem_buffer_create_like_image", run_buffer_like_image, undo_buffer),
	FAULT_OP("llmem_buffer_create_sub", run_buffer_sub, undo_buffer),
	FAULT_OP("llmem_image_create", run_image, undo_image),
	FAULT_OP("llmem_image_create_from_host", run_image_from_host, undo_image),
	FAULT_OP("llmem_image_create_like_image", run_image_like_image, undo_image),
	FAULT_OP("llmem_image_view_create", run_view, undo_view),
	FAULT_OP("llmem_buffer_map", run_buffer_map, undo_buffer_map),
	FAULT_OP("llmem_image_map", run_image_map, undo_image_map),
	FAULT_OP("llmem_memory_map_page", run_page_map, undo_page_map),
	FAULT_OP_FRESH("llmem_memory_add_page", setup_scratch, run_add_page, undo_nothing,
		       teardown_scratch),
};

/* Every create and map call on objects, every failure point of each kind. */
TEST_F_TIMEOUT(fault, objects, 600)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		struct fault_op op = objects[i];

		op.state = state;
		EXPECT_GT(fault_loop(_metadata, &op, self), 0)
		TH_LOG("%s reached no call that can fail", op.name);
	}
}

/* Host memory imported as a page, and wrapped as a memory of its own. */
TEST_F_TIMEOUT(fault, host_memory, 600)
{
	struct llmem_session_info si;
	struct fault_op import = { .name = "llmem_memory_import_host",
				   .setup = setup_host_import,
				   .run = run_import_host,
				   .undo = undo_nothing,
				   .teardown = teardown_scratch,
				   .state = state };
	struct fault_op wrap = { .name = "llmem_memory_create_from_host",
				 .run = run_memory_from_host,
				 .undo = undo_memory,
				 .state = state };

	ASSERT_EQ(llmem_session_get_info(self->s, &si), 0);
	ASSERT_NE(si.caps & LLMEM_CAP_HOST_POINTER_IMPORT, 0)
	TH_LOG("lavapipe imports host memory (VK_EXT_external_memory_host)");
	self->host_size = 4 * si.min_imported_host_pointer_alignment;
	self->host = aligned_alloc(si.min_imported_host_pointer_alignment, self->host_size);
	ASSERT_NE(self->host, NULL);
	EXPECT_GT(fault_loop(_metadata, &import, self), 0);
	EXPECT_GT(fault_loop(_metadata, &wrap, self), 0);
	free(self->host);
}

/* Queues, the events of their operations, user events. */
TEST_F_TIMEOUT(fault, queues_and_events, 600)
{
	static const struct fault_op ops[] = {
		FAULT_OP("llmem_queue_create", run_queue, undo_queue),
		FAULT_OP_FRESH("llmem_enqueue_write_buffer (event, fresh queue)", setup_queue,
			       run_enqueue_event, undo_event, teardown_queue),
		FAULT_OP("llmem_user_event_create", run_user_event, undo_user_event),
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct fault_op op = ops[i];

		op.state = state;
		EXPECT_GT(fault_loop(_metadata, &op, self), 0)
		TH_LOG("%s reached no call that can fail", op.name);
	}
}

/* The converter's recorded command buffers, and a user kernel's pipeline. */
TEST_F_TIMEOUT(fault, converter_and_kernel, 600)
{
	struct fault_op conv = { .name = "llmem_converter_create",
				 .run = run_converter,
				 .undo = undo_converter,
				 .state = state };
	struct fault_op conv_submit = { .name = "llmem_converter_submit",
					.run = run_converter_submit,
					.undo = undo_converter,
					.state = state };
	struct fault_op kernel = { .name = "llmem_kernel_create",
				   .run = run_kernel,
				   .undo = undo_kernel,
				   .state = state };

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 64, 32, NULL, &conv_src_l), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 64, 32, NULL, &conv_dst_l), 0);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(llmem_buffer_create(
				  self->m,
				  &(struct llmem_buffer_create_info){ .size = conv_src_l.size },
				  &conv_src[i]),
			  0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){ .size = conv_dst_l.size },
				      &conv_dst),
		  0);
	EXPECT_GT(fault_loop(_metadata, &conv, self), 0);
	EXPECT_GT(fault_loop(_metadata, &conv_submit, self), 0);
	EXPECT_GT(fault_loop(_metadata, &kernel, self), 0);
	for (int i = 0; i < 2; i++)
		llmem_buffer_destroy(conv_src[i]);
	llmem_buffer_destroy(conv_dst);
}

FIXTURE(session_fault){};

/* The first session loads the Vulkan drivers, whose mappings stay: load them first. */
FIXTURE_SETUP(session_fault)
{
	struct llmem_session_create_info ci = { .app_name = "fault" };
	struct llmem_session *s;

	ASSERT_EQ(llmem_session_create(&ci, &s), 0);
	llmem_session_destroy(s);
}
FIXTURE_TEARDOWN(session_fault)
{
}

static int run_session(void *ctx, void **out)
{
	struct llmem_session_create_info ci = { .app_name = "fault" };

	return llmem_session_create(&ci, (struct llmem_session **)out);
}

static void undo_session(void *ctx, void *obj)
{
	llmem_session_destroy(obj);
}

/* A session: instance, device, queues, pipelines; no validation layer, to stay quick. */
TEST_F_TIMEOUT(session_fault, session_create, 600)
{
	static const struct fault_op op =
		FAULT_OP("llmem_session_create", run_session, undo_session);

	EXPECT_GT(fault_loop(_metadata, &op, NULL), 0);
	EXPECT_EQ(vk_test_leak_check(), 0);
}

TEST_HARNESS_MAIN
