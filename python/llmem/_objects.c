// SPDX-License-Identifier: MIT
/*
 * Buffers, images and images' views.  Each holds its memory (a view its
 * image), and refuses close() (EBUSY) while what depends on it lives:
 * mappings (_mapping.c), an image's views (the C API wants views destroyed
 * first), operations in flight, calls of other threads.  A view with its
 * sampler (llmem.ImageView) is what a kernel's image binding takes.
 */
#include "_objects.h"
#include "_mapping.h"

#include <errno.h>
#include <string.h>

/* ---- Buffer ----------------------------------------------------------- */

PyObject *pyl_buffer_wrap(struct pyl_memory *mem, int coherent, struct llmem_buffer *b,
			  PyObject *name, PyObject *parent)
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
	o->coherent = coherent;
	return (PyObject *)o;
}

struct pyl_buffer *pyl_as_buffer(PyObject *o, const char *what)
{
	struct pyl_buffer *b = pyl_instance(o, &pyl_BufferType, what, "an llmem.Buffer");

	return b && !b->b ? (struct pyl_buffer *)pyl_closed(what) : b;
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
	return pyl_buffer_wrap(self->memory, self->coherent, sub,
			       a[2] && a[2] != Py_None ? a[2] : NULL, (PyObject *)self);
}

/* Flushes and invalidates go to the buffer's own range, as the library syncs it. */
static int buffer_unmap(PyObject *o)
{
	return llmem_buffer_unmap(((struct pyl_buffer *)o)->b);
}

static int buffer_sync(PyObject *o, uint64_t offset, uint64_t size, int flush)
{
	struct llmem_buffer *b = ((struct pyl_buffer *)o)->b;

	return flush ? llmem_buffer_flush(b, offset, size)
		     : llmem_buffer_invalidate(b, offset, size);
}

static const struct pyl_mapping_ops buffer_mapping = {
	.owner = PYL_BUFFER,
	.unmap = buffer_unmap,
	.sync = buffer_sync,
};

