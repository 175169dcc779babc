/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_VKMS_H
#define LLMEM_TEST_VKMS_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <llmem/display.h>

/* The vkms card's node (the rig loads vkms): 0, or -ENODEV. */
static inline int vkms_path(char *path, size_t len)
{
	struct llmem_drm_device devs[16];
	int n = llmem_drm_list_devices(devs, 16);

	for (int i = 0; i < n && i < 16; i++)
		if (!strcmp(devs[i].driver, "vkms")) {
			snprintf(path, len, "%s", devs[i].path);
			return 0;
		}
	return -ENODEV;
}

#endif
