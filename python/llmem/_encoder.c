// SPDX-License-Identifier: MIT
/*
 * The encoder with its own frames and its packets.
 *
 * An encoder counts the views of its frames and packets: it refuses close()
 * (EBUSY) while they live, since its buffers would go under them.  A packet
 * gives its buffer back when the next one is pulled, when it leaves a with
 * block, or when it is dropped; the buffer's next packet overwrites views
 * of it.  Frames are pushed as the encoder's own (get_frame()), a camera's
 * Frame (by its DMA-BUFs), or bytes, copied into a frame of the encoder's.
 */
#include "_camera.h"
#include "_codec.h"
#include "_layout.h"
#include "_mapping.h"
#include "_session.h"

#include <errno.h>
#include <string.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>

struct pyl_encoder {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_encoder *e;
	struct pyl_session *session;
	struct llmem_encoder_info info;
	/* The packet pulled last and not yet released, or NULL. */
	PyObject *held;
	/* A frame of its own that bytes were to go in and that was never
	 * pushed: the next bytes go in it. */
	struct llmem_codec_frame spare;
	int has_spare;
	/* Live views of its frames and packets. */
	Py_ssize_t views;
	int busy;
	int timeout_ms;
};

struct pyl_encoder_frame {
	PyObject_HEAD PyObject *weakrefs;
	struct pyl_encoder *encoder;
	struct llmem_codec_frame f;
};

struct pyl_packet {
	PyObject_HEAD PyObject *weakrefs;
	struct pyl_encoder *encoder;
	struct llmem_codec_packet p;
	int released;
};

/* Views of the encoder's buffers, counted by the encoder. */
static const struct pyl_mapping_ops frame_mapping = {
	/* Neither a buffer nor an image: Mapping.buffer and .image are None. */
	.owner = PYL_CAMERA,
};

static const struct pyl_mapping_ops packet_mapping = {
	.owner = PYL_CAMERA,
	.readonly = 1,
};

/* EncoderFrame */

static void frame_dealloc(struct pyl_encoder_frame *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	Py_CLEAR(self->encoder);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *frame_plane(struct pyl_encoder_frame *self, uint32_t p)
{
	struct pyl_layout layout = {
		.format = "B",
		.itemsize = 1,
		.ndim = 1,
		.shape = { self->encoder->info.raw.sizeimage[p] },
		.strides = { 1 },
	};

	if (!self->encoder->e)
		return pyl_closed("encoder");
	return pyl_mapping_new((PyObject *)self, &frame_mapping, &self->encoder->views,
			       self->f.data[p], &layout, 0);
}

static PyObject *frame_get_data(struct pyl_encoder_frame *self, void *closure)
{
	(void)closure;
	return frame_plane(self, 0);
}

static PyObject *frame_get_planes(struct pyl_encoder_frame *self, void *closure)
{
	PyObject *t;

	(void)closure;
	if (!self->encoder->e)
		return pyl_closed("encoder");
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

static PyObject *frame_get_index(struct pyl_encoder_frame *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLong(self->f.index);
}

static PyObject *frame_get_encoder(struct pyl_encoder_frame *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->encoder);
}

static PyGetSetDef frame_getset[] = {
	{ "data", (getter)frame_get_data, NULL,
	  "Plane 0's bytes, a writable view without a copy (the Mapping of planes[0]).", NULL },
	{ "planes", (getter)frame_get_planes, NULL,
	  "Each memory plane's bytes, writable views without a copy.", NULL },
	{ "index", (getter)frame_get_index, NULL, "The encoder's slot for the frame.", NULL },
	{ "encoder", (getter)frame_get_encoder, NULL, "The encoder.", NULL },
	{ 0 },
};

PyTypeObject pyl_EncoderFrameType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.EncoderFrame",
	.tp_basicsize = sizeof(struct pyl_encoder_frame),
	.tp_dealloc = (destructor)frame_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A frame of the encoder's own to fill and push (Encoder.get_frame()).",
	.tp_weaklistoffset = offsetof(struct pyl_encoder_frame, weakrefs),
	.tp_getset = frame_getset,
};

/* Packet */

