// SPDX-License-Identifier: MIT
/*
 * Sessions and memories: llmem.Session opens a Vulkan device, collects what
 * the validation layer says and counts its children; llmem.Memory makes
 * buffers and images in its pages and imports and exports pages.  A memory
 * holds its session; each holds the host allocations it imported.
 */
#include "_session.h"
#include "_layout.h"
#include "_objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Session ---------------------------------------------------------- */

/*
 * The validation layer's messages, from whichever thread made the Vulkan
 * call (with or without the GIL): kept in the session's list and printed on
 * stderr as the library does by default.
 */
static void session_message(void *user, uint32_t severity, const char *message)
{
	struct pyl_session *self = user;
	struct pyl_saved_error saved;
	PyGILState_STATE g;
	PyObject *item;

	fprintf(stderr, "llmem: validation (severity 0x%x): %s\n", severity, message);
	if (!Py_IsInitialized())
		return;
	g = PyGILState_Ensure();
	pyl_error_save(&saved);
	item = Py_BuildValue("(IN)", severity,
			     PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace"));
	if (!item || !self->messages || PyList_Append(self->messages, item))
		PyErr_Clear();
	Py_XDECREF(item);
	pyl_error_restore(&saved);
	PyGILState_Release(g);
}

struct pyl_session *pyl_as_session(PyObject *o)
{
	struct pyl_session *s = pyl_instance(o, &pyl_SessionType, "session", "an llmem.Session");

	return s && !s->s ? (struct pyl_session *)pyl_closed("session") : s;
}

static PyObject *session_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "device", "validation", "app_name", NULL };
	struct llmem_session_create_info ci = { .message_fn = session_message };
	PyObject *device = Py_None, *validation = NULL, *app = NULL;
	struct pyl_session *self;
	int ret, v = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOO:Session", kw, &device, &validation,
					 &app))
		return NULL;
	if (PyUnicode_Check(device)) {
		if (pyl_str(device, "device", &ci.device_name))
			return NULL;
	} else if (device != Py_None && pyl_u32(device, "device", &ci.device_index)) {
		if (PyErr_ExceptionMatches(PyExc_TypeError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError,
				     "device must be an index, a name or None, not %.200s",
				     Py_TYPE(device)->tp_name);
		}
		return NULL;
	}
	if (pyl_bool(validation, &v) || pyl_str(app, "app_name", &ci.app_name))
		return NULL;
	if (!ci.app_name)
		ci.app_name = "llmem (Python)";
	ci.flags = v ? LLMEM_SESSION_VALIDATION : 0;
	self = (struct pyl_session *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->messages = PyList_New(0);
	if (!self->messages) {
		Py_DECREF(self);
		return NULL;
	}
	ci.message_user = self;
	PYL_NOGIL(ret = llmem_session_create(&ci, &self->s));
	if (ret) {
		pyl_error(ret);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

static int session_destroy(struct pyl_session *self)
{
	int ret;

	PYL_NOGIL(ret = llmem_session_destroy(self->s));
	if (!ret)
		self->s = NULL;
	return ret;
}

static void session_dealloc(struct pyl_session *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Every child holds the session, so none is left. */
	if (self->s && session_destroy(self)) {
		pyl_error(-EBUSY);
		PyErr_WriteUnraisable((PyObject *)self);
	}
	Py_CLEAR(self->messages);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* EBUSY naming the objects still open, each count worded for its number. */
static PyObject *live_objects_error(struct pyl_session *self)
{
	const struct {
		Py_ssize_t count;
		const char *one, *many;
	} kinds[] = {
		{ self->memories, "memory", "memories" },
		{ self->queues, "queue", "queues" },
		{ self->cameras, "camera", "cameras" },
		{ self->codecs, "encoder or decoder", "encoders and decoders" },
		{ self->cudas, "CUDA context", "CUDA contexts" },
		{ self->kernels, "kernel", "kernels" },
		{ self->converters, "converter", "converters" },
	};
	char text[256];
	size_t n = 0;

	text[0] = '\0';
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!kinds[i].count)
			continue;
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%zd %s", n ? ", " : "",
				      kinds[i].count,
				      kinds[i].count == 1 ? kinds[i].one : kinds[i].many);
	}
	return pyl_error_msg(EBUSY, "session has live objects: %s", text);
}

