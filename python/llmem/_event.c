// SPDX-License-Identifier: MIT
/*
 * Events: the completion of a queue's operation (llmem.Event), or one the
 * host completes itself (llmem.UserEvent), with what they hold until the
 * device is done, their status, profiling times, completion callbacks, and
 * waits for several at once.
 *
 * Until the device is done with an operation that did not block, its event
 * (or the open batch) holds what it uses: the buffers, images, views and
 * kernels, whose close() refuses meanwhile (EBUSY), and the host memory a
 * read lands in.  An event dropped before it is done waits for it.
 *
 * Callbacks run Python code from whichever thread the library finds the
 * event done in (transfer.h): a wait or poll of any event of the queue, a
 * later operation on it, its finish or close, in any Python thread, with
 * or without the GIL held, or the thread that sets a user event.  The
 * trampoline takes the GIL.  The library must not free an event between
 * finding it done and calling its callback, so a registered callback holds
 * its event: the event lives until the callback has run, and a close()
 * that comes first leaves the release to the callback.  Such a thread is
 * always inside a call that pinned the event's queue, or holds the GIL
 * (user events are set, and their callbacks registered, with the GIL held).
 */
#include "_event.h"
#include "_session.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* ---- Holds ------------------------------------------------------------ */

int pyl_holds_empty(const struct pyl_holds *h)
{
	return !h->nviews && !h->nobjs;
}

int pyl_holds_add_view(struct pyl_holds *h, Py_buffer *view)
{
	if (h->nviews == h->views_cap) {
		Py_ssize_t cap = h->views_cap ? h->views_cap * 2 : 2;
		Py_buffer *v = PyMem_Realloc(h->views, sizeof(*v) * (size_t)cap);

		if (!v) {
			PyErr_NoMemory();
			return -1;
		}
		h->views = v;
		h->views_cap = cap;
	}
	h->views[h->nviews++] = *view;
	return 0;
}

int pyl_holds_add_obj(struct pyl_holds *h, PyObject *obj, Py_ssize_t *pending)
{
	if (h->nobjs == h->objs_cap) {
		Py_ssize_t cap = h->objs_cap ? h->objs_cap * 2 : 4;
		struct pyl_hold_obj *o = PyMem_Realloc(h->objs, sizeof(*o) * (size_t)cap);

		if (!o) {
			PyErr_NoMemory();
			return -1;
		}
		h->objs = o;
		h->objs_cap = cap;
	}
	h->objs[h->nobjs++] = (struct pyl_hold_obj){ Py_NewRef(obj), pending };
	(*pending)++;
	return 0;
}

/* The device is done: let go of everything. */
void pyl_holds_clear(struct pyl_holds *h)
{
	struct pyl_holds old = *h;

	memset(h, 0, sizeof(*h));
	for (Py_ssize_t i = 0; i < old.nviews; i++)
		PyBuffer_Release(&old.views[i]);
	for (Py_ssize_t i = 0; i < old.nobjs; i++) {
		(*old.objs[i].pending)--;
		Py_DECREF(old.objs[i].obj);
	}
	PyMem_Free(old.views);
	PyMem_Free(old.objs);
}

/* ---- Event ------------------------------------------------------------ */

static int event_is_open(const struct pyl_event *e)
{
	return e->ev && !e->release_on_fire;
}

void pyl_event_pin(struct pyl_event *e)
{
	e->busy++;
	if (e->queue)
		e->queue->busy++;
}

void pyl_event_unpin(struct pyl_event *e)
{
	e->busy--;
	if (e->queue)
		e->queue->busy--;
}

/* Whether the library may still be asked about the event (not after its queue is gone). */
static int event_queue_open(const struct pyl_event *e)
{
	return !e->queue || e->queue->q;
}

void pyl_event_link(struct pyl_event *e)
{
	struct pyl_queue *q = e->queue;

	e->prev = NULL;
	e->next = q->holding;
	if (q->holding)
		q->holding->prev = e;
	q->holding = e;
}

