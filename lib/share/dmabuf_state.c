// SPDX-License-Identifier: MIT
/*
 * llmem.ko's view of a DMA-BUF (LLMEM_IOC_INFO), in the library's own struct
 * so that callers need neither the uapi header nor the device node's rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/llmem.h>

#include <llmem/share.h>

#include "base/error.h"

/* The public bits are the uapi's, so that they are copied as they are. */
_Static_assert(LLMEM_DMABUF_KNOWN_ATTACHMENTS == LLMEM_KNOWN_ATTACHMENTS &&
		       LLMEM_DMABUF_KNOWN_DEVICE_MAPS == LLMEM_KNOWN_DEVICE_MAPS &&
		       LLMEM_DMABUF_KNOWN_CPU_MMAPS == LLMEM_KNOWN_CPU_MMAPS &&
		       LLMEM_DMABUF_KNOWN_VMAPS == LLMEM_KNOWN_VMAPS &&
		       LLMEM_DMABUF_KNOWN_FENCES == LLMEM_KNOWN_FENCES &&
		       LLMEM_DMABUF_KNOWN_MAPPABLE == LLMEM_KNOWN_MAPPABLE &&
		       LLMEM_DMABUF_KNOWN_PINS == LLMEM_KNOWN_PINS,
	       "llmem_dmabuf_known differs from LLMEM_KNOWN_*");
_Static_assert(LLMEM_DMABUF_EXPORTED_BY_LLMEM == LLMEM_STATE_EXPORTED &&
		       LLMEM_DMABUF_CPU_MAPPABLE == LLMEM_STATE_MAPPABLE &&
		       LLMEM_DMABUF_CONTIGUOUS == LLMEM_STATE_CONTIGUOUS,
	       "llmem_dmabuf_flags differs from LLMEM_STATE_*");
_Static_assert(LLMEM_DMABUF_NAME_LEN == LLMEM_NAME_LEN, "name lengths differ");

#define KNOWN_MASK                                                                   \
	(LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_DEVICE_MAPS | LLMEM_KNOWN_CPU_MMAPS | \
	 LLMEM_KNOWN_VMAPS | LLMEM_KNOWN_FENCES | LLMEM_KNOWN_MAPPABLE | LLMEM_KNOWN_PINS)
#define FLAGS_MASK (LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE | LLMEM_STATE_CONTIGUOUS)

LLMEM_PUBLIC int llmem_dmabuf_query(int fd, struct llmem_dmabuf_state *state)
{
	struct llmem_info info = { .fd = (__u32)fd };
	int dev, ret;

	if (!state)
		return llmem_error(-EINVAL, "llmem_dmabuf_query: NULL state");
	memset(state, 0, sizeof(*state));
	if (fd < 0 || fcntl(fd, F_GETFD) == -1)
		return llmem_error(-EBADF, "llmem_dmabuf_query: fd %d is not open", fd);
	dev = open("/dev/llmem", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		ret = errno == ENOENT ? -ENODEV : -errno;
		return llmem_error(ret, "llmem_dmabuf_query: open /dev/llmem: %s%s",
				   strerror(errno), ret == -ENODEV ? " (is llmem.ko loaded?)" : "");
	}
	do {
		ret = ioctl(dev, LLMEM_IOC_INFO, &info);
	} while (ret == -1 && errno == EINTR);
	ret = ret == -1 ? -errno : 0;
	close(dev);
	if (ret == -EINVAL)
		return llmem_error(ret, "llmem_dmabuf_query: fd %d is not a DMA-BUF", fd);
	if (ret)
		return llmem_error(ret, "llmem_dmabuf_query: LLMEM_IOC_INFO on fd %d: %s", fd,
				   strerror(-ret));

	/* Bits a newer module might add mean nothing to this struct yet. */
	state->known = info.known & KNOWN_MASK;
	state->flags = info.state & FLAGS_MASK;
	state->size = info.size;
	state->attachments = info.attachments;
	state->device_maps = info.device_maps;
	state->device_write_maps = info.device_write_maps;
	state->cpu_mmaps = info.cpu_mmaps;
	state->vmaps = info.vmaps;
	state->fences = info.fences;
	state->write_fences = info.write_fences;
	state->pins = info.pins;
	memcpy(state->exporter, info.exporter, sizeof(state->exporter));
	memcpy(state->name, info.name, sizeof(state->name));
	state->exporter[sizeof(state->exporter) - 1] = '\0';
	state->name[sizeof(state->name) - 1] = '\0';
	return 0;
}
