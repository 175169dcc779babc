/* SPDX-License-Identifier: MIT */
/*
 * Buffers, images and images' views (_objects.c): what a memory's pages
 * hold, made by the memory (_session.c), used by queues and kernels.  The
 * memory itself stays opaque here.
 */
#ifndef LLMEM_PY_OBJECTS_H
#define LLMEM_PY_OBJECTS_H

#include "_base.h"

struct pyl_memory;

struct pyl_buffer {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_buffer *b;
	struct pyl_memory *memory;
	/* The buffer a sub-region was cut from, or NULL. */
	PyObject *parent;
	PyObject *name;
	uint64_t size;
	/* Its memory is host coherent (or not mappable): mappings need no flush. */
	int coherent;
	/* Live Mapping objects; calls running without the GIL; operations in
	 * flight that use it (their events or the open batch hold it). */
	Py_ssize_t mappings, busy, pending;
};

struct pyl_image {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_image *img;
	struct pyl_memory *memory;
	PyObject *name;
	uint32_t ndim;
	uint32_t shape[LLMEM_IMAGE_MAX_DIMS];
	/* As a buffer's. */
	int coherent;
	/* Calls running without the GIL; operations in flight; live Mapping
	 * and ImageView objects. */
	Py_ssize_t busy, pending, mappings, views;
};

/* An image's view and sampler, for kernels' image bindings. */
struct pyl_view {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_image_view *v;
	struct pyl_image *image;
	Py_ssize_t busy, pending;
};

extern PyTypeObject pyl_BufferType, pyl_ImageType, pyl_ImageViewType;

/*
 * New objects of @mem, @coherent or not as it is; the C object is
 * destroyed on failure.
 */
PyObject *pyl_buffer_wrap(struct pyl_memory *mem, int coherent, struct llmem_buffer *b,
			  PyObject *name, PyObject *parent);
PyObject *pyl_image_wrap(struct pyl_memory *mem, int coherent, struct llmem_image *img,
			 PyObject *name, const struct llmem_image_create_info *ci);

/* @o as an open llmem Buffer or Image; TypeError or ValueError otherwise. */
struct pyl_buffer *pyl_as_buffer(PyObject *o, const char *what);
struct pyl_image *pyl_as_image(PyObject *o, const char *what);

#endif /* LLMEM_PY_OBJECTS_H */
