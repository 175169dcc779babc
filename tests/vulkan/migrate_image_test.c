// SPDX-License-Identifier: MIT
/*
 * llmem_enqueue_migrate_image(): texels moved between a host-visible and a
 * device-local memory (two memories of lavapipe's one memory type; two
 * device-local ones where images fit no host-visible type) survive
 * byte for byte in every channel type and in 1D, 2D and 3D shapes, both
 * ways, blocking, with an event and in batches; the old image's range goes
 * back to its memory; every bad input is refused with its errno and a
 * message, leaving the caller's image as it was.
 */
#include <stdlib.h>

#include <llmem/share.h>
#include <llmem/transfer.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "pattern.h"
#include "readback.h"
#include "vk_test.h"

#define PAGE_SIZE (1u << 20)

FIXTURE(migrate)
{
	struct llmem_session *s;
	struct llmem_memory *host, *dev;
	struct llmem_queue *q;
	/* Whether host-visible memory holds optimal images here. */
	bool images_in_host;
};

FIXTURE_VARIANT(migrate)
{
	/* Migrate with an event (waited for afterwards) instead of blocking. */
	bool event;
};

FIXTURE_VARIANT_ADD(migrate, blocking){
	.event = false,
};

FIXTURE_VARIANT_ADD(migrate, event){
	.event = true,
};

FIXTURE_SETUP(migrate)
{
	struct llmem_memory_create_info hci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = PAGE_SIZE,
		.name = "staging",
	};
	struct llmem_memory_create_info dci = {
		.flags = LLMEM_MEMORY_DEVICE_LOCAL,
		.page_size = PAGE_SIZE,
		.name = "device",
	};

	struct llmem_image_create_info probe = { .ndim = 3, .shape = { 1, 1, 4 } };
	struct llmem_image *img;
	int ret;

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &hci, &self->host), 0);
	/* Some devices (NVIDIA) place optimal images in no host-visible type:
	 * there the second memory is device local as well. */
	ret = llmem_image_create(self->host, &probe, &img);
	self->images_in_host = ret != -ENOTSUP;
	if (ret == -ENOTSUP) {
		ASSERT_EQ(llmem_memory_destroy(self->host), 0);
		hci.flags = LLMEM_MEMORY_DEVICE_LOCAL;
		ASSERT_EQ(llmem_memory_create(self->s, &hci, &self->host), 0);
	} else {
		ASSERT_EQ(ret, 0);
		llmem_image_destroy(img);
	}
	ASSERT_EQ(llmem_memory_create(self->s, &dci, &self->dev), 0);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &self->q), 0);
}

FIXTURE_TEARDOWN(migrate)
{
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->host), 0);
	EXPECT_EQ(llmem_memory_destroy(self->dev), 0);
	VK_TEST_SESSION_END(self->s);
}

/* An image in @m holding a pattern, and its model; NULL when @m lacks the format. */
static struct llmem_image *make_image(struct __test_metadata *_metadata,
				      FIXTURE_DATA(migrate) * self, struct llmem_memory *m,
				      const struct llmem_image_create_info *ci, unsigned seed,
				      uint8_t **model)
{
	struct llmem_image *img;
	uint64_t size;
	int ret;

	ret = llmem_image_create(m, ci, &img);
	EXPECT_EQ(ret, 0) TH_LOG("image create: %s", llmem_last_error());
	if (ret)
		return NULL;
	size = llmem_image_size(img);
	*model = malloc(size);
	EXPECT_NE(*model, NULL);
	test_pattern(*model, size, seed);
	EXPECT_EQ(llmem_enqueue_write_image(self->q, img, NULL, *model, NULL, NULL, NULL), 0);
	return img;
}

static int same_texels(struct __test_metadata *_metadata, FIXTURE_DATA(migrate) * self,
		       struct llmem_image *img, const uint8_t *model)
{
	return readback_image(_metadata, self->q, img, model);
}

/* Objects and bytes a memory holds, from its own statistics. */
static void usage_of(struct llmem_memory *m, uint32_t *objects, uint64_t *bytes)
{
	struct llmem_memory_info mi;
	struct llmem_page_stats ps;

	*objects = UINT32_MAX;
	*bytes = UINT64_MAX;
	if (llmem_memory_get_info(m, &mi) || llmem_memory_get_page_stats(m, LLMEM_ALL_PAGES, &ps))
		return;
	*objects = mi.object_count;
	*bytes = mi.bytes_in_use;
	if (ps.used_bytes != mi.bytes_in_use || ps.objects != mi.object_count)
		*bytes = UINT64_MAX;
}

