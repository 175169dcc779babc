// SPDX-License-Identifier: MIT
/*
 * The camera pipeline with its frames.
 *
 * A camera counts its RGBA views: it refuses close() (EBUSY) while numpy
 * arrays over its frames live, since its mapping would go under them.  A
 * frame releases itself when the next one is taken, when it leaves a with
 * block, or when it is dropped.
 */
#include "_camera.h"
#include "_mapping.h"
#include "_session.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <linux/videodev2.h>

struct pyl_camera {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_camera *cam;
	struct pyl_session *session;
	struct llmem_camera_info info;
	/* The frame handed out and not yet released, or NULL. */
	PyObject *held;
	/* Live RGBA views of its frames (Mapping objects). */
	Py_ssize_t views;
	int streaming;
	int busy;
	double timeout;
};

struct pyl_frame {
	PyObject_HEAD PyObject *weakrefs;
	struct pyl_camera *camera;
	struct llmem_camera_frame f;
	int released;
};

static void frame_forget(struct pyl_frame *self)
{
	self->released = 1;
	if (self->camera && self->camera->held == (PyObject *)self)
		self->camera->held = NULL;
}

/* Gives the frame back to the camera; 0 or -1 with an exception. */
static int frame_release(struct pyl_frame *self)
{
	struct pyl_camera *c = self->camera;
	int ret;

	if (self->released)
		return 0;
	if (!c->cam || !c->streaming) {
		/* Closing or stopping requeued it already. */
		frame_forget(self);
		return 0;
	}
	ret = llmem_camera_release(c->cam, &self->f);
	frame_forget(self);
	if (ret) {
		pyl_error(ret);
		return -1;
	}
	return 0;
}

static void frame_dealloc(struct pyl_frame *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->camera && frame_release(self))
		PyErr_WriteUnraisable((PyObject *)self);
	Py_CLEAR(self->camera);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *frame_close(struct pyl_frame *self, PyObject *unused)
{
	(void)unused;
	if (self->camera->busy)
		return pyl_error_msg(EBUSY, "camera is in use by another thread");
	if (frame_release(self))
		return NULL;
	Py_RETURN_NONE;
}

/* A frame's RGBA view, read-only: the camera counts it and refuses close() meanwhile. */
static const struct pyl_mapping_ops frame_mapping = {
	.owner = PYL_CAMERA,
	.readonly = 1,
};

static PyObject *frame_get_rgba(struct pyl_frame *self, void *closure)
{
	const struct llmem_frame_layout *l = &self->camera->info.rgba_layout;
	struct pyl_layout layout = {
		.format = "B",
		.itemsize = 1,
		.ndim = 3,
		.shape = { l->height, l->width, 4 },
		.strides = { l->pitch[0], 4, 1 },
	};

	(void)closure;
	if (self->released)
		return pyl_closed("frame (released)");
	return pyl_mapping_new((PyObject *)self->camera, &frame_mapping, &self->camera->views,
			       (char *)self->f.rgba_data + l->offset[0], &layout, 0);
}

static PyObject *frame_get_released(struct pyl_frame *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->released);
}

static PyObject *frame_get_camera(struct pyl_frame *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->camera);
}

enum frame_field {
	FRAME_INDEX,
	FRAME_SEQUENCE,
	FRAME_CORRUPTED,
	FRAME_TIMESTAMP,
	FRAME_BYTES_COPIED,
	FRAME_CONVERT_NS,
};

static PyObject *frame_get_field(struct pyl_frame *self, void *closure)
{
	switch ((enum frame_field)(intptr_t)closure) {
	case FRAME_INDEX:
		return PyLong_FromUnsignedLong(self->f.index);
	case FRAME_SEQUENCE:
		return PyLong_FromUnsignedLong(self->f.sequence);
	case FRAME_CORRUPTED:
		return PyBool_FromLong(self->f.corrupted);
	case FRAME_TIMESTAMP:
		return PyLong_FromUnsignedLongLong(self->f.timestamp_ns);
	case FRAME_BYTES_COPIED:
		return PyLong_FromUnsignedLongLong(self->f.bytes_copied);
	case FRAME_CONVERT_NS:
		return PyLong_FromUnsignedLongLong(self->f.convert_ns);
	}
	Py_RETURN_NONE;
}

