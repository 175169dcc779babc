/* SPDX-License-Identifier: MIT */
/*
 * What every Vulkan test shares: a session under the validation layer whose
 * messages are printed as TAP comments and must number zero at teardown.
 */
#ifndef LLMEM_VK_TEST_H
#define LLMEM_VK_TEST_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <llmem/llmem.h>

/*
 * The harness ends each test's process with _exit(), which skips
 * LeakSanitizer's check at exit: under ASan, teardown runs the check itself.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define vk_test_leak_check() __lsan_do_recoverable_leak_check()
#else
#define vk_test_leak_check() 0
#endif

static void vk_test_message(void *user, uint32_t severity, const char *message)
{
	(void)user;
	printf("# validation (severity 0x%x): %s\n", severity, message);
	fflush(stdout);
}

static inline int vk_test_session(struct llmem_session **out)
{
	struct llmem_session_create_info ci = {
		.flags = LLMEM_SESSION_VALIDATION,
		.app_name = "llmem tests",
		.message_fn = vk_test_message,
	};

	return llmem_session_create(&ci, out);
}

/* Setup: a validated session, or the test fails with the library's message. */
#define VK_TEST_SESSION(s)                                                                   \
	do {                                                                                 \
		struct llmem_session_info _info;                                             \
		int _ret = vk_test_session(&(s));                                            \
		if (_ret)                                                                    \
			TH_LOG("session: %s: %s", llmem_strerror(_ret), llmem_last_error()); \
		ASSERT_EQ(_ret, 0);                                                          \
		ASSERT_EQ(llmem_session_get_info((s), &_info), 0);                           \
		ASSERT_EQ(_info.validation, 1);                                              \
	} while (0)

/* Teardown: no validation message, then the session goes, leaving no leak. */
#define VK_TEST_SESSION_END(s)                                      \
	do {                                                        \
		EXPECT_EQ(llmem_session_validation_messages(s), 0); \
		llmem_session_destroy(s);                           \
		EXPECT_EQ(vk_test_leak_check(), 0);                 \
	} while (0)

/*
 * llmem_last_error() keeps the last message until the next failure, so each
 * check first stores one no checked call writes: what is read afterwards is
 * the checked call's own message.
 */
#define MARK_FLAGS 0x40000000u
#define MARK_MESSAGE "session: unknown flags 0x40000000"

static inline void mark_last_error(void)
{
	struct llmem_session_create_info ci = { .flags = MARK_FLAGS };
	struct llmem_session *s;

	llmem_session_create(&ci, &s);
}

/* @call fails with @err and leaves a message of its own. */
#define EXPECT_FAILS(call, err)                                 \
	do {                                                    \
		mark_last_error();                              \
		EXPECT_STREQ(llmem_last_error(), MARK_MESSAGE); \
		EXPECT_EQ((call), (err));                       \
		EXPECT_STRNE(llmem_last_error(), "");           \
		EXPECT_STRNE(llmem_last_error(), MARK_MESSAGE)  \
		TH_LOG("%s left no message of its own", #call); \
	} while (0)

#endif