/* The migration, in the variant's form: blocking, or an event waited for. */
static int migrate(FIXTURE_DATA(migrate) * self, const FIXTURE_VARIANT(migrate) * variant,
		   struct llmem_image **img, struct llmem_memory *to)
{
	struct llmem_event *ev = NULL;
	int ret;

	ret = llmem_enqueue_migrate_image(self->q, img, to, NULL, variant->event ? &ev : NULL);
	if (ret || !ev)
		return ret;
	ret = llmem_event_wait(ev, UINT64_MAX);
	llmem_event_release(ev);
	return ret;
}

/* What must hold of the new image: the old one's shape, type, usage and name. */
static void expect_like(struct __test_metadata *_metadata, struct llmem_image *img,
			struct llmem_memory *m, const struct llmem_image *was, uint32_t w,
			uint32_t h, uint32_t d, uint32_t c, uint32_t type, uint32_t usage,
			uint32_t format, const char *name)
{
	struct llmem_object_info oi;

	EXPECT_NE(img, was);
	EXPECT_EQ(llmem_image_memory(img), m);
	EXPECT_EQ(llmem_image_width(img), w);
	EXPECT_EQ(llmem_image_height(img), h);
	EXPECT_EQ(llmem_image_depth(img), d);
	EXPECT_EQ(llmem_image_channels(img), c);
	EXPECT_EQ(llmem_image_channel_type(img), type);
	EXPECT_EQ(llmem_image_usage(img), usage);
	EXPECT_EQ(llmem_image_format(img), format);
	EXPECT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);
	ASSERT_EQ(llmem_memory_list_objects(m, &oi, 1), 1);
	EXPECT_EQ(oi.kind, LLMEM_OBJECT_IMAGE);
	EXPECT_STREQ(oi.name, name);
}

/*
 * Every channel type; 1D, 2D (two, three and four dimensions) and 3D
 * shapes with odd extents; there and back, each move leaving the memory it
 * left empty.
 */
TEST_F(migrate, texels_survive_both_ways)
{
	static const struct llmem_image_create_info infos[] = {
		{ .ndim = 1, .shape = { 1001 }, .name = "1d u8" },
		{ .ndim = 3, .shape = { 37, 53, 4 }, .name = "rgba u8" },
		{ .ndim = 3, .shape = { 19, 7, 2 }, .channel_type = LLMEM_CHANNEL_I16 },
		{ .ndim = 2, .shape = { 29, 31 }, .channel_type = LLMEM_CHANNEL_F16 },
		{ .ndim = 2, .shape = { 1, 257 }, .channel_type = LLMEM_CHANNEL_I32 },
		{ .ndim = 3, .shape = { 3, 5, 2 }, .channel_type = LLMEM_CHANNEL_U16 },
		{ .ndim = 4, .shape = { 1, 6, 7, 2 }, .channel_type = LLMEM_CHANNEL_I8 },
		{ .ndim = 4, .shape = { 5, 9, 13, 1 }, .channel_type = LLMEM_CHANNEL_F32 },
		{ .ndim = 4,
		  .shape = { 3, 17, 11, 4 },
		  .channel_type = LLMEM_CHANNEL_U32,
		  .name = "3d rgba u32" },
		/* Twelve-byte texels: transfer usage only, as devices have it. */
		{ .ndim = 3,
		  .shape = { 5, 3, 3 },
		  .channel_type = LLMEM_CHANNEL_F32,
		  .usage = LLMEM_IMAGE_TRANSFER_SRC | LLMEM_IMAGE_TRANSFER_DST },
	};
	struct llmem_memory *from = self->host, *to = self->dev, *swap;

	for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++) {
		const char *name = infos[i].name ? infos[i].name : "";
		struct llmem_image *img, *was;
		uint32_t w, h, d, c, type, usage, format, objects;
		uint64_t bytes;
		uint8_t *model;

		/* Not every device has every format (NVIDIA lacks 12-byte texels
		 * in optimal tiling); the others must all pass. */
		if (llmem_image_create(from, &infos[i], &img) == -ENOTSUP && i > 0) {
			TH_LOG("image %zu: %s: left out", i, llmem_last_error());
			continue;
		}
		llmem_image_destroy(img);
		img = make_image(_metadata, self, from, &infos[i], 7 + (unsigned)i, &model);
		ASSERT_NE(img, NULL);
		w = llmem_image_width(img);
		h = llmem_image_height(img);
		d = llmem_image_depth(img);
		c = llmem_image_channels(img);
		type = llmem_image_channel_type(img);
		usage = llmem_image_usage(img);
		format = llmem_image_format(img);
		for (int leg = 0; leg < 2; leg++) {
			was = img;
			ASSERT_EQ(migrate(self, variant, &img, to), 0)
			TH_LOG("image %zu, leg %d: %s", i, leg, llmem_last_error());
			expect_like(_metadata, img, to, was, w, h, d, c, type, usage, format, name);
			usage_of(from, &objects, &bytes);
			EXPECT_EQ(objects, 0);
			EXPECT_EQ(bytes, 0);
			usage_of(to, &objects, &bytes);
			EXPECT_EQ(objects, 1);
			EXPECT_NE(bytes, 0);
			EXPECT_EQ(same_texels(_metadata, self, img, model), 0)
			TH_LOG("image %zu, leg %d", i, leg);
			swap = from;
			from = to;
			to = swap;
		}
		llmem_image_destroy(img);
		free(model);
	}
}