static PyMethodDef frame_methods[] = {
	{ "close", (PyCFunction)frame_close, METH_NOARGS,
	  "Gives the frame back to the camera (what the next frame, or a with block's end, "
	  "does by itself)." },
	{ 0 },
};

#define FRAME_FIELD(name, field, doc)                                               \
	{                                                                           \
		name, (getter)frame_get_field, NULL, doc, (void *)(intptr_t)(field) \
	}

static PyGetSetDef frame_getset[] = {
	{ "rgba", (getter)frame_get_rgba, NULL,
	  "The converted frame, a read-only (height, width, 4) uint8 view without a copy; the "
	  "next frame overwrites it.",
	  NULL },
	{ "released", (getter)frame_get_released, NULL, "Whether it went back to the camera.",
	  NULL },
	{ "camera", (getter)frame_get_camera, NULL, "The camera.", NULL },
	FRAME_FIELD("index", FRAME_INDEX, "The V4L2 buffer it came in."),
	FRAME_FIELD("sequence", FRAME_SEQUENCE, "The driver's frame counter."),
	FRAME_FIELD("corrupted", FRAME_CORRUPTED, "V4L2_BUF_FLAG_ERROR."),
	FRAME_FIELD("timestamp_ns", FRAME_TIMESTAMP, "Capture time, CLOCK_MONOTONIC."),
	FRAME_FIELD("bytes_copied", FRAME_BYTES_COPIED, "Bytes the CPU copied: 0 zero-copy."),
	FRAME_FIELD("convert_ns", FRAME_CONVERT_NS, "Wall time of the conversion."),
	{ 0 },
};

PyTypeObject pyl_FrameType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Frame",
	.tp_basicsize = sizeof(struct pyl_frame),
	.tp_dealloc = (destructor)frame_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A captured frame, converted to RGBA (Camera.next()).",
	.tp_weaklistoffset = offsetof(struct pyl_frame, weakrefs),
	.tp_methods = frame_methods,
	.tp_getset = frame_getset,
};

int pyl_camera_frame_fds(PyObject *o, int *fd, uint32_t *num_planes)
{
	struct pyl_frame *frame = (struct pyl_frame *)o;

	if (!PyObject_TypeCheck(o, &pyl_FrameType))
		return 0;
	if (frame->released) {
		pyl_closed("frame (released)");
		return -1;
	}
	*num_planes = 0;
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++) {
		fd[p] = frame->f.fd[p];
		*num_planes += frame->f.fd[p] >= 0;
	}
	return 1;
}

/* A choice the caller may leave out: *@given tells whether it did not. */
static int parse_choice(PyObject *o, const char *what, const char *const names[2], uint32_t *out,
			int *given)
{
	if (!o || o == Py_None)
		return 0;
	*given = 1;
	return pyl_named(o, what, names, 2, out);
}