static PyObject *buffer_map(struct pyl_buffer *self, PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames)
{
	static const char *const names[] = { "dtype", "shape", NULL };
	PyObject *a[2] = { NULL, NULL };
	struct pyl_layout layout;
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
	if (a[1] || format[0] != 'B') {
		if (pyl_layout_init(&layout, format, itemsize, a[1], (Py_ssize_t)self->size))
			return NULL;
	} else {
		/* map() without arguments, the common case: bytes, one dimension. */
		layout.format[0] = 'B';
		layout.format[1] = '\0';
		layout.itemsize = 1;
		layout.ndim = 1;
		layout.shape[0] = (Py_ssize_t)self->size;
		layout.strides[0] = 1;
	}
	ret = llmem_buffer_map(self->b, &ptr);
	if (ret)
		return pyl_error(ret);
	return pyl_mapping_new((PyObject *)self, &buffer_mapping, &self->mappings, ptr, &layout,
			       !self->coherent);
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

PyObject *pyl_image_wrap(struct pyl_memory *mem, int coherent, struct llmem_image *img,
			 PyObject *name, const struct llmem_image_create_info *ci)
{
	struct pyl_image *o = (struct pyl_image *)pyl_alloc(PYL_IMAGE);

	if (!o) {
		llmem_image_destroy(img);
		return NULL;
	}
	o->img = img;
	o->memory = (struct pyl_memory *)Py_NewRef(mem);
	o->name = Py_XNewRef(name);
	o->coherent = coherent;
	/* Lluvia's shape, as given: what create_image_from_host takes back. */
	o->ndim = ci->ndim;
	memcpy(o->shape, ci->shape, sizeof(o->shape));
	return (PyObject *)o;
}

struct pyl_image *pyl_as_image(PyObject *o, const char *what)
{
	struct pyl_image *i = pyl_instance(o, &pyl_ImageType, what, "an llmem.Image");

	return i && !i->img ? (struct pyl_image *)pyl_closed(what) : i;
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
	if (self->mappings || self->views)
		return pyl_error_msg(EBUSY,
				     "image %R has %zd live mapping%s and %zd view%s: close them "
				     "(and drop the arrays made from the mappings) first",
				     self->name ? self->name : Py_None, self->mappings,
				     self->mappings == 1 ? "" : "s", self->views,
				     self->views == 1 ? "" : "s");
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

static int image_unmap(PyObject *o)
{
	return llmem_image_unmap(((struct pyl_image *)o)->img);
}

/* An image's range: its allocation in its page, as the library syncs it. */
static int image_sync(PyObject *o, uint64_t offset, uint64_t size, int flush)
{
	struct llmem_image *img = ((struct pyl_image *)o)->img;
	struct llmem_allocation a;
	struct llmem_memory *mem;
	int ret;

	ret = llmem_image_get_allocation(img, &a);
	if (ret)
		return ret;
	if (size == LLMEM_WHOLE_SIZE && offset <= a.size)
		size = a.size - offset;
	if (offset > a.size || size > a.size - offset)
		return -EINVAL;
	mem = llmem_image_memory(img);
	return flush ? llmem_memory_flush_page(mem, a.page, a.offset + offset, size)
		     : llmem_memory_invalidate_page(mem, a.page, a.offset + offset, size);
}

static const struct pyl_mapping_ops image_mapping = {
	.owner = PYL_IMAGE,
	.unmap = image_unmap,
	.sync = image_sync,
};

static PyObject *image_map(struct pyl_image *self, PyObject *unused)
{
	struct llmem_image_mapping im;
	struct pyl_layout layout;
	int ret;

	(void)unused;
	IMAGE_OPEN(self);
	PYL_PIN(self);
	/* The first map may wait for the image's move out of UNDEFINED. */
	PYL_NOGIL(ret = llmem_image_map(self->img, &im));
	PYL_UNPIN(self);
	if (ret)
		return pyl_error(ret);
	pyl_image_layout(self->img, self->ndim, &im, &layout);
	return pyl_mapping_new((PyObject *)self, &image_mapping, &self->mappings, im.data, &layout,
			       !self->coherent);
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
	IMAGE_TEXEL_SIZE,
	IMAGE_ORDER,
	IMAGE_TILING,
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
	case IMAGE_TEXEL_SIZE:
		return PyLong_FromUnsignedLong(llmem_image_texel_size(i));
	case IMAGE_ORDER:
		return PyLong_FromUnsignedLong(llmem_image_channel_order(i));
	case IMAGE_TILING:
		return PyLong_FromUnsignedLong(llmem_image_tiling(i));
	}
	Py_RETURN_NONE;
}

static PyObject *image_get_pending(struct pyl_image *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->pending);
}

static PyObject *image_get_mappings(struct pyl_image *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->mappings);
}

static PyObject *image_get_views(struct pyl_image *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->views);
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

static PyObject *image_view(struct pyl_image *image, PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames)
{
	static const char *const names[] = { "filter", "address_mode", "unnormalized", NULL };
	struct llmem_image_view_create_info ci = { 0 };
	struct pyl_view *v;
	PyObject *a[3];
	int unnormalized = 0, ret;

	if (!image->img)
		return pyl_closed("image");
	if (pyl_args("view", args, nargs, kwnames, names, 3, 0, a) ||
	    pyl_u32(a[0], "filter", &ci.filter) ||
	    pyl_u32(a[1], "address_mode", &ci.address_mode) || pyl_bool(a[2], &unnormalized))
		return NULL;
	ci.unnormalized_coordinates = (uint32_t)unnormalized;
	v = (struct pyl_view *)pyl_alloc(PYL_IMAGE_VIEW);
	if (!v)
		return NULL;
	ret = llmem_image_view_create(image->img, &ci, &v->v);
	if (ret) {
		Py_DECREF(v);
		return pyl_error(ret);
	}
	v->image = (struct pyl_image *)Py_NewRef(image);
	image->views++;
	return (PyObject *)v;
}