/*
 * The operation is in order on its queue: with an event, the new image is
 * usable at once, and an earlier write to the old one is what moves.
 */
TEST_F(migrate, in_order_with_events)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 64, 48, 4 } };
	struct llmem_image *img;
	struct llmem_event *wrote, *moved;
	struct llmem_wait_list wl = { .count = 1 };
	uint8_t *model, *fresh;
	uint32_t objects;
	uint64_t bytes;

	img = make_image(_metadata, self, self->host, &ci, 3, &model);
	ASSERT_NE(img, NULL);
	fresh = malloc(llmem_image_size(img));
	ASSERT_NE(fresh, NULL);
	test_pattern(fresh, llmem_image_size(img), 99);
	ASSERT_EQ(llmem_enqueue_write_image(self->q, img, NULL, fresh, NULL, NULL, &wrote), 0);
	wl.events = &wrote;
	ASSERT_EQ(llmem_enqueue_migrate_image(self->q, &img, self->dev, &wl,
					      variant->event ? &moved : NULL),
		  0);
	EXPECT_EQ(llmem_image_memory(img), self->dev);
	EXPECT_EQ(same_texels(_metadata, self, img, fresh), 0);
	if (variant->event) {
		EXPECT_EQ(llmem_event_wait(moved, UINT64_MAX), 0);
		llmem_event_release(moved);
	}
	EXPECT_EQ(llmem_event_wait(wrote, 0), 0);
	llmem_event_release(wrote);
	usage_of(self->host, &objects, &bytes);
	EXPECT_EQ(objects, 0);
	EXPECT_EQ(bytes, 0);
	llmem_image_destroy(img);
	free(model);
	free(fresh);
}

/*
 * In a batch: two images move and one is read back in the same submission;
 * the old images go when the batch completes, and the event of a migration
 * is the batch's.
 */