static PyObject *camera_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session", "device",     "format",    "size",    "buffers",
			      "copy",	 "contiguous", "input",	    "backend", "encoding",
			      "range",	 "timeout",    "libcamera", NULL };
	struct llmem_camera_create_info ci = { 0 };
	PyObject *session, *device = NULL, *format = NULL, *size = NULL, *buffers = NULL,
			   *copy = NULL, *contiguous = NULL, *input = NULL, *backend = NULL,
			   *encoding = NULL, *range = NULL, *timeout = NULL, *libcamera = NULL;
	struct pyl_session *s;
	struct pyl_camera *self;
	uint32_t wh[2] = { 0, 0 };
	int cp = 0, contig = 0, lc = 0, given = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOOOOOO:Camera", kw, &session, &device,
					 &format, &size, &buffers, &copy, &contiguous, &input,
					 &backend, &encoding, &range, &timeout, &libcamera))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	if (pyl_str(device, "device", &ci.device) || pyl_parse_fourcc(format, &ci.fourcc) ||
	    pyl_u32(buffers, "buffers", &ci.buffers) || pyl_bool(copy, &cp) ||
	    pyl_bool(contiguous, &contig) || pyl_bool(libcamera, &lc))
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
	if (input && input != Py_None) {
		if (pyl_u32(input, "input", &ci.input))
			return NULL;
		ci.flags |= LLMEM_CAMERA_INPUT;
	}
	if (backend && backend != Py_None) {
		if (pyl_backend(backend, &ci.backend))
			return NULL;
	}
	if (parse_choice(encoding, "encoding", (const char *const[]){ "bt601", "bt709" },
			 &ci.encoding, &given))
		return NULL;
	if (given)
		ci.flags |= LLMEM_CAMERA_ENCODING;
	given = 0;
	if (parse_choice(range, "range", (const char *const[]){ "limited", "full" }, &ci.range,
			 &given))
		return NULL;
	if (given)
		ci.flags |= LLMEM_CAMERA_RANGE;
	ci.flags |= (cp ? LLMEM_CAMERA_COPY : 0) | (contig ? LLMEM_CAMERA_CONTIGUOUS : 0) |
		    (lc ? LLMEM_CAMERA_LIBCAMERA : 0);
	self = (struct pyl_camera *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->timeout = 5.0;
	if (timeout && timeout != Py_None) {
		self->timeout = PyFloat_AsDouble(timeout);
		if (self->timeout == -1.0 && PyErr_Occurred()) {
			Py_DECREF(self);
			return NULL;
		}
		if (!(self->timeout >= 0)) {
			Py_DECREF(self);
			PyErr_SetString(PyExc_ValueError, "timeout must be None or seconds >= 0");
			return NULL;
		}
	} else if (timeout == Py_None) {
		self->timeout = -1.0;
	}
	/* Counted before the GIL goes, so the session cannot close meanwhile. */
	self->session = (struct pyl_session *)Py_NewRef(s);
	s->cameras++;
	PYL_NOGIL(ret = llmem_camera_open(s->s, &ci, &self->cam));
	if (ret) {
		pyl_error(ret);
		Py_DECREF(self);
		return NULL;
	}
	llmem_camera_get_info(self->cam, &self->info);
	return (PyObject *)self;
}

static void camera_destroy(struct pyl_camera *self)
{
	struct llmem_camera *cam = self->cam;

	if (self->held)
		frame_forget((struct pyl_frame *)self->held);
	self->cam = NULL;
	self->streaming = 0;
	PYL_NOGIL(llmem_camera_close(cam));
}

