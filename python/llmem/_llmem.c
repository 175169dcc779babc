// SPDX-License-Identifier: MIT
/*
 * The _llmem module: its types and their registration, llmem.Error, and the
 * helpers every file of the extension uses to read arguments (integers,
 * names, host memory through the buffer protocol, dtypes) and to raise.
 * The objects themselves live in _session.c (sessions, memories),
 * _objects.c (buffers, images), _mapping.c (mappings), _transfer.c
 * (queues), _event.c (events), _kernel.c (user compute), _share.c
 * (DMA-BUFs, frames, the camera, CUDA) and _dlpack.c.
 *
 * The extension is written against the CPython C API directly: the buffer
 * protocol and DLPack need no header of numpy's, which stays optional.
 */
#include "_llmem.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

PyObject *pyl_Error;

static PyTypeObject *const base_types[PYL_CLASSES] = {
	[PYL_SESSION] = &pyl_SessionType,
	[PYL_MEMORY] = &pyl_MemoryType,
	[PYL_BUFFER] = &pyl_BufferType,
	[PYL_IMAGE] = &pyl_ImageType,
	[PYL_MAPPING] = &pyl_MappingType,
	[PYL_QUEUE] = &pyl_QueueType,
	[PYL_EVENT] = &pyl_EventType,
	[PYL_CAMERA] = &pyl_CameraType,
	[PYL_FRAME] = &pyl_FrameType,
	[PYL_CUDA] = &pyl_CudaType,
	[PYL_CUDA_MEMORY] = &pyl_CudaMemoryType,
	[PYL_USER_EVENT] = &pyl_UserEventType,
	[PYL_IMAGE_VIEW] = &pyl_ImageViewType,
	[PYL_KERNEL] = &pyl_KernelType,
};

/* Strong references to the registered subclasses; NULL: the base type. */
static PyTypeObject *classes[PYL_CLASSES];

PyObject *pyl_alloc(enum pyl_class cls)
{
	PyTypeObject *t = classes[cls] ? classes[cls] : base_types[cls];

	return t->tp_alloc(t, 0);
}

PyObject *pyl_error(int err)
{
	const char *msg = llmem_last_error();
	PyObject *args;

	if (err >= 0)
		err = -EIO;
	if (!msg || !*msg)
		msg = llmem_strerror(err);
	args = Py_BuildValue("(is)", -err, msg);
	if (args) {
		PyErr_SetObject(pyl_Error, args);
		Py_DECREF(args);
	}
	return NULL;
}

PyObject *pyl_error_msg(int err, const char *fmt, ...)
{
	PyObject *msg, *args;
	va_list ap;

	va_start(ap, fmt);
	msg = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	if (!msg)
		return NULL;
	args = Py_BuildValue("(iN)", err, msg);
	if (args) {
		PyErr_SetObject(pyl_Error, args);
		Py_DECREF(args);
	}
	return NULL;
}

PyObject *pyl_closed(const char *what)
{
	PyErr_Format(PyExc_ValueError, "%s is closed", what);
	return NULL;
}

int pyl_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
	     const char *const *names, int npos, int required, PyObject **out)
{
	int n = 0;

	while (names[n])
		out[n++] = NULL;
	if (nargs > npos) {
		PyErr_Format(PyExc_TypeError,
			     "%s() takes at most %d positional argument%s (%zd given)", fn, npos,
			     npos == 1 ? "" : "s", nargs);
		return -1;
	}
	for (Py_ssize_t i = 0; i < nargs; i++)
		out[i] = args[i];
	if (kwnames) {
		for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
			PyObject *key = PyTuple_GET_ITEM(kwnames, k);
			int j = 0;

			while (j < n && PyUnicode_CompareWithASCIIString(key, names[j]))
				j++;
			if (j == n) {
				PyErr_Format(PyExc_TypeError,
					     "%s() got an unexpected keyword argument '%U'", fn,
					     key);
				return -1;
			}
			if (out[j]) {
				PyErr_Format(PyExc_TypeError,
					     "%s() got multiple values for argument '%s'", fn,
					     names[j]);
				return -1;
			}
			out[j] = args[nargs + k];
		}
	}
	for (int j = 0; j < required; j++)
		if (!out[j]) {
			PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fn,
				     names[j]);
			return -1;
		}
	return 0;
}

int pyl_u64(PyObject *o, const char *what, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	PyObject *n;

	if (!o || o == Py_None)
		return 0;
	if (!PyIndex_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be an int, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	n = PyNumber_Index(o);
	if (!n)
		return -1;
	v = PyLong_AsUnsignedLongLong(n);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
			Py_DECREF(n);
			return -1;
		}
		/* Negative, or past 64 bits. */
		PyErr_Clear();
		v = 0;
		max = 0;
		out = NULL;
	}
	if (!out || v > max) {
		PyErr_Format(PyExc_ValueError, "%s is out of range: %S", what, n);
		Py_DECREF(n);
		return -1;
	}
	Py_DECREF(n);
	*out = v;
	return 0;
}