TEST_F(migrate, batch)
{
	struct llmem_image_create_info a_ci = { .ndim = 4, .shape = { 4, 10, 12, 2 } };
	struct llmem_image_create_info b_ci = { .ndim = 1,
						.shape = { 333 },
						.channel_type = LLMEM_CHANNEL_U16 };
	struct llmem_image *a, *b, *a_was, *b_was;
	struct llmem_event *ev = NULL, *batch_ev = NULL;
	uint8_t *a_model, *b_model, *out;
	uint32_t objects;
	uint64_t bytes;

	a = make_image(_metadata, self, self->host, &a_ci, 1, &a_model);
	b = make_image(_metadata, self, self->host, &b_ci, 2, &b_model);
	ASSERT_NE(a, NULL);
	ASSERT_NE(b, NULL);
	out = malloc(llmem_image_size(a));
	ASSERT_NE(out, NULL);
	a_was = a;
	b_was = b;
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_migrate_image(self->q, &a, self->dev, NULL,
					      variant->event ? &ev : NULL),
		  0);
	ASSERT_EQ(llmem_enqueue_migrate_image(self->q, &b, self->dev, NULL, NULL), 0);
	EXPECT_NE(a, a_was);
	EXPECT_NE(b, b_was);
	ASSERT_EQ(llmem_enqueue_read_image(self->q, a, NULL, out, NULL, NULL, NULL), 0);
	if (ev)
		EXPECT_EQ(llmem_event_wait(ev, 0), -EBUSY);
	ASSERT_EQ(llmem_queue_submit_batch(self->q, variant->event ? &batch_ev : NULL), 0);
	if (ev) {
		EXPECT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
		llmem_event_release(ev);
		EXPECT_EQ(llmem_event_wait(batch_ev, 0), 0);
		llmem_event_release(batch_ev);
	}
	EXPECT_EQ(memcmp(out, a_model, llmem_image_size(a)), 0);
	usage_of(self->host, &objects, &bytes);
	EXPECT_EQ(objects, 0);
	EXPECT_EQ(bytes, 0);
	usage_of(self->dev, &objects, &bytes);
	EXPECT_EQ(objects, 2);
	EXPECT_EQ(same_texels(_metadata, self, a, a_model), 0);
	EXPECT_EQ(same_texels(_metadata, self, b, b_model), 0);
	llmem_image_destroy(a);
	llmem_image_destroy(b);
	free(a_model);
	free(b_model);
	free(out);
}

/*
 * A discarded batch takes the old image with it: the caller holds the new
 * one (its texels undefined), and nothing leaks.
 */
TEST_F(migrate, batch_discarded)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 8, 9, 1 } };
	struct llmem_event *ev = NULL;
	struct llmem_image *img;
	uint32_t objects;
	uint64_t bytes;
	uint8_t *model;

	img = make_image(_metadata, self, self->host, &ci, 5, &model);
	ASSERT_NE(img, NULL);
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_migrate_image(self->q, &img, self->dev, NULL,
					      variant->event ? &ev : NULL),
		  0);
	llmem_queue_discard_batch(self->q);
	llmem_event_release(ev);
	EXPECT_EQ(llmem_image_memory(img), self->dev);
	usage_of(self->host, &objects, &bytes);
	EXPECT_EQ(objects, 0);
	EXPECT_EQ(bytes, 0);
	/* The new image works: written and read like any other. */
	ASSERT_EQ(llmem_enqueue_write_image(self->q, img, NULL, model, NULL, NULL, NULL), 0);
	EXPECT_EQ(same_texels(_metadata, self, img, model), 0);
	llmem_image_destroy(img);
	free(model);
}

/* Views would be left on the destroyed image: refused while one lives. */
TEST_F(migrate, views_refused)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 16, 16, 4 } };
	struct llmem_image_view *v1, *v2;
	struct llmem_image *img, *was;
	uint32_t objects;
	uint64_t bytes;
	uint8_t *model;

	img = make_image(_metadata, self, self->host, &ci, 4, &model);
	ASSERT_NE(img, NULL);
	was = img;
	ASSERT_EQ(llmem_image_view_create(img, NULL, &v1), 0);
	ASSERT_EQ(llmem_image_view_create(img, NULL, &v2), 0);
	mark_last_error();
	EXPECT_EQ(migrate(self, variant, &img, self->dev), -EBUSY);
	EXPECT_NE(strstr(llmem_last_error(), "migrate image: the image has 2 live views"), NULL)
	TH_LOG("%s", llmem_last_error());
	llmem_image_view_destroy(v1);
	EXPECT_EQ(migrate(self, variant, &img, self->dev), -EBUSY);
	EXPECT_EQ(img, was);
	EXPECT_EQ(llmem_image_memory(img), self->host);
	usage_of(self->dev, &objects, &bytes);
	EXPECT_EQ(objects, 0);
	EXPECT_EQ(same_texels(_metadata, self, img, model), 0);
	llmem_image_view_destroy(v2);
	ASSERT_EQ(migrate(self, variant, &img, self->dev), 0);
	EXPECT_EQ(llmem_image_memory(img), self->dev);
	EXPECT_EQ(same_texels(_metadata, self, img, model), 0);
	/* Views of the new image are made as of any image. */
	ASSERT_EQ(llmem_image_view_create(img, NULL, &v1), 0);
	llmem_image_view_destroy(v1);
	llmem_image_destroy(img);
	free(model);
}