void pyl_event_done(struct pyl_event *e)
{
	struct pyl_queue *q = e->queue;

	e->done = 1;
	if (pyl_holds_empty(&e->holds))
		return;
	if (e->prev)
		e->prev->next = e->next;
	else if (q && q->holding == e)
		q->holding = e->next;
	if (e->next)
		e->next->prev = e->prev;
	e->prev = e->next = NULL;
	pyl_holds_clear(&e->holds);
}

/* ---- Callbacks -------------------------------------------------------- */

/* The registration ends: off the queue's list, the function let go of. */
static PyObject *callback_take(struct pyl_event *e)
{
	PyObject *fn = e->callback;
	struct pyl_queue *q = e->queue;

	e->callback = NULL;
	if (e->cb_prev)
		e->cb_prev->cb_next = e->cb_next;
	else if (q && q->callbacks == e)
		q->callbacks = e->cb_next;
	if (e->cb_next)
		e->cb_next->cb_prev = e->cb_prev;
	e->cb_prev = e->cb_next = NULL;
	return fn;
}

/*
 * The registration's end when the library will never call: the function
 * and the reference the registration held on the event go (which may free
 * it, so the caller must hold one of its own or be done with it).
 */
static void callback_drop(struct pyl_event *e)
{
	PyObject *fn = callback_take(e);

	if (!fn)
		return;
	if (e->release_on_fire) {
		llmem_event_release(e->ev);
		e->ev = NULL;
		e->release_on_fire = 0;
	}
	Py_DECREF(fn);
	Py_DECREF(e);
}

static void event_fired(struct llmem_event *ev, int status, void *user)
{
	struct pyl_event *self = user;
	struct pyl_saved_error saved;
	PyGILState_STATE g;
	PyObject *fn, *r;

	(void)ev;
	if (!Py_IsInitialized())
		return;
	g = PyGILState_Ensure();
	pyl_error_save(&saved);
	fn = callback_take(self);
	if (fn) {
		r = PyObject_CallFunction(fn, "i", status);
		if (!r)
			PyErr_WriteUnraisable(fn);
		Py_XDECREF(r);
		Py_DECREF(fn);
		/* close() came first and left the release to this call. */
		if (self->release_on_fire) {
			llmem_event_release(self->ev);
			self->ev = NULL;
			self->release_on_fire = 0;
		}
		Py_DECREF(self);
	}
	pyl_error_restore(&saved);
	PyGILState_Release(g);
}

void pyl_queue_callbacks_orphaned(struct pyl_queue *q)
{
	while (q->callbacks)
		callback_drop(q->callbacks);
}

static PyObject *event_set_callback(struct pyl_event *self, PyObject *fn)
{
	struct pyl_queue *q = self->queue;
	int ret;

	if (!event_is_open(self))
		return pyl_closed("event");
	if (!PyCallable_Check(fn)) {
		PyErr_Format(PyExc_TypeError, "callback must be callable, not %.200s",
			     Py_TYPE(fn)->tp_name);
		return NULL;
	}
	if (self->callback)
		return pyl_error_msg(EBUSY, "event callback: the event has one");
	if (!event_queue_open(self)) {
		/* Its closed queue finished it: called at once, as the library would. */
		PyObject *r = PyObject_CallFunction(fn, "i", 0);

		Py_XDECREF(r);
		return r ? Py_NewRef(Py_None) : NULL;
	}
	self->callback = Py_NewRef(fn);
	Py_INCREF(self);
	if (q) {
		self->cb_prev = NULL;
		self->cb_next = q->callbacks;
		if (q->callbacks)
			q->callbacks->cb_prev = self;
		q->callbacks = self;
	}
	/*
	 * An event already done calls back from here.  A queue's event takes
	 * its queue's lock, which a blocking operation holds for as long as it
	 * runs: without the GIL, pinned.  A user event's, with it.
	 */
	if (q) {
		pyl_event_pin(self);
		PYL_NOGIL(ret = llmem_event_set_callback(self->ev, event_fired, self));
		pyl_event_unpin(self);
	} else {
		ret = llmem_event_set_callback(self->ev, event_fired, self);
	}
	if (ret) {
		callback_drop(self);
		return pyl_error(ret);
	}
	Py_RETURN_NONE;
}

