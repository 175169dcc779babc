/* SPDX-License-Identifier: MIT */
/*
 * One queue operation (_operation.c): its wait list, whether it blocks, the
 * host memory it reads from or lands in, and the objects it uses (busy
 * while the call runs without the GIL, pending until the device is done).
 */
#ifndef LLMEM_PY_OPERATION_H
#define LLMEM_PY_OPERATION_H

#include "_event.h"

#define PYL_OP_PINS (LLMEM_KERNEL_MAX_BINDINGS + 2)

struct pyl_op {
	struct pyl_queue *q;
	struct llmem_wait_list wl;
	struct llmem_event **waits;
	struct pyl_event **wait_events;
	PyObject *wait_objs;
	int blocking;
	struct llmem_event *ev;
	Py_buffer host;
	int has_host, host_read;
	struct {
		PyObject *obj;
		Py_ssize_t *busy, *pending;
	} pins[PYL_OP_PINS];
	int npins;
};

/* Return: 0, or -1 with an exception; pyl_op_end() gives the result. */
int pyl_op_begin(struct pyl_op *op, struct pyl_queue *q, PyObject *wait_for, PyObject *blocking);
void pyl_op_pin(struct pyl_op *op, PyObject *obj, Py_ssize_t *busy, Py_ssize_t *pending);
void pyl_op_enter(struct pyl_op *op);
void pyl_op_leave(struct pyl_op *op);
void pyl_op_free(struct pyl_op *op);
const struct llmem_wait_list *pyl_op_wait_list(struct pyl_op *op);
struct llmem_event **pyl_op_event(struct pyl_op *op);
/* None, an Event, or NULL with an exception for @ret. */
PyObject *pyl_op_end(struct pyl_op *op, int ret);

#endif /* LLMEM_PY_OPERATION_H */