static void packet_forget(struct pyl_packet *self)
{
	self->released = 1;
	if (self->encoder && self->encoder->held == (PyObject *)self)
		self->encoder->held = NULL;
}

/* Gives the packet's buffer back; 0 or -1 with an exception. */
static int packet_release(struct pyl_packet *self)
{
	int ret;

	if (self->released)
		return 0;
	if (!self->encoder->e) {
		/* Closing took it back. */
		packet_forget(self);
		return 0;
	}
	ret = llmem_encoder_release_packet(self->encoder->e, &self->p);
	packet_forget(self);
	if (ret) {
		pyl_error(ret);
		return -1;
	}
	return 0;
}

static void packet_dealloc(struct pyl_packet *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->encoder && packet_release(self))
		PyErr_WriteUnraisable((PyObject *)self);
	Py_CLEAR(self->encoder);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *packet_close(struct pyl_packet *self, PyObject *unused)
{
	(void)unused;
	if (self->encoder->busy)
		return pyl_error_msg(EBUSY, "encoder is in use by another thread");
	if (packet_release(self))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *packet_get_data(struct pyl_packet *self, void *closure)
{
	struct pyl_layout layout = {
		.format = "B",
		.itemsize = 1,
		.ndim = 1,
		.shape = { self->p.size },
		.strides = { 1 },
	};

	(void)closure;
	if (self->released)
		return pyl_closed("packet (released)");
	return pyl_mapping_new((PyObject *)self, &packet_mapping, &self->encoder->views,
			       (void *)self->p.data, &layout, 0);
}

static PyObject *packet_get_released(struct pyl_packet *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->released);
}

static PyObject *packet_get_encoder(struct pyl_packet *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->encoder);
}

enum packet_field {
	PACKET_ID,
	PACKET_SIZE,
	PACKET_INDEX,
	PACKET_FLAGS,
	PACKET_SEQUENCE,
	PACKET_KEYFRAME,
	PACKET_LAST,
};

static PyObject *packet_get_field(struct pyl_packet *self, void *closure)
{
	switch ((enum packet_field)(intptr_t)closure) {
	case PACKET_ID:
		return PyLong_FromUnsignedLongLong(self->p.id);
	case PACKET_SIZE:
		return PyLong_FromUnsignedLong(self->p.size);
	case PACKET_INDEX:
		return PyLong_FromUnsignedLong(self->p.index);
	case PACKET_FLAGS:
		return PyLong_FromUnsignedLong(self->p.flags);
	case PACKET_SEQUENCE:
		return PyLong_FromUnsignedLong(self->p.sequence);
	case PACKET_KEYFRAME:
		return PyBool_FromLong(self->p.flags & LLMEM_CODEC_BUF_KEYFRAME);
	case PACKET_LAST:
		return PyBool_FromLong(self->p.flags & LLMEM_CODEC_BUF_LAST);
	}
	Py_RETURN_NONE;
}

static PyMethodDef packet_methods[] = {
	{ "close", (PyCFunction)packet_close, METH_NOARGS,
	  "Gives the packet's buffer back to the encoder (what the next pull, or a with "
	  "block's end, does by itself)." },
	{ 0 },
};

#define PACKET_FIELD(name, field, doc)                                               \
	{                                                                            \
		name, (getter)packet_get_field, NULL, doc, (void *)(intptr_t)(field) \
	}

static PyGetSetDef packet_getset[] = {
	{ "data", (getter)packet_get_data, NULL,
	  "The bitstream, a read-only view without a copy; the buffer's next packet "
	  "overwrites it.",
	  NULL },
	{ "released", (getter)packet_get_released, NULL, "Whether it went back.", NULL },
	{ "encoder", (getter)packet_get_encoder, NULL, "The encoder.", NULL },
	PACKET_FIELD("id", PACKET_ID, "The id of the frame it was made of."),
	PACKET_FIELD("size", PACKET_SIZE, "Bytes of bitstream."),
	PACKET_FIELD("index", PACKET_INDEX, "The encoder's bitstream buffer."),
	PACKET_FIELD("flags", PACKET_FLAGS, "enum llmem_codec_buffer_flags."),
	PACKET_FIELD("sequence", PACKET_SEQUENCE, "The driver's counter."),
	PACKET_FIELD("keyframe", PACKET_KEYFRAME, "An intra-coded frame."),
	PACKET_FIELD("last", PACKET_LAST, "The last packet of a drain."),
	{ 0 },
};