/* ---- Event ------------------------------------------------------------ */

/*
 * Waits while the event holds what the device still uses, or its callback
 * is to come; lets go; releases the C event unless a callback about to run
 * in another thread still needs it (that call releases it).
 */
static int event_release(struct pyl_event *self)
{
	int ret = 0;

	if ((!pyl_holds_empty(&self->holds) || (self->callback && self->queue)) && !self->done &&
	    event_queue_open(self) && self->queue) {
		pyl_event_pin(self);
		PYL_NOGIL(ret = llmem_event_wait(self->ev, UINT64_MAX));
		pyl_event_unpin(self);
	}
	pyl_event_done(self);
	if (self->callback && self->queue) {
		/* Found done by another thread, which waits for the GIL to call. */
		self->release_on_fire = 1;
		return ret;
	}
	/* A user event never set calls nothing once released. */
	callback_drop(self);
	llmem_event_release(self->ev);
	self->ev = NULL;
	return ret;
}

static void event_dealloc(struct pyl_event *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* A registered callback holds the event: none is left. */
	if (self->ev && event_release(self)) {
		pyl_error(-EIO);
		PyErr_WriteUnraisable((PyObject *)self);
	}
	Py_CLEAR(self->queue);
	Py_CLEAR(self->session);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *event_close(struct pyl_event *self, PyObject *unused)
{
	int ret;

	(void)unused;
	if (!event_is_open(self))
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "event is in use by another thread");
	ret = event_release(self);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

int pyl_timeout(PyObject *o, uint64_t *ns)
{
	double s;

	*ns = UINT64_MAX;
	if (!o || o == Py_None)
		return 0;
	s = PyFloat_AsDouble(o);
	if (s == -1.0 && PyErr_Occurred())
		return -1;
	if (!(s >= 0.0) || isinf(s)) {
		if (isinf(s) && s > 0)
			return 0;
		PyErr_SetString(PyExc_ValueError, "timeout must be None or seconds >= 0");
		return -1;
	}
	*ns = s * 1e9 >= 1.8e19 ? UINT64_MAX : (uint64_t)(s * 1e9);
	return 0;
}

/* 1 done, 0 not yet, -1 with an exception (a user event set to an error raises it). */
static int event_poll(struct pyl_event *self, uint64_t timeout_ns)
{
	int ret;

	if (!event_is_open(self)) {
		pyl_closed("event");
		return -1;
	}
	/* A closed queue waited for everything it had. */
	if (self->done || !event_queue_open(self)) {
		pyl_event_done(self);
		return 1;
	}
	pyl_event_pin(self);
	if (timeout_ns)
		PYL_NOGIL(ret = llmem_event_wait(self->ev, timeout_ns));
	else
		ret = llmem_event_wait(self->ev, 0);
	pyl_event_unpin(self);
	if (ret == -ETIMEDOUT)
		return 0;
	if (ret) {
		pyl_error(ret);
		return -1;
	}
	pyl_event_done(self);
	return 1;
}

static PyObject *event_wait(struct pyl_event *self, PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames)
{
	static const char *const names[] = { "timeout", NULL };
	uint64_t ns;
	PyObject *a[1];
	int ret;

	if (pyl_args("wait", args, nargs, kwnames, names, 1, 0, a) || pyl_timeout(a[0], &ns))
		return NULL;
	ret = event_poll(self, ns);
	return ret < 0 ? NULL : PyBool_FromLong(ret);
}

/* llmem_event_status(): the state, or a user event's error as a negative errno. */
static PyObject *event_status(struct pyl_event *self, PyObject *unused)
{
	int ret;

	(void)unused;
	if (!event_is_open(self))
		return pyl_closed("event");
	if ((self->done && self->queue) || !event_queue_open(self))
		return PyLong_FromLong(LLMEM_EVENT_COMPLETE);
	pyl_event_pin(self);
	PYL_NOGIL(ret = llmem_event_status(self->ev));
	pyl_event_unpin(self);
	if (ret < 0 && self->queue)
		return pyl_error(ret);
	if (ret == LLMEM_EVENT_COMPLETE)
		pyl_event_done(self);
	return PyLong_FromLong(ret);
}

static PyObject *event_profile(struct pyl_event *self, PyObject *unused)
{
	struct llmem_event_profile p;
	int ret;

	(void)unused;
	if (!event_is_open(self))
		return pyl_closed("event");
	if (!event_queue_open(self))
		return pyl_closed("the event's queue");
	pyl_event_pin(self);
	PYL_NOGIL(ret = llmem_event_get_profile(self->ev, &p));
	pyl_event_unpin(self);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue("(KKKK)", (unsigned long long)p.queued,
			     (unsigned long long)p.submitted, (unsigned long long)p.start,
			     (unsigned long long)p.end);
}

static PyObject *event_get_done(struct pyl_event *self, void *closure)
{
	int ret;

	(void)closure;
	ret = event_poll(self, 0);
	return ret < 0 ? NULL : PyBool_FromLong(ret);
}

static PyObject *event_get_closed(struct pyl_event *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!event_is_open(self));
}

