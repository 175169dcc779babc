/* SPDX-License-Identifier: MIT */
/*
 * Events (_event.c): what operations in flight hold, the events that hold
 * it until the device is done, and the lists a queue keeps of its events.
 */
#ifndef LLMEM_PY_EVENT_H
#define LLMEM_PY_EVENT_H

#include "_base.h"

struct pyl_session;

/*
 * What operations in flight hold until the device is done with them: the
 * host memory their reads land in, and the buffers and images they use
 * (counted in each one's pending count, which close() checks).
 */
struct pyl_hold_obj {
	PyObject *obj;
	Py_ssize_t *pending;
};

struct pyl_holds {
	Py_buffer *views;
	Py_ssize_t nviews, views_cap;
	struct pyl_hold_obj *objs;
	Py_ssize_t nobjs, objs_cap;
};

struct pyl_event;

/*
 * A queue (llmem.Queue, _transfer.c), here because its events keep
 * themselves in its lists, pin it and ask whether it is open, and its
 * operations (_operation.c) fill its batch.
 */
struct pyl_queue {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_queue *q;
	struct pyl_session *session;
	/* What the operations of the open batch hold. */
	struct pyl_holds batch_holds;
	int batch;
	/* Events of this queue that hold something, until they are done; and
	 * those with a callback registered and not yet called. */
	struct pyl_event *holding, *callbacks;
	Py_ssize_t busy;
};

struct pyl_event {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_event *ev;
	/* The queue of an operation's event; NULL for a user event, which
	 * holds its session instead. */
	struct pyl_queue *queue;
	struct pyl_session *session;
	struct pyl_holds holds;
	/* In the queue's list of events that hold something. */
	struct pyl_event *prev, *next;
	int done;
	Py_ssize_t busy;
	/* The callback registered and not yet called (it holds a reference on
	 * the event), in the queue's list; close() asked for while it was to
	 * come: the callback releases the C event. */
	PyObject *callback;
	struct pyl_event *cb_prev, *cb_next;
	int release_on_fire;
};

extern PyTypeObject pyl_EventType, pyl_UserEventType;

/* What operations in flight hold. */
int pyl_holds_empty(const struct pyl_holds *h);
int pyl_holds_add_view(struct pyl_holds *h, Py_buffer *view);
int pyl_holds_add_obj(struct pyl_holds *h, PyObject *obj, Py_ssize_t *pending);
void pyl_holds_clear(struct pyl_holds *h);

/*
 * Events: pinning one (and its queue) for a call without the GIL; listing
 * one that holds something in its queue; done, it lets go; after the
 * queue's destruction, the callbacks the library will never call are
 * dropped.  Timeouts in seconds (None: forever) as nanoseconds.
 */
void pyl_event_pin(struct pyl_event *e);
void pyl_event_unpin(struct pyl_event *e);
void pyl_event_link(struct pyl_event *e);
void pyl_event_done(struct pyl_event *e);
void pyl_queue_callbacks_orphaned(struct pyl_queue *q);
int pyl_timeout(PyObject *o, uint64_t *ns);
PyObject *pyl_wait_for_events(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames);

#endif /* LLMEM_PY_EVENT_H */