PyTypeObject pyl_PacketType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Packet",
	.tp_basicsize = sizeof(struct pyl_packet),
	.tp_dealloc = (destructor)packet_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A unit of bitstream an encoder made (Encoder.pull()).",
	.tp_weaklistoffset = offsetof(struct pyl_packet, weakrefs),
	.tp_methods = packet_methods,
	.tp_getset = packet_getset,
};

/* Encoder */

static PyObject *encoder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session",
			      "device",
			      "format",
			      "size",
			      "coded_format",
			      "pitch",
			      "frames",
			      "bitstream_buffers",
			      "copy",
			      "backend",
			      "timeout",
			      "coded_size",
			      NULL };
	struct llmem_encoder_create_info ci = { 0 };
	PyObject *session, *device = NULL, *format = NULL, *size = NULL, *coded_format = NULL,
			   *pitch = NULL, *frames = NULL, *bitstream_buffers = NULL, *copy = NULL,
			   *backend = NULL, *timeout = NULL, *coded_size = NULL;
	struct pyl_encoder *self;
	struct pyl_session *s;
	uint32_t wh[2] = { 0, 0 }, coded[2] = { 0, 0 };
	int cp = 0, ms = 5000, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOOOOO:Encoder", kw, &session, &device,
					 &format, &size, &coded_format, &pitch, &frames,
					 &bitstream_buffers, &copy, &backend, &timeout,
					 &coded_size))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	if (pyl_str(device, "device", &ci.device) || pyl_parse_fourcc(format, &ci.fourcc) ||
	    pyl_parse_fourcc(coded_format, &ci.coded_fourcc) ||
	    pyl_u32(pitch, "pitch", &ci.pitch) || pyl_u32(frames, "frames", &ci.frames) ||
	    pyl_u32(bitstream_buffers, "bitstream_buffers", &ci.bitstream_buffers) ||
	    pyl_bool(copy, &cp) || pyl_backend(backend, &ci.backend) ||
	    pyl_codec_timeout(timeout, &ms))
		return NULL;
	if (size && size != Py_None) {
		int n = pyl_u32_seq(size, "size", wh, 2);

		if (n < 0)
			return NULL;
		if (n != 2) {
			PyErr_SetString(PyExc_ValueError, "size must be (width, height)");
			return NULL;
		}
		ci.width = wh[0];
		ci.height = wh[1];
	}
	if (coded_size && coded_size != Py_None) {
		int n = pyl_u32_seq(coded_size, "coded_size", coded, 2);

		if (n < 0)
			return NULL;
		if (n != 2) {
			PyErr_SetString(PyExc_ValueError, "coded_size must be (width, height)");
			return NULL;
		}
		ci.coded_width = coded[0];
		ci.coded_height = coded[1];
	}
	ci.flags = cp ? LLMEM_ENCODER_COPY : 0;
	self = (struct pyl_encoder *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->timeout_ms = ms;
	/* Counted before the GIL goes, so the session cannot close meanwhile. */
	self->session = (struct pyl_session *)Py_NewRef(s);
	s->codecs++;
	PYL_NOGIL(ret = llmem_encoder_open(s->s, &ci, &self->e));
	if (ret) {
		pyl_error(ret);
		Py_DECREF(self);
		return NULL;
	}
	llmem_encoder_get_info(self->e, &self->info);
	return (PyObject *)self;
}

static void encoder_destroy(struct pyl_encoder *self)
{
	struct llmem_encoder *e = self->e;

	if (self->held)
		packet_forget((struct pyl_packet *)self->held);
	self->e = NULL;
	PYL_NOGIL(llmem_encoder_close(e));
	self->session->codecs--;
	Py_CLEAR(self->session);
}

