// SPDX-License-Identifier: MIT
/*
 * /dev/llmem exists once the module is loaded, opens close-on-exec and
 * refuses commands it does not know.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "test_util.h"

FIXTURE(llmem)
{
	int fd;
};

FIXTURE_SETUP(llmem)
{
	self->fd = open("/dev/llmem", O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->fd, 0) TH_LOG("open /dev/llmem: %s", strerror(errno));
}

FIXTURE_TEARDOWN(llmem)
{
	close(self->fd);
}

/* The descriptor carries FD_CLOEXEC as asked. */
TEST_F(llmem, open_cloexec)
{
	ASSERT_EQ(fcntl(self->fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}

/* A command outside the ABI is -ENOTTY, not -EINVAL. */
TEST_F(llmem, unknown_ioctl_is_enotty)
{
	int dummy = 0;

	ASSERT_EQ(xioctl(self->fd, _IOWR('L', 0xff, int), &dummy), -ENOTTY);
}

TEST_HARNESS_MAIN