static void camera_dealloc(struct pyl_camera *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	/* Frames and views hold the camera: none is left. */
	if (self->cam)
		camera_destroy(self);
	if (self->session) {
		self->session->cameras--;
		Py_CLEAR(self->session);
	}
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define CAMERA_OPEN(self)                                                                  \
	do {                                                                               \
		if (!(self)->cam)                                                          \
			return pyl_closed("camera");                                       \
		if ((self)->busy)                                                          \
			return pyl_error_msg(EBUSY, "camera is in use by another thread"); \
	} while (0)

static PyObject *camera_close(struct pyl_camera *self, PyObject *unused)
{
	(void)unused;
	if (!self->cam)
		Py_RETURN_NONE;
	if (self->busy)
		return pyl_error_msg(EBUSY, "camera is in use by another thread");
	if (self->views)
		return pyl_error_msg(EBUSY,
				     "camera has %zd live RGBA view%s: drop the arrays made from "
				     "frame.rgba (copy what you keep) first",
				     self->views, self->views == 1 ? "" : "s");
	camera_destroy(self);
	self->session->cameras--;
	Py_CLEAR(self->session);
	Py_RETURN_NONE;
}

static PyObject *camera_start(struct pyl_camera *self, PyObject *unused)
{
	int ret;

	(void)unused;
	CAMERA_OPEN(self);
	if (self->streaming)
		Py_RETURN_NONE;
	ret = llmem_camera_start(self->cam);
	if (ret)
		return pyl_error(ret);
	self->streaming = 1;
	Py_RETURN_NONE;
}

static PyObject *camera_stop(struct pyl_camera *self, PyObject *unused)
{
	int ret;

	(void)unused;
	CAMERA_OPEN(self);
	if (!self->streaming)
		Py_RETURN_NONE;
	ret = llmem_camera_stop(self->cam);
	if (ret)
		return pyl_error(ret);
	/* Stopping requeued the frame held. */
	if (self->held)
		frame_forget((struct pyl_frame *)self->held);
	self->streaming = 0;
	Py_RETURN_NONE;
}

static PyObject *camera_take(struct pyl_camera *self, double timeout)
{
	struct pyl_frame *frame;
	struct llmem_camera_frame f;
	int ret, ms;

	CAMERA_OPEN(self);
	if (!self->streaming) {
		ret = llmem_camera_start(self->cam);
		if (ret)
			return pyl_error(ret);
		self->streaming = 1;
	}
	if (self->held && frame_release((struct pyl_frame *)self->held))
		return NULL;
	frame = (struct pyl_frame *)pyl_alloc(PYL_FRAME);
	if (!frame)
		return NULL;
	ms = timeout < 0 ? -1 : timeout * 1e3 > INT32_MAX ? INT32_MAX : (int)lround(timeout * 1e3);
	self->busy = 1;
	PYL_NOGIL(ret = llmem_camera_next(self->cam, ms, &f));
	self->busy = 0;
	if (ret) {
		Py_DECREF(frame);
		return pyl_error(ret);
	}
	frame->camera = (struct pyl_camera *)Py_NewRef(self);
	frame->f = f;
	self->held = (PyObject *)frame;
	return (PyObject *)frame;
}

static PyObject *camera_next(struct pyl_camera *self, PyObject *const *args, Py_ssize_t nargs,
			     PyObject *kwnames)
{
	static const char *const names[] = { "timeout", NULL };
	double timeout = self->timeout;
	PyObject *a[1];

	if (pyl_args("next", args, nargs, kwnames, names, 1, 0, a))
		return NULL;
	if (a[0] == Py_None) {
		timeout = -1.0;
	} else if (a[0]) {
		timeout = PyFloat_AsDouble(a[0]);
		if (timeout == -1.0 && PyErr_Occurred())
			return NULL;
		if (!(timeout >= 0)) {
			PyErr_SetString(PyExc_ValueError, "timeout must be None or seconds >= 0");
			return NULL;
		}
	}
	return camera_take(self, timeout);
}

static PyObject *camera_iternext(struct pyl_camera *self)
{
	return camera_take(self, self->timeout);
}

static PyObject *camera_iter(struct pyl_camera *self)
{
	return Py_NewRef(self);
}

static PyObject *camera_info(struct pyl_camera *self, PyObject *unused)
{
	const struct llmem_camera_info *i = &self->info;

	(void)unused;
	if (!self->cam)
		return pyl_closed("camera");
	return Py_BuildValue("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:N,s:N,s:I,s:I,s:I,s:I,s:I,s:I}",
			     "device", i->device, "driver", i->driver, "fourcc", i->format.fourcc,
			     "width", i->format.width, "height", i->format.height, "bytesperline",
			     i->format.bytesperline, "sizeimage", i->format.sizeimage, "layout",
			     pyl_frame_layout_tuple(&i->layout), "rgba_layout",
			     pyl_frame_layout_tuple(&i->rgba_layout), "buffers", i->buffers,
			     "flags", i->flags, "backend", i->backend, "encoding", i->encoding,
			     "range", i->range, "frames_per_page", i->frames_per_page);
}

static PyObject *camera_fileno(struct pyl_camera *self, PyObject *unused)
{
	(void)unused;
	CAMERA_OPEN(self);
	return PyLong_FromLong(llmem_camera_fd(self->cam));
}

static PyObject *camera_export_buffer(struct pyl_camera *self, PyObject *arg)
{
	struct llmem_dmabuf_region r;
	struct llmem_buffer *b;
	uint32_t index = 0;
	int ret;

	CAMERA_OPEN(self);
	if (pyl_u32(arg, "index", &index))
		return NULL;
	ret = llmem_camera_buffer(self->cam, index, &b);
	if (!ret)
		ret = llmem_buffer_export(b, &r);
	if (ret)
		return pyl_error(ret);
	return Py_BuildValue("(iKK)", r.fd, (unsigned long long)r.offset,
			     (unsigned long long)r.size);
}

static PyObject *camera_get_closed(struct pyl_camera *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->cam);
}