static PyObject *session_close(struct pyl_session *self, PyObject *unused)
{
	Py_ssize_t live = self->memories + self->queues + self->cameras + self->codecs +
			  self->cudas + self->kernels + self->converters;
	int ret;

	(void)unused;
	if (!self->s)
		Py_RETURN_NONE;
	if (live)
		return live_objects_error(self);
	ret = session_destroy(self);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *u32_list(const uint32_t *v, uint32_t n)
{
	PyObject *t = PyTuple_New(n);

	for (uint32_t i = 0; t && i < n; i++) {
		PyObject *x = PyLong_FromUnsignedLong(v[i]);

		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, x);
	}
	return t;
}

static PyObject *session_info(struct pyl_session *self, PyObject *unused)
{
	struct llmem_session_info info;
	uint32_t type_flags[LLMEM_MAX_MEMORY_TYPES], type_heaps[LLMEM_MAX_MEMORY_TYPES];
	PyObject *heaps;
	int ret;

	(void)unused;
	if (!self->s)
		return pyl_closed("session");
	ret = llmem_session_get_info(self->s, &info);
	if (ret)
		return pyl_error(ret);
	for (uint32_t i = 0; i < info.memory_type_count; i++) {
		type_flags[i] = info.memory_types[i].flags;
		type_heaps[i] = info.memory_types[i].heap_index;
	}
	heaps = PyTuple_New(info.memory_heap_count);
	for (uint32_t i = 0; heaps && i < info.memory_heap_count; i++) {
		PyObject *h = Py_BuildValue("(KI)", (unsigned long long)info.memory_heaps[i].size,
					    info.memory_heaps[i].flags);

		if (!h) {
			Py_CLEAR(heaps);
			break;
		}
		PyTuple_SET_ITEM(heaps, i, h);
	}
	if (!heaps)
		return NULL;
	return Py_BuildValue(
		"{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:N,s:N,s:N,s:N,s:K,s:K,s:K,s:I,s:O}",
		"device_name", info.device_name, "driver_name", info.driver_name, "driver_info",
		info.driver_info, "api_version", info.api_version, "driver_version",
		info.driver_version, "vendor_id", info.vendor_id, "device_id", info.device_id,
		"device_type", info.device_type, "memory_types",
		u32_list(type_flags, info.memory_type_count), "memory_type_heaps",
		u32_list(type_heaps, info.memory_type_count), "memory_heaps", heaps, "flag_sets",
		u32_list(info.flag_sets, info.flag_set_count), "buffer_image_granularity",
		(unsigned long long)info.buffer_image_granularity, "non_coherent_atom_size",
		(unsigned long long)info.non_coherent_atom_size,
		"min_imported_host_pointer_alignment",
		(unsigned long long)info.min_imported_host_pointer_alignment, "caps", info.caps,
		"validation", info.validation ? Py_True : Py_False);
}

#define BACKENDS 7

int pyl_backend(PyObject *o, uint32_t *out)
{
	const char *names[BACKENDS];

	for (uint32_t i = 0; i < BACKENDS; i++)
		names[i] = llmem_backend_name(i);
	return pyl_named(o, "backend", names, BACKENDS, out);
}

PyObject *pyl_backend_names(PyObject *module, PyObject *unused)
{
	PyObject *t = PyTuple_New(BACKENDS);

	(void)module;
	(void)unused;
	for (int i = 0; t && i < BACKENDS; i++) {
		PyObject *s = PyUnicode_FromString(llmem_backend_name((uint32_t)i));

		if (!s) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, s);
	}
	return t;
}

