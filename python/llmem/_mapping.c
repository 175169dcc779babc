// SPDX-License-Identifier: MIT
/*
 * Mappings (_mapping.h): host memory exported through the buffer protocol
 * and DLPack without a copy.  A mapping holds what it maps (a buffer's
 * llmem_buffer_map(), a linear image's llmem_image_map(), a camera's RGBA
 * frame), counts its exports, and unmaps only once it was closed and the
 * last view of it is gone.  What it maps refuses close() (EBUSY) while
 * mappings of it live: the mapping keeps its count.
 *
 * Memory that is not host coherent: a mapping invalidates the object when
 * it is made, and flushes it whenever a writable view is released.
 */
#include "_mapping.h"
#include "_dlpack.h"

#include <errno.h>
#include <string.h>

/*
 * Host memory exported through the buffer protocol and DLPack.  It is
 * released once close() was asked for and the last exported view is gone,
 * never before.
 */
struct pyl_mapping {
	PyObject_HEAD PyObject *weakrefs;
	/* What is mapped, how to unmap and sync it, its count of mappings. */
	PyObject *owner;
	const struct pyl_mapping_ops *ops;
	Py_ssize_t *count;
	char *ptr;
	struct pyl_layout layout;
	int readonly;
	/* Flush on release of a view and invalidate at map: not coherent. */
	int noncoherent;
	/* Views alive: Py_buffer exports and DLPack tensors not yet deleted. */
	Py_ssize_t exports;
	/* close() asked for (no new views); released (unmapped, detached). */
	int closing, released;
};

/*
 * map() and close() in a loop make and drop a mapping each time: the last
 * one dropped is kept for the next, sparing the allocator.  Under the GIL.
 */
static struct pyl_mapping *mapping_spare;

static struct pyl_mapping *mapping_alloc(void)
{
	struct pyl_mapping *m = mapping_spare;

	if (!m)
		return (struct pyl_mapping *)pyl_alloc(PYL_MAPPING);
	mapping_spare = NULL;
	memset((char *)m + sizeof(PyObject), 0, sizeof(*m) - sizeof(PyObject));
	return (struct pyl_mapping *)PyObject_Init((PyObject *)m, &pyl_MappingType);
}

PyObject *pyl_mapping_new(PyObject *owner, const struct pyl_mapping_ops *ops, Py_ssize_t *count,
			  void *ptr, const struct pyl_layout *layout, int noncoherent)
{
	struct pyl_mapping *m = mapping_alloc();
	int ret;

	if (!m) {
		if (ops->unmap)
			ops->unmap(owner);
		return NULL;
	}
	m->owner = Py_NewRef(owner);
	m->ops = ops;
	m->count = count;
	(*count)++;
	m->ptr = ptr;
	m->layout = *layout;
	m->readonly = ops->readonly;
	m->noncoherent = noncoherent;
	if (noncoherent) {
		ret = ops->sync(owner, 0, LLMEM_WHOLE_SIZE, 0);
		if (ret) {
			Py_DECREF(m);
			return pyl_error(ret);
		}
	}
	return (PyObject *)m;
}

/* Unmaps (or lets go of the camera's frame) once: no view is left. */
static void mapping_release(struct pyl_mapping *m)
{
	if (m->released)
		return;
	m->released = 1;
	m->closing = 1;
	if (m->ops->unmap && m->ops->unmap(m->owner)) {
		pyl_error(-EINVAL);
		PyErr_WriteUnraisable((PyObject *)m);
	}
	(*m->count)--;
	m->ptr = NULL;
}

/* A view is gone: the buffer protocol's release, or a DLPack tensor's deleter. */
static void mapping_export_done(struct pyl_mapping *m)
{
	m->exports--;
	if (m->noncoherent && !m->readonly && !m->released &&
	    m->ops->sync(m->owner, 0, LLMEM_WHOLE_SIZE, 1)) {
		pyl_error(-EIO);
		PyErr_WriteUnraisable((PyObject *)m);
	}
	if (m->closing && !m->exports)
		mapping_release(m);
}