int pyl_u32(PyObject *o, const char *what, uint32_t *out)
{
	uint64_t v = *out;

	if (pyl_u64(o, what, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int pyl_str(PyObject *o, const char *what, const char **out)
{
	if (!o)
		return 0;
	if (o == Py_None) {
		*out = NULL;
		return 0;
	}
	if (!PyUnicode_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a str or None, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = PyUnicode_AsUTF8(o);
	return *out ? 0 : -1;
}

int pyl_bool(PyObject *o, int *out)
{
	int v;

	if (!o)
		return 0;
	v = PyObject_IsTrue(o);
	if (v < 0)
		return -1;
	*out = v;
	return 0;
}

int pyl_u32_seq(PyObject *o, const char *what, uint32_t *out, int max)
{
	PyObject *seq;
	Py_ssize_t n;

	if (!PyTuple_Check(o) && !PyList_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a tuple of ints, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	seq = PySequence_Fast(o, what);
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > max) {
		PyErr_Format(PyExc_ValueError, "%s has %zd values, at most %d are allowed", what, n,
			     max);
		Py_DECREF(seq);
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		if (pyl_u32(PySequence_Fast_GET_ITEM(seq, i), what, &out[i])) {
			Py_DECREF(seq);
			return -1;
		}
	Py_DECREF(seq);
	return (int)n;
}

struct pyl_buffer *pyl_as_buffer(PyObject *o, const char *what)
{
	struct pyl_buffer *b = (struct pyl_buffer *)o;

	if (!PyObject_TypeCheck(o, &pyl_BufferType)) {
		PyErr_Format(PyExc_TypeError, "%s must be an llmem.Buffer, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (!b->b) {
		pyl_closed(what);
		return NULL;
	}
	return b;
}

struct pyl_image *pyl_as_image(PyObject *o, const char *what)
{
	struct pyl_image *i = (struct pyl_image *)o;

	if (!PyObject_TypeCheck(o, &pyl_ImageType)) {
		PyErr_Format(PyExc_TypeError, "%s must be an llmem.Image, not %.200s", what,
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (!i->img) {
		pyl_closed(what);
		return NULL;
	}
	return i;
}

int pyl_get_host(PyObject *o, const char *what, int writable, int c_order, Py_buffer *view)
{
	int flags = (c_order ? PyBUF_C_CONTIGUOUS : PyBUF_ANY_CONTIGUOUS) | PyBUF_FORMAT;

	if (writable)
		flags |= PyBUF_WRITABLE;
	if (!PyObject_CheckBuffer(o)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must support the buffer protocol (bytes, bytearray, memoryview, "
			     "array, numpy array), not %.200s",
			     what, Py_TYPE(o)->tp_name);
		return -1;
	}
	if (PyObject_GetBuffer(o, view, flags)) {
		struct pyl_saved_error saved;
		PyObject *why;

		if (!PyErr_ExceptionMatches(PyExc_BufferError))
			return -1;
		pyl_error_save(&saved);
		why = pyl_error_value(&saved);
		PyErr_Format(PyExc_ValueError, "%s must be %s%s memory: %S", what,
			     writable ? "writable, " : "", c_order ? "C-contiguous" : "contiguous",
			     why ? why : Py_None);
		pyl_error_discard(&saved);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	char format;
	Py_ssize_t size;
} dtypes[] = {
	{ "uint8", 'B', 1 },   { "int8", 'b', 1 },    { "uint16", 'H', 2 },  { "int16", 'h', 2 },
	{ "uint32", 'I', 4 },  { "int32", 'i', 4 },   { "uint64", 'Q', 8 },  { "int64", 'q', 8 },
	{ "float16", 'e', 2 }, { "float32", 'f', 4 }, { "float64", 'd', 8 }, { "bool", '?', 1 },
	{ "u1", 'B', 1 },      { "i1", 'b', 1 },      { "u2", 'H', 2 },	     { "i2", 'h', 2 },
	{ "u4", 'I', 4 },      { "i4", 'i', 4 },      { "u8", 'Q', 8 },	     { "i8", 'q', 8 },
	{ "f2", 'e', 2 },      { "f4", 'f', 4 },      { "f8", 'd', 8 },	     { "b1", '?', 1 },
	{ "B", 'B', 1 },       { "b", 'b', 1 },	      { "H", 'H', 2 },	     { "h", 'h', 2 },
	{ "I", 'I', 4 },       { "i", 'i', 4 },	      { "Q", 'Q', 8 },	     { "q", 'q', 8 },
	{ "L", 'Q', 8 },       { "l", 'q', 8 },	      { "e", 'e', 2 },	     { "f", 'f', 4 },
	{ "d", 'd', 8 },       { "?", '?', 1 },	      { "float", 'd', 8 },   { "int", 'q', 8 },
};

static int parse_dtype_str(PyObject *s, char *format, Py_ssize_t *itemsize)
{
	const char *p = PyUnicode_AsUTF8(s);

	if (!p)
		return -1;
	if (*p == '>' || *p == '!') {
		PyErr_Format(PyExc_ValueError,
			     "dtype %R is big-endian: only native byte order maps", s);
		return -1;
	}
	if (*p == '<' || *p == '=' || *p == '|' || *p == '@')
		p++;
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(p, dtypes[i].name)) {
			format[0] = dtypes[i].format;
			format[1] = '\0';
			*itemsize = dtypes[i].size;
			return 0;
		}
	PyErr_Format(PyExc_ValueError,
		     "unknown dtype %R: one of uint8, int8, uint16, int16, uint32, int32, uint64, "
		     "int64, float16, float32, float64, bool",
		     s);
	return -1;
}

int pyl_parse_dtype(PyObject *dtype, char *format, Py_ssize_t *itemsize)
{
	PyObject *s;
	int ret;

	if (!dtype || dtype == Py_None) {
		format[0] = 'B';
		format[1] = '\0';
		*itemsize = 1;
		return 0;
	}
	if (PyUnicode_Check(dtype))
		return parse_dtype_str(dtype, format, itemsize);
	/* A numpy dtype says '<f4' in .str; a scalar type is named 'float32'. */
	if (PyType_Check(dtype))
		s = PyObject_GetAttrString(dtype, "__name__");
	else
		s = PyObject_GetAttrString(dtype, "str");
	if (!s || !PyUnicode_Check(s)) {
		Py_XDECREF(s);
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError,
			     "dtype must be a str, a numpy dtype or scalar type, not %.200s",
			     Py_TYPE(dtype)->tp_name);
		return -1;
	}
	ret = parse_dtype_str(s, format, itemsize);
	Py_DECREF(s);
	return ret;
}

int pyl_channel_type(const char *format)
{
	static const char channels[] = {
		[LLMEM_CHANNEL_U8] = 'B',  [LLMEM_CHANNEL_I8] = 'b',  [LLMEM_CHANNEL_U16] = 'H',
		[LLMEM_CHANNEL_I16] = 'h', [LLMEM_CHANNEL_U32] = 'I', [LLMEM_CHANNEL_I32] = 'i',
		[LLMEM_CHANNEL_F16] = 'e', [LLMEM_CHANNEL_F32] = 'f'
	};

	if (!format)
		return LLMEM_CHANNEL_U8;
	if (*format == '@' || *format == '=' || *format == '<')
		format++;
	if (!format[0] || format[1])
		return -1;
	for (int i = 0; i < (int)sizeof(channels); i++)
		if (channels[i] == format[0])
			return i;
	return -1;
}

Py_ssize_t pyl_channel_size(uint32_t channel_type)
{
	static const Py_ssize_t sizes[] = { 1, 1, 2, 2, 4, 4, 2, 4 };

	return channel_type < 8 ? sizes[channel_type] : 0;
}

int pyl_layout_init(struct pyl_layout *l, const char *format, Py_ssize_t itemsize, PyObject *shape,
		    Py_ssize_t len)
{
	Py_ssize_t total = itemsize;

	memset(l, 0, sizeof(*l));
	l->format[0] = format[0];
	l->itemsize = itemsize;
	if (!shape || shape == Py_None) {
		if (len % itemsize) {
			PyErr_Format(PyExc_ValueError,
				     "%zd bytes are not a whole number of %zd-byte items", len,
				     itemsize);
			return -1;
		}
		l->ndim = 1;
		l->shape[0] = len / itemsize;
		l->strides[0] = itemsize;
		return 0;
	}
	if (PyIndex_Check(shape)) {
		uint64_t n = 0;

		if (pyl_u64(shape, "shape", PY_SSIZE_T_MAX, &n))
			return -1;
		l->ndim = 1;
		l->shape[0] = (Py_ssize_t)n;
	} else {
		uint32_t dims[PYL_MAX_DIMS];
		int n = pyl_u32_seq(shape, "shape", dims, PYL_MAX_DIMS);

		if (n < 0)
			return -1;
		l->ndim = n;
		for (int i = 0; i < n; i++)
			l->shape[i] = dims[i];
	}
	for (int i = l->ndim - 1; i >= 0 && total <= len; i--) {
		l->strides[i] = total;
		if (l->shape[i] && total > len / l->shape[i])
			total = len + 1;
		else
			total *= l->shape[i];
	}
	if (total > len) {
		PyErr_Format(PyExc_ValueError,
			     "shape %R of %zd-byte items does not fit in the %zd bytes mapped",
			     shape, itemsize, len);
		return -1;
	}
	return 0;
}

static PyObject *mod_register(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	static const char *const names[] = { "Session",	  "Memory", "Buffer",	  "Image",
					     "Mapping",	  "Queue",  "Event",	  "Camera",
					     "Frame",	  "Cuda",   "CudaMemory", "UserEvent",
					     "ImageView", "Kernel", NULL };
	PyObject *cls[PYL_CLASSES];

	(void)module;
	if (pyl_args("_register", args, nargs, kwnames, names, 0, 0, cls))
		return NULL;
	for (int i = 0; i < PYL_CLASSES; i++) {
		if (!cls[i])
			continue;
		if (!PyType_Check(cls[i]) ||
		    !PyType_IsSubtype((PyTypeObject *)cls[i], base_types[i])) {
			PyErr_Format(PyExc_TypeError, "_register: %s must subclass _llmem.%s",
				     names[i], names[i]);
			return NULL;
		}
	}
	for (int i = 0; i < PYL_CLASSES; i++) {
		if (!cls[i])
			continue;
		Py_INCREF(cls[i]);
		Py_XSETREF(classes[i], (PyTypeObject *)cls[i]);
	}
	Py_RETURN_NONE;
}

static PyObject *mod_strerror(PyObject *module, PyObject *arg)
{
	long err = PyLong_AsLong(arg);

	(void)module;
	if (err == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(llmem_strerror((int)(err > 0 ? -err : err)));
}

PyObject *pyl_frame_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			   PyObject *kwnames);
PyObject *pyl_backend_names(PyObject *module, PyObject *unused);

static PyMethodDef module_methods[] = {
	{ "_register", PYL_FAST(mod_register), PYL_FASTKW,
	  "Registers the Python layer's subclasses as the classes to instantiate." },
	{ "strerror", mod_strerror, METH_O, "strerror(errno): llmem_strerror() of an errno." },
	{ "frame_layout", PYL_FAST(pyl_frame_layout), PYL_FASTKW,
	  "frame_layout(fourcc, width, height, pitch=0, pitch_alignment=0, plane_alignment=0, "
	  "min_size=0): llmem_frame_layout_init() as a tuple." },
	{ "backend_names", pyl_backend_names, METH_NOARGS,
	  "The names of enum llmem_backend, by value." },
	{ "wait_for_events", PYL_FAST(pyl_wait_for_events), PYL_FASTKW,
	  "wait_for_events(events, timeout=None) -> True once every event is done, False when "
	  "the timeout in seconds passed first (llmem_event_wait_all())" },
	{ "_bench_c", PYL_FAST(pyl_bench_c), PYL_FASTKW,
	  "_bench_c(memory, op, n, size=4096): nanoseconds of n iterations of op "
	  "('create' or 'map') in a C loop." },
	{ 0 },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "llmem._llmem",
	.m_doc = "libllmem for Python: the C objects under the llmem package.",
	.m_size = -1,
	.m_methods = module_methods,
};

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
	if (PyType_Ready(t))
		return -1;
	Py_INCREF(t);
	if (PyModule_AddObject(m, name, (PyObject *)t)) {
		Py_DECREF(t);
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__llmem(void)
{
	static const char *const names[PYL_CLASSES] = {
		"Session", "Memory", "Buffer", "Image",	     "Mapping",	  "Queue",     "Event",
		"Camera",  "Frame",  "Cuda",   "CudaMemory", "UserEvent", "ImageView", "Kernel",
	};
	PyObject *m = PyModule_Create(&module_def);

	if (!m)
		return NULL;
	pyl_Error = PyErr_NewExceptionWithDoc(
		"llmem.Error",
		"A libllmem call failed: .errno is its errno, .strerror llmem_last_error().",
		PyExc_OSError, NULL);
	if (!pyl_Error)
		goto fail;
	Py_INCREF(pyl_Error);
	if (PyModule_AddObject(m, "Error", pyl_Error)) {
		Py_DECREF(pyl_Error);
		goto fail;
	}
	for (int i = 0; i < PYL_CLASSES; i++)
		if (add_type(m, base_types[i], names[i]))
			goto fail;
	if (PyModule_AddIntConstant(m, "DEFAULT_PAGE_SIZE", LLMEM_MEMORY_DEFAULT_PAGE_SIZE) ||
	    PyModule_AddIntConstant(m, "MAX_DIMS", PYL_MAX_DIMS) || pyl_share_init(m))
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