static PyObject *session_create_memory(struct pyl_session *self, PyObject *const *args,
				       Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "flags",	   "page_size",	  "exact",
					     "contiguous", "spare_pages", "name",
					     "sharing",	   "backend",	  NULL };
	static const char *const sharings[] = { "none", "dmabuf", "import", "opaque-fd" };
	struct llmem_memory_create_info ci = { 0 };
	struct llmem_memory_info info;
	PyObject *a[8];
	struct pyl_memory *mem;
	uint32_t spare = UINT32_MAX;
	int exact = 0, contiguous = 0, ret;

	if (!self->s)
		return pyl_closed("session");
	if (pyl_args("create_memory", args, nargs, kwnames, names, 2, 0, a) ||
	    pyl_u32(a[0], "flags", &ci.flags) ||
	    pyl_u64(a[1], "page_size", UINT64_MAX, &ci.page_size) || pyl_bool(a[2], &exact) ||
	    pyl_bool(a[3], &contiguous) || pyl_u32(a[4], "spare_pages", &spare) ||
	    pyl_str(a[5], "name", &ci.name) ||
	    pyl_named(a[6], "sharing", sharings, 4, &ci.sharing) || pyl_backend(a[7], &ci.backend))
		return NULL;
	ci.options =
		(exact ? LLMEM_MEMORY_EXACT_MATCH : 0) | (contiguous ? LLMEM_MEMORY_CONTIGUOUS : 0);
	/* Python's spare_pages=0 is the C API's "none"; None is its default. */
	if (a[4] && a[4] != Py_None)
		ci.spare_pages = spare ? spare : LLMEM_MEMORY_SPARE_NONE;
	mem = (struct pyl_memory *)pyl_alloc(PYL_MEMORY);
	if (!mem)
		return NULL;
	ret = llmem_memory_create(self->s, &ci, &mem->m);
	if (ret) {
		Py_DECREF(mem);
		return pyl_error(ret);
	}
	Py_INCREF(self);
	mem->session = self;
	self->memories++;
	ret = llmem_memory_get_info(mem->m, &info);
	if (ret) {
		Py_DECREF(mem);
		return pyl_error(ret);
	}
	mem->coherent = info.coherent || !info.mappable;
	mem->name = PyUnicode_FromString(ci.name ? ci.name : "memory");
	if (!mem->name) {
		Py_DECREF(mem);
		return NULL;
	}
	return (PyObject *)mem;
}

static PyObject *session_get_closed(struct pyl_session *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->s);
}

static PyObject *session_get_validation_messages(struct pyl_session *self, void *closure)
{
	(void)closure;
	if (!self->s)
		return pyl_closed("session");
	return PyLong_FromLongLong(llmem_session_validation_messages(self->s));
}

static PyObject *session_get_validation_log(struct pyl_session *self, void *closure)
{
	(void)closure;
	return PyList_AsTuple(self->messages);
}

static PyObject *session_get_children(struct pyl_session *self, void *closure)
{
	(void)closure;
	return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "memories", self->memories, "queues",
			     self->queues, "cameras", self->cameras, "codecs", self->codecs,
			     "cudas", self->cudas, "kernels", self->kernels, "converters",
			     self->converters);
}

static PyMethodDef session_methods[] = {
	{ "create_memory", PYL_FAST(session_create_memory), PYL_FASTKW,
	  "create_memory(flags=DEVICE_LOCAL, page_size=0, *, exact=False, contiguous=False, "
	  "spare_pages=None, name=None, sharing=None, backend=None) -> Memory" },
	{ "close", (PyCFunction)session_close, METH_NOARGS,
	  "Closes the device; llmem.Error(EBUSY) while memories, queues, cameras, encoders, "
	  "decoders, CUDA contexts, kernels or converters of it are open." },
	{ "_info", (PyCFunction)session_info, METH_NOARGS, "llmem_session_get_info() as a dict." },
	{ 0 },
};

static PyGetSetDef session_getset[] = {
	{ "closed", (getter)session_get_closed, NULL, "Whether close() was called.", NULL },
	{ "validation_messages", (getter)session_get_validation_messages, NULL,
	  "Warnings and errors the validation layer sent (llmem_session_validation_messages()).",
	  NULL },
	{ "validation_log", (getter)session_get_validation_log, NULL,
	  "The validation layer's messages as (severity, text) pairs; readable after close().",
	  NULL },
	{ "_children", (getter)session_get_children, NULL, "Live children by kind.", NULL },
	{ 0 },
};

PyTypeObject pyl_SessionType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Session",
	.tp_basicsize = sizeof(struct pyl_session),
	.tp_dealloc = (destructor)session_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Session(device=None, validation=False, app_name=None): a Vulkan device.",
	.tp_weaklistoffset = offsetof(struct pyl_session, weakrefs),
	.tp_methods = session_methods,
	.tp_getset = session_getset,
	.tp_new = session_new,
};