/*
 * The caller's image after a refusal: the same handle, in the same memory,
 * in GENERAL, with the same texels, and nothing left in the target memory.
 */
static void expect_unchanged(struct __test_metadata *_metadata, FIXTURE_DATA(migrate) * self,
			     struct llmem_image *img, const struct llmem_image *was,
			     struct llmem_memory *m, struct llmem_memory *to, const uint8_t *model)
{
	uint32_t objects;
	uint64_t bytes;

	EXPECT_EQ(img, was);
	EXPECT_EQ(llmem_image_memory(img), m);
	EXPECT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);
	EXPECT_EQ(same_texels(_metadata, self, img, model), 0);
	if (to) {
		usage_of(to, &objects, &bytes);
		EXPECT_EQ(objects, 0);
		EXPECT_EQ(bytes, 0);
	}
}

/* Each refusal has its errno and a message of its own, naming the operation. */
#define EXPECT_REFUSED(call, err, what)                                                         \
	do {                                                                                    \
		mark_last_error();                                                              \
		EXPECT_EQ((call), (err));                                                       \
		EXPECT_NE(strstr(llmem_last_error(), what), NULL)                               \
		TH_LOG("%s: message \"%s\", expected \"%s\"", #call, llmem_last_error(), what); \
	} while (0)

/* NULL arguments, objects of another session, the image's own memory, usage. */
TEST_F(migrate, bad_input)
{
	struct llmem_image_create_info ci = { .ndim = 2, .shape = { 12, 10 } };
	struct llmem_image_create_info no_dst = {
		.ndim = 2,
		.shape = { 4, 4 },
		.usage = LLMEM_IMAGE_TRANSFER_SRC | LLMEM_IMAGE_SAMPLED,
	};
	struct llmem_event *ev = (void *)1, **evp = variant->event ? &ev : NULL;
	struct llmem_image *img, *was, *none = NULL, *other_img, *ro;
	struct llmem_memory *other_m;
	struct llmem_queue *other_q;
	struct llmem_session *other;
	uint8_t *model, *other_model;

	img = make_image(_metadata, self, self->host, &ci, 6, &model);
	ASSERT_NE(img, NULL);
	was = img;
	EXPECT_REFUSED(llmem_enqueue_migrate_image(NULL, &img, self->dev, NULL, evp), -EINVAL,
		       "migrate image: NULL queue");
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, NULL, self->dev, NULL, evp), -EINVAL,
		       "migrate image: NULL image");
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &none, self->dev, NULL, evp), -EINVAL,
		       "migrate image: NULL image");
	EXPECT_EQ(none, NULL);
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &img, NULL, NULL, evp), -EINVAL,
		       "migrate image: NULL memory");
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &img, self->host, NULL, evp), -EINVAL,
		       "in that memory already");
	if (evp)
		EXPECT_EQ(ev, (void *)1);
	expect_unchanged(_metadata, self, img, was, self->host, self->dev, model);

	/* Another session's memory, image and queue. */
	ASSERT_EQ(vk_test_session(&other), 0);
	ASSERT_EQ(llmem_memory_create(other, NULL, &other_m), 0);
	ASSERT_EQ(llmem_queue_create(other, NULL, &other_q), 0);
	ASSERT_EQ(llmem_image_create(other_m, &ci, &other_img), 0);
	other_model = malloc(llmem_image_size(other_img));
	ASSERT_NE(other_model, NULL);
	test_pattern(other_model, llmem_image_size(other_img), 8);
	ASSERT_EQ(
		llmem_enqueue_write_image(other_q, other_img, NULL, other_model, NULL, NULL, NULL),
		0);
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &img, other_m, NULL, evp), -EINVAL,
		       "memory is of another session");
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &other_img, self->dev, NULL, evp),
		       -EINVAL, "image is of another session");
	EXPECT_REFUSED(llmem_enqueue_migrate_image(other_q, &img, other_m, NULL, evp), -EINVAL,
		       "image is of another session");
	expect_unchanged(_metadata, self, img, was, self->host, self->dev, model);
	EXPECT_EQ(llmem_memory_list_objects(other_m, NULL, 0), 1);
	llmem_image_destroy(other_img);
	free(other_model);
	llmem_queue_destroy(other_q);
	EXPECT_EQ(llmem_memory_destroy(other_m), 0);
	EXPECT_EQ(llmem_session_validation_messages(other), 0);
	llmem_session_destroy(other);

	/* The copy needs both transfer usages. */
	ASSERT_EQ(llmem_image_create(self->host, &no_dst, &ro), 0);
	was = ro;
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &ro, self->dev, NULL, evp), -EPERM,
		       "TRANSFER_SRC and TRANSFER_DST");
	EXPECT_EQ(ro, was);
	EXPECT_EQ(llmem_image_memory(ro), self->host);
	EXPECT_EQ(llmem_memory_list_objects(self->dev, NULL, 0), 0);
	llmem_image_destroy(ro);
	llmem_image_destroy(img);
	free(model);
}

