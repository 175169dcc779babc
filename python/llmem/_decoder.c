// SPDX-License-Identifier: MIT
/*
 * Bitstream sources and the decoder with its frames.
 *
 * A decoder frame's views (its planes, its RGBA) point into buffers the
 * decoder frees at a source change, which it follows only once no frame is
 * held.  So a frame the caller lets go of while views of it live stays held
 * by the decoder until the last view is gone: the views never dangle, and
 * the decoder says EBUSY when too many frames are kept that way.  A frame
 * lets go of itself when the next one is taken, when it leaves a with
 * block, or when it is dropped.
 */
#include "_codec.h"
#include "_layout.h"
#include "_mapping.h"
#include "_session.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <llmem/codec.h>

struct pyl_bitstream {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_bitstream *b;
	/* Open decoders reading it: close() refuses meanwhile. */
	Py_ssize_t decoders;
};

struct pyl_decoder {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_decoder *d;
	struct pyl_session *session;
	struct pyl_bitstream *source;
	/* The frame handed out last and not yet let go of, or NULL. */
	PyObject *held;
	/* Live views of its frames. */
	Py_ssize_t views;
	int busy;
	int timeout_ms;
};

struct pyl_decoded_frame {
	PyObject_HEAD PyObject *weakrefs;
	struct pyl_decoder *decoder;
	struct llmem_codec_frame f;
	struct llmem_frame_layout rgba_layout;
	/* The caller let go of it; the decoder still holds it (views live). */
	int released, held;
	/* Live views of it; the mappings' own count of them. */
	Py_ssize_t live, mapped;
};

int pyl_codec_timeout(PyObject *o, int *ms)
{
	double t;

	if (!o)
		return 0;
	if (o == Py_None) {
		*ms = -1;
		return 0;
	}
	t = PyFloat_AsDouble(o);
	if (t == -1.0 && PyErr_Occurred())
		return -1;
	if (!(t >= 0)) {
		PyErr_SetString(PyExc_ValueError, "timeout must be None or seconds >= 0");
		return -1;
	}
	*ms = t * 1e3 > INT32_MAX ? INT32_MAX : (int)lround(t * 1e3);
	return 0;
}

/* Bitstream */