/* ---- Memory ----------------------------------------------------------- */

struct pyl_memory *pyl_as_memory(PyObject *o)
{
	struct pyl_memory *m = pyl_instance(o, &pyl_MemoryType, "memory", "an llmem.Memory");

	return m && !m->m ? (struct pyl_memory *)pyl_closed("memory") : m;
}

static int memory_destroy(struct pyl_memory *self)
{
	int ret = llmem_memory_destroy(self->m);

	if (ret)
		return ret;
	self->m = NULL;
	/* The imported pages are gone: the host allocations are free again. */
	for (Py_ssize_t i = 0; i < self->nhosts; i++)
		PyBuffer_Release(&self->hosts[i]);
	PyMem_Free(self->hosts);
	self->hosts = NULL;
	self->nhosts = 0;
	self->session->memories--;
	return 0;
}

static void memory_dealloc(struct pyl_memory *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->m && memory_destroy(self)) {
		pyl_error(-EBUSY);
		PyErr_WriteUnraisable((PyObject *)self);
	}
	Py_CLEAR(self->session);
	Py_CLEAR(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *memory_close(struct pyl_memory *self, PyObject *unused)
{
	int ret;

	(void)unused;
	if (!self->m)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "memory %R is in use by another thread", self->name);
	if (self->cuda_imports)
		return pyl_error_msg(EBUSY, "memory %R has %zd pages imported into CUDA",
				     self->name, self->cuda_imports);
	ret = memory_destroy(self);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

#define MEMORY_OPEN(self)                            \
	do {                                         \
		if (!(self)->m)                      \
			return pyl_closed("memory"); \
	} while (0)

static PyObject *name_of(PyObject *o)
{
	return o && o != Py_None ? o : NULL;
}

static PyObject *memory_create_buffer(struct pyl_memory *self, PyObject *const *args,
				      Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "size", "usage", "name", "alignment", NULL };
	struct llmem_buffer_create_info ci = { 0 };
	struct llmem_buffer *b;
	PyObject *a[4];
	int ret;

	MEMORY_OPEN(self);
	if (pyl_args("create_buffer", args, nargs, kwnames, names, 4, 1, a) ||
	    pyl_u64(a[0], "size", UINT64_MAX, &ci.size) || pyl_u32(a[1], "usage", &ci.usage) ||
	    pyl_str(a[2], "name", &ci.name) ||
	    pyl_u64(a[3], "alignment", UINT64_MAX, &ci.alignment))
		return NULL;
	ret = llmem_buffer_create(self->m, &ci, &b);
	if (ret)
		return pyl_error(ret);
	return pyl_buffer_wrap(self, self->coherent, b, name_of(a[2]), NULL);
}

static PyObject *memory_create_buffer_from_host(struct pyl_memory *self, PyObject *const *args,
						Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "data", "usage", "name", NULL };
	struct llmem_buffer_create_info ci = { 0 };
	struct llmem_buffer *b;
	Py_buffer view;
	PyObject *a[3];
	int ret;

	MEMORY_OPEN(self);
	if (pyl_args("create_buffer_from_host", args, nargs, kwnames, names, 3, 1, a) ||
	    pyl_u32(a[1], "usage", &ci.usage) || pyl_str(a[2], "name", &ci.name) ||
	    pyl_get_host(a[0], "data", 0, 0, &view))
		return NULL;
	ret = llmem_buffer_create_from_host(self->m, &ci, view.buf, (uint64_t)view.len, &b);
	PyBuffer_Release(&view);
	if (ret)
		return pyl_error(ret);
	return pyl_buffer_wrap(self, self->coherent, b, name_of(a[2]), NULL);
}