static void encoder_dealloc(struct pyl_encoder *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Frames, packets and views hold the encoder: none is left. */
	if (self->session)
		encoder_destroy(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define ENCODER_OPEN(self)                                                                  \
	do {                                                                                \
		if (!(self)->e)                                                             \
			return pyl_closed("encoder");                                       \
		if ((self)->busy)                                                           \
			return pyl_error_msg(EBUSY, "encoder is in use by another thread"); \
	} while (0)

static PyObject *encoder_close(struct pyl_encoder *self, PyObject *unused)
{
	(void)unused;
	if (!self->e)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "encoder is in use by another thread");
	if (self->views)
		return pyl_error_msg(EBUSY,
				     "encoder has %zd live view%s of its frames and packets: drop "
				     "the arrays made from their data (copy what you keep) first",
				     self->views, self->views == 1 ? "" : "s");
	encoder_destroy(self);
	Py_RETURN_NONE;
}

static PyObject *encoder_get_frame(struct pyl_encoder *self, PyObject *unused)
{
	struct pyl_encoder_frame *frame;
	int ret;

	(void)unused;
	ENCODER_OPEN(self);
	frame = (struct pyl_encoder_frame *)pyl_alloc(PYL_ENCODER_FRAME);
	if (!frame)
		return NULL;
	if (self->has_spare) {
		frame->f = self->spare;
		self->has_spare = 0;
	} else if ((ret = llmem_encoder_get_frame(self->e, &frame->f))) {
		Py_DECREF(frame);
		return pyl_error(ret);
	}
	frame->encoder = (struct pyl_encoder *)Py_NewRef(self);
	return (PyObject *)frame;
}

/* Bytes into a frame of the encoder's own, plane after plane. */
static int bytes_frame(struct pyl_encoder *self, PyObject *o, struct llmem_codec_frame *f,
		       Py_buffer *view)
{
	const struct llmem_codec_format *raw = &self->info.raw;
	const char *src;
	uint64_t want = 0;
	int ret;

	for (uint32_t p = 0; p < raw->num_planes; p++)
		want += raw->sizeimage[p];
	if (pyl_get_host(o, "frame", 0, 1, view))
		return -1;
	if ((uint64_t)view->len != want) {
		PyErr_Format(PyExc_ValueError,
			     "frame has %zd bytes; a %ux%u %.4s frame has %llu (its planes' "
			     "sizeimage)",
			     view->len, raw->width, raw->height, (const char *)&raw->fourcc,
			     (unsigned long long)want);
		goto out_release;
	}
	src = view->buf;
	/* The copy path reads the caller's bytes where they lie. */
	if (self->info.flags & LLMEM_ENCODER_COPY) {
		memset(f, 0, sizeof(*f));
		f->num_planes = raw->num_planes;
		for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++)
			f->fd[p] = -1;
		for (uint32_t p = 0; p < raw->num_planes; p++) {
			f->data[p] = (void *)src;
			src += raw->sizeimage[p];
		}
		return 0;
	}
	if (self->has_spare) {
		*f = self->spare;
	} else if ((ret = llmem_encoder_get_frame(self->e, f))) {
		pyl_error(ret);
		goto out_release;
	}
	self->spare = *f;
	self->has_spare = 1;
	for (uint32_t p = 0; p < raw->num_planes; p++) {
		memcpy(f->data[p], src, raw->sizeimage[p]);
		src += raw->sizeimage[p];
	}
	return 0;
out_release:
	PyBuffer_Release(view);
	return -1;
}

/* @o as a frame to push: 0, or -1 with an exception.  @view is filled in
 * (to release) only for bytes. */
static int as_frame(struct pyl_encoder *self, PyObject *o, struct llmem_codec_frame *f,
		    Py_buffer *view)
{
	int ret;

	view->obj = NULL;
	if (PyObject_TypeCheck(o, &pyl_EncoderFrameType)) {
		struct pyl_encoder_frame *ef = (struct pyl_encoder_frame *)o;

		if (ef->encoder != self) {
			PyErr_SetString(PyExc_ValueError, "frame is another encoder's");
			return -1;
		}
		*f = ef->f;
		return 0;
	}
	memset(f, 0, sizeof(*f));
	ret = pyl_camera_frame_fds(o, f->fd, &f->num_planes);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (PyObject_CheckBuffer(o))
		return bytes_frame(self, o, f, view);
	PyErr_Format(PyExc_TypeError,
		     "frame must be an EncoderFrame, a camera Frame or bytes-like, not %.200s",
		     Py_TYPE(o)->tp_name);
	return -1;
}

