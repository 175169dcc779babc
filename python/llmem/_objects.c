// SPDX-License-Identifier: MIT
/*
 * Buffers, images and mappings.  A buffer holds its memory; a mapping holds
 * its buffer and one llmem_buffer_map() of it, and exports the mapped bytes
 * through the buffer protocol and DLPack without a copy.  A mapping counts
 * its exports and unmaps only once it was closed and the last view of it is
 * gone; a buffer refuses close() (EBUSY) while mappings of it live.
 *
 * Memory that is not host coherent: a mapping invalidates the buffer when
 * it is made, and flushes it whenever a writable view is released.
 */
#include "_llmem.h"
#include "_dlpack.h"

#include <errno.h>
#include <string.h>

/* ---- Buffer ----------------------------------------------------------- */

PyObject *pyl_buffer_wrap(struct pyl_memory *mem, struct llmem_buffer *b, PyObject *name,
			  PyObject *parent)
{
	struct pyl_buffer *o = (struct pyl_buffer *)pyl_alloc(PYL_BUFFER);

	if (!o) {
		llmem_buffer_destroy(b);
		return NULL;
	}
	o->b = b;
	o->memory = (struct pyl_memory *)Py_NewRef(mem);
	o->name = Py_XNewRef(name);
	o->parent = Py_XNewRef(parent);
	o->size = llmem_buffer_size(b);
	return (PyObject *)o;
}

static void buffer_dealloc(struct pyl_buffer *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Mappings hold their buffer: none is left. */
	llmem_buffer_destroy(self->b);
	Py_CLEAR(self->memory);
	Py_CLEAR(self->name);
	Py_CLEAR(self->parent);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *buffer_close(struct pyl_buffer *self, PyObject *unused)
{
	(void)unused;
	if (!self->b)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "buffer %R is in use by another thread",
				     self->name ? self->name : Py_None);
	if (self->pending)
		return pyl_error_msg(EBUSY,
				     "buffer %R is used by %zd operation%s in flight: wait for "
				     "their events first",
				     self->name ? self->name : Py_None, self->pending,
				     self->pending == 1 ? "" : "s");
	if (self->mappings)
		return pyl_error_msg(EBUSY,
				     "buffer %R has %zd live mapping%s: close them and drop the "
				     "views made from them first",
				     self->name ? self->name : Py_None, self->mappings,
				     self->mappings == 1 ? "" : "s");
	llmem_buffer_destroy(self->b);
	self->b = NULL;
	Py_CLEAR(self->memory);
	Py_CLEAR(self->parent);
	Py_RETURN_NONE;
}

#define BUFFER_OPEN(self)                            \
	do {                                         \
		if (!(self)->b)                      \
			return pyl_closed("buffer"); \
	} while (0)

static PyObject *buffer_sub(struct pyl_buffer *self, PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames)
{
	static const char *const names[] = { "offset", "size", "name", NULL };
	uint64_t offset = 0, size = 0;
	const char *name = NULL;
	struct llmem_buffer *sub;
	PyObject *a[3];
	int ret;

	BUFFER_OPEN(self);
	if (pyl_args("sub", args, nargs, kwnames, names, 3, 2, a) ||
	    pyl_u64(a[0], "offset", UINT64_MAX, &offset) ||
	    pyl_u64(a[1], "size", UINT64_MAX, &size) || pyl_str(a[2], "name", &name))
		return NULL;
	ret = llmem_buffer_create_sub(self->b, offset, size, name, &sub);
	if (ret)
		return pyl_error(ret);
	return pyl_buffer_wrap(self->memory, sub, a[2] && a[2] != Py_None ? a[2] : NULL,
			       (PyObject *)self);
}

static PyObject *buffer_map(struct pyl_buffer *self, PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames)
{
	static const char *const names[] = { "dtype", "shape", NULL };
	struct pyl_mapping *m;
	PyObject *a[2] = { NULL, NULL };
	char format[2] = "B";
	Py_ssize_t itemsize = 1;
	void *ptr;
	int ret;

	BUFFER_OPEN(self);
	if ((nargs || kwnames) && (pyl_args("map", args, nargs, kwnames, names, 2, 0, a) ||
				   pyl_parse_dtype(a[0], format, &itemsize)))
		return NULL;
	if (self->size > PY_SSIZE_T_MAX)
		return pyl_error_msg(EOVERFLOW, "buffer of %llu bytes is too large to map",
				     (unsigned long long)self->size);
	m = (struct pyl_mapping *)pyl_alloc(PYL_MAPPING);
	if (!m)
		return NULL;
	if (pyl_layout_init(&m->layout, format, itemsize, a[1], (Py_ssize_t)self->size)) {
		Py_DECREF(m);
		return NULL;
	}
	ret = llmem_buffer_map(self->b, &ptr);
	if (ret) {
		Py_DECREF(m);
		return pyl_error(ret);
	}
	m->buffer = (struct pyl_buffer *)Py_NewRef(self);
	self->mappings++;
	m->ptr = ptr;
	m->len = (Py_ssize_t)self->size;
	m->noncoherent = !self->memory->coherent;
	if (m->noncoherent) {
		ret = llmem_buffer_invalidate(self->b, 0, LLMEM_WHOLE_SIZE);
		if (ret) {
			Py_DECREF(m);
			return pyl_error(ret);
		}
	}
	return (PyObject *)m;
}

