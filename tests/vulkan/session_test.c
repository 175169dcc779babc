// SPDX-License-Identifier: MIT
/*
 * Sessions: choosing a device, validation, the environment overrides and
 * what the session reports about the device.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define ALL_CAPS 0x3fu

FIXTURE(session)
{
	struct llmem_session *s;
	struct llmem_session_info info;
};

FIXTURE_SETUP(session)
{
	unsetenv(LLMEM_ENV_DEVICE);
	unsetenv(LLMEM_ENV_VALIDATION);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_session_get_info(self->s, &self->info), 0);
}

FIXTURE_TEARDOWN(session)
{
	VK_TEST_SESSION_END(self->s);
}

/* The report names a device and a driver and gives a sane API version. */
TEST_F(session, identity)
{
	EXPECT_NE(self->info.device_name[0], '\0');
	EXPECT_GE(self->info.api_version, VK_API_VERSION_1_1);
	if (self->info.api_version >= VK_API_VERSION_1_2)
		EXPECT_NE(self->info.driver_name[0], '\0');
	EXPECT_EQ(self->info.validation, 1);
}

/* Memory types point at real heaps and the flag sets are distinct and present. */
TEST_F(session, memory_types_and_flag_sets)
{
	const struct llmem_session_info *i = &self->info;

	ASSERT_GT(i->memory_type_count, 0);
	ASSERT_GT(i->memory_heap_count, 0);
	ASSERT_GT(i->flag_set_count, 0);
	for (uint32_t t = 0; t < i->memory_type_count; t++)
		EXPECT_LT(i->memory_types[t].heap_index, i->memory_heap_count);
	for (uint32_t h = 0; h < i->memory_heap_count; h++)
		EXPECT_GT(i->memory_heaps[h].size, 0);
	for (uint32_t a = 0; a < i->flag_set_count; a++) {
		bool found = false;

		EXPECT_EQ(i->flag_sets[a] & ~0xfu, 0);
		for (uint32_t b = a + 1; b < i->flag_set_count; b++)
			EXPECT_NE(i->flag_sets[a], i->flag_sets[b]);
		for (uint32_t t = 0; t < i->memory_type_count; t++)
			found |= (i->memory_types[t].flags & 0xfu) == i->flag_sets[a];
		EXPECT_TRUE(found);
	}
}

/* Limits are powers of two, and capability bits agree with the limits. */
TEST_F(session, limits_and_caps)
{
	const struct llmem_session_info *i = &self->info;

	EXPECT_GT(i->buffer_image_granularity, 0);
	EXPECT_EQ(i->buffer_image_granularity & (i->buffer_image_granularity - 1), 0);
	EXPECT_GT(i->non_coherent_atom_size, 0);
	EXPECT_EQ(i->non_coherent_atom_size & (i->non_coherent_atom_size - 1), 0);
	EXPECT_EQ(i->caps & ~ALL_CAPS, 0);
	EXPECT_EQ(!!(i->caps & LLMEM_CAP_HOST_POINTER_IMPORT),
		  i->min_imported_host_pointer_alignment != 0);
	EXPECT_EQ(!!(i->caps & LLMEM_CAP_LLMEM_DEVICE),
		  faccessat(AT_FDCWD, "/dev/llmem", R_OK | W_OK, AT_EACCESS) == 0);
	TH_LOG("%s: caps 0x%x", i->device_name, i->caps);
}

/* A case-insensitive piece of the device name finds the same device. */
TEST_F(session, device_by_name)
{
	struct llmem_session_create_info ci = { 0 };
	struct llmem_session_info info;
	struct llmem_session *s2;
	char piece[8] = { 0 };

	for (size_t k = 0; k < 4 && self->info.device_name[k]; k++)
		piece[k] = (char)toupper((unsigned char)self->info.device_name[k]);
	ci.device_name = piece;
	ASSERT_EQ(llmem_session_create(&ci, &s2), 0);
	ASSERT_EQ(llmem_session_get_info(s2, &info), 0);
	EXPECT_STREQ(info.device_name, self->info.device_name);
	EXPECT_EQ(info.validation, 0);
	llmem_session_destroy(s2);
}

/* Index and name that match nothing: -ENODEV, with a message. */
TEST_F(session, no_such_device)
{
	struct llmem_session_create_info ci = { .device_index = 1000 };
	struct llmem_session *s2 = (void *)1;

	EXPECT_EQ(llmem_session_create(&ci, &s2), -ENODEV);
	EXPECT_EQ(s2, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "1000"), NULL);
	ci.device_index = 0;
	ci.device_name = "no such device, surely";
	EXPECT_EQ(llmem_session_create(&ci, &s2), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "no such device"), NULL);
}

/* LLMEM_DEVICE overrides create_info, as an index or as a name. */
TEST_F(session, environment_device)
{
	struct llmem_session *s2;

	setenv(LLMEM_ENV_DEVICE, "1000", 1);
	EXPECT_EQ(llmem_session_create(NULL, &s2), -ENODEV);
	setenv(LLMEM_ENV_DEVICE, "no such device, surely", 1);
	EXPECT_EQ(llmem_session_create(NULL, &s2), -ENODEV);
	setenv(LLMEM_ENV_DEVICE, "0", 1);
	ASSERT_EQ(llmem_session_create(NULL, &s2), 0);
	llmem_session_destroy(s2);
	unsetenv(LLMEM_ENV_DEVICE);
}