static PyObject *memory_create_buffer_like(struct pyl_memory *self, PyObject *const *args,
					   Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "like", "usage", "name", NULL };
	struct llmem_buffer_create_info ci = { 0 };
	struct llmem_buffer *b;
	PyObject *a[3];
	int ret;

	MEMORY_OPEN(self);
	if (pyl_args("create_buffer_like", args, nargs, kwnames, names, 3, 1, a) ||
	    pyl_u32(a[1], "usage", &ci.usage) || pyl_str(a[2], "name", &ci.name))
		return NULL;
	if (PyObject_TypeCheck(a[0], &pyl_ImageType)) {
		struct pyl_image *img = pyl_as_image(a[0], "like");

		if (!img)
			return NULL;
		ret = llmem_buffer_create_like_image(self->m, img->img, &ci, &b);
	} else {
		struct pyl_buffer *like;

		if (!PyObject_TypeCheck(a[0], &pyl_BufferType)) {
			PyErr_Format(PyExc_TypeError,
				     "like must be an llmem.Buffer or llmem.Image, not %.200s",
				     Py_TYPE(a[0])->tp_name);
			return NULL;
		}
		like = pyl_as_buffer(a[0], "like");
		if (!like)
			return NULL;
		ret = llmem_buffer_create_like_buffer(self->m, like->b, &ci, &b);
	}
	if (ret)
		return pyl_error(ret);
	return pyl_buffer_wrap(self, self->coherent, b, name_of(a[2]), NULL);
}

static PyObject *memory_create_image(struct pyl_memory *self, PyObject *const *args,
				     Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "shape", "channel_type", "usage", "name",
					     "order", "tiling",	      NULL };
	struct llmem_image_create_info ci = { 0 };
	struct llmem_image *img;
	PyObject *a[6];
	int n, ret;

	MEMORY_OPEN(self);
	if (pyl_args("create_image", args, nargs, kwnames, names, 4, 1, a) ||
	    pyl_u32(a[1], "channel_type", &ci.channel_type) || pyl_u32(a[2], "usage", &ci.usage) ||
	    pyl_str(a[3], "name", &ci.name) || pyl_u32(a[4], "order", &ci.channel_order) ||
	    pyl_u32(a[5], "tiling", &ci.tiling))
		return NULL;
	if (PyIndex_Check(a[0])) {
		n = 1;
		if (pyl_u32(a[0], "shape", &ci.shape[0]))
			return NULL;
	} else {
		n = pyl_u32_seq(a[0], "shape", ci.shape, LLMEM_IMAGE_MAX_DIMS);
		if (n < 0)
			return NULL;
	}
	ci.ndim = (uint32_t)n;
	ret = llmem_image_create(self->m, &ci, &img);
	if (ret)
		return pyl_error(ret);
	return pyl_image_wrap(self, self->coherent, img, name_of(a[3]), &ci);
}

static PyObject *memory_create_image_from_host(struct pyl_memory *self, PyObject *const *args,
					       Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "data", "usage", "name", NULL };
	struct llmem_image_create_info ci = { 0 };
	struct llmem_image *img;
	Py_buffer view;
	PyObject *a[3];
	int ct, ret;

	MEMORY_OPEN(self);
	if (pyl_args("create_image_from_host", args, nargs, kwnames, names, 3, 1, a) ||
	    pyl_u32(a[1], "usage", &ci.usage) || pyl_str(a[2], "name", &ci.name) ||
	    pyl_get_host(a[0], "data", 0, 1, &view))
		return NULL;
	ct = pyl_channel_type(view.format);
	if (ct < 0) {
		PyErr_Format(PyExc_ValueError,
			     "data of format '%s' has no channel type: uint8, int8, uint16, int16, "
			     "uint32, int32, float16 or float32",
			     view.format);
		goto fail;
	}
	if (view.ndim < 1 || view.ndim > LLMEM_IMAGE_MAX_DIMS) {
		PyErr_Format(PyExc_ValueError,
			     "data of %d dimensions: images are (width), (height, width), "
			     "(height, width, channels) or (depth, height, width, channels)",
			     view.ndim);
		goto fail;
	}
	ci.channel_type = (uint32_t)ct;
	ci.ndim = (uint32_t)view.ndim;
	for (int i = 0; i < view.ndim; i++) {
		if (view.shape[i] > UINT32_MAX) {
			PyErr_SetString(PyExc_ValueError, "data is too large for an image");
			goto fail;
		}
		ci.shape[i] = (uint32_t)view.shape[i];
	}
	PYL_PIN(self);
	PYL_NOGIL(ret = llmem_image_create_from_host(self->m, &ci, view.buf, (uint64_t)view.len,
						     &img));
	PYL_UNPIN(self);
	PyBuffer_Release(&view);
	if (ret)
		return pyl_error(ret);
	return pyl_image_wrap(self, self->coherent, img, name_of(a[2]), &ci);
