// SPDX-License-Identifier: MIT
/*
 * llmem_dmabuf_query()'s bad inputs that need no llmem.ko: a NULL state, fds
 * that are not open, and an fd that is open but cannot be asked about, which
 * on the build machine (whose kernel cannot load modules) means /dev/llmem is
 * absent.  Each returns its documented errno, says why in
 * llmem_last_error(), leaves the state all zero and the fd open.
 * tests/module/dmabuf_state_test.c checks the module's answers in the VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"

FIXTURE(query)
{
	struct llmem_dmabuf_state st;
	int memfd;
};

FIXTURE_SETUP(query)
{
	memset(&self->st, 0xa5, sizeof(self->st));
	self->memfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	ASSERT_GE(self->memfd, 0);
}

FIXTURE_TEARDOWN(query)
{
	close(self->memfd);
}

/* A NULL state is -EINVAL, whatever the fd. */
TEST_F(query, null_state)
{
	EXPECT_EQ(llmem_dmabuf_query(self->memfd, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL state"), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_dmabuf_query(-1, NULL), -EINVAL);
}

/* Negative fds are -EBADF, checked before /dev/llmem is opened. */
TEST_F(query, negative_fd)
{
	EXPECT_EQ(llmem_dmabuf_query(-1, &self->st), -EBADF);
	EXPECT_NE(strstr(llmem_last_error(), "fd -1 is not open"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_TRUE(all_zero(&self->st, sizeof(self->st)));
	memset(&self->st, 0xa5, sizeof(self->st));
	EXPECT_EQ(llmem_dmabuf_query(INT_MIN, &self->st), -EBADF);
	EXPECT_TRUE(all_zero(&self->st, sizeof(self->st)));
}

/* An fd number with nothing open behind it is -EBADF too. */
TEST_F(query, closed_fd)
{
	int fd = dup(self->memfd);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(close(fd), 0);
	EXPECT_EQ(llmem_dmabuf_query(fd, &self->st), -EBADF);
	EXPECT_NE(strstr(llmem_last_error(), "is not open"), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_TRUE(all_zero(&self->st, sizeof(self->st)));
}

/*
 * An open fd that is not a DMA-BUF: -ENODEV, naming llmem.ko, where
 * /dev/llmem is absent (the build machine); -EINVAL where llmem.ko is
 * loaded.  Either way the fd stays the caller's, open.
 */
TEST_F(query, not_dmabuf)
{
	int loaded = access("/dev/llmem", F_OK) == 0;

	if (loaded) {
		EXPECT_EQ(llmem_dmabuf_query(self->memfd, &self->st), -EINVAL);
		EXPECT_NE(strstr(llmem_last_error(), "not a DMA-BUF"), NULL)
		TH_LOG("%s", llmem_last_error());
	} else {
		EXPECT_EQ(llmem_dmabuf_query(self->memfd, &self->st), -ENODEV);
		EXPECT_NE(strstr(llmem_last_error(), "is llmem.ko loaded?"), NULL)
		TH_LOG("%s", llmem_last_error());
	}
	EXPECT_TRUE(all_zero(&self->st, sizeof(self->st)));
	EXPECT_NE(fcntl(self->memfd, F_GETFD), -1);
}

TEST_HARNESS_MAIN