static PyObject *buffer_export_dmabuf(struct pyl_buffer *self, PyObject *unused)
{
	struct llmem_dmabuf_region r;
	int ret;

	(void)unused;
	BUFFER_OPEN(self);
	ret = llmem_buffer_export(self->b, &r);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue("(iKK)", r.fd, (unsigned long long)r.offset,
			     (unsigned long long)r.size);
}

static PyObject *buffer_export_range(struct pyl_buffer *self, PyObject *unused)
{
	struct llmem_dmabuf_region r;
	int ret;

	(void)unused;
	BUFFER_OPEN(self);
	ret = llmem_buffer_export_range(self->b, &r);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue("(iKK)", r.fd, (unsigned long long)r.offset,
			     (unsigned long long)r.size);
}

static PyObject *buffer_export_frame(struct pyl_buffer *self, PyObject *const *args,
				     Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "layout", "flags", NULL };
	struct llmem_frame_layout l;
	struct llmem_dmabuf_frame f;
	PyObject *offsets, *pitches;
	uint32_t flags = 0;
	PyObject *a[2];
	int ret;

	BUFFER_OPEN(self);
	if (pyl_args("_export_frame", args, nargs, kwnames, names, 2, 1, a) ||
	    pyl_parse_frame_layout(a[0], &l) || pyl_u32(a[1], "flags", &flags))
		return NULL;
	ret = llmem_buffer_export_frame(self->b, &l, flags, &f);
	if (ret)
		return pyl_error(ret);
	offsets = PyTuple_New(f.num_planes);
	pitches = PyTuple_New(f.num_planes);
	for (uint32_t i = 0; offsets && pitches && i < f.num_planes; i++) {
		PyTuple_SET_ITEM(offsets, i, PyLong_FromUnsignedLongLong(f.offset[i]));
		PyTuple_SET_ITEM(pitches, i, PyLong_FromUnsignedLong(f.pitch[i]));
	}
	if (!offsets || !pitches || PyErr_Occurred()) {
		Py_XDECREF(offsets);
		Py_XDECREF(pitches);
		return NULL;
	}
	return Py_BuildValue("(iIIIKNN)", f.fd, f.fourcc, f.width, f.height,
			     (unsigned long long)f.modifier, offsets, pitches);
}

static PyObject *buffer_cpu_access(struct pyl_buffer *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames, int begin)
{
	static const char *const names[] = { "access", NULL };
	uint32_t access = LLMEM_CPU_READ | LLMEM_CPU_WRITE;
	PyObject *a[1];
	int ret;

	BUFFER_OPEN(self);
	if (pyl_args(begin ? "begin_cpu_access" : "end_cpu_access", args, nargs, kwnames, names, 1,
		     0, a) ||
	    pyl_u32(a[0], "access", &access))
		return NULL;
	ret = begin ? llmem_buffer_begin_cpu_access(self->b, access)
		    : llmem_buffer_end_cpu_access(self->b, access);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *buffer_begin_cpu_access(struct pyl_buffer *self, PyObject *const *args,
					 Py_ssize_t nargs, PyObject *kwnames)
{
	return buffer_cpu_access(self, args, nargs, kwnames, 1);
}

static PyObject *buffer_end_cpu_access(struct pyl_buffer *self, PyObject *const *args,
				       Py_ssize_t nargs, PyObject *kwnames)
{
	return buffer_cpu_access(self, args, nargs, kwnames, 0);
}

static PyObject *allocation_tuple(const struct llmem_allocation *a)
{
	return Py_BuildValue("(IKKK)", a->page, (unsigned long long)a->offset,
			     (unsigned long long)a->left_padding, (unsigned long long)a->size);
}

static PyObject *buffer_allocation(struct pyl_buffer *self, PyObject *unused)
{
	struct llmem_allocation a;
	int ret;

	(void)unused;
	BUFFER_OPEN(self);
	ret = llmem_buffer_get_allocation(self->b, &a);
	if (ret)
		return pyl_error(ret);
	return allocation_tuple(&a);
}

static PyObject *buffer_get_closed(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->b);
}

