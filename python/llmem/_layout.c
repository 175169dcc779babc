// SPDX-License-Identifier: MIT
/*
 * Layouts (_layout.h): dtypes and channel types as item formats, the shapes
 * of exported views (a buffer's items, a linear image's texels with the
 * driver's pitches), and frame layouts with their fourcc.
 */
#include "_layout.h"

#include <string.h>

/* ---- Items ------------------------------------------------------------ */

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

/*
 * The item format of each channel type: the normalised ones store integers.
 * The plain types come first, so that a format names the plain type.
 */
static const char channel_formats[] = {
	[LLMEM_CHANNEL_U8] = 'B',     [LLMEM_CHANNEL_I8] = 'b',	     [LLMEM_CHANNEL_U16] = 'H',
	[LLMEM_CHANNEL_I16] = 'h',    [LLMEM_CHANNEL_U32] = 'I',     [LLMEM_CHANNEL_I32] = 'i',
	[LLMEM_CHANNEL_F16] = 'e',    [LLMEM_CHANNEL_F32] = 'f',     [LLMEM_CHANNEL_UNORM8] = 'B',
	[LLMEM_CHANNEL_SNORM8] = 'b', [LLMEM_CHANNEL_UNORM16] = 'H', [LLMEM_CHANNEL_SNORM16] = 'h',
	[LLMEM_CHANNEL_SRGB8] = 'B',
};

int pyl_channel_type(const char *format)
{
	if (!format)
		return LLMEM_CHANNEL_U8;
	if (*format == '@' || *format == '=' || *format == '<')
		format++;
	if (!format[0] || format[1])
		return -1;
	for (int i = 0; i <= LLMEM_CHANNEL_F32; i++)
		if (channel_formats[i] == format[0])
			return i;
	return -1;
}

/* ---- Views ------------------------------------------------------------ */

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

/*
 * Lluvia's shape, outermost first, with the pitches the driver chose: the
 * dimensions above width step by slice and row pitch, the texel by its
 * size, the channel by the channel's.
 */
void pyl_image_layout(const struct llmem_image *i, uint32_t ndim,
		      const struct llmem_image_mapping *im, struct pyl_layout *l)
{
	Py_ssize_t csize = llmem_image_texel_size(i) / llmem_image_channels(i);
	/* Strides of depth, height, width, channels; the shape keeps its last ndim. */
	const Py_ssize_t strides[4] = { (Py_ssize_t)im->slice_pitch, (Py_ssize_t)im->row_pitch,
					llmem_image_texel_size(i), csize };
	const Py_ssize_t extents[4] = { llmem_image_depth(i), llmem_image_height(i),
					llmem_image_width(i), llmem_image_channels(i) };
	/* (width) and (height, width) have one channel and no channel axis. */
	int first = ndim >= 3 ? 4 - (int)ndim : 3 - (int)ndim;

	memset(l, 0, sizeof(*l));
	l->format[0] = channel_formats[llmem_image_channel_type(i)];
	l->itemsize = csize;
	l->ndim = (int)ndim;
	for (int d = 0; d < l->ndim; d++) {
		int k = first + d;

		/* Without a channel axis the width's step is one channel. */
		l->shape[d] = extents[k];
		l->strides[d] = ndim < 3 && k == 2 ? csize : strides[k];
	}
}

/* ---- Frames ----------------------------------------------------------- */

int pyl_parse_fourcc(PyObject *o, uint32_t *out)
{
	const char *s;

	if (!o || o == Py_None)
		return 0;
	if (!PyUnicode_Check(o))
		return pyl_u32(o, "fourcc", out);
	s = PyUnicode_AsUTF8(o);
	if (!s)
		return -1;
	if (strlen(s) != 4) {
		PyErr_Format(PyExc_ValueError, "fourcc %R is not four characters", o);
		return -1;
	}
	*out = (uint32_t)(uint8_t)s[0] | (uint32_t)(uint8_t)s[1] << 8 |
	       (uint32_t)(uint8_t)s[2] << 16 | (uint32_t)(uint8_t)s[3] << 24;
	return 0;
}

