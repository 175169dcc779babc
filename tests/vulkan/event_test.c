// SPDX-License-Identifier: MIT
/*
 * Events beyond waiting: status without waiting, waits for several,
 * profiling times, completion callbacks, and user events set from the host,
 * an error among them failing what waits on it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define SIZE (1u << 20)

FIXTURE(event)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_queue *q, *prof;
	struct llmem_buffer *a, *b;
	uint8_t *host;
};

FIXTURE_SETUP(event)
{
	struct llmem_queue_create_info pci = { .flags = LLMEM_QUEUE_PROFILING };
	struct llmem_buffer_create_info bci = { .size = SIZE };

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, NULL, &self->m), 0);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &self->q), 0);
	ASSERT_EQ(llmem_queue_create(self->s, &pci, &self->prof), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->a), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0);
	self->host = malloc(SIZE);
	ASSERT_NE(self->host, NULL);
	for (uint32_t i = 0; i < SIZE; i++)
		self->host[i] = (uint8_t)(i * 7);
}

FIXTURE_TEARDOWN(event)
{
	free(self->host);
	llmem_buffer_destroy(self->b);
	llmem_buffer_destroy(self->a);
	llmem_queue_destroy(self->prof);
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* Status: queued in an open batch, submitted or complete after, never waiting. */
TEST_F(event, status_without_waiting)
{
	struct llmem_event *ev, *bev;
	int st;

	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->a, 0, self->host, SIZE, NULL, &ev), 0);
	st = llmem_event_status(ev);
	EXPECT_TRUE(st == LLMEM_EVENT_SUBMITTED || st == LLMEM_EVENT_COMPLETE);
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, SIZE, NULL, &bev), 0);
	EXPECT_EQ(llmem_event_status(bev), LLMEM_EVENT_QUEUED);
	ASSERT_EQ(llmem_queue_submit_batch(self->q, NULL), 0);
	EXPECT_EQ(llmem_event_status(bev), LLMEM_EVENT_COMPLETE);
	ASSERT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
	EXPECT_EQ(llmem_event_status(ev), LLMEM_EVENT_COMPLETE);
	EXPECT_FAILS(llmem_event_status(NULL), -EINVAL);
	llmem_event_release(bev);
	llmem_event_release(ev);
}

/* One wait for events of two queues and a user event. */
TEST_F(event, wait_for_several)
{
	struct llmem_event *ev[3];
	struct llmem_wait_list all = { 3, ev };
	uint8_t *out = malloc(SIZE);

	ASSERT_NE(out, NULL);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->a, 0, self->host, SIZE, NULL, &ev[0]),
		  0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->prof, self->a, 0, self->b, 0, SIZE,
					    &(struct llmem_wait_list){ 1, &ev[0] }, &ev[1]),
		  0);
	ASSERT_EQ(llmem_user_event_create(self->s, &ev[2]), 0);
	EXPECT_EQ(llmem_event_wait_all(&all, 0), -ETIMEDOUT);
	ASSERT_EQ(llmem_user_event_set(ev[2], 0), 0);
	ASSERT_EQ(llmem_event_wait_all(&all, UINT64_MAX), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(llmem_event_status(ev[i]), LLMEM_EVENT_COMPLETE);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, out, SIZE, NULL, NULL), 0);
	EXPECT_EQ(memcmp(out, self->host, SIZE), 0);
	EXPECT_EQ(llmem_event_wait_all(&(struct llmem_wait_list){ 0, NULL }, 0), 0);
	EXPECT_FAILS(llmem_event_wait_all(NULL, 0), -EINVAL);
	EXPECT_FAILS(llmem_event_wait_all(&(struct llmem_wait_list){ 2, NULL }, 0), -EINVAL);
	for (int i = 0; i < 3; i++)
		llmem_event_release(ev[i]);
	free(out);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Profiling: host times in order, device times with the period applied. */