static void bitstream_dealloc(struct pyl_bitstream *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Decoders hold their source: none is left. */
	llmem_bitstream_close(self->b);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *bitstream_open_fwht(PyObject *cls, PyObject *arg)
{
	struct pyl_bitstream *self;
	PyObject *path = NULL;
	int ret;

	/* str, bytes or os.PathLike; ValueError for one holding a NUL. */
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	self = (struct pyl_bitstream *)((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
	if (!self) {
		Py_DECREF(path);
		return NULL;
	}
	PYL_NOGIL(ret = llmem_bitstream_open_fwht(PyBytes_AS_STRING(path), &self->b));
	Py_DECREF(path);
	if (ret) {
		Py_DECREF(self);
		return pyl_error(ret);
	}
	return (PyObject *)self;
}

static PyObject *bitstream_close(struct pyl_bitstream *self, PyObject *unused)
{
	(void)unused;
	if (self->decoders)
		return pyl_error_msg(EBUSY,
				     "bitstream is read by %zd open decoder%s: close %s first",
				     self->decoders, self->decoders == 1 ? "" : "s",
				     self->decoders == 1 ? "it" : "them");
	llmem_bitstream_close(self->b);
	self->b = NULL;
	Py_RETURN_NONE;
}

enum bitstream_field {
	BS_FOURCC,
	BS_WIDTH,
	BS_HEIGHT,
	BS_FLAGS,
	BS_UNITS,
	BS_READ,
	BS_BYTES,
	BS_MAX_UNIT,
};

static PyObject *bitstream_get_field(struct pyl_bitstream *self, void *closure)
{
	struct llmem_bitstream_info i;

	if (!self->b)
		return pyl_closed("bitstream");
	llmem_bitstream_get_info(self->b, &i);
	switch ((enum bitstream_field)(intptr_t)closure) {
	case BS_FOURCC:
		return PyLong_FromUnsignedLong(i.coded_fourcc);
	case BS_WIDTH:
		return PyLong_FromUnsignedLong(i.width);
	case BS_HEIGHT:
		return PyLong_FromUnsignedLong(i.height);
	case BS_FLAGS:
		return PyLong_FromUnsignedLong(i.flags);
	case BS_UNITS:
		return PyLong_FromUnsignedLong(i.units);
	case BS_READ:
		return PyLong_FromUnsignedLong(i.read);
	case BS_BYTES:
		return PyLong_FromUnsignedLongLong(i.bytes);
	case BS_MAX_UNIT:
		return PyLong_FromUnsignedLongLong(i.max_unit);
	}
	Py_RETURN_NONE;
}

static PyObject *bitstream_get_closed(struct pyl_bitstream *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->b);
}

static PyMethodDef bitstream_methods[] = {
	{ "open_fwht", bitstream_open_fwht, METH_O | METH_CLASS,
	  "open_fwht(path) -> Bitstream: a file of FWHT frames (as `llmem encode` writes "
	  "them); llmem.Error(EINVAL) for an empty file or one that is not whole frames." },
	{ "close", (PyCFunction)bitstream_close, METH_NOARGS,
	  "Closes the file; llmem.Error(EBUSY) while a decoder reads it." },
	{ 0 },
};

#define BS_FIELD(name, field, doc)                                                      \
	{                                                                               \
		name, (getter)bitstream_get_field, NULL, doc, (void *)(intptr_t)(field) \
	}

static PyGetSetDef bitstream_getset[] = {
	{ "closed", (getter)bitstream_get_closed, NULL, "Whether close() was called.", NULL },
	BS_FIELD("fourcc", BS_FOURCC, "V4L2 pixel format of the units."),
	BS_FIELD("width", BS_WIDTH, "Pixels of the first unit's frame."),
	BS_FIELD("height", BS_HEIGHT, "Pixels of the first unit's frame."),
	BS_FIELD("flags", BS_FLAGS, "The first unit's header flags (V4L2_FWHT_FL_*)."),
	BS_FIELD("units", BS_UNITS, "Units (frames) in the source."),
	BS_FIELD("read", BS_READ, "Units read so far."),
	BS_FIELD("bytes", BS_BYTES, "Bytes of the whole source."),
	BS_FIELD("max_unit", BS_MAX_UNIT, "Bytes of the largest unit."),
	{ 0 },
};

PyTypeObject pyl_BitstreamType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Bitstream",
	.tp_basicsize = sizeof(struct pyl_bitstream),
	.tp_dealloc = (destructor)bitstream_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A bitstream source a Decoder reads (Bitstream.open_fwht(path)).",
	.tp_weaklistoffset = offsetof(struct pyl_bitstream, weakrefs),
	.tp_methods = bitstream_methods,
	.tp_getset = bitstream_getset,
};

/* DecodedFrame */

/* Gives the frame back to the decoder.  Return: 0 or a negative errno. */
static int frame_give_back(struct pyl_decoded_frame *self)
{
	struct pyl_decoder *dec = self->decoder;

	if (!self->held)
		return 0;
	self->held = 0;
	/* Closing the decoder took every frame back. */
	if (!dec->d)
		return 0;
	return llmem_decoder_release(dec->d, &self->f);
}

/* The caller lets go of the frame: back to the decoder now, or when its
 * last view is gone.  0 or -1 with an exception. */
static int frame_release(struct pyl_decoded_frame *self)
{
	int ret;

	if (self->released)
		return 0;
	self->released = 1;
	if (self->decoder->held == (PyObject *)self)
		self->decoder->held = NULL;
	if (self->live)
		return 0;
	ret = frame_give_back(self);
	if (ret) {
		pyl_error(ret);
		return -1;
	}
	return 0;
}

static void frame_dealloc(struct pyl_decoded_frame *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Views hold their frame: none is left. */
	if (self->decoder && frame_release(self))
		PyErr_WriteUnraisable((PyObject *)self);
	Py_CLEAR(self->decoder);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *frame_close(struct pyl_decoded_frame *self, PyObject *unused)
{
	(void)unused;
	if (self->decoder->busy)
		return pyl_error_msg(EBUSY, "decoder is in use by another thread");
	if (frame_release(self))
		return NULL;
	Py_RETURN_NONE;
}

/* The last view of a frame let go of after the frame was: it goes back. */
static int frame_view_gone(PyObject *owner)
{
	struct pyl_decoded_frame *self = (struct pyl_decoded_frame *)owner;

	self->live--;
	self->decoder->views--;
	return !self->live && self->released ? frame_give_back(self) : 0;
}

static const struct pyl_mapping_ops frame_mapping = {
	/* Neither a buffer nor an image: Mapping.buffer and .image are None. */
	.owner = PYL_CAMERA,
	.readonly = 1,
	.unmap = frame_view_gone,
};

static PyObject *frame_view(struct pyl_decoded_frame *self, const void *ptr,
			    const struct pyl_layout *layout)
{
	self->live++;
	self->decoder->views++;
	return pyl_mapping_new((PyObject *)self, &frame_mapping, &self->mapped, (void *)ptr, layout,
			       0);
}

static PyObject *frame_plane(struct pyl_decoded_frame *self, uint32_t p)
{
	struct pyl_layout layout = {
		.format = "B",
		.itemsize = 1,
		.ndim = 1,
		.shape = { self->f.bytesused[p] },
		.strides = { 1 },
	};

	if (!self->f.data[p])
		return pyl_error_msg(ENOTSUP, "plane %u of the frame is not mapped", p);
	return frame_view(self, self->f.data[p], &layout);
}

#define FRAME_LIVE(self)                                                      \
	do {                                                                  \
		if ((self)->released || !(self)->held || !(self)->decoder->d) \
			return pyl_closed("frame (released)");                \
	} while (0)

static PyObject *frame_get_data(struct pyl_decoded_frame *self, void *closure)
{
	(void)closure;
	FRAME_LIVE(self);
	return frame_plane(self, 0);
}

static PyObject *frame_get_planes(struct pyl_decoded_frame *self, void *closure)
{
	PyObject *t;

	(void)closure;
	FRAME_LIVE(self);
	t = PyTuple_New(self->f.num_planes);
	for (uint32_t p = 0; t && p < self->f.num_planes; p++) {
		PyObject *m = frame_plane(self, p);

		if (!m) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, p, m);
	}
	return t;
}

static PyObject *frame_get_rgba(struct pyl_decoded_frame *self, void *closure)
{
	const struct llmem_frame_layout *l = &self->rgba_layout;
	struct pyl_layout layout = {
		.format = "B",
		.itemsize = 1,
		.ndim = 3,
		.shape = { l->height, l->width, 4 },
		.strides = { l->pitch[0], 4, 1 },
	};

	(void)closure;
	FRAME_LIVE(self);
	if (!self->f.rgba_data)
		Py_RETURN_NONE;
	return frame_view(self, (const char *)self->f.rgba_data + l->offset[0], &layout);
}

static PyObject *frame_get_released(struct pyl_decoded_frame *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->released);
}

