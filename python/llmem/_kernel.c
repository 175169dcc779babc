// SPDX-License-Identifier: MIT
/*
 * User compute (kernel.h): llmem.Kernel is a SPIR-V compute shader of the
 * caller's, and Queue.dispatch() runs a kernel on buffers and image views
 * like any other operation of the queue (wait lists, events, what it
 * holds).
 *
 * A kernel holds its session, which counts it.  It refuses close() while
 * dispatches of it are in flight, as buffers and views do.
 */
#include "_kernel.h"
#include "_objects.h"
#include "_operation.h"
#include "_session.h"

#include <errno.h>
#include <string.h>

/* ---- Kernel ----------------------------------------------------------- */

/* A user compute kernel: binding types and push size kept for checks. */
struct pyl_kernel {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_kernel *k;
	struct pyl_session *session;
	PyObject *name;
	uint32_t bindings[LLMEM_KERNEL_MAX_BINDINGS];
	uint32_t binding_count, push_size;
	Py_ssize_t busy, pending;
};

static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session",   "spirv", "path", "bindings",
			      "push_size", "entry", "name", NULL };
	struct llmem_kernel_create_info ci = { 0 };
	PyObject *session, *spirv = Py_None, *path = Py_None, *bindings = NULL, *push = NULL,
			   *entry = NULL, *name = NULL, *path_bytes = NULL;
	struct pyl_kernel *self = NULL;
	struct pyl_session *s;
	Py_buffer code = { 0 };
	int n = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$OOOOO:Kernel", kw, &session, &spirv,
					 &path, &bindings, &push, &entry, &name))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	if ((spirv == Py_None) == (path == Py_None)) {
		PyErr_SetString(PyExc_TypeError, "Kernel() takes spirv (bytes) or path, not both");
		return NULL;
	}
	self = (struct pyl_kernel *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	if (bindings && bindings != Py_None) {
		n = pyl_u32_seq(bindings, "bindings", self->bindings, LLMEM_KERNEL_MAX_BINDINGS);
		if (n < 0)
			goto fail;
	}
	self->binding_count = (uint32_t)n;
	if (pyl_u32(push, "push_size", &self->push_size) || pyl_str(entry, "entry", &ci.entry) ||
	    pyl_str(name, "name", &ci.name))
		goto fail;
	if (spirv != Py_None) {
		if (pyl_get_host(spirv, "spirv", 0, 0, &code))
			goto fail;
		ci.spirv = code.buf;
		ci.spirv_size = (size_t)code.len;
	} else {
		if (!PyUnicode_FSConverter(path, &path_bytes))
			goto fail;
		ci.path = PyBytes_AS_STRING(path_bytes);
	}
	ci.bindings = self->bindings;
	ci.binding_count = self->binding_count;
	ci.push_size = self->push_size;
	ret = llmem_kernel_create(s->s, &ci, &self->k);
	if (code.obj)
		PyBuffer_Release(&code);
	Py_CLEAR(path_bytes);
	if (ret) {
		pyl_error(ret);
		goto fail;
	}
	self->session = (struct pyl_session *)Py_NewRef(s);
	self->name = Py_XNewRef(name && name != Py_None ? name : NULL);
	s->kernels++;
	return (PyObject *)self;
fail:
	if (code.obj)
		PyBuffer_Release(&code);
	Py_XDECREF(path_bytes);
	Py_DECREF(self);
	return NULL;
}

static void kernel_destroy(struct pyl_kernel *self)
{
	llmem_kernel_destroy(self->k);
	self->k = NULL;
	self->session->kernels--;
	Py_CLEAR(self->session);
}

static void kernel_dealloc(struct pyl_kernel *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->k)
		kernel_destroy(self);
	Py_CLEAR(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *kernel_close(struct pyl_kernel *self, PyObject *unused)
{
	(void)unused;
	if (!self->k)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "kernel %R is in use by another thread",
				     self->name ? self->name : Py_None);
	if (self->pending)
		return pyl_error_msg(EBUSY,
				     "kernel %R has %zd dispatch%s in flight: wait for their "
				     "events first",
				     self->name ? self->name : Py_None, self->pending,
				     self->pending == 1 ? "" : "es");
	kernel_destroy(self);
	Py_RETURN_NONE;
}

static PyObject *kernel_get_closed(struct pyl_kernel *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->k);
}

static PyObject *kernel_get_bindings(struct pyl_kernel *self, void *closure)
{
	PyObject *t = PyTuple_New(self->binding_count);

	(void)closure;
	for (uint32_t i = 0; t && i < self->binding_count; i++) {
		PyObject *v = PyLong_FromUnsignedLong(self->bindings[i]);

		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, v);
	}
	return t;
}

static PyObject *kernel_get_push_size(struct pyl_kernel *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLong(self->push_size);
}

static PyObject *kernel_get_name(struct pyl_kernel *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->name ? self->name : Py_None);
}

static PyObject *kernel_get_pending(struct pyl_kernel *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->pending);
}

static PyMethodDef kernel_methods[] = {
	{ "close", (PyCFunction)kernel_close, METH_NOARGS,
	  "Destroys the pipeline; llmem.Error(EBUSY) while dispatches of it are in flight." },
	{ 0 },
};