fail:
	PyBuffer_Release(&view);
	return NULL;
}

/* Lluvia's createImageLike: the Python shape is the one @like was given. */
static PyObject *memory_create_image_like(struct pyl_memory *self, PyObject *const *args,
					  Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "like", "usage", "name", NULL };
	struct llmem_image_create_info ci = { 0 };
	struct llmem_image *img;
	struct pyl_image *like;
	PyObject *a[3];
	int ret;

	MEMORY_OPEN(self);
	if (pyl_args("create_image_like", args, nargs, kwnames, names, 3, 1, a) ||
	    pyl_u32(a[1], "usage", &ci.usage) || pyl_str(a[2], "name", &ci.name))
		return NULL;
	like = pyl_as_image(a[0], "like");
	if (!like)
		return NULL;
	ret = llmem_image_create_like_image(self->m, like->img, &ci, &img);
	if (ret)
		return pyl_error(ret);
	ci.ndim = like->ndim;
	memcpy(ci.shape, like->shape, sizeof(ci.shape));
	return pyl_image_wrap(self, self->coherent, img,
			      a[2] && a[2] != Py_None ? a[2] : like->name, &ci);
}

static int fd_arg(PyObject *o, int *fd)
{
	if (!o)
		return 0;
	*fd = PyObject_AsFileDescriptor(o);
	return *fd < 0 ? -1 : 0;
}

static PyObject *memory_import_dmabuf(struct pyl_memory *self, PyObject *const *args,
				      Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "fd", "size", NULL };
	uint64_t size = 0;
	uint32_t page;
	PyObject *a[2];
	int fd = -1, ret;

	MEMORY_OPEN(self);
	if (pyl_args("import_dmabuf", args, nargs, kwnames, names, 2, 1, a) || fd_arg(a[0], &fd) ||
	    pyl_u64(a[1], "size", UINT64_MAX, &size))
		return NULL;
	ret = llmem_memory_import_dmabuf(self->m, fd, size, &page);
	if (ret)
		return pyl_error(ret);
	return PyLong_FromUnsignedLong(page);
}

static PyObject *memory_import_host(struct pyl_memory *self, PyObject *data)
{
	Py_buffer view, *hosts;
	uint32_t page;
	int ret;

	MEMORY_OPEN(self);
	if (pyl_get_host(data, "data", 1, 0, &view))
		return NULL;
	hosts = PyMem_Realloc(self->hosts, sizeof(*hosts) * (size_t)(self->nhosts + 1));
	if (!hosts) {
		PyBuffer_Release(&view);
		return PyErr_NoMemory();
	}
	self->hosts = hosts;
	ret = llmem_memory_import_host(self->m, view.buf, (uint64_t)view.len, &page);
	if (ret) {
		PyBuffer_Release(&view);
		return pyl_error(ret);
	}
	/* The page uses the allocation in place until the memory is closed. */
	self->hosts[self->nhosts++] = view;
	return PyLong_FromUnsignedLong(page);
}

static PyObject *memory_add_page(struct pyl_memory *self, PyObject *arg)
{
	uint64_t size = 0;
	uint32_t page;
	int ret;

	MEMORY_OPEN(self);
	if (pyl_u64(arg, "size", UINT64_MAX, &size))
		return NULL;
	ret = llmem_memory_add_page(self->m, size, &page);
	if (ret)
		return pyl_error(ret);
	return PyLong_FromUnsignedLong(page);
}

static PyObject *memory_export_page(struct pyl_memory *self, PyObject *arg)
{
	uint32_t page = 0;
	int fd, ret;

	MEMORY_OPEN(self);
	if (pyl_u32(arg, "page", &page))
		return NULL;
	ret = llmem_memory_export_page(self->m, page, &fd);
	if (ret)
		return pyl_error(ret);
	return PyLong_FromLong(fd);
}

static PyObject *memory_export_page_opaque_fd(struct pyl_memory *self, PyObject *arg)
{
	uint32_t page = 0;
	int fd, ret;

	MEMORY_OPEN(self);
	if (pyl_u32(arg, "page", &page))
		return NULL;
	ret = llmem_memory_export_page_opaque_fd(self->m, page, &fd);
	if (ret)
		return pyl_error(ret);
	return PyLong_FromLong(fd);
}