TEST_F(event, profiling_times)
{
	struct llmem_event_profile p, p2;
	struct llmem_event *ev, *ev2, *plain;
	uint64_t before = now_ns();
	int ret;

	ASSERT_EQ(llmem_enqueue_copy_buffer(self->prof, self->a, 0, self->b, 0, SIZE, NULL, &ev),
		  0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->prof, self->b, 0, SIZE, &(uint32_t){ 5 }, 4, NULL,
					    &ev2),
		  0);
	/* Not yet complete on lavapipe; a real GPU may be done already. */
	mark_last_error();
	ret = llmem_event_get_profile(ev2, &p2);
	if (ret) {
		EXPECT_EQ(ret, -EBUSY);
		EXPECT_STRNE(llmem_last_error(), MARK_MESSAGE);
	}
	ASSERT_EQ(llmem_event_wait(ev2, UINT64_MAX), 0);
	ASSERT_EQ(llmem_event_get_profile(ev, &p), 0);
	ASSERT_EQ(llmem_event_get_profile(ev2, &p2), 0);
	EXPECT_LE(before, p.queued);
	EXPECT_LE(p.queued, p.submitted);
	EXPECT_LE(p.submitted, now_ns());
	EXPECT_LE(p.start, p.end);
	EXPECT_NE(p.end, 0);
	/* The fill ran after the copy on the device's own clock. */
	EXPECT_LE(p.end, p2.start);
	EXPECT_LE(p2.start, p2.end);
	/* A 1 MiB copy takes well under ten seconds, even on a CPU. */
	EXPECT_LT(p2.end - p.start, 10000000000ull);

	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, SIZE, NULL, &plain),
		  0);
	ASSERT_EQ(llmem_event_wait(plain, UINT64_MAX), 0);
	EXPECT_FAILS(llmem_event_get_profile(plain, &p), -ENOTSUP);
	EXPECT_FAILS(llmem_event_get_profile(NULL, &p), -EINVAL);
	EXPECT_FAILS(llmem_event_get_profile(ev, NULL), -EINVAL);
	llmem_event_release(plain);
	llmem_event_release(ev2);
	llmem_event_release(ev);
}

struct calls {
	int count, status;
	struct llmem_event *ev;
	struct llmem_queue *q;
	struct llmem_buffer *b;
	int enqueued;
};

static void count_call(struct llmem_event *ev, int status, void *user)
{
	struct calls *c = user;

	c->count++;
	c->status = status;
	c->ev = ev;
	/* No lock of the library is held: the queue takes more work. */
	if (c->q)
		c->enqueued = llmem_enqueue_fill_buffer(c->q, c->b, 0, 64, &(uint32_t){ 9 }, 4,
							NULL, NULL);
}

/* Callbacks run once, when the event is found done, and may enqueue work. */
TEST_F(event, completion_callbacks)
{
	struct calls c1 = { .q = self->q, .b = self->b }, c2 = { 0 };
	struct llmem_event *ev;
	uint32_t word;

	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, SIZE, NULL, &ev), 0);
	ASSERT_EQ(llmem_event_set_callback(ev, count_call, &c1), 0);
	EXPECT_FAILS(llmem_event_set_callback(ev, count_call, &c2), -EBUSY);
	ASSERT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
	EXPECT_EQ(c1.count, 1);
	EXPECT_EQ(c1.status, 0);
	EXPECT_EQ(c1.ev, ev);
	EXPECT_EQ(c1.enqueued, 0);
	ASSERT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
	EXPECT_EQ(c1.count, 1);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, &word, 4, NULL, NULL), 0);
	EXPECT_EQ(word, 9);
	llmem_event_release(ev);

	/* Done already: called at once.  A later operation finds events done too. */
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, 64, NULL, &ev), 0);
	ASSERT_EQ(llmem_queue_finish(self->q), 0);
	ASSERT_EQ(llmem_event_set_callback(ev, count_call, &c2), 0);
	EXPECT_EQ(c2.count, 1);
	llmem_event_release(ev);
	c2.count = 0;
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, SIZE, NULL, &ev), 0);
	ASSERT_EQ(llmem_event_set_callback(ev, count_call, &c2), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 0, self->a, 0, 64, NULL, NULL), 0);
	EXPECT_EQ(c2.count, 1);
	llmem_event_release(ev);
	EXPECT_FAILS(llmem_event_set_callback(NULL, count_call, NULL), -EINVAL);
}

struct setter {
	struct llmem_event *ev;
	int status;
};

static void *set_later(void *arg)
{
	struct setter *s = arg;

	usleep(50000);
	llmem_user_event_set(s->ev, s->status);
	return NULL;
}