static PyObject *frame_get_decoder(struct pyl_decoded_frame *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->decoder);
}

static PyObject *frame_get_bytesused(struct pyl_decoded_frame *self, void *closure)
{
	PyObject *t = PyTuple_New(self->f.num_planes);

	(void)closure;
	for (uint32_t p = 0; t && p < self->f.num_planes; p++) {
		PyObject *n = PyLong_FromUnsignedLong(self->f.bytesused[p]);

		if (!n) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, p, n);
	}
	return t;
}

enum frame_field {
	FRAME_ID,
	FRAME_INDEX,
	FRAME_FLAGS,
	FRAME_SEQUENCE,
	FRAME_GENERATION,
	FRAME_NUM_PLANES,
	FRAME_LAST,
	FRAME_CORRUPTED,
};

static PyObject *frame_get_field(struct pyl_decoded_frame *self, void *closure)
{
	switch ((enum frame_field)(intptr_t)closure) {
	case FRAME_ID:
		return PyLong_FromUnsignedLongLong(self->f.id);
	case FRAME_INDEX:
		return PyLong_FromUnsignedLong(self->f.index);
	case FRAME_FLAGS:
		return PyLong_FromUnsignedLong(self->f.flags);
	case FRAME_SEQUENCE:
		return PyLong_FromUnsignedLong(self->f.sequence);
	case FRAME_GENERATION:
		return PyLong_FromUnsignedLong(self->f.generation);
	case FRAME_NUM_PLANES:
		return PyLong_FromUnsignedLong(self->f.num_planes);
	case FRAME_LAST:
		return PyBool_FromLong(self->f.flags & LLMEM_CODEC_BUF_LAST);
	case FRAME_CORRUPTED:
		return PyBool_FromLong(self->f.flags & LLMEM_CODEC_BUF_ERROR);
	}
	Py_RETURN_NONE;
}