/* Pushes @o with @id; 0, or -1 with an exception. */
static int push(struct pyl_encoder *self, PyObject *o, PyObject *id)
{
	struct llmem_codec_frame f;
	uint64_t frame_id = 0;
	Py_buffer view;
	int ret;

	if (pyl_u64(id, "id", UINT64_MAX, &frame_id) || as_frame(self, o, &f, &view))
		return -1;
	f.id = frame_id;
	/* Whatever the host wrote reaches the device before the encoder reads. */
	for (uint32_t p = 0; p < f.num_planes; p++)
		if (f.buffer[p])
			llmem_buffer_flush(f.buffer[p], 0, LLMEM_WHOLE_SIZE);
	self->busy = 1;
	PYL_NOGIL(ret = llmem_encoder_push(self->e, &f));
	self->busy = 0;
	if (view.obj)
		PyBuffer_Release(&view);
	if (ret) {
		pyl_error(ret);
		return -1;
	}
	if (self->has_spare && self->spare.index == f.index && self->spare.fd[0] == f.fd[0])
		self->has_spare = 0;
	return 0;
}

static PyObject *encoder_push(struct pyl_encoder *self, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	static const char *const names[] = { "frame", "id", NULL };
	PyObject *a[2];

	if (pyl_args("push", args, nargs, kwnames, names, 2, 1, a))
		return NULL;
	ENCODER_OPEN(self);
	if (push(self, a[0], a[1]))
		return NULL;
	Py_RETURN_NONE;
}

/* The next packet, or NULL with llmem.Error; NULL without an exception at
 * the end of a drain, or with nothing pushed, when @iterating. */
static PyObject *pull(struct pyl_encoder *self, int ms, int iterating)
{
	struct pyl_packet *packet;
	struct llmem_codec_packet p;
	int ret;

	if (self->held && packet_release((struct pyl_packet *)self->held))
		return NULL;
	packet = (struct pyl_packet *)pyl_alloc(PYL_PACKET);
	if (!packet)
		return NULL;
	self->busy = 1;
	PYL_NOGIL(ret = llmem_encoder_pull(self->e, ms, &p));
	self->busy = 0;
	if (ret) {
		Py_DECREF(packet);
		if (iterating && (ret == -ENODATA || ret == -EAGAIN))
			return NULL;
		if (ret == -ENODATA)
			return pyl_error_msg(ENODATA, "the drain has ended");
		return pyl_error(ret);
	}
	packet->encoder = (struct pyl_encoder *)Py_NewRef(self);
	packet->p = p;
	self->held = (PyObject *)packet;
	return (PyObject *)packet;
}

static PyObject *encoder_pull(struct pyl_encoder *self, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	static const char *const names[] = { "timeout", NULL };
	int ms = self->timeout_ms;
	PyObject *a[1];

	if (pyl_args("pull", args, nargs, kwnames, names, 1, 0, a) || pyl_codec_timeout(a[0], &ms))
		return NULL;
	ENCODER_OPEN(self);
	return pull(self, ms, 0);
}

static PyObject *encoder_encode(struct pyl_encoder *self, PyObject *const *args, Py_ssize_t nargs,
				PyObject *kwnames)
{
	static const char *const names[] = { "frame", "id", "timeout", NULL };
	int ms = self->timeout_ms;
	PyObject *a[3];

	if (pyl_args("encode", args, nargs, kwnames, names, 2, 1, a) ||
	    pyl_codec_timeout(a[2], &ms))
		return NULL;
	ENCODER_OPEN(self);
	if (push(self, a[0], a[1]))
		return NULL;
	return pull(self, ms, 0);
}