static PyObject *memory_page_mappable(struct pyl_memory *self, PyObject *arg)
{
	uint32_t page = 0;
	int ret;

	MEMORY_OPEN(self);
	if (pyl_u32(arg, "page", &page))
		return NULL;
	ret = llmem_memory_page_mappable(self->m, page);
	if (ret < 0)
		return pyl_error(ret);
	return PyBool_FromLong(ret);
}

static PyObject *memory_info(struct pyl_memory *self, PyObject *unused)
{
	struct llmem_memory_info i;
	int ret;

	(void)unused;
	MEMORY_OPEN(self);
	ret = llmem_memory_get_info(self->m, &i);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue(
		"{s:I,s:I,s:K,s:I,s:K,s:K,s:I,s:O,s:I,s:I,s:I,s:O,s:K,s:I,s:K}", "flags", i.flags,
		"memory_type_index", i.memory_type_index, "page_size",
		(unsigned long long)i.page_size, "page_count", i.page_count, "bytes_reserved",
		(unsigned long long)i.bytes_reserved, "bytes_in_use",
		(unsigned long long)i.bytes_in_use, "object_count", i.object_count, "mappable",
		i.mappable ? Py_True : Py_False, "mapped_pages", i.mapped_pages, "sharing",
		i.sharing, "backend", i.backend, "coherent", i.coherent ? Py_True : Py_False,
		"non_coherent_atom_size", (unsigned long long)i.non_coherent_atom_size, "options",
		i.options, "max_allocation_size", (unsigned long long)i.max_allocation_size);
}

static PyObject *memory_objects(struct pyl_memory *self, PyObject *unused)
{
	struct llmem_object_info *objs = NULL;
	PyObject *list = NULL;
	int n, cap = 0;

	(void)unused;
	MEMORY_OPEN(self);
	/* The count can grow between the two calls when other threads create. */
	for (;;) {
		n = llmem_memory_list_objects(self->m, objs, (size_t)cap);
		if (n < 0) {
			PyMem_Free(objs);
			return pyl_error(n);
		}
		if (n <= cap)
			break;
		cap = n + 8;
		PyMem_Free(objs);
		objs = PyMem_Calloc((size_t)cap, sizeof(*objs));
		if (!objs)
			return PyErr_NoMemory();
	}
	list = PyList_New(n);
	for (int i = 0; list && i < n; i++) {
		struct llmem_object_info *o = &objs[i];
		PyObject *t = Py_BuildValue("(sKsIKKK)",
					    o->kind == LLMEM_OBJECT_IMAGE ? "image" : "buffer",
					    (unsigned long long)o->id, o->name, o->allocation.page,
					    (unsigned long long)o->allocation.offset,
					    (unsigned long long)o->allocation.left_padding,
					    (unsigned long long)o->allocation.size);

		if (!t) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, t);
	}
	PyMem_Free(objs);
	return list;
}

static PyObject *memory_page_stats(struct pyl_memory *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	static const char *const names[] = { "page", NULL };
	struct llmem_page_stats st;
	uint32_t page = LLMEM_ALL_PAGES;
	PyObject *a[1];
	int ret;

	MEMORY_OPEN(self);
	if (pyl_args("page_stats", args, nargs, kwnames, names, 1, 0, a) ||
	    pyl_u32(a[0], "page", &page))
		return NULL;
	ret = llmem_memory_get_page_stats(self->m, page, &st);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue(
		"{s:I,s:I,s:K,s:K,s:K,s:K,s:K,s:K}", "pages", st.pages, "dedicated_pages",
		st.dedicated_pages, "bytes", (unsigned long long)st.bytes, "used_bytes",
		(unsigned long long)st.used_bytes, "free_bytes", (unsigned long long)st.free_bytes,
		"free_ranges", (unsigned long long)st.free_ranges, "largest_free",
		(unsigned long long)st.largest_free, "objects", (unsigned long long)st.objects);
}

static PyObject *memory_layout_json(struct pyl_memory *self, PyObject *unused)
{
	PyObject *s = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	(void)unused;
	MEMORY_OPEN(self);
	f = open_memstream(&text, &len);
	if (!f)
		return PyErr_SetFromErrno(PyExc_OSError);
	ret = llmem_memory_dump_json(self->m, f);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		pyl_error(ret);
	else
		s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
	free(text);
	return s;
}