static PyMethodDef frame_methods[] = {
	{ "close", (PyCFunction)frame_close, METH_NOARGS,
	  "Lets go of the frame (what the next frame, or a with block's end, does by itself); "
	  "the decoder takes it back once no view of it is left." },
	{ 0 },
};

#define FRAME_FIELD(name, field, doc)                                               \
	{                                                                           \
		name, (getter)frame_get_field, NULL, doc, (void *)(intptr_t)(field) \
	}

static PyGetSetDef frame_getset[] = {
	{ "data", (getter)frame_get_data, NULL,
	  "Plane 0's bytes, a read-only view without a copy (the Mapping of planes[0]).", NULL },
	{ "planes", (getter)frame_get_planes, NULL,
	  "Each memory plane's bytes, read-only views without a copy.", NULL },
	{ "rgba", (getter)frame_get_rgba, NULL,
	  "The frame converted to RGBA, a read-only (height, width, 4) uint8 view, or None "
	  "without conversion; the conversion of a later frame may overwrite it.",
	  NULL },
	{ "bytesused", (getter)frame_get_bytesused, NULL, "Bytes of data in each plane.", NULL },
	{ "released", (getter)frame_get_released, NULL, "Whether it was let go of.", NULL },
	{ "decoder", (getter)frame_get_decoder, NULL, "The decoder.", NULL },
	FRAME_FIELD("id", FRAME_ID, "The ordinal of the bitstream unit it was decoded from."),
	FRAME_FIELD("index", FRAME_INDEX, "The decoder's buffer it came in."),
	FRAME_FIELD("flags", FRAME_FLAGS, "enum llmem_codec_buffer_flags."),
	FRAME_FIELD("sequence", FRAME_SEQUENCE, "The driver's counter."),
	FRAME_FIELD("generation", FRAME_GENERATION,
		    "Formats followed so far: 1 for the stream's first, one more at each change."),
	FRAME_FIELD("num_planes", FRAME_NUM_PLANES, "Memory planes."),
	FRAME_FIELD("last", FRAME_LAST, "The last frame of the stream."),
	FRAME_FIELD("corrupted", FRAME_CORRUPTED, "The driver flagged the data corrupt."),
	{ 0 },
};

PyTypeObject pyl_DecodedFrameType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.DecodedFrame",
	.tp_basicsize = sizeof(struct pyl_decoded_frame),
	.tp_dealloc = (destructor)frame_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A decoded frame (Decoder.next()).",
	.tp_weaklistoffset = offsetof(struct pyl_decoded_frame, weakrefs),
	.tp_methods = frame_methods,
	.tp_getset = frame_getset,
};

/* Decoder */