static void mapping_dealloc(struct pyl_mapping *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Views hold their mapping: none is left. */
	if (self->owner)
		mapping_release(self);
	Py_CLEAR(self->owner);
	if (Py_TYPE(self) == &pyl_MappingType && !mapping_spare) {
		mapping_spare = self;
		return;
	}
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *mapping_close(struct pyl_mapping *self, PyObject *unused)
{
	(void)unused;
	self->closing = 1;
	if (!self->exports)
		mapping_release(self);
	Py_RETURN_NONE;
}

static int layout_contiguous(const struct pyl_layout *l)
{
	Py_ssize_t want = l->itemsize;

	for (int i = l->ndim - 1; i >= 0; i--) {
		if (l->shape[i] > 1 && l->strides[i] != want)
			return 0;
		want *= l->shape[i];
	}
	return 1;
}

static Py_ssize_t layout_bytes(const struct pyl_layout *l)
{
	Py_ssize_t n = l->itemsize;

	for (int i = 0; i < l->ndim; i++)
		n *= l->shape[i];
	return n;
}

static int mapping_getbuffer(struct pyl_mapping *self, Py_buffer *view, int flags)
{
	const struct pyl_layout *l = &self->layout;
	int contiguous = layout_contiguous(l);

	view->obj = NULL;
	if (self->closing) {
		PyErr_SetString(PyExc_BufferError, "mapping is closed");
		return -1;
	}
	if ((flags & PyBUF_WRITABLE) && self->readonly) {
		PyErr_SetString(PyExc_BufferError, "mapping is read-only");
		return -1;
	}
	if (!contiguous && ((flags & PyBUF_STRIDES) != PyBUF_STRIDES ||
			    (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS ||
			    (flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS ||
			    (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS)) {
		PyErr_SetString(PyExc_BufferError, "mapping is not contiguous: ask for strides");
		return -1;
	}
	if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && l->ndim > 1) {
		PyErr_SetString(PyExc_BufferError, "mapping is in C order");
		return -1;
	}
	view->buf = self->ptr;
	view->len = layout_bytes(l);
	view->readonly = self->readonly;
	view->itemsize = l->itemsize;
	view->format = (flags & PyBUF_FORMAT) ? (char *)l->format : NULL;
	if (flags & PyBUF_ND) {
		view->ndim = l->ndim;
		view->shape = (Py_ssize_t *)l->shape;
	} else {
		view->ndim = 1;
		view->shape = NULL;
	}
	view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? (Py_ssize_t *)l->strides : NULL;
	view->suboffsets = NULL;
	view->internal = NULL;
	view->obj = Py_NewRef(self);
	self->exports++;
	return 0;
}

static void mapping_releasebuffer(struct pyl_mapping *self, Py_buffer *view)
{
	(void)view;
	mapping_export_done(self);
}

static void mapping_dlpack_done(PyObject *owner)
{
	mapping_export_done((struct pyl_mapping *)owner);
}

static PyObject *mapping_dlpack(struct pyl_mapping *self, PyObject *const *args, Py_ssize_t nargs,
				PyObject *kwnames)
{
	PyObject *capsule;
	int versioned;

	if (pyl_dlpack_args(args, nargs, kwnames, PYL_DL_CPU, 0, &versioned))
		return NULL;
	if (self->closing) {
		PyErr_SetString(PyExc_BufferError, "mapping is closed");
		return NULL;
	}
	capsule = pyl_dlpack_export((PyObject *)self, self->ptr, PYL_DL_CPU, 0, &self->layout,
				    versioned, self->readonly, mapping_dlpack_done);
	if (capsule)
		self->exports++;
	return capsule;
}

/*
 * numpy takes the buffer protocol first; only where that fails does it call
 * __array__, whose error it passes on.  Without this, numpy.asarray() of a
 * closed mapping quietly made a 0-d object array holding the mapping.
 */
static PyObject *mapping_array(struct pyl_mapping *self, PyObject *const *args, Py_ssize_t nargs,
			       PyObject *kwnames)
{
	static const char *const names[] = { "dtype", "copy", NULL };
	PyObject *a[2], *np, *view, *arr = NULL;

	if (pyl_args("__array__", args, nargs, kwnames, names, 2, 0, a))
		return NULL;
	if (self->closing)
		return pyl_closed("mapping");
	view = PyMemoryView_FromObject((PyObject *)self);
	if (!view)
		return NULL;
	np = PyImport_ImportModule("numpy");
	if (np) {
		arr = a[1] && a[1] != Py_None ? PyObject_CallMethod(np, "array", "OOO", view,
								    a[0] ? a[0] : Py_None, a[1])
					      : PyObject_CallMethod(np, "asarray", "OO", view,
								    a[0] ? a[0] : Py_None);
		Py_DECREF(np);
	}
	Py_DECREF(view);
	return arr;
}

static PyObject *mapping_dlpack_device(struct pyl_mapping *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return Py_BuildValue("(ii)", PYL_DL_CPU, 0);
}

static PyObject *mapping_sync(struct pyl_mapping *self, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames, int flush)
{
	static const char *const names[] = { "offset", "size", NULL };
	uint64_t offset = 0, size = LLMEM_WHOLE_SIZE;
	PyObject *a[2];
	int ret;

	if (self->released)
		return pyl_closed("mapping");
	if (!self->ops->sync)
		return pyl_error_msg(EINVAL, "a camera frame is neither flushed nor invalidated");
	if (pyl_args(flush ? "flush" : "invalidate", args, nargs, kwnames, names, 2, 0, a) ||
	    pyl_u64(a[0], "offset", UINT64_MAX, &offset) ||
	    pyl_u64(a[1], "size", UINT64_MAX, &size))
		return NULL;
	ret = self->ops->sync(self->owner, offset, size, flush);
	if (ret == -EINVAL && self->ops->owner == PYL_IMAGE)
		return pyl_error_msg(EINVAL, "range [%llu, +%llu) lies outside the image's bytes",
				     (unsigned long long)offset, (unsigned long long)size);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *mapping_flush(struct pyl_mapping *self, PyObject *const *args, Py_ssize_t nargs,
			       PyObject *kwnames)
{
	return mapping_sync(self, args, nargs, kwnames, 1);
}

static PyObject *mapping_invalidate(struct pyl_mapping *self, PyObject *const *args,
				    Py_ssize_t nargs, PyObject *kwnames)
{
	return mapping_sync(self, args, nargs, kwnames, 0);
}

static PyObject *mapping_get_closed(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->closing);
}

static PyObject *mapping_get_released(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->released);
}

static PyObject *mapping_get_exports(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->exports);
}

static PyObject *mapping_get_address(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	if (self->released)
		return pyl_closed("mapping");
	return PyLong_FromVoidPtr(self->ptr);
}

static PyObject *ssize_tuple(const Py_ssize_t *v, int n)
{
	PyObject *t = PyTuple_New(n);

	for (int i = 0; t && i < n; i++) {
		PyObject *x = PyLong_FromSsize_t(v[i]);

		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, x);
	}
	return t;
}

