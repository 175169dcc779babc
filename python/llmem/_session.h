/* SPDX-License-Identifier: MIT */
/*
 * Sessions and memories (_session.c): a session counts its children, a
 * memory holds its session and makes buffers and images in its pages.
 */
#ifndef LLMEM_PY_SESSION_H
#define LLMEM_PY_SESSION_H

#include "_base.h"

struct pyl_session {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_session *s;
	/* [(severity, text)] the validation layer sent, when it is on. */
	PyObject *messages;
	/* Live children, by kind, for close()'s EBUSY and its message. */
	Py_ssize_t memories, queues, cameras, codecs, cudas, kernels, converters;
};

struct pyl_memory {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_memory *m;
	struct pyl_session *session;
	PyObject *name;
	/* Host allocations imported as pages: Py_buffers held until close. */
	Py_buffer *hosts;
	Py_ssize_t nhosts;
	/* Host coherent (or not mappable): mappings need no flush. */
	int coherent;
	/* Pages imported into CUDA; calls running without the GIL. */
	Py_ssize_t cuda_imports, busy;
};

extern PyTypeObject pyl_SessionType, pyl_MemoryType;

/* @o as an open llmem Session or Memory; TypeError or ValueError otherwise. */
struct pyl_session *pyl_as_session(PyObject *o);
struct pyl_memory *pyl_as_memory(PyObject *o);

/* enum llmem_backend from an int or its name ("vulkan-dmabuf", ...); None
 * or NULL keeps *@out.  Return: 0 or -1. */
int pyl_backend(PyObject *o, uint32_t *out);
/* llmem.backend_names(): the names, by value. */
PyObject *pyl_backend_names(PyObject *module, PyObject *unused);

#endif /* LLMEM_PY_SESSION_H */
