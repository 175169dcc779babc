// SPDX-License-Identifier: MIT
/*
 * Mappings: host memory exported through the buffer protocol and DLPack
 * without a copy.  A mapping holds one llmem_buffer_map() of a buffer, one
 * llmem_image_map() of a linear image, or a camera's RGBA frame, and the
 * object it came from; it counts its exports and unmaps only once it was
 * closed and the last view of it is gone.  Buffers and images refuse
 * close() (EBUSY) while mappings of them live.
 *
 * An image's view has its shape (height, width, channels as the image has
 * them), the row and slice pitches of the driver as strides, and the item
 * format of its channel type: what numpy needs to index texels in place.
 *
 * Memory that is not host coherent: a mapping invalidates the object when
 * it is made, and flushes it whenever a writable view is released.
 */
#include "_llmem.h"
#include "_dlpack.h"

#include <errno.h>
#include <string.h>

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

PyObject *pyl_mapping_new_frame(struct pyl_camera *camera, char *ptr, Py_ssize_t len,
				const struct pyl_layout *layout)
{
	struct pyl_mapping *m = mapping_alloc();

	if (!m)
		return NULL;
	m->camera = (struct pyl_camera *)Py_NewRef(camera);
	camera->views++;
	m->ptr = ptr;
	m->len = len;
	m->layout = *layout;
	m->readonly = 1;
	return (PyObject *)m;
}

/* Flush (@flush) or invalidate [@offset, @offset + @size) of the mapped object. */
static int mapping_sync_range(struct pyl_mapping *m, uint64_t offset, uint64_t size, int flush)
{
	struct llmem_allocation a;
	struct llmem_memory *mem;
	int ret;

	if (m->buffer)
		return flush ? llmem_buffer_flush(m->buffer->b, offset, size)
			     : llmem_buffer_invalidate(m->buffer->b, offset, size);
	/* An image's range: its allocation in its page, as the library syncs it. */
	ret = llmem_image_get_allocation(m->image->img, &a);
	if (ret)
		return ret;
	if (size == LLMEM_WHOLE_SIZE && offset <= a.size)
		size = a.size - offset;
	if (offset > a.size || size > a.size - offset)
		return -EINVAL;
	mem = llmem_image_memory(m->image->img);
	return flush ? llmem_memory_flush_page(mem, a.page, a.offset + offset, size)
		     : llmem_memory_invalidate_page(mem, a.page, a.offset + offset, size);
}

PyObject *pyl_mapping_new_buffer(struct pyl_buffer *buffer, const char *format, Py_ssize_t itemsize,
				 PyObject *shape)
{
	struct pyl_mapping *m;
	void *ptr;
	int ret;

	if (buffer->size > PY_SSIZE_T_MAX)
		return pyl_error_msg(EOVERFLOW, "buffer of %llu bytes is too large to map",
				     (unsigned long long)buffer->size);
	m = mapping_alloc();
	if (!m)
		return NULL;
	if (shape || format[0] != 'B') {
		if (pyl_layout_init(&m->layout, format, itemsize, shape,
				    (Py_ssize_t)buffer->size)) {
			Py_DECREF(m);
			return NULL;
		}
	} else {
		/* map() without arguments, the common case: bytes, one dimension. */
		m->layout.format[0] = 'B';
		m->layout.itemsize = 1;
		m->layout.ndim = 1;
		m->layout.shape[0] = (Py_ssize_t)buffer->size;
		m->layout.strides[0] = 1;
	}
	ret = llmem_buffer_map(buffer->b, &ptr);
	if (ret) {
		Py_DECREF(m);
		return pyl_error(ret);
	}
	m->buffer = (struct pyl_buffer *)Py_NewRef(buffer);
	buffer->mappings++;
	m->ptr = ptr;
	m->len = (Py_ssize_t)buffer->size;
	m->noncoherent = !buffer->memory->coherent;
	if (m->noncoherent) {
		ret = llmem_buffer_invalidate(buffer->b, 0, LLMEM_WHOLE_SIZE);
		if (ret) {
			Py_DECREF(m);
			return pyl_error(ret);
		}
	}
	return (PyObject *)m;
}

PyObject *pyl_mapping_new_image(struct pyl_image *image)
{
	struct llmem_image_mapping im;
	struct pyl_mapping *m;
	int ret;

	m = mapping_alloc();
	if (!m)
		return NULL;
	PYL_PIN(image);
	/* The first map may wait for the image's move out of UNDEFINED. */
	PYL_NOGIL(ret = llmem_image_map(image->img, &im));
	PYL_UNPIN(image);
	if (ret) {
		Py_DECREF(m);
		return pyl_error(ret);
	}
	m->image = (struct pyl_image *)Py_NewRef(image);
	image->mappings++;
	m->ptr = im.data;
	m->len = im.size > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)im.size;
	pyl_image_layout(image->img, image->ndim, &im, &m->layout);
	m->noncoherent = !image->memory->coherent;
	if (m->noncoherent) {
		ret = mapping_sync_range(m, 0, LLMEM_WHOLE_SIZE, 0);
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
	if (m->buffer) {
		if (llmem_buffer_unmap(m->buffer->b)) {
			pyl_error(-EINVAL);
			PyErr_WriteUnraisable((PyObject *)m);
		}
		m->buffer->mappings--;
	}
	if (m->image) {
		if (llmem_image_unmap(m->image->img)) {
			pyl_error(-EINVAL);
			PyErr_WriteUnraisable((PyObject *)m);
		}
		m->image->mappings--;
	}
	if (m->camera)
		pyl_camera_view_gone(m->camera);
	m->ptr = NULL;
}

void pyl_mapping_export_done(struct pyl_mapping *m)
{
	m->exports--;
	if (m->noncoherent && !m->readonly && !m->released &&
	    mapping_sync_range(m, 0, LLMEM_WHOLE_SIZE, 1)) {
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
	if (self->buffer || self->image || self->camera)
		mapping_release(self);
	Py_CLEAR(self->buffer);
	Py_CLEAR(self->image);
	Py_CLEAR(self->camera);
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
	pyl_mapping_export_done(self);
}

static void mapping_dlpack_done(PyObject *owner)
{
	pyl_mapping_export_done((struct pyl_mapping *)owner);
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
	if (self->camera)
		return pyl_error_msg(EINVAL, "a camera frame is neither flushed nor invalidated");
	if (pyl_args(flush ? "flush" : "invalidate", args, nargs, kwnames, names, 2, 0, a) ||
	    pyl_u64(a[0], "offset", UINT64_MAX, &offset) ||
	    pyl_u64(a[1], "size", UINT64_MAX, &size))
		return NULL;
	ret = mapping_sync_range(self, offset, size, flush);
	if (ret == -EINVAL && self->image)
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
	return Py_NewRef(self->buffer ? (PyObject *)self->buffer : Py_None);
}

static PyObject *mapping_get_image(struct pyl_mapping *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->image ? (PyObject *)self->image : Py_None);
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