/* A value of LLMEM_DEVICE, LLMEM_VALIDATION or LLMEM_COPY_THREADS that means
 * nothing is refused, naming the variable, never read as something else. */
TEST_F(session, environment_refused)
{
	static const struct {
		const char *var, *value;
		int err;
	} cases[] = {
		{ LLMEM_ENV_DEVICE, "-1", -ENODEV },
		{ LLMEM_ENV_DEVICE, "4294967296", -EINVAL },
		{ LLMEM_ENV_DEVICE, "99999999999999999999999", -EINVAL },
		{ LLMEM_ENV_VALIDATION, "yes", -EINVAL },
		{ LLMEM_ENV_VALIDATION, "2", -EINVAL },
		{ LLMEM_ENV_VALIDATION, "10", -EINVAL },
		{ "LLMEM_COPY_THREADS", "abc", -EINVAL },
		{ "LLMEM_COPY_THREADS", "0", -EINVAL },
		{ "LLMEM_COPY_THREADS", "-1", -EINVAL },
		{ "LLMEM_COPY_THREADS", "17", -EINVAL },
		{ "LLMEM_COPY_THREADS", "4x", -EINVAL },
	};
	struct llmem_session *s2;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv(cases[i].var, cases[i].value, 1);
		EXPECT_EQ(llmem_session_create(NULL, &s2), cases[i].err);
		EXPECT_EQ(s2, NULL);
		EXPECT_NE(strstr(llmem_last_error(), cases[i].var), NULL);
		EXPECT_NE(strstr(llmem_last_error(), cases[i].value), NULL);
		unsetenv(cases[i].var);
	}
	setenv("LLMEM_COPY_THREADS", "16", 1);
	ASSERT_EQ(llmem_session_create(NULL, &s2), 0);
	llmem_session_destroy(s2);
	unsetenv("LLMEM_COPY_THREADS");
}

/* LLMEM_VALIDATION switches the layer on and off whatever create_info says. */
TEST_F(session, environment_validation)
{
	struct llmem_session_create_info ci = { .flags = LLMEM_SESSION_VALIDATION };
	struct llmem_session_info info;
	struct llmem_session *s2;

	setenv(LLMEM_ENV_VALIDATION, "0", 1);
	ASSERT_EQ(llmem_session_create(&ci, &s2), 0);
	ASSERT_EQ(llmem_session_get_info(s2, &info), 0);
	EXPECT_EQ(info.validation, 0);
	EXPECT_EQ(llmem_session_validation_messages(s2), 0);
	llmem_session_destroy(s2);
	setenv(LLMEM_ENV_VALIDATION, "1", 1);
	ASSERT_EQ(llmem_session_create(NULL, &s2), 0);
	ASSERT_EQ(llmem_session_get_info(s2, &info), 0);
	EXPECT_EQ(info.validation, 1);
	llmem_session_destroy(s2);
	unsetenv(LLMEM_ENV_VALIDATION);
}

/* Bad arguments: -EINVAL and a message; NULL handles are harmless. */
TEST_F(session, bad_arguments)
{
	struct llmem_session_create_info ci = { .flags = 0x80 };
	struct llmem_session *s2;
	struct llmem_session_info info;

	EXPECT_EQ(llmem_session_create(NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_session_create(&ci, &s2), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "flags"), NULL);
	EXPECT_EQ(llmem_session_get_info(NULL, &info), -EINVAL);
	EXPECT_EQ(llmem_session_get_info(self->s, NULL), -EINVAL);
	EXPECT_EQ(llmem_session_validation_messages(NULL), -EINVAL);
}

/* A second session on the same device works alongside the first. */
TEST_F(session, two_sessions)
{
	struct llmem_session *s2;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	struct llmem_buffer_create_info bi = { .size = 4096 };

	ASSERT_EQ(vk_test_session(&s2), 0);
	ASSERT_EQ(llmem_memory_create(s2, NULL, &m), 0);
	ASSERT_EQ(llmem_buffer_create(m, &bi, &b), 0);
	llmem_buffer_destroy(b);
	ASSERT_EQ(llmem_memory_destroy(m), 0);
	EXPECT_EQ(llmem_session_validation_messages(s2), 0);
	llmem_session_destroy(s2);
}

/* A session outlived by a memory refuses to go: -EBUSY, and stays usable. */
TEST_F(session, destroy_with_live_memory)
{
	struct llmem_session *s2;
	struct llmem_memory *m;

	ASSERT_EQ(vk_test_session(&s2), 0);
	ASSERT_EQ(llmem_memory_create(s2, NULL, &m), 0);
	EXPECT_EQ(llmem_session_destroy(s2), -EBUSY);
	EXPECT_NE(strstr(llmem_last_error(), "memories"), NULL);
	ASSERT_EQ(llmem_memory_destroy(m), 0);
	EXPECT_EQ(llmem_session_validation_messages(s2), 0);
	EXPECT_EQ(llmem_session_destroy(s2), 0);
	EXPECT_EQ(llmem_session_destroy(NULL), 0);
}

TEST_HARNESS_MAIN