static PyObject *decoder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session",      "source",
			      "device",	      "format",
			      "frames",	      "bitstream_buffers",
			      "convert",      "rgba_format",
			      "rgba_buffers", "rgba_pitch_alignment",
			      "shared_rgba",  "backend",
			      "timeout",      NULL };
	struct llmem_decoder_create_info ci = { 0 };
	PyObject *session, *source, *device = NULL, *format = NULL, *frames = NULL,
				    *bitstream_buffers = NULL, *convert = NULL, *rgba_format = NULL,
				    *rgba_buffers = NULL, *rgba_pitch_alignment = NULL,
				    *shared_rgba = NULL, *backend = NULL, *timeout = NULL;
	struct pyl_decoder *self;
	struct pyl_bitstream *src;
	struct pyl_session *s;
	int conv = 0, shared = 0, ms = 5000, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOOOOOOOOOO:Decoder", kw, &session,
					 &source, &device, &format, &frames, &bitstream_buffers,
					 &convert, &rgba_format, &rgba_buffers,
					 &rgba_pitch_alignment, &shared_rgba, &backend, &timeout))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	src = pyl_instance(source, &pyl_BitstreamType, "source", "a Bitstream");
	if (!src)
		return NULL;
	if (!src->b)
		return pyl_closed("bitstream");
	if (pyl_str(device, "device", &ci.device) || pyl_parse_fourcc(format, &ci.fourcc) ||
	    pyl_u32(frames, "frames", &ci.frames) ||
	    pyl_u32(bitstream_buffers, "bitstream_buffers", &ci.bitstream_buffers) ||
	    pyl_bool(convert, &conv) || pyl_parse_fourcc(rgba_format, &ci.rgba_fourcc) ||
	    pyl_u32(rgba_buffers, "rgba_buffers", &ci.rgba_buffers) ||
	    pyl_u32(rgba_pitch_alignment, "rgba_pitch_alignment", &ci.rgba_pitch_alignment) ||
	    pyl_bool(shared_rgba, &shared) || pyl_backend(backend, &ci.backend) ||
	    pyl_codec_timeout(timeout, &ms))
		return NULL;
	ci.source = src->b;
	ci.flags = (conv ? LLMEM_DECODER_CONVERT : 0) | (shared ? LLMEM_DECODER_SHARED_RGBA : 0);
	self = (struct pyl_decoder *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->timeout_ms = ms;
	/* Counted before the GIL goes, so neither can close meanwhile. */
	self->session = (struct pyl_session *)Py_NewRef(s);
	s->codecs++;
	self->source = (struct pyl_bitstream *)Py_NewRef(src);
	src->decoders++;
	PYL_NOGIL(ret = llmem_decoder_open(s->s, &ci, &self->d));
	if (ret) {
		pyl_error(ret);
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

static void decoder_destroy(struct pyl_decoder *self)
{
	struct llmem_decoder *d = self->d;

	if (self->held) {
		struct pyl_decoded_frame *f = (struct pyl_decoded_frame *)self->held;

		f->released = 1;
		f->held = 0;
		self->held = NULL;
	}
	self->d = NULL;
	PYL_NOGIL(llmem_decoder_close(d));
	self->session->codecs--;
	Py_CLEAR(self->session);
	self->source->decoders--;
	Py_CLEAR(self->source);
}

static void decoder_dealloc(struct pyl_decoder *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Frames and views hold the decoder: none is left. */
	if (self->session)
		decoder_destroy(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define DECODER_OPEN(self)                                                                  \
	do {                                                                                \
		if (!(self)->d)                                                             \
			return pyl_closed("decoder");                                       \
		if ((self)->busy)                                                           \
			return pyl_error_msg(EBUSY, "decoder is in use by another thread"); \
	} while (0)

static PyObject *decoder_close(struct pyl_decoder *self, PyObject *unused)
{
	(void)unused;
	if (!self->d)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "decoder is in use by another thread");
	if (self->views)
		return pyl_error_msg(EBUSY,
				     "decoder has %zd live view%s of its frames: drop the arrays "
				     "made from frame.data, .planes and .rgba (copy what you "
				     "keep) first",
				     self->views, self->views == 1 ? "" : "s");
	decoder_destroy(self);
	Py_RETURN_NONE;
}

static PyObject *decoder_start(struct pyl_decoder *self, PyObject *const *args, Py_ssize_t nargs,
			       PyObject *kwnames)
{
	static const char *const names[] = { "timeout", NULL };
	int ms = self->timeout_ms, ret;
	PyObject *a[1];

	if (pyl_args("start", args, nargs, kwnames, names, 1, 0, a) || pyl_codec_timeout(a[0], &ms))
		return NULL;
	DECODER_OPEN(self);
	self->busy = 1;
	PYL_NOGIL(ret = llmem_decoder_start(self->d, ms));
	self->busy = 0;
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

/* The next frame, or NULL with llmem.Error (ENODATA after the last); NULL
 * without an exception there when @iterating, which ends the iteration. */
static PyObject *decoder_take(struct pyl_decoder *self, int ms, int iterating)
{
	struct pyl_decoded_frame *frame;
	struct llmem_decoder_info info;
	struct llmem_codec_frame f;
	int ret;

	DECODER_OPEN(self);
	if (self->held && frame_release((struct pyl_decoded_frame *)self->held))
		return NULL;
	frame = (struct pyl_decoded_frame *)pyl_alloc(PYL_DECODED_FRAME);
	if (!frame)
		return NULL;
	self->busy = 1;
	PYL_NOGIL(ret = llmem_decoder_next(self->d, ms, &f));
	self->busy = 0;
	if (ret) {
		Py_DECREF(frame);
		if (ret == -ENODATA)
			return iterating ? NULL : pyl_error_msg(ENODATA, "the stream has ended");
		return pyl_error(ret);
	}
	llmem_decoder_get_info(self->d, &info);
	frame->decoder = (struct pyl_decoder *)Py_NewRef(self);
	frame->f = f;
	frame->rgba_layout = info.rgba_layout;
	frame->held = 1;
	self->held = (PyObject *)frame;
	return (PyObject *)frame;
}

static PyObject *decoder_next(struct pyl_decoder *self, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	static const char *const names[] = { "timeout", NULL };
	int ms = self->timeout_ms;
	PyObject *a[1];

	if (pyl_args("next", args, nargs, kwnames, names, 1, 0, a) || pyl_codec_timeout(a[0], &ms))
		return NULL;
	return decoder_take(self, ms, 0);
}

static PyObject *decoder_iternext(struct pyl_decoder *self)
{
	return decoder_take(self, self->timeout_ms, 1);
}

static PyObject *decoder_iter(struct pyl_decoder *self)
{
	return Py_NewRef(self);
}

static PyObject *decoder_info(struct pyl_decoder *self, PyObject *unused)
{
	struct llmem_decoder_info i;
	const struct llmem_codec_format *f = &i.format;

	(void)unused;
	if (!self->d)
		return pyl_closed("decoder");
	llmem_decoder_get_info(self->d, &i);
	return Py_BuildValue(
		"{s:s,s:s,s:I,s:I,s:I,s:I,s:(IIII),s:(IIII),s:N,s:N,s:I,s:I,s:I,s:I,"
		"s:I,s:I,s:I}",
		"device", i.device, "driver", i.driver, "fourcc", f->fourcc, "width", f->width,
		"height", f->height, "num_planes", f->num_planes, "sizeimage", f->sizeimage[0],
		f->sizeimage[1], f->sizeimage[2], f->sizeimage[3], "bytesperline",
		f->bytesperline[0], f->bytesperline[1], f->bytesperline[2], f->bytesperline[3],
		"layout", pyl_frame_layout_tuple(&i.layout), "rgba_layout",
		pyl_frame_layout_tuple(&i.rgba_layout), "frames", i.frames, "rgba_buffers",
		i.rgba_buffers, "flags", i.flags, "backend", i.backend, "source_changes",
		i.source_changes, "units_fed", i.units_fed, "frames_decoded", i.frames_decoded);
}

static PyObject *decoder_get_closed(struct pyl_decoder *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->d);
}

static PyObject *decoder_get_views(struct pyl_decoder *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->views);
}

static PyObject *decoder_get_session(struct pyl_decoder *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->session ? (PyObject *)self->session : Py_None);
}

static PyObject *decoder_get_source(struct pyl_decoder *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->source ? (PyObject *)self->source : Py_None);
}