static PyObject *buffer_get_size(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(self->size);
}

static PyObject *buffer_get_usage(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	BUFFER_OPEN(self);
	return PyLong_FromUnsignedLong(llmem_buffer_usage(self->b));
}

static PyObject *buffer_get_memory(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	BUFFER_OPEN(self);
	return Py_NewRef(self->memory);
}

static PyObject *buffer_get_name(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->name ? self->name : Py_None);
}

static PyObject *buffer_get_parent(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->parent ? self->parent : Py_None);
}

static PyObject *buffer_get_mappings(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->mappings);
}

static PyObject *buffer_get_pending(struct pyl_buffer *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->pending);
}

static PyMethodDef buffer_methods[] = {
	{ "sub", PYL_FAST(buffer_sub), PYL_FASTKW,
	  "sub(offset, size, name=None) -> Buffer over bytes [offset, offset + size)" },
	{ "map", PYL_FAST(buffer_map), PYL_FASTKW,
	  "map(dtype=None, shape=None) -> Mapping: the bytes in this process, exported "
	  "through the buffer protocol and DLPack" },
	{ "export_dmabuf", (PyCFunction)buffer_export_dmabuf, METH_NOARGS,
	  "export_dmabuf() -> (fd, offset, size); the fd is new and the caller's to close" },
	{ "export_range", (PyCFunction)buffer_export_range, METH_NOARGS,
	  "export_range() -> (fd, 0, size); a DMA-BUF of the buffer's own, the caller's to close" },
	{ "_export_frame", PYL_FAST(buffer_export_frame), PYL_FASTKW,
	  "_export_frame(layout, flags=0) -> (fd, fourcc, width, height, modifier, offsets, "
	  "pitches)" },
	{ "begin_cpu_access", PYL_FAST(buffer_begin_cpu_access), PYL_FASTKW,
	  "begin_cpu_access(access=READ|WRITE): DMA_BUF_IOCTL_SYNC start" },
	{ "end_cpu_access", PYL_FAST(buffer_end_cpu_access), PYL_FASTKW,
	  "end_cpu_access(access=READ|WRITE): DMA_BUF_IOCTL_SYNC end" },
	{ "_allocation", (PyCFunction)buffer_allocation, METH_NOARGS,
	  "(page, offset, left_padding, size)" },
	{ "close", (PyCFunction)buffer_close, METH_NOARGS,
	  "Destroys the buffer; llmem.Error(EBUSY) while mappings of it live." },
	{ 0 },
};

static PyGetSetDef buffer_getset[] = {
	{ "closed", (getter)buffer_get_closed, NULL, "Whether close() was called.", NULL },
	{ "size", (getter)buffer_get_size, NULL, "Bytes.", NULL },
	{ "_usage", (getter)buffer_get_usage, NULL, "enum llmem_buffer_usage bits.", NULL },
	{ "memory", (getter)buffer_get_memory, NULL, "The memory it lives in.", NULL },
	{ "name", (getter)buffer_get_name, NULL, "The debug name, or None.", NULL },
	{ "parent", (getter)buffer_get_parent, NULL, "The buffer a sub-region was cut from.",
	  NULL },
	{ "mappings", (getter)buffer_get_mappings, NULL, "Live mappings of the buffer.", NULL },
	{ "pending", (getter)buffer_get_pending, NULL,
	  "Operations in flight that use it, until their events are done.", NULL },
	{ 0 },
};

PyTypeObject pyl_BufferType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Buffer",
	.tp_basicsize = sizeof(struct pyl_buffer),
	.tp_dealloc = (destructor)buffer_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A buffer laid out in a page of a memory (Memory.create_buffer()).",
	.tp_weaklistoffset = offsetof(struct pyl_buffer, weakrefs),
	.tp_methods = buffer_methods,
	.tp_getset = buffer_getset,
};

/* ---- Image ------------------------------------------------------------ */

PyObject *pyl_image_wrap(struct pyl_memory *mem, struct llmem_image *img, PyObject *name,
			 const struct llmem_image_create_info *ci)
{
	struct pyl_image *o = (struct pyl_image *)pyl_alloc(PYL_IMAGE);

	if (!o) {
		llmem_image_destroy(img);
		return NULL;
	}
	o->img = img;
	o->memory = (struct pyl_memory *)Py_NewRef(mem);
	o->name = Py_XNewRef(name);
	/* Lluvia's shape, as given: what create_image_from_host takes back. */
	o->ndim = ci->ndim;
	memcpy(o->shape, ci->shape, sizeof(o->shape));
	return (PyObject *)o;
}

