// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include <linux/dma-buf.h>

#include "base/dmabuf_name.h"

void llmem_dmabuf_name(int fd, const char *what)
{
	char name[DMA_BUF_NAME_LEN];

	snprintf(name, sizeof(name), "llmem:%s", what && *what ? what : "buffer");
	while (ioctl(fd, DMA_BUF_SET_NAME, name) == -1 && errno == EINTR)
		;
}
