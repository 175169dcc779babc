/* SPDX-License-Identifier: MIT */
/*
 * Mappings (_mapping.c): host memory that an object mapped, exported
 * through the buffer protocol and DLPack without a copy.  The object that
 * maps (a buffer, a linear image, a camera's frame) says how to undo and
 * sync its map; the mapping holds it and keeps its count of live mappings.
 */
#ifndef LLMEM_PY_MAPPING_H
#define LLMEM_PY_MAPPING_H

#include "_layout.h"

/* What a mapping asks of the object it maps. */
struct pyl_mapping_ops {
	/* PYL_BUFFER, PYL_IMAGE or PYL_CAMERA: what Mapping.buffer and .image give. */
	enum pyl_class owner;
	/* Views are read-only. */
	int readonly;
	/* Undoes the map (NULL: nothing to undo).  Return: 0 or a negative errno. */
	int (*unmap)(PyObject *owner);
	/*
	 * Flushes (@flush) or invalidates [@offset, @offset + @size) of what
	 * is mapped (NULL: never synced, a camera's frames).  Return: 0 or a
	 * negative errno, -EINVAL for a range outside an image's bytes.
	 */
	int (*sync)(PyObject *owner, uint64_t offset, uint64_t size, int flush);
};

/*
 * A Mapping of @ptr laid out as @layout, which @owner mapped: it holds
 * @owner and counts itself in *@count while it lives; @noncoherent: it
 * invalidates now and flushes whenever a writable view is released.  It
 * takes the map over: it undoes it when it fails.  Return: the mapping, or
 * NULL with an exception.
 */
PyObject *pyl_mapping_new(PyObject *owner, const struct pyl_mapping_ops *ops, Py_ssize_t *count,
			  void *ptr, const struct pyl_layout *layout, int noncoherent);

extern PyTypeObject pyl_MappingType;

#endif /* LLMEM_PY_MAPPING_H */