static PyObject *event_get_queue(struct pyl_event *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->queue ? (PyObject *)self->queue : Py_None);
}

static PyObject *event_get_has_callback(struct pyl_event *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->callback != NULL);
}

static PyMethodDef event_methods[] = {
	{ "wait", PYL_FAST(event_wait), PYL_FASTKW,
	  "wait(timeout=None) -> True once the operation is done (its reads have landed), "
	  "False when the timeout in seconds passed first; a user event set to an error "
	  "raises llmem.Error with its errno" },
	{ "set_callback", (PyCFunction)event_set_callback, METH_O,
	  "set_callback(fn): fn(status) once the event is done (status 0) or a user event "
	  "is set (0 or its negative errno), from the thread that finds it so" },
	{ "_status", (PyCFunction)event_status, METH_NOARGS,
	  "llmem_event_status(): 0 complete, 1 submitted, 2 queued, or a user event's "
	  "negative errno" },
	{ "_profile", (PyCFunction)event_profile, METH_NOARGS,
	  "llmem_event_get_profile(): (queued, submitted, start, end) in ns" },
	{ "close", (PyCFunction)event_close, METH_NOARGS,
	  "Releases the event (waiting first when a read is to land in held host memory, or "
	  "its callback is to run)." },
	{ 0 },
};

static PyGetSetDef event_getset[] = {
	{ "done", (getter)event_get_done, NULL, "Polls: whether the operation is done.", NULL },
	{ "closed", (getter)event_get_closed, NULL, "Whether close() was called.", NULL },
	{ "queue", (getter)event_get_queue, NULL,
	  "The queue of the operation (None for a "
	  "user event).",
	  NULL },
	{ "has_callback", (getter)event_get_has_callback, NULL,
	  "Whether a callback is registered and not yet called.", NULL },
	{ 0 },
};

PyTypeObject pyl_EventType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Event",
	.tp_basicsize = sizeof(struct pyl_event),
	.tp_dealloc = (destructor)event_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "The completion of a non-blocking operation (blocking=False).",
	.tp_weaklistoffset = offsetof(struct pyl_event, weakrefs),
	.tp_methods = event_methods,
	.tp_getset = event_getset,
};

/* ---- UserEvent -------------------------------------------------------- */

static PyObject *user_event_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session", NULL };
	struct pyl_session *s;
	struct pyl_event *self;
	PyObject *session;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:UserEvent", kw, &session))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	self = (struct pyl_event *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	ret = llmem_user_event_create(s->s, &self->ev);
	if (ret) {
		Py_DECREF(self);
		return pyl_error(ret);
	}
	self->session = (struct pyl_session *)Py_NewRef(s);
	return (PyObject *)self;
}