static PyMethodDef image_methods[] = {
	{ "_allocation", (PyCFunction)image_allocation, METH_NOARGS,
	  "(page, offset, left_padding, size)" },
	{ "map", (PyCFunction)image_map, METH_NOARGS,
	  "map() -> Mapping of a linear image's texels: shape as the image's, strides the "
	  "driver's row and slice pitches, items of its channel type" },
	{ "view", PYL_FAST(image_view), PYL_FASTKW,
	  "view(filter=0, address_mode=0, unnormalized=False) -> ImageView with its sampler, "
	  "for Kernel bindings" },
	{ "close", (PyCFunction)image_close, METH_NOARGS,
	  "Destroys the image; llmem.Error(EBUSY) while mappings or views of it live." },
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
	IMAGE_PROP("texel_size", IMAGE_TEXEL_SIZE, "Bytes of one texel."),
	IMAGE_PROP("_order", IMAGE_ORDER, "enum llmem_channel_order."),
	IMAGE_PROP("_tiling", IMAGE_TILING, "enum llmem_image_tiling."),
	{ "memory", (getter)image_get_memory, NULL, "The memory it lives in.", NULL },
	{ "name", (getter)image_get_name, NULL, "The debug name, or None.", NULL },
	{ "pending", (getter)image_get_pending, NULL,
	  "Operations in flight that use it, until their events are done.", NULL },
	{ "mappings", (getter)image_get_mappings, NULL, "Live mappings of the image.", NULL },
	{ "views", (getter)image_get_views, NULL, "Live views of the image.", NULL },
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

/* ---- Image view ------------------------------------------------------ */

static void view_destroy(struct pyl_view *self)
{
	llmem_image_view_destroy(self->v);
	self->v = NULL;
	self->image->views--;
	Py_CLEAR(self->image);
}

static void view_dealloc(struct pyl_view *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->v)
		view_destroy(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *view_close(struct pyl_view *self, PyObject *unused)
{
	(void)unused;
	if (!self->v)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "image view is in use by another thread");
	if (self->pending)
		return pyl_error_msg(EBUSY,
				     "image view is used by %zd dispatch%s in flight: wait for "
				     "their events first",
				     self->pending, self->pending == 1 ? "" : "es");
	view_destroy(self);
	Py_RETURN_NONE;
}

static PyObject *view_info(struct pyl_view *self, PyObject *unused)
{
	struct llmem_image_view_create_info ci;
	int ret;

	(void)unused;
	if (!self->v)
		return pyl_closed("image view");
	ret = llmem_image_view_get_info(self->v, &ci);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue("(IIO)", ci.filter, ci.address_mode,
			     ci.unnormalized_coordinates ? Py_True : Py_False);
}

static PyObject *view_get_closed(struct pyl_view *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->v);
}

static PyObject *view_get_image(struct pyl_view *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->image ? (PyObject *)self->image : Py_None);
}

static PyObject *view_get_pending(struct pyl_view *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->pending);
}

static PyMethodDef view_methods[] = {
	{ "close", (PyCFunction)view_close, METH_NOARGS,
	  "Destroys the view and its sampler; llmem.Error(EBUSY) while dispatches use it." },
	{ "_info", (PyCFunction)view_info, METH_NOARGS,
	  "llmem_image_view_get_info(): (filter, address_mode, unnormalized)" },
	{ 0 },
};

static PyGetSetDef view_getset[] = {
	{ "closed", (getter)view_get_closed, NULL, "Whether close() was called.", NULL },
	{ "image", (getter)view_get_image, NULL, "The image it views (None once closed).", NULL },
	{ "pending", (getter)view_get_pending, NULL, "Dispatches in flight that use it.", NULL },
	{ 0 },
};

PyTypeObject pyl_ImageViewType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.ImageView",
	.tp_basicsize = sizeof(struct pyl_view),
	.tp_dealloc = (destructor)view_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A view of an image with its sampler (Image.view()), for kernel bindings.",
	.tp_weaklistoffset = offsetof(struct pyl_view, weakrefs),
	.tp_methods = view_methods,
	.tp_getset = view_getset,
};