/* A user event gates an operation on host-side work set from another thread. */
TEST_F(event, user_event_gates_work)
{
	struct calls c = { 0 };
	struct setter st;
	struct llmem_event *user, *ev;
	struct llmem_wait_list wl = { 1, &user };
	pthread_t t;
	uint8_t out[64];

	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->a, 0, self->host, SIZE, NULL, NULL), 0);
	ASSERT_EQ(llmem_user_event_create(self->s, &user), 0);
	EXPECT_EQ(llmem_event_status(user), LLMEM_EVENT_QUEUED);
	ASSERT_EQ(llmem_event_set_callback(user, count_call, &c), 0);
	EXPECT_EQ(llmem_event_wait(user, 1000), -ETIMEDOUT);
	st = (struct setter){ user, 0 };
	ASSERT_EQ(pthread_create(&t, NULL, set_later, &st), 0);
	/* Host work the copy needs: done before the user event is set. */
	memset(self->host, 0xab, 64);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, 64, &wl, &ev), 0);
	pthread_join(t, NULL);
	EXPECT_EQ(c.count, 1);
	EXPECT_EQ(c.status, 0);
	EXPECT_EQ(llmem_event_status(user), LLMEM_EVENT_COMPLETE);
	ASSERT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, out, 64, NULL, NULL), 0);
	for (int i = 0; i < 64; i++)
		ASSERT_EQ(out[i], (uint8_t)(i * 7));
	EXPECT_FAILS(llmem_user_event_set(user, 0), -EINVAL);
	EXPECT_FAILS(llmem_user_event_set(ev, 0), -EINVAL);
	EXPECT_FAILS(llmem_user_event_set(NULL, 0), -EINVAL);
	EXPECT_FAILS(llmem_user_event_create(NULL, &ev), -EINVAL);
	EXPECT_FAILS(llmem_event_get_profile(user, &(struct llmem_event_profile){ 0 }), -EINVAL);
	llmem_event_release(ev);
	llmem_event_release(user);
}

/* A user event set to an error fails what waits for it; nothing is written. */
TEST_F(event, user_event_error_fails_waiters)
{
	struct calls c = { 0 };
	struct setter st;
	struct llmem_event *user, *other, *ev = NULL;
	struct llmem_wait_list wl = { 1, &user };
	pthread_t t;
	uint8_t out[64];

	ASSERT_EQ(
		llmem_enqueue_fill_buffer(self->q, self->b, 0, 64, &(uint32_t){ 0 }, 4, NULL, NULL),
		0);
	ASSERT_EQ(llmem_user_event_create(self->s, &user), 0);
	EXPECT_FAILS(llmem_user_event_set(user, 5), -EINVAL);
	ASSERT_EQ(llmem_event_set_callback(user, count_call, &c), 0);
	st = (struct setter){ user, -ECANCELED };
	ASSERT_EQ(pthread_create(&t, NULL, set_later, &st), 0);
	EXPECT_FAILS(llmem_enqueue_write_buffer(self->q, self->b, 0, self->host, 64, &wl, &ev),
		     -ECANCELED);
	pthread_join(t, NULL);
	EXPECT_EQ(ev, NULL);
	EXPECT_EQ(c.count, 1);
	EXPECT_EQ(c.status, -ECANCELED);
	EXPECT_EQ(llmem_event_status(user), -ECANCELED);
	EXPECT_EQ(llmem_event_wait(user, 0), -ECANCELED);
	ASSERT_EQ(llmem_user_event_create(self->s, &other), 0);
	ASSERT_EQ(llmem_user_event_set(other, 0), 0);
	EXPECT_EQ(llmem_event_wait_all(
			  &(struct llmem_wait_list){ 2, (struct llmem_event *[]){ other, user } },
			  UINT64_MAX),
		  -ECANCELED);
	EXPECT_FAILS(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, 64, &wl, NULL),
		     -ECANCELED);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, out, 64, NULL, NULL), 0);
	for (int i = 0; i < 64; i++)
		ASSERT_EQ(out[i], 0);
	llmem_event_release(other);
	llmem_event_release(user);
}

/* A user event of another session is refused like any foreign event. */
TEST_F(event, user_event_of_another_session)
{
	struct llmem_session *s2;
	struct llmem_event *user;
	struct llmem_wait_list wl = { 1, &user };

	VK_TEST_SESSION(s2);
	ASSERT_EQ(llmem_user_event_create(s2, &user), 0);
	ASSERT_EQ(llmem_user_event_set(user, 0), 0);
	EXPECT_FAILS(llmem_enqueue_copy_buffer(self->q, self->a, 0, self->b, 0, 64, &wl, NULL),
		     -EINVAL);
	llmem_event_release(user);
	VK_TEST_SESSION_END(s2);
}

TEST_HARNESS_MAIN
