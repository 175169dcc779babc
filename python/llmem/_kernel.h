/* SPDX-License-Identifier: MIT */
/* User compute (_kernel.c): llmem.Kernel, and Queue.dispatch() for _transfer.c. */
#ifndef LLMEM_PY_KERNEL_H
#define LLMEM_PY_KERNEL_H

#include "_base.h"

struct pyl_queue;

extern PyTypeObject pyl_KernelType;

PyObject *pyl_queue_dispatch(struct pyl_queue *q, PyObject *const *args, Py_ssize_t nargs,
			     PyObject *kwnames);

#endif /* LLMEM_PY_KERNEL_H */