static PyGetSetDef kernel_getset[] = {
	{ "closed", (getter)kernel_get_closed, NULL, "Whether close() was called.", NULL },
	{ "_bindings", (getter)kernel_get_bindings, NULL, "enum llmem_binding_type per binding.",
	  NULL },
	{ "push_size", (getter)kernel_get_push_size, NULL, "Bytes of push constants.", NULL },
	{ "name", (getter)kernel_get_name, NULL, "The name given, or None.", NULL },
	{ "pending", (getter)kernel_get_pending, NULL, "Dispatches of it in flight.", NULL },
	{ 0 },
};

PyTypeObject pyl_KernelType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Kernel",
	.tp_basicsize = sizeof(struct pyl_kernel),
	.tp_dealloc = (destructor)kernel_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Kernel(session, spirv=None, *, path=None, bindings=(), push_size=0, "
		  "entry=None, name=None): a SPIR-V compute shader (llmem_kernel_create()).",
	.tp_weaklistoffset = offsetof(struct pyl_kernel, weakrefs),
	.tp_methods = kernel_methods,
	.tp_getset = kernel_getset,
	.tp_new = kernel_new,
};

/* ---- Dispatch --------------------------------------------------------- */

/* One binding's object, pinned for the operation: a Buffer or an ImageView. */
static int dispatch_arg(struct pyl_op *op, PyObject *o, uint32_t i, struct llmem_kernel_arg *arg)
{
	if (PyObject_TypeCheck(o, &pyl_ImageViewType)) {
		struct pyl_view *v = (struct pyl_view *)o;

		if (!v->v) {
			PyErr_Format(PyExc_ValueError, "args[%u]: image view is closed", i);
			return -1;
		}
		arg->view = v->v;
		pyl_op_pin(op, o, &v->busy, &v->pending);
		return 0;
	}
	if (PyObject_TypeCheck(o, &pyl_BufferType)) {
		struct pyl_buffer *b = (struct pyl_buffer *)o;

		if (!b->b) {
			PyErr_Format(PyExc_ValueError, "args[%u]: buffer is closed", i);
			return -1;
		}
		arg->buffer = b->b;
		pyl_op_pin(op, o, &b->busy, &b->pending);
		return 0;
	}
	PyErr_Format(PyExc_TypeError,
		     "args[%u] must be an llmem.Buffer or llmem.ImageView, not %.200s", i,
		     Py_TYPE(o)->tp_name);
	return -1;
}

PyObject *pyl_queue_dispatch(struct pyl_queue *q, PyObject *const *args, Py_ssize_t nargs,
			     PyObject *kwnames)
{
	static const char *const names[] = { "kernel",	 "args",     "groups", "push",
					     "wait_for", "blocking", NULL };
	struct llmem_kernel_arg kargs[LLMEM_KERNEL_MAX_BINDINGS];
	struct llmem_dispatch d = { 0 };
	struct pyl_op op = { 0 };
	struct pyl_kernel *k;
	PyObject *a[6], *seq = NULL, *result;
	Py_ssize_t n;
	int ret;

	if (pyl_args("dispatch", args, nargs, kwnames, names, 4, 2, a) ||
	    pyl_op_begin(&op, q, a[4], a[5]))
		goto fail;
	if (!PyObject_TypeCheck(a[0], &pyl_KernelType)) {
		PyErr_Format(PyExc_TypeError, "kernel must be an llmem.Kernel, not %.200s",
			     Py_TYPE(a[0])->tp_name);
		goto fail;
	}
	k = (struct pyl_kernel *)a[0];
	if (!k->k) {
		pyl_closed("kernel");
		goto fail;
	}
	pyl_op_pin(&op, a[0], &k->busy, &k->pending);
	seq = PySequence_Fast(a[1], "args must be a sequence of llmem.Buffer and llmem.ImageView");
	if (!seq)
		goto fail;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > LLMEM_KERNEL_MAX_BINDINGS) {
		PyErr_Format(PyExc_ValueError,
			     "args has %zd objects, kernels have at most %d bindings", n,
			     LLMEM_KERNEL_MAX_BINDINGS);
		goto fail;
	}
	memset(kargs, 0, sizeof(kargs));
	for (Py_ssize_t i = 0; i < n; i++)
		if (dispatch_arg(&op, PySequence_Fast_GET_ITEM(seq, i), (uint32_t)i, &kargs[i]))
			goto fail;
	d.args = kargs;
	d.arg_count = (uint32_t)n;
	if (a[2] && a[2] != Py_None) {
		if (PyIndex_Check(a[2])) {
			if (pyl_u32(a[2], "groups", &d.groups[0]))
				goto fail;
		} else if (pyl_u32_seq(a[2], "groups", d.groups, 3) < 0) {
			goto fail;
		}
	}
	if (a[3] && a[3] != Py_None) {
		if (pyl_get_host(a[3], "push", 0, 0, &op.host))
			goto fail;
		op.has_host = 1;
		if ((uint64_t)op.host.len != k->push_size) {
			PyErr_Format(PyExc_ValueError,
				     "push has %zd bytes: the kernel's push constants have %u",
				     op.host.len, k->push_size);
			goto fail;
		}
		d.push = op.host.len ? op.host.buf : NULL;
	}
	pyl_op_enter(&op);
	PYL_NOGIL(ret = llmem_enqueue_dispatch(q->q, k->k, &d, pyl_op_wait_list(&op),
					       pyl_op_event(&op)));
	pyl_op_leave(&op);
	/* After: what the operation holds may live only in this sequence. */
	result = pyl_op_end(&op, ret);
	Py_DECREF(seq);
	return result;
fail:
	Py_XDECREF(seq);
	pyl_op_free(&op);
	return NULL;
}