static PyObject *memory_get_closed(struct pyl_memory *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->m);
}

static PyObject *memory_get_session(struct pyl_memory *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->session ? (PyObject *)self->session : Py_None);
}

static PyObject *memory_get_name(struct pyl_memory *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->name ? self->name : Py_None);
}

static PyMethodDef memory_methods[] = {
	{ "create_buffer", PYL_FAST(memory_create_buffer), PYL_FASTKW,
	  "create_buffer(size, usage=0, name=None, alignment=0) -> Buffer" },
	{ "create_buffer_from_host", PYL_FAST(memory_create_buffer_from_host), PYL_FASTKW,
	  "create_buffer_from_host(data, usage=0, name=None) -> Buffer holding a copy of data "
	  "(any object with the buffer protocol)" },
	{ "create_buffer_like", PYL_FAST(memory_create_buffer_like), PYL_FASTKW,
	  "create_buffer_like(like, usage=0, name=None) -> Buffer of a buffer's size or an "
	  "image's tightly packed texels" },
	{ "create_image", PYL_FAST(memory_create_image), PYL_FASTKW,
	  "create_image(shape, channel_type=0, usage=0, name=None, order=0, tiling=0) -> Image" },
	{ "create_image_like", PYL_FAST(memory_create_image_like), PYL_FASTKW,
	  "create_image_like(like, usage=0, name=None) -> Image of like's shape, channel type "
	  "and order, tiling and usage (texels not copied)" },
	{ "create_image_from_host", PYL_FAST(memory_create_image_from_host), PYL_FASTKW,
	  "create_image_from_host(data, usage=0, name=None) -> Image of data's shape and "
	  "channel type" },
	{ "import_dmabuf", PYL_FAST(memory_import_dmabuf), PYL_FASTKW,
	  "import_dmabuf(fd, size=0) -> page; the fd stays the caller's" },
	{ "import_host", (PyCFunction)memory_import_host, METH_O,
	  "import_host(data) -> page: writable host memory used in place, held until close()" },
	{ "add_page", (PyCFunction)memory_add_page, METH_O, "add_page(size) -> page" },
	{ "export_page", (PyCFunction)memory_export_page, METH_O,
	  "export_page(page) -> a new DMA-BUF fd, the caller's to close" },
	{ "export_page_opaque_fd", (PyCFunction)memory_export_page_opaque_fd, METH_O,
	  "export_page_opaque_fd(page) -> a new opaque fd, the caller's to close" },
	{ "page_mappable", (PyCFunction)memory_page_mappable, METH_O,
	  "page_mappable(page) -> whether the page can be mapped now" },
	{ "layout_json", (PyCFunction)memory_layout_json, METH_NOARGS,
	  "The layout as llmem_memory_dump_json() writes it." },
	{ "close", (PyCFunction)memory_close, METH_NOARGS,
	  "Frees every page; llmem.Error(EBUSY) naming them while objects live." },
	{ "_info", (PyCFunction)memory_info, METH_NOARGS, "llmem_memory_get_info() as a dict." },
	{ "_objects", (PyCFunction)memory_objects, METH_NOARGS,
	  "llmem_memory_list_objects() as tuples." },
	{ "_page_stats", PYL_FAST(memory_page_stats), PYL_FASTKW,
	  "llmem_memory_get_page_stats() as a dict." },
	{ 0 },
};

static PyGetSetDef memory_getset[] = {
	{ "closed", (getter)memory_get_closed, NULL, "Whether close() was called.", NULL },
	{ "session", (getter)memory_get_session, NULL, "The session.", NULL },
	{ "name", (getter)memory_get_name, NULL, "The debug name.", NULL },
	{ 0 },
};

PyTypeObject pyl_MemoryType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Memory",
	.tp_basicsize = sizeof(struct pyl_memory),
	.tp_dealloc = (destructor)memory_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Pages of one memory type with buffers and images laid out in them "
		  "(Session.create_memory()).",
	.tp_weaklistoffset = offsetof(struct pyl_memory, weakrefs),
	.tp_methods = memory_methods,
	.tp_getset = memory_getset,
};