static PyObject *camera_get_streaming(struct pyl_camera *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->streaming);
}

static PyObject *camera_get_views(struct pyl_camera *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->views);
}

static PyObject *camera_get_session(struct pyl_camera *self, void *closure)
{
	(void)closure;
	return Py_NewRef(self->session ? (PyObject *)self->session : Py_None);
}

static PyMethodDef camera_methods[] = {
	{ "start", (PyCFunction)camera_start, METH_NOARGS, "VIDIOC_STREAMON." },
	{ "stop", (PyCFunction)camera_stop, METH_NOARGS,
	  "VIDIOC_STREAMOFF; the frame held goes back to the camera." },
	{ "next", PYL_FAST(camera_next), PYL_FASTKW,
	  "next(timeout=<the camera's>) -> Frame: starts streaming if needed, gives the frame "
	  "held back, dequeues and converts the next one (seconds; None waits forever)" },
	{ "fileno", (PyCFunction)camera_fileno, METH_NOARGS,
	  "llmem_camera_fd(): readable when a frame waits (the camera's; select() it, never "
	  "close it)." },
	{ "export_buffer", (PyCFunction)camera_export_buffer, METH_O,
	  "export_buffer(index) -> (fd, offset, size) of a frame buffer; the fd is the "
	  "caller's" },
	{ "close", (PyCFunction)camera_close, METH_NOARGS,
	  "Stops and closes; llmem.Error(EBUSY) while RGBA views live." },
	{ "_info", (PyCFunction)camera_info, METH_NOARGS, "llmem_camera_get_info() as a dict." },
	{ 0 },
};

static PyGetSetDef camera_getset[] = {
	{ "closed", (getter)camera_get_closed, NULL, "Whether close() was called.", NULL },
	{ "streaming", (getter)camera_get_streaming, NULL, "Whether it streams.", NULL },
	{ "views", (getter)camera_get_views, NULL, "Live RGBA views of its frames.", NULL },
	{ "session", (getter)camera_get_session, NULL, "The session.", NULL },
	{ 0 },
};

PyTypeObject pyl_CameraType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Camera",
	.tp_basicsize = sizeof(struct pyl_camera),
	.tp_dealloc = (destructor)camera_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Camera(session, device=None, format='YUYV', size=(640, 480), buffers=0, "
		  "copy=False, contiguous=False, input=None, backend=None, encoding=None, "
		  "range=None, timeout=5.0): the zero-copy capture pipeline; iterating it "
		  "yields frames.",
	.tp_weaklistoffset = offsetof(struct pyl_camera, weakrefs),
	.tp_iter = (getiterfunc)camera_iter,
	.tp_iternext = (iternextfunc)camera_iternext,
	.tp_methods = camera_methods,
	.tp_getset = camera_getset,
	.tp_new = camera_new,
};

int pyl_camera_init(PyObject *module)
{
	return PyModule_AddIntConstant(module, "V4L2_PIX_FMT_YUYV", V4L2_PIX_FMT_YUYV) ||
	       PyModule_AddIntConstant(module, "V4L2_PIX_FMT_NV12", V4L2_PIX_FMT_NV12);
}