static void image_dealloc(struct pyl_image *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	llmem_image_destroy(self->img);
	Py_CLEAR(self->memory);
	Py_CLEAR(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *image_close(struct pyl_image *self, PyObject *unused)
{
	(void)unused;
	if (!self->img)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "image %R is in use by another thread",
				     self->name ? self->name : Py_None);
	if (self->pending)
		return pyl_error_msg(EBUSY,
				     "image %R is used by %zd operation%s in flight: wait for "
				     "their events first",
				     self->name ? self->name : Py_None, self->pending,
				     self->pending == 1 ? "" : "s");
	llmem_image_destroy(self->img);
	self->img = NULL;
	Py_CLEAR(self->memory);
	Py_RETURN_NONE;
}

#define IMAGE_OPEN(self)                            \
	do {                                        \
		if (!(self)->img)                   \
			return pyl_closed("image"); \
	} while (0)

static PyObject *image_allocation(struct pyl_image *self, PyObject *unused)
{
	struct llmem_allocation a;
	int ret;

	(void)unused;
	IMAGE_OPEN(self);
	ret = llmem_image_get_allocation(self->img, &a);
	if (ret)
		return pyl_error(ret);
	return allocation_tuple(&a);
}

static PyObject *image_get_closed(struct pyl_image *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->img);
}

static PyObject *image_get_shape(struct pyl_image *self, void *closure)
{
	PyObject *t = PyTuple_New(self->ndim);

	(void)closure;
	for (uint32_t i = 0; t && i < self->ndim; i++) {
		PyObject *v = PyLong_FromUnsignedLong(self->shape[i]);

		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, v);
	}
	return t;
}

/* The image's properties that come from the C API, by closure index. */
enum image_prop {
	IMAGE_WIDTH,
	IMAGE_HEIGHT,
	IMAGE_DEPTH,
	IMAGE_CHANNELS,
	IMAGE_CHANNEL_TYPE,
	IMAGE_USAGE,
	IMAGE_FORMAT,
	IMAGE_LAYOUT,
	IMAGE_SIZE,
};

static PyObject *image_get_prop(struct pyl_image *self, void *closure)
{
	const struct llmem_image *i = self->img;

	IMAGE_OPEN(self);
	switch ((enum image_prop)(intptr_t)closure) {
	case IMAGE_WIDTH:
		return PyLong_FromUnsignedLong(llmem_image_width(i));
	case IMAGE_HEIGHT:
		return PyLong_FromUnsignedLong(llmem_image_height(i));
	case IMAGE_DEPTH:
		return PyLong_FromUnsignedLong(llmem_image_depth(i));
	case IMAGE_CHANNELS:
		return PyLong_FromUnsignedLong(llmem_image_channels(i));
	case IMAGE_CHANNEL_TYPE:
		return PyLong_FromUnsignedLong(llmem_image_channel_type(i));
	case IMAGE_USAGE:
		return PyLong_FromUnsignedLong(llmem_image_usage(i));
	case IMAGE_FORMAT:
		return PyLong_FromUnsignedLong(llmem_image_format(i));
	case IMAGE_LAYOUT:
		return PyLong_FromUnsignedLong(llmem_image_layout(i));
	case IMAGE_SIZE:
		return PyLong_FromUnsignedLongLong(llmem_image_size(i));
	}
	Py_RETURN_NONE;
}

static PyObject *image_get_pending(struct pyl_image *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->pending);
}

static PyObject *image_get_memory(struct pyl_image *self, void *closure)
{
	(void)closure;
	IMAGE_OPEN(self);
	return Py_NewRef(self->memory);
}

static PyObject *image_get_name(struct pyl_image *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->name ? self->name : Py_None);
}

static PyMethodDef image_methods[] = {
	{ "_allocation", (PyCFunction)image_allocation, METH_NOARGS,
	  "(page, offset, left_padding, size)" },
	{ "close", (PyCFunction)image_close, METH_NOARGS, "Destroys the image." },
	{ 0 },
};

#define IMAGE_PROP(name, prop, doc)                                               \
	{                                                                         \
		name, (getter)image_get_prop, NULL, doc, (void *)(intptr_t)(prop) \
	}