static PyObject *mapping_get_shape(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return ssize_tuple(self->layout.shape, self->layout.ndim);
}

static PyObject *mapping_get_strides(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return ssize_tuple(self->layout.strides, self->layout.ndim);
}

static PyObject *mapping_get_format(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(self->layout.format);
}

static PyObject *mapping_get_itemsize(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->layout.itemsize);
}

static PyObject *mapping_get_nbytes(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(layout_bytes(&self->layout));
}

static PyObject *mapping_get_readonly(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->readonly);
}

static PyObject *mapping_get_coherent(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->noncoherent);
}

static PyObject *mapping_get_buffer(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->owner && self->ops->owner == PYL_BUFFER ? self->owner : Py_None);
}

static PyObject *mapping_get_image(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->owner && self->ops->owner == PYL_IMAGE ? self->owner : Py_None);
}

static PyObject *mapping_enter(struct pyl_mapping *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *mapping_exit(struct pyl_mapping *self, PyObject *args)
{
	(void)args;
	return mapping_close(self, NULL);
}

static PyObject *mapping_repr(struct pyl_mapping *self)
{
	PyObject *shape = ssize_tuple(self->layout.shape, self->layout.ndim), *r;

	if (!shape)
		return NULL;
	r = PyUnicode_FromFormat("<llmem.Mapping format '%s' shape %R, %zd views%s>",
				 self->layout.format, shape, self->exports,
				 self->released	 ? " (released)"
				 : self->closing ? " (closed)"
						 : "");
	Py_DECREF(shape);
	return r;
}

static PyMethodDef mapping_methods[] = {
	{ "close", (PyCFunction)mapping_close, METH_NOARGS,
	  "No new views; unmaps now, or when the last view is released." },
	{ "__enter__", (PyCFunction)mapping_enter, METH_NOARGS, "Returns the mapping." },
	{ "__exit__", (PyCFunction)mapping_exit, METH_VARARGS, "close()" },
	{ "flush", PYL_FAST(mapping_flush), PYL_FASTKW,
	  "flush(offset=0, size=None): host writes to the device (llmem_buffer_flush(), or "
	  "llmem_memory_flush_page() of an image's bytes)" },
	{ "invalidate", PYL_FAST(mapping_invalidate), PYL_FASTKW,
	  "invalidate(offset=0, size=None): device writes to the host "
	  "(llmem_buffer_invalidate(), or llmem_memory_invalidate_page() of an image's bytes)" },
	{ "__dlpack__", PYL_FAST(mapping_dlpack), PYL_FASTKW,
	  "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None) -> a "
	  "capsule over the mapped bytes ('dltensor_versioned' for max_version >= (1, 0))" },
	{ "__dlpack_device__", (PyCFunction)mapping_dlpack_device, METH_NOARGS, "(kDLCPU, 0)" },
	{ "__array__", PYL_FAST(mapping_array), PYL_FASTKW,
	  "__array__(dtype=None, copy=None): numpy's view of the mapping; ValueError once "
	  "closed" },
	{ 0 },
};

static PyGetSetDef mapping_getset[] = {
	{ "closed", (getter)mapping_get_closed, NULL, "Whether close() was called.", NULL },
	{ "released", (getter)mapping_get_released, NULL,
	  "Whether it is unmapped (closed, and no view left).", NULL },
	{ "exports", (getter)mapping_get_exports, NULL,
	  "Views alive: buffer-protocol exports and DLPack tensors.", NULL },
	{ "address", (getter)mapping_get_address, NULL, "The address of the first byte.", NULL },
	{ "shape", (getter)mapping_get_shape, NULL, "Items per dimension.", NULL },
	{ "strides", (getter)mapping_get_strides, NULL, "Bytes between items per dimension.",
	  NULL },
	{ "format", (getter)mapping_get_format, NULL, "The struct format of an item.", NULL },
	{ "itemsize", (getter)mapping_get_itemsize, NULL, "Bytes of an item.", NULL },
	{ "nbytes", (getter)mapping_get_nbytes, NULL, "Bytes of the view.", NULL },
	{ "readonly", (getter)mapping_get_readonly, NULL, "Whether views are read-only.", NULL },
	{ "coherent", (getter)mapping_get_coherent, NULL,
	  "False where views flush on release and the map invalidated.", NULL },
	{ "buffer", (getter)mapping_get_buffer, NULL, "The buffer mapped, or None.", NULL },
	{ "image", (getter)mapping_get_image, NULL, "The image mapped, or None.", NULL },
	{ 0 },
};

static PyBufferProcs mapping_as_buffer = {
	.bf_getbuffer = (getbufferproc)mapping_getbuffer,
	.bf_releasebuffer = (releasebufferproc)mapping_releasebuffer,
};

PyTypeObject pyl_MappingType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem.Mapping",
	.tp_basicsize = sizeof(struct pyl_mapping),
	.tp_dealloc = (destructor)mapping_dealloc,
	.tp_repr = (reprfunc)mapping_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Mapped bytes exported through the buffer protocol and DLPack (Buffer.map(), "
		  "Image.map(), Frame.rgba).\n\n"
		  "numpy.asarray(mapping) and numpy.from_dlpack(mapping) are views, not copies. "
		  "Each view holds the mapping, and the mapping what it maps: close() (or the end "
		  "of a with block) stops new views and unmaps once the last one is gone.",
	.tp_weaklistoffset = offsetof(struct pyl_mapping, weakrefs),
	.tp_as_buffer = &mapping_as_buffer,
	.tp_methods = mapping_methods,
	.tp_getset = mapping_getset,
};
