// SPDX-License-Identifier: MIT
/*
 * The cameras libcamera finds (llmem_camera_list_libcamera()): their ids
 * are what `llmem camera --libcamera --device ID` takes.  Where llmem was
 * built without libcamera the section says so instead.
 */
#include <errno.h>
#include <stdlib.h>

#include <llmem/camera.h>
#include <llmem/error.h>

#include "devices.h"

void devices_libcamera(struct emit *e)
{
	uint32_t count = 0, listed = 0;
	char(*ids)[LLMEM_CAMERA_ID_SIZE] = NULL;
	int ret;

	emit_object(e, "libcamera");
	ret = llmem_camera_list_libcamera(NULL, 0, &count);
	/* A camera that comes between the two calls waits for the next listing. */
	if (!ret && count) {
		ids = calloc(count, sizeof(*ids));
		ret = ids ? llmem_camera_list_libcamera(ids, count, &listed) : -ENOMEM;
	}
	emit_bool(e, "usable", !ret);
	if (ret)
		emit_string(e, "error", ids || !count ? llmem_last_error() : "out of memory");
	emit_array(e, "cameras");
	for (uint32_t i = 0; !ret && i < listed && i < count; i++)
		emit_string(e, NULL, ids[i]);
	emit_end(e);
	emit_end(e);
	free(ids);
}
