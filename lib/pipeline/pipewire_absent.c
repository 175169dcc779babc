// SPDX-License-Identifier: MIT
/*
 * llmem/pipewire.h where llmem was built without libpipewire: no source is
 * made, so the calls on one are never reached but for their NULL checks.
 */
#include <errno.h>
#include <stddef.h>

#include <llmem/pipewire.h>

#include "base/error.h"
#include "base/export.h"

LLMEM_PUBLIC int llmem_pipewire_source_create(struct llmem_camera *camera,
					      const struct llmem_pipewire_source_create_info *info,
					      struct llmem_pipewire_source **out)
{
	(void)camera;
	(void)info;
	if (out)
		*out = NULL;
	return llmem_error(-ENOTSUP, "pipewire: this llmem was built without PipeWire "
				     "(libpipewire-0.3-dev 0.3.65 or later was not found)");
}

LLMEM_PUBLIC void llmem_pipewire_source_destroy(struct llmem_pipewire_source *source)
{
	(void)source;
}

LLMEM_PUBLIC int llmem_pipewire_source_fd(const struct llmem_pipewire_source *source)
{
	(void)source;
	return llmem_error(-EINVAL, "pipewire: NULL source");
}

LLMEM_PUBLIC int llmem_pipewire_source_iterate(struct llmem_pipewire_source *source, int timeout_ms)
{
	(void)source;
	(void)timeout_ms;
	return llmem_error(-EINVAL, "pipewire: NULL source");
}

LLMEM_PUBLIC int llmem_pipewire_source_get_info(const struct llmem_pipewire_source *source,
						struct llmem_pipewire_source_info *info)
{
	(void)source;
	(void)info;
	return llmem_error(-EINVAL, "pipewire: NULL source");
}
