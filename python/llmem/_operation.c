// SPDX-License-Identifier: MIT
/*
 * One operation on a queue, as every one of them goes (Queue's copies and
 * fills in _transfer.c, dispatches in _kernel.c): its wait list, whether
 * it blocks, the objects it pins while it runs without the GIL, and its
 * result, an Event that holds what the device still uses, or the open
 * batch that holds it.
 */
#include "_operation.h"

#include <string.h>

int pyl_op_begin(struct pyl_op *op, struct pyl_queue *q, PyObject *wait_for, PyObject *blocking)
{
	Py_ssize_t n;

	memset(op, 0, sizeof(*op));
	op->q = q;
	op->blocking = 1;
	if (!q->q) {
		pyl_closed("queue");
		return -1;
	}
	if (pyl_bool(blocking, &op->blocking))
		return -1;
	if (!wait_for || wait_for == Py_None)
		return 0;
	op->wait_objs = PySequence_Fast(wait_for, "wait_for must be a sequence of llmem.Event");
	if (!op->wait_objs)
		return -1;
	n = PySequence_Fast_GET_SIZE(op->wait_objs);
	op->waits = PyMem_Calloc((size_t)n + 1, sizeof(*op->waits));
	op->wait_events = PyMem_Calloc((size_t)n + 1, sizeof(*op->wait_events));
	if (!op->waits || !op->wait_events) {
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(op->wait_objs, i);
		struct pyl_event *e = (struct pyl_event *)o;

		if (!PyObject_TypeCheck(o, &pyl_EventType)) {
			PyErr_Format(PyExc_TypeError,
				     "wait_for must hold llmem.Event objects, not %.200s",
				     Py_TYPE(o)->tp_name);
			return -1;
		}
		if (!e->ev || e->release_on_fire) {
			pyl_closed("event in wait_for");
			return -1;
		}
		/* A closed queue waited for all it had: nothing to wait for. */
		if (e->queue && !e->queue->q)
			continue;
		op->wait_events[op->wl.count] = e;
		op->waits[op->wl.count++] = e->ev;
	}
	op->wl.events = op->waits;
	return 0;
}

void pyl_op_pin(struct pyl_op *op, PyObject *obj, Py_ssize_t *busy, Py_ssize_t *pending)
{
	op->pins[op->npins].obj = obj;
	op->pins[op->npins].busy = busy;
	op->pins[op->npins++].pending = pending;
}

/* Pins the queue, the objects, and the events waited for and their queues. */
void pyl_op_enter(struct pyl_op *op)
{
	op->q->busy++;
	for (int i = 0; i < op->npins; i++)
		(*op->pins[i].busy)++;
	for (uint32_t i = 0; i < op->wl.count; i++)
		pyl_event_pin(op->wait_events[i]);
}

void pyl_op_leave(struct pyl_op *op)
{
	op->q->busy--;
	for (int i = 0; i < op->npins; i++)
		(*op->pins[i].busy)--;
	for (uint32_t i = 0; i < op->wl.count; i++)
		pyl_event_unpin(op->wait_events[i]);
}

void pyl_op_free(struct pyl_op *op)
{
	if (op->has_host)
		PyBuffer_Release(&op->host);
	op->has_host = 0;
	PyMem_Free(op->waits);
	PyMem_Free(op->wait_events);
	Py_CLEAR(op->wait_objs);
}

const struct llmem_wait_list *pyl_op_wait_list(struct pyl_op *op)
{
	return op->wl.count ? &op->wl : NULL;
}

struct llmem_event **pyl_op_event(struct pyl_op *op)
{
	return op->blocking ? NULL : &op->ev;
}

/* What an operation holds until the device is done with it. */
static int op_hold(struct pyl_op *op, struct pyl_holds *h)
{
	for (int i = 0; i < op->npins; i++)
		if (pyl_holds_add_obj(h, op->pins[i].obj, op->pins[i].pending))
			return -1;
	if (op->has_host && op->host_read) {
		if (pyl_holds_add_view(h, &op->host))
			return -1;
		op->has_host = 0;
	}
	return 0;
}

/*
 * The operation's result: an exception for @ret, None for a blocking call,
 * an Event otherwise.  Until the device is done, the event (or the open
 * batch) holds the buffers and images the operation uses and the host
 * memory its reads land in.
 */
PyObject *pyl_op_end(struct pyl_op *op, int ret)
{
	struct pyl_queue *q = op->q;
	struct pyl_event *e;

	if (ret) {
		pyl_error(ret);
		pyl_op_free(op);
		return NULL;
	}
	if (q->batch && op_hold(op, &q->batch_holds)) {
		/* The batch cannot be kept safely: nothing of it may run. */
		llmem_queue_discard_batch(q->q);
		q->batch = 0;
		pyl_holds_clear(&q->batch_holds);
		llmem_event_release(op->ev);
		pyl_op_free(op);
		return NULL;
	}
	if (op->blocking) {
		pyl_op_free(op);
		Py_RETURN_NONE;
	}
	e = (struct pyl_event *)pyl_alloc(PYL_EVENT);
	if (e) {
		e->ev = op->ev;
		e->queue = (struct pyl_queue *)Py_NewRef(q);
		op->ev = NULL;
		if (!q->batch && op_hold(op, &e->holds)) {
			Py_CLEAR(e);
		} else if (!pyl_holds_empty(&e->holds)) {
			pyl_event_link(e);
		}
	}
	if (!e && op->ev) {
		/* What it uses must stay until the device is done; pinned, the
		 * queue outlives callbacks this wait runs. */
		q->busy++;
		PYL_NOGIL(llmem_event_wait(op->ev, UINT64_MAX));
		q->busy--;
		llmem_event_release(op->ev);
	}
	pyl_op_free(op);
	return (PyObject *)e;
}