static PyObject *encoder_drain(struct pyl_encoder *self, PyObject *unused)
{
	int ret;

	(void)unused;
	ENCODER_OPEN(self);
	ret = llmem_encoder_drain(self->e);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *encoder_iternext(struct pyl_encoder *self)
{
	ENCODER_OPEN(self);
	return pull(self, self->timeout_ms, 1);
}

static PyObject *encoder_iter(struct pyl_encoder *self)
{
	return Py_NewRef(self);
}

static PyObject *encoder_info(struct pyl_encoder *self, PyObject *unused)
{
	const struct llmem_encoder_info *i = &self->info;

	(void)unused;
	if (!self->e)
		return pyl_closed("encoder");
	return Py_BuildValue(
		"{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:(IIII),s:(IIII),s:I,s:I,s:I,s:I,s:I,s:I}",
		"device", i->device, "driver", i->driver, "fourcc", i->raw.fourcc, "width",
		i->picture.width, "height", i->picture.height, "coded_width", i->raw.width,
		"coded_height", i->raw.height, "num_planes", i->raw.num_planes, "sizeimage",
		i->raw.sizeimage[0], i->raw.sizeimage[1], i->raw.sizeimage[2], i->raw.sizeimage[3],
		"bytesperline", i->raw.bytesperline[0], i->raw.bytesperline[1],
		i->raw.bytesperline[2], i->raw.bytesperline[3], "coded_fourcc", i->coded.fourcc,
		"bitstream_size", i->coded.sizeimage[0], "frames", i->frames, "bitstream_buffers",
		i->bitstream_buffers, "flags", i->flags, "backend", i->backend);
}

static PyObject *encoder_get_closed(struct pyl_encoder *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->e);
}

static PyObject *encoder_get_views(struct pyl_encoder *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->views);
}

static PyObject *encoder_get_session(struct pyl_encoder *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->session ? (PyObject *)self->session : Py_None);
}

static PyMethodDef encoder_methods[] = {
	{ "get_frame", (PyCFunction)encoder_get_frame, METH_NOARGS,
	  "get_frame() -> EncoderFrame: a frame of the encoder's own to fill (its .data) "
	  "and push; llmem.Error(EBUSY) while all are out, EINVAL on the copy path" },
	{ "push", PYL_FAST(encoder_push), PYL_FASTKW,
	  "push(frame, id=0): an EncoderFrame, a camera Frame or the frame's bytes; its "
	  "packet carries id; the frame must not change until its packet is pulled" },
	{ "pull", PYL_FAST(encoder_pull), PYL_FASTKW,
	  "pull(timeout=<the encoder's>) -> Packet: gives the packet held back and waits for "
	  "the next; llmem.Error(ENODATA) after a drain's last, EAGAIN with nothing pushed" },
	{ "encode", PYL_FAST(encoder_encode), PYL_FASTKW,
	  "encode(frame, id=0, timeout=<the encoder's>) -> Packet: push() then pull()" },
	{ "drain", (PyCFunction)encoder_drain, METH_NOARGS,
	  "Finishes the frames pushed: iterating gives their packets, the last flagged last; "
	  "no frame is taken after it." },
	{ "close", (PyCFunction)encoder_close, METH_NOARGS,
	  "Closes; llmem.Error(EBUSY) while views of its frames or packets live." },
	{ "_info", (PyCFunction)encoder_info, METH_NOARGS, "llmem_encoder_get_info() as a dict." },
	{ 0 },
};

static PyGetSetDef encoder_getset[] = {
	{ "closed", (getter)encoder_get_closed, NULL, "Whether close() was called.", NULL },
	{ "views", (getter)encoder_get_views, NULL, "Live views of its frames and packets.", NULL },
	{ "session", (getter)encoder_get_session, NULL, "The session.", NULL },
	{ 0 },
};

PyTypeObject pyl_EncoderType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Encoder",
	.tp_basicsize = sizeof(struct pyl_encoder),
	.tp_dealloc = (destructor)encoder_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Encoder(session, device=None, format='YUYV', size=(640, 480), "
		  "coded_format='FWHT', pitch=0, frames=0, bitstream_buffers=0, copy=False, "
		  "backend=None, timeout=5.0, coded_size=None): a memory-to-memory encoder; "
		  "iterating it pulls "
		  "packets while frames are pushed, and to the end of a drain.",
	.tp_weaklistoffset = offsetof(struct pyl_encoder, weakrefs),
	.tp_iter = (getiterfunc)encoder_iter,
	.tp_iternext = (iternextfunc)encoder_iternext,
	.tp_methods = encoder_methods,
	.tp_getset = encoder_getset,
	.tp_new = encoder_new,
};