/*
 * A target memory that cannot hold the image: an import memory with no
 * page, then with a wrapped host page too small for it.
 */
TEST_F(migrate, target_cannot_hold)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.sharing = LLMEM_SHARING_IMPORT,
		.backend = LLMEM_BACKEND_IMPORT_HOST_POINTER,
		.name = "wrapped",
	};
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 256, 256, 4 } };
	struct llmem_event *ev = NULL, **evp = variant->event ? &ev : NULL;
	struct llmem_session_info si;
	struct llmem_image *img, *was;
	struct llmem_memory *wrapped;
	uint64_t align, size;
	uint8_t *model, *host;
	uint32_t page;
	int err;

	ASSERT_EQ(llmem_session_get_info(self->s, &si), 0);
	ASSERT_TRUE(si.caps & LLMEM_CAP_HOST_POINTER_IMPORT);
	align = si.min_imported_host_pointer_alignment;
	size = (64u << 10) > align ? (64u << 10) : align;
	host = aligned_alloc(align, size);
	ASSERT_NE(host, NULL);
	img = make_image(_metadata, self, self->host, &ci, 9, &model);
	ASSERT_NE(img, NULL);
	was = img;
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &wrapped), 0) TH_LOG("%s", llmem_last_error());
	/* Where host memory holds no optimal image, the type refuses it
	 * before the room is looked at. */
	err = self->images_in_host ? -ENOMEM : -ENOTSUP;
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &img, wrapped, NULL, evp), err,
		       "migrate image:");
	expect_unchanged(_metadata, self, img, was, self->host, wrapped, model);
	ASSERT_EQ(llmem_memory_import_host(wrapped, host, size, &page), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &img, wrapped, NULL, evp), err,
		       "migrate image:");
	expect_unchanged(_metadata, self, img, was, self->host, wrapped, model);
	EXPECT_EQ(ev, NULL);
	llmem_image_destroy(img);
	EXPECT_EQ(llmem_memory_destroy(wrapped), 0);
	free(model);
	free(host);
}

/*
 * A failure after the new image was made (a wait list naming an event of
 * another queue's batch not yet submitted) unwinds it: the caller's image is
 * untouched and still moves afterwards.
 */
TEST_F(migrate, late_failure_leaves_image)
{
	struct llmem_image_create_info ci = { .ndim = 4, .shape = { 3, 21, 17, 2 } };
	struct llmem_event *pending, *ev = NULL, **evp = variant->event ? &ev : NULL;
	struct llmem_wait_list wl = { .count = 1 };
	struct llmem_image *img, *was;
	struct llmem_queue *other;
	uint8_t *model;

	img = make_image(_metadata, self, self->host, &ci, 10, &model);
	ASSERT_NE(img, NULL);
	was = img;
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &other), 0);
	ASSERT_EQ(llmem_queue_begin_batch(other), 0);
	ASSERT_EQ(llmem_enqueue_write_image(other, img, NULL, model, NULL, NULL, &pending), 0);
	wl.events = &pending;
	EXPECT_REFUSED(llmem_enqueue_migrate_image(self->q, &img, self->dev, &wl, evp), -EINVAL,
		       "batch not yet submitted");
	EXPECT_EQ(ev, NULL);
	llmem_queue_discard_batch(other);
	llmem_event_release(pending);
	llmem_queue_destroy(other);
	expect_unchanged(_metadata, self, img, was, self->host, self->dev, model);
	ASSERT_EQ(migrate(self, variant, &img, self->dev), 0);
	EXPECT_EQ(same_texels(_metadata, self, img, model), 0);
	llmem_image_destroy(img);
	free(model);
}

TEST_HARNESS_MAIN