/* With the GIL held, so that its callback never races a close(). */
static PyObject *user_event_set_status(struct pyl_event *self, PyObject *arg)
{
	long status = PyLong_AsLong(arg);
	int ret;

	if (status == -1 && PyErr_Occurred())
		return NULL;
	if (!event_is_open(self))
		return pyl_closed("event");
	if (status < INT32_MIN || status > INT32_MAX) {
		PyErr_Format(PyExc_ValueError, "status %ld: 0 or a negative errno", status);
		return NULL;
	}
	ret = llmem_user_event_set(self->ev, (int)status);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *user_event_get_session(struct pyl_event *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->session ? (PyObject *)self->session : Py_None);
}

static PyMethodDef user_event_methods[] = {
	{ "set_status", (PyCFunction)user_event_set_status, METH_O,
	  "set_status(status): 0 completes the event, a negative errno fails every operation "
	  "that waits for it (llmem_user_event_set())" },
	{ 0 },
};

static PyGetSetDef user_event_getset[] = {
	{ "session", (getter)user_event_get_session, NULL, "The session.", NULL },
	{ 0 },
};

PyTypeObject pyl_UserEventType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.UserEvent",
	.tp_basicsize = sizeof(struct pyl_event),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "UserEvent(session): an event the host completes (clCreateUserEvent).",
	.tp_base = &pyl_EventType,
	.tp_methods = user_event_methods,
	.tp_getset = user_event_getset,
	.tp_new = user_event_new,
};

/* ---- Waiting for several ---------------------------------------------- */

PyObject *pyl_wait_for_events(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	static const char *const names[] = { "events", "timeout", NULL };
	struct llmem_wait_list wl = { 0 };
	struct llmem_event **evs = NULL;
	struct pyl_event **pys = NULL;
	PyObject *a[2], *seq;
	Py_ssize_t n;
	uint64_t ns;
	int ret;

	(void)module;
	if (pyl_args("wait_for_events", args, nargs, kwnames, names, 2, 1, a) ||
	    pyl_timeout(a[1], &ns))
		return NULL;
	seq = PySequence_Fast(a[0], "events must be a sequence of llmem.Event");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	evs = PyMem_Calloc((size_t)n + 1, sizeof(*evs));
	pys = PyMem_Calloc((size_t)n + 1, sizeof(*pys));
	if (!evs || !pys) {
		PyErr_NoMemory();
		goto fail;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
		struct pyl_event *e = (struct pyl_event *)o;

		if (!PyObject_TypeCheck(o, &pyl_EventType)) {
			PyErr_Format(PyExc_TypeError,
				     "events must hold llmem.Event objects, not %.200s",
				     Py_TYPE(o)->tp_name);
			goto fail;
		}
		if (!event_is_open(e)) {
			pyl_closed("event");
			goto fail;
		}
		/* A closed queue waited for all it had. */
		if (!event_queue_open(e))
			continue;
		pys[wl.count] = e;
		evs[wl.count++] = e->ev;
	}
	wl.events = evs;
	for (uint32_t i = 0; i < wl.count; i++)
		pyl_event_pin(pys[i]);
	PYL_NOGIL(ret = llmem_event_wait_all(&wl, ns));
	for (uint32_t i = 0; i < wl.count; i++)
		pyl_event_unpin(pys[i]);
	if (ret && ret != -ETIMEDOUT) {
		pyl_error(ret);
		goto fail;
	}
	for (uint32_t i = 0; !ret && i < wl.count; i++)
		pyl_event_done(pys[i]);
	PyMem_Free(evs);
	PyMem_Free(pys);
	Py_DECREF(seq);
	return PyBool_FromLong(!ret);
fail:
	PyMem_Free(evs);
	PyMem_Free(pys);
	Py_DECREF(seq);
	return NULL;
}
