// SPDX-License-Identifier: MIT
/*
 * The slots of a session (lib/device/session.h), where higher tiers keep
 * what they need for the session's life: an object made once per key, a
 * failed make keeping nothing, and the slots destroyed last made first,
 * before anything else, even when llmem_session_destroy() then fails with
 * -EBUSY.  The test links the static library to call llmem_session_slot().
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "device/session.h"
#include "vk_test.h"

/* What the keys' functions did, in order: 'a' or 'b' made, 'A' or 'B' gone. */
static char events[16];
static unsigned int event_count;
static int fail_next;
static char object_a = 'A', object_b = 'B';

static void record(char e)
{
	if (event_count < sizeof(events) - 1)
		events[event_count++] = e;
}

static int make(void **object, char *which)
{
	if (fail_next) {
		fail_next = 0;
		return -EIO;
	}
	record((char)(*which - 'A' + 'a'));
	*object = which;
	return 0;
}

static int make_a(struct llmem_session *s, void **object)
{
	return make(object, &object_a);
}

static int make_b(struct llmem_session *s, void **object)
{
	return make(object, &object_b);
}

static void destroy(void *object)
{
	record(*(char *)object);
}

static const struct llmem_session_slot_key key_a = { make_a, destroy };
static const struct llmem_session_slot_key key_b = { make_b, destroy };

FIXTURE(slot)
{
	struct llmem_session *s;
};

FIXTURE_SETUP(slot)
{
	memset(events, 0, sizeof(events));
	event_count = 0;
	fail_next = 0;
	VK_TEST_SESSION(self->s);
}

FIXTURE_TEARDOWN(slot)
{
	if (self->s)
		VK_TEST_SESSION_END(self->s);
}

TEST_F(slot, made_once_per_key)
{
	void *a, *again, *b;

	ASSERT_EQ(llmem_session_slot(self->s, &key_a, &a), 0);
	ASSERT_EQ(llmem_session_slot(self->s, &key_b, &b), 0);
	ASSERT_EQ(llmem_session_slot(self->s, &key_a, &again), 0);
	EXPECT_EQ(a, &object_a);
	EXPECT_EQ(b, &object_b);
	EXPECT_EQ(again, a);
	EXPECT_STREQ(events, "ab");
}

TEST_F(slot, failed_make_keeps_nothing)
{
	void *a = &object_b;

	fail_next = 1;
	EXPECT_EQ(llmem_session_slot(self->s, &key_a, &a), -EIO);
	EXPECT_EQ(a, NULL);
	ASSERT_EQ(llmem_session_slot(self->s, &key_a, &a), 0);
	EXPECT_EQ(a, &object_a);
	EXPECT_STREQ(events, "a");
}

TEST_F(slot, destroyed_last_made_first)
{
	void *object;

	ASSERT_EQ(llmem_session_slot(self->s, &key_b, &object), 0);
	ASSERT_EQ(llmem_session_slot(self->s, &key_a, &object), 0);
	VK_TEST_SESSION_END(self->s);
	self->s = NULL;
	EXPECT_STREQ(events, "baAB");
}

/* The slots go even when a memory keeps the session: the next use makes them again. */
TEST_F(slot, made_again_after_a_failed_destroy)
{
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_memory *m;
	void *object;

	ASSERT_EQ(llmem_memory_create(self->s, &mci, &m), 0);
	ASSERT_EQ(llmem_session_slot(self->s, &key_a, &object), 0);
	EXPECT_EQ(llmem_session_destroy(self->s), -EBUSY);
	EXPECT_STREQ(events, "aA");
	ASSERT_EQ(llmem_session_slot(self->s, &key_a, &object), 0);
	EXPECT_EQ(object, &object_a);
	EXPECT_STREQ(events, "aAa");
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

TEST_HARNESS_MAIN