static PyMethodDef decoder_methods[] = {
	{ "start", PYL_FAST(decoder_start), PYL_FASTKW,
	  "start(timeout=<the decoder's>): feeds the stream until the decoder knows its "
	  "format and sets its frames up (next() does it when it was not called)" },
	{ "next", PYL_FAST(decoder_next), PYL_FASTKW,
	  "next(timeout=<the decoder's>) -> DecodedFrame: lets go of the frame held and "
	  "decodes the next one (seconds; None waits forever); llmem.Error(ENODATA) after "
	  "the last" },
	{ "close", (PyCFunction)decoder_close, METH_NOARGS,
	  "Closes; llmem.Error(EBUSY) while views of its frames live." },
	{ "_info", (PyCFunction)decoder_info, METH_NOARGS, "llmem_decoder_get_info() as a dict." },
	{ 0 },
};

static PyGetSetDef decoder_getset[] = {
	{ "closed", (getter)decoder_get_closed, NULL, "Whether close() was called.", NULL },
	{ "views", (getter)decoder_get_views, NULL, "Live views of its frames.", NULL },
	{ "session", (getter)decoder_get_session, NULL, "The session.", NULL },
	{ "source", (getter)decoder_get_source, NULL, "The bitstream source.", NULL },
	{ 0 },
};

PyTypeObject pyl_DecoderType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Decoder",
	.tp_basicsize = sizeof(struct pyl_decoder),
	.tp_dealloc = (destructor)decoder_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Decoder(session, source, device=None, format=None, frames=0, "
		  "bitstream_buffers=0, convert=False, rgba_format=None, rgba_buffers=0, "
		  "rgba_pitch_alignment=0, shared_rgba=False, backend=None, timeout=5.0): a "
		  "stateful decoder reading a Bitstream; iterating it yields the frames until "
		  "the stream ends.",
	.tp_weaklistoffset = offsetof(struct pyl_decoder, weakrefs),
	.tp_iter = (getiterfunc)decoder_iter,
	.tp_iternext = (iternextfunc)decoder_iternext,
	.tp_methods = decoder_methods,
	.tp_getset = decoder_getset,
	.tp_new = decoder_new,
};