static PyGetSetDef image_getset[] = {
	{ "closed", (getter)image_get_closed, NULL, "Whether close() was called.", NULL },
	{ "shape", (getter)image_get_shape, NULL,
	  "(height, width), (height, width, channels) or (depth, height, width, channels): "
	  "numpy's shape of its texels.",
	  NULL },
	IMAGE_PROP("width", IMAGE_WIDTH, "Texels."),
	IMAGE_PROP("height", IMAGE_HEIGHT, "Texels."),
	IMAGE_PROP("depth", IMAGE_DEPTH, "Texels."),
	IMAGE_PROP("channels", IMAGE_CHANNELS, "1 to 4."),
	IMAGE_PROP("_channel_type", IMAGE_CHANNEL_TYPE, "enum llmem_channel_type."),
	IMAGE_PROP("_usage", IMAGE_USAGE, "enum llmem_image_usage bits."),
	IMAGE_PROP("vk_format", IMAGE_FORMAT, "The VkFormat."),
	IMAGE_PROP("vk_layout", IMAGE_LAYOUT, "The VkImageLayout the library tracks."),
	IMAGE_PROP("size", IMAGE_SIZE, "Bytes of its texels, tightly packed."),
	{ "memory", (getter)image_get_memory, NULL, "The memory it lives in.", NULL },
	{ "name", (getter)image_get_name, NULL, "The debug name, or None.", NULL },
	{ "pending", (getter)image_get_pending, NULL,
	  "Operations in flight that use it, until their events are done.", NULL },
	{ 0 },
};

PyTypeObject pyl_ImageType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Image",
	.tp_basicsize = sizeof(struct pyl_image),
	.tp_dealloc = (destructor)image_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "An image laid out in a page of a memory (Memory.create_image()).",
	.tp_weaklistoffset = offsetof(struct pyl_image, weakrefs),
	.tp_methods = image_methods,
	.tp_getset = image_getset,
};

/* ---- Mapping ---------------------------------------------------------- */

PyObject *pyl_mapping_new_frame(struct pyl_camera *camera, char *ptr, Py_ssize_t len,
				const struct pyl_layout *layout)
{
	struct pyl_mapping *m = (struct pyl_mapping *)pyl_alloc(PYL_MAPPING);

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
	if (m->camera)
		pyl_camera_view_gone(m->camera);
	m->ptr = NULL;
}

void pyl_mapping_export_done(struct pyl_mapping *m)
{
	m->exports--;
	if (m->noncoherent && !m->readonly && !m->released &&
	    llmem_buffer_flush(m->buffer->b, 0, LLMEM_WHOLE_SIZE)) {
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
	if (self->buffer || self->camera)
		mapping_release(self);
	Py_CLEAR(self->buffer);
	Py_CLEAR(self->camera);
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
	if (!self->buffer)
		return pyl_error_msg(EINVAL, "a camera frame is neither flushed nor invalidated");
	if (pyl_args(flush ? "flush" : "invalidate", args, nargs, kwnames, names, 2, 0, a) ||
	    pyl_u64(a[0], "offset", UINT64_MAX, &offset) ||
	    pyl_u64(a[1], "size", UINT64_MAX, &size))
		return NULL;
	ret = flush ? llmem_buffer_flush(self->buffer->b, offset, size)
		    : llmem_buffer_invalidate(self->buffer->b, offset, size);
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

static PyMethodDef mapping_methods[] = {
	{ "close", (PyCFunction)mapping_close, METH_NOARGS,
	  "No new views; unmaps now, or when the last view is released." },
	{ "flush", PYL_FAST(mapping_flush), PYL_FASTKW,
	  "flush(offset=0, size=None): host writes to the device (llmem_buffer_flush())" },
	{ "invalidate", PYL_FAST(mapping_invalidate), PYL_FASTKW,
	  "invalidate(offset=0, size=None): device writes to the host "
	  "(llmem_buffer_invalidate())" },
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
	{ 0 },
};

static PyBufferProcs mapping_as_buffer = {
	.bf_getbuffer = (getbufferproc)mapping_getbuffer,
	.bf_releasebuffer = (releasebufferproc)mapping_releasebuffer,
};

PyTypeObject pyl_MappingType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Mapping",
	.tp_basicsize = sizeof(struct pyl_mapping),
	.tp_dealloc = (destructor)mapping_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Mapped bytes exported without a copy (Buffer.map(), Frame.rgba).",
	.tp_weaklistoffset = offsetof(struct pyl_mapping, weakrefs),
	.tp_as_buffer = &mapping_as_buffer,
	.tp_methods = mapping_methods,
	.tp_getset = mapping_getset,
};
