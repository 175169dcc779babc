// SPDX-License-Identifier: MIT
/*
 * Whether a KMS plane takes a negotiated frame: the frame's DMA-BUFs made
 * GEM objects of the card (PRIME) and a framebuffer of them at the layout
 * (ADDFB2), which is where a driver refuses a pitch, an offset or a
 * scattered buffer it cannot scan out.  The framebuffer is removed again at
 * once; neither call needs DRM master.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/negotiate.h>

#include "base/error.h"
#include "display/display.h"

int llmem_kms_plane_takes(const struct llmem_participant *p, const struct llmem_negotiated_frame *f)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 }, gem[4] = { 0 };
	const struct llmem_frame_layout *l = &f->layout;
	char driver[32];
	uint32_t fb;
	int fd, ret;

	ret = llmem_drm_open_kms(p->device, &fd, driver, sizeof(driver));
	if (ret)
		return ret;
	for (uint32_t i = 0; i < f->num_fds; i++) {
		if (drmPrimeFDToHandle(fd, f->fd[i], &gem[i])) {
			ret = llmem_drm_error(-errno, p->device, driver,
					      "DRM_IOCTL_PRIME_FD_TO_HANDLE");
			goto close_handles;
		}
	}
	for (uint32_t i = 0; i < l->num_planes; i++) {
		handles[i] = gem[f->num_fds > 1 ? i : 0];
		pitches[i] = l->pitch[i];
		offsets[i] = (uint32_t)l->offset[i];
	}
	if (drmModeAddFB2(fd, l->width, l->height, l->fourcc, handles, pitches, offsets, &fb, 0)) {
		ret = llmem_error(-errno, "%s refuses the frame: DRM_IOCTL_MODE_ADDFB2: %s",
				  p->name, strerror(errno));
		goto close_handles;
	}
	drmModeRmFB(fd, fb);
close_handles:
	/* One DMA-BUF imported twice is one GEM handle: close it once. */
	for (uint32_t i = 0; i < f->num_fds; i++) {
		bool seen = !gem[i];

		for (uint32_t j = 0; j < i; j++)
			seen |= gem[j] == gem[i];
		if (!seen)
			drmCloseBufferHandle(fd, gem[i]);
	}
	close(fd);
	return ret;
}