PyObject *pyl_frame_layout_tuple(const struct llmem_frame_layout *l)
{
	PyObject *offsets = PyTuple_New(l->num_planes), *pitches = PyTuple_New(l->num_planes);

	for (uint32_t i = 0; offsets && pitches && i < l->num_planes; i++) {
		PyTuple_SET_ITEM(offsets, i, PyLong_FromUnsignedLongLong(l->offset[i]));
		PyTuple_SET_ITEM(pitches, i, PyLong_FromUnsignedLong(l->pitch[i]));
	}
	if (!offsets || !pitches || PyErr_Occurred()) {
		Py_XDECREF(offsets);
		Py_XDECREF(pitches);
		return NULL;
	}
	return Py_BuildValue("(IIIIKNNKII)", l->fourcc, l->width, l->height, l->num_planes,
			     (unsigned long long)l->modifier, offsets, pitches,
			     (unsigned long long)l->size,
			     l->coded_width ? l->coded_width : l->width,
			     l->coded_height ? l->coded_height : l->height);
}

int pyl_parse_frame_layout(PyObject *o, struct llmem_frame_layout *l)
{
	uint32_t pitches[LLMEM_FRAME_MAX_PLANES] = { 0 };
	PyObject *seq, *offsets;
	Py_ssize_t n;
	int ret = -1;

	memset(l, 0, sizeof(*l));
	/* Eight fields as FrameLayout had before coded sizes: no padding. */
	if (!PyTuple_Check(o) || (PyTuple_GET_SIZE(o) != 8 && PyTuple_GET_SIZE(o) != 10)) {
		PyErr_Format(PyExc_TypeError,
			     "layout must be an llmem.FrameLayout (llmem.frame_layout()), not "
			     "%.200s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	if (pyl_parse_fourcc(PyTuple_GET_ITEM(o, 0), &l->fourcc) ||
	    pyl_u32(PyTuple_GET_ITEM(o, 1), "width", &l->width) ||
	    pyl_u32(PyTuple_GET_ITEM(o, 2), "height", &l->height) ||
	    pyl_u32(PyTuple_GET_ITEM(o, 3), "num_planes", &l->num_planes) ||
	    pyl_u64(PyTuple_GET_ITEM(o, 4), "modifier", UINT64_MAX, &l->modifier) ||
	    pyl_u64(PyTuple_GET_ITEM(o, 7), "size", UINT64_MAX, &l->size))
		return -1;
	if (PyTuple_GET_SIZE(o) == 10 &&
	    (pyl_u32(PyTuple_GET_ITEM(o, 8), "coded_width", &l->coded_width) ||
	     pyl_u32(PyTuple_GET_ITEM(o, 9), "coded_height", &l->coded_height)))
		return -1;
	offsets = PyTuple_GET_ITEM(o, 5);
	if (pyl_u32_seq(PyTuple_GET_ITEM(o, 6), "pitches", pitches, LLMEM_FRAME_MAX_PLANES) < 0)
		return -1;
	memcpy(l->pitch, pitches, sizeof(pitches));
	seq = PySequence_Fast(offsets, "offsets must be a sequence of ints");
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > LLMEM_FRAME_MAX_PLANES) {
		PyErr_SetString(PyExc_ValueError, "more offsets than planes a frame can have");
		goto out;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		if (pyl_u64(PySequence_Fast_GET_ITEM(seq, i), "offsets", UINT64_MAX, &l->offset[i]))
			goto out;
	ret = 0;
out:
	Py_DECREF(seq);
	return ret;
}

PyObject *pyl_frame_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			   PyObject *kwnames)
{
	static const char *const names[] = { "fourcc",	 "width",	    "height",
					     "pitch",	 "pitch_alignment", "plane_alignment",
					     "min_size", "coded_width",	    "coded_height",
					     NULL };
	struct llmem_frame_constraints c = { 0 };
	struct llmem_frame_layout l;
	uint32_t fourcc = 0, width = 0, height = 0;
	PyObject *a[9];
	int ret;

	(void)module;
	if (pyl_args("frame_layout", args, nargs, kwnames, names, 9, 3, a) ||
	    pyl_u32(a[7], "coded_width", &c.coded_width) ||
	    pyl_u32(a[8], "coded_height", &c.coded_height) || pyl_parse_fourcc(a[0], &fourcc) ||
	    pyl_u32(a[1], "width", &width) || pyl_u32(a[2], "height", &height) ||
	    pyl_u32(a[3], "pitch", &c.pitch) ||
	    pyl_u32(a[4], "pitch_alignment", &c.pitch_alignment) ||
	    pyl_u32(a[5], "plane_alignment", &c.plane_alignment) ||
	    pyl_u64(a[6], "min_size", UINT64_MAX, &c.min_size))
		return NULL;
	ret = llmem_frame_layout_init(fourcc, width, height, &c, &l);
	if (ret)
		return pyl_error(ret);
	return pyl_frame_layout_tuple(&l);
}
