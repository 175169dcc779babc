// SPDX-License-Identifier: MIT
/*
 * What crosses to other devices: the camera pipeline with its frames, and
 * pages imported into CUDA with their DLPack tensors.
 *
 * A camera counts its RGBA views: it refuses close() (EBUSY) while numpy
 * arrays over its frames live, since its mapping would go under them.  A
 * frame releases itself when the next one is taken, when it leaves a with
 * block, or when it is dropped.  A CUDA import counts its views and DLPack
 * tensors the same way.
 */
#include "_share.h"
#include "_dlpack.h"
#include "_mapping.h"
#include "_session.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include <linux/videodev2.h>

/* ---- Frame ------------------------------------------------------------ */

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

/* ---- Camera ----------------------------------------------------------- */

static int parse_choice(PyObject *o, const char *what, const char *a, const char *b, uint32_t *out,
			int *given)
{
	const char *s;

	if (!o || o == Py_None)
		return 0;
	*given = 1;
	if (!PyUnicode_Check(o))
		return pyl_u32(o, what, out);
	s = PyUnicode_AsUTF8(o);
	if (!s)
		return -1;
	if (!strcmp(s, a) || !strcmp(s, b)) {
		*out = !strcmp(s, b);
		return 0;
	}
	PyErr_Format(PyExc_ValueError, "%s must be '%s' or '%s', not %R", what, a, b, o);
	return -1;
}

static PyObject *camera_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session", "device",     "format", "size",    "buffers",
			      "copy",	 "contiguous", "input",	 "backend", "encoding",
			      "range",	 "timeout",    NULL };
	struct llmem_camera_create_info ci = { 0 };
	PyObject *session, *device = NULL, *format = NULL, *size = NULL, *buffers = NULL,
			   *copy = NULL, *contiguous = NULL, *input = NULL, *backend = NULL,
			   *encoding = NULL, *range = NULL, *timeout = NULL;
	struct pyl_session *s;
	struct pyl_camera *self;
	uint32_t wh[2] = { 0, 0 };
	int cp = 0, contig = 0, given = 0, ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOOOOOOOOOO:Camera", kw, &session, &device,
					 &format, &size, &buffers, &copy, &contiguous, &input,
					 &backend, &encoding, &range, &timeout))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	if (pyl_str(device, "device", &ci.device) || pyl_parse_fourcc(format, &ci.fourcc) ||
	    pyl_u32(buffers, "buffers", &ci.buffers) || pyl_bool(copy, &cp) ||
	    pyl_bool(contiguous, &contig))
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
	if (parse_choice(encoding, "encoding", "bt601", "bt709", &ci.encoding, &given))
		return NULL;
	if (given)
		ci.flags |= LLMEM_CAMERA_ENCODING;
	given = 0;
	if (parse_choice(range, "range", "limited", "full", &ci.range, &given))
		return NULL;
	if (given)
		ci.flags |= LLMEM_CAMERA_RANGE;
	ci.flags |= (cp ? LLMEM_CAMERA_COPY : 0) | (contig ? LLMEM_CAMERA_CONTIGUOUS : 0);
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

/* ---- CUDA ------------------------------------------------------------- */

struct pyl_cuda {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_cuda *cu;
	struct pyl_session *session;
	Py_ssize_t imports;
};

/*
 * A page imported into CUDA (root: cm set), or a view of one (root set):
 * @ptr and @layout describe the tensor __dlpack__ exports.
 */
struct pyl_cuda_memory {
	PyObject_HEAD PyObject *weakrefs;
	struct llmem_cuda_memory *cm;
	struct pyl_cuda *cuda;
	struct pyl_memory *memory;
	struct pyl_cuda_memory *root;
	uint64_t ptr, size;
	int32_t device_id;
	struct pyl_layout layout;
	/* Views and DLPack tensors of a root. */
	Py_ssize_t exports;
	int closed;
};

/*
 * The CUDA ordinal of the device behind a pointer (what kDLCUDA's device_id
 * is), from cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL); the
 * library loaded libcuda already.
 */
static int cuda_ordinal(uint64_t ptr, int32_t *ordinal)
{
	typedef int (*get_attribute_fn)(void *data, int attribute, unsigned long long ptr);
	enum {
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
	};
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	get_attribute_fn get;
	int value = 0, ret;

	if (!lib)
		return -ENOTSUP;
	get = (get_attribute_fn)dlsym(lib, "cuPointerGetAttribute");
	ret = get ? get(&value, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr) : -1;
	dlclose(lib);
	if (ret)
		return -EIO;
	*ordinal = value;
	return 0;
}

static PyObject *cuda_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	static char *kw[] = { "session", NULL };
	struct pyl_session *s;
	struct pyl_cuda *self;
	PyObject *session;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Cuda", kw, &session))
		return NULL;
	s = pyl_as_session(session);
	if (!s)
		return NULL;
	self = (struct pyl_cuda *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	ret = llmem_cuda_create(s->s, &self->cu);
	if (ret) {
		Py_DECREF(self);
		return pyl_error(ret);
	}
	self->session = (struct pyl_session *)Py_NewRef(s);
	s->cudas++;
	return (PyObject *)self;
}

static void cuda_dealloc(struct pyl_cuda *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	llmem_cuda_destroy(self->cu);
	if (self->session) {
		self->session->cudas--;
		Py_CLEAR(self->session);
	}
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *cuda_close(struct pyl_cuda *self, PyObject *unused)
{
	(void)unused;
	if (!self->cu)
		Py_RETURN_NONE;
	if (self->imports)
		return pyl_error_msg(EBUSY, "CUDA context has %zd imported pages", self->imports);
	llmem_cuda_destroy(self->cu);
	self->cu = NULL;
	self->session->cudas--;
	Py_CLEAR(self->session);
	Py_RETURN_NONE;
}

static PyObject *cuda_import_page(struct pyl_cuda *self, PyObject *const *args, Py_ssize_t nargs,
				  PyObject *kwnames)
{
	static const char *const names[] = { "memory", "page", NULL };
	struct pyl_cuda_memory *cm;
	struct llmem_page_stats st;
	struct pyl_memory *mem;
	uint32_t page = 0;
	PyObject *a[2];
	int ret;

	if (!self->cu)
		return pyl_closed("CUDA context");
	if (pyl_args("import_page", args, nargs, kwnames, names, 2, 2, a))
		return NULL;
	mem = pyl_as_memory(a[0]);
	if (!mem)
		return NULL;
	if (pyl_u32(a[1], "page", &page))
		return NULL;
	ret = llmem_memory_get_page_stats(mem->m, page, &st);
	if (ret)
		return pyl_error(ret);
	cm = (struct pyl_cuda_memory *)pyl_alloc(PYL_CUDA_MEMORY);
	if (!cm)
		return NULL;
	ret = llmem_cuda_import_page(self->cu, mem->m, page, &cm->cm);
	if (ret) {
		Py_DECREF(cm);
		return pyl_error(ret);
	}
	cm->cuda = (struct pyl_cuda *)Py_NewRef(self);
	cm->memory = (struct pyl_memory *)Py_NewRef(mem);
	self->imports++;
	mem->cuda_imports++;
	cm->ptr = llmem_cuda_memory_pointer(cm->cm);
	cm->size = st.bytes;
	ret = cuda_ordinal(cm->ptr, &cm->device_id);
	if (ret) {
		Py_DECREF(cm);
		return pyl_error_msg(-ret, "cuPointerGetAttribute: no device ordinal for 0x%llx",
				     (unsigned long long)cm->ptr);
	}
	if (pyl_layout_init(&cm->layout, "B", 1, NULL, (Py_ssize_t)cm->size)) {
		Py_DECREF(cm);
		return NULL;
	}
	return (PyObject *)cm;
}

static PyObject *cuda_copy(struct pyl_cuda *self, PyObject *const *args, Py_ssize_t nargs,
			   PyObject *kwnames, int to_host)
{
	static const char *const to_names[] = { "dst", "pointer", NULL };
	static const char *const from_names[] = { "pointer", "src", NULL };
	uint64_t ptr = 0;
	Py_buffer view;
	PyObject *a[2];
	int ret;

	if (!self->cu)
		return pyl_closed("CUDA context");
	if (pyl_args(to_host ? "copy_to_host" : "copy_from_host", args, nargs, kwnames,
		     to_host ? to_names : from_names, 2, 2, a) ||
	    pyl_u64(a[to_host ? 1 : 0], "pointer", UINT64_MAX, &ptr) ||
	    pyl_get_host(a[to_host ? 0 : 1], to_host ? "dst" : "src", to_host, 0, &view))
		return NULL;
	PYL_NOGIL(ret = to_host ? llmem_cuda_copy_to_host(self->cu, view.buf, ptr, (size_t)view.len)
				: llmem_cuda_copy_from_host(self->cu, ptr, view.buf,
							    (size_t)view.len));
	PyBuffer_Release(&view);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *cuda_copy_to_host(struct pyl_cuda *self, PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames)
{
	return cuda_copy(self, args, nargs, kwnames, 1);
}

static PyObject *cuda_copy_from_host(struct pyl_cuda *self, PyObject *const *args, Py_ssize_t nargs,
				     PyObject *kwnames)
{
	return cuda_copy(self, args, nargs, kwnames, 0);
}

static PyObject *cuda_memset(struct pyl_cuda *self, PyObject *const *args, Py_ssize_t nargs,
			     PyObject *kwnames)
{
	static const char *const names[] = { "pointer", "value", "size", NULL };
	uint64_t ptr = 0, value = 0, size = 0;
	PyObject *a[3];
	int ret;

	if (!self->cu)
		return pyl_closed("CUDA context");
	if (pyl_args("memset", args, nargs, kwnames, names, 3, 3, a) ||
	    pyl_u64(a[0], "pointer", UINT64_MAX, &ptr) || pyl_u64(a[1], "value", 255, &value) ||
	    pyl_u64(a[2], "size", SIZE_MAX, &size))
		return NULL;
	ret = llmem_cuda_memset(self->cu, ptr, (uint8_t)value, (size_t)size);
	if (ret)
		return pyl_error(ret);
	Py_RETURN_NONE;
}

static PyObject *cuda_get_closed(struct pyl_cuda *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(!self->cu);
}

static PyMethodDef cuda_methods[] = {
	{ "import_page", PYL_FAST(cuda_import_page), PYL_FASTKW,
	  "import_page(memory, page) -> CudaMemory: a page of an opaque-fd memory in CUDA" },
	{ "copy_to_host", PYL_FAST(cuda_copy_to_host), PYL_FASTKW,
	  "copy_to_host(dst, pointer): cuMemcpyDtoH of len(dst) bytes, synchronous" },
	{ "copy_from_host", PYL_FAST(cuda_copy_from_host), PYL_FASTKW,
	  "copy_from_host(pointer, src): cuMemcpyHtoD, synchronous" },
	{ "memset", PYL_FAST(cuda_memset), PYL_FASTKW,
	  "memset(pointer, value, size): cuMemsetD8, synchronous" },
	{ "close", (PyCFunction)cuda_close, METH_NOARGS,
	  "Releases the context; llmem.Error(EBUSY) while pages are imported." },
	{ 0 },
};

static PyGetSetDef cuda_getset[] = {
	{ "closed", (getter)cuda_get_closed, NULL, "Whether close() was called.", NULL },
	{ 0 },
};

PyTypeObject pyl_CudaType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.Cuda",
	.tp_basicsize = sizeof(struct pyl_cuda),
	.tp_dealloc = (destructor)cuda_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Cuda(session): the CUDA device that is the session's Vulkan device; "
		  "llmem.Error ENOTSUP without libcuda, ENODEV when none is.",
	.tp_weaklistoffset = offsetof(struct pyl_cuda, weakrefs),
	.tp_methods = cuda_methods,
	.tp_getset = cuda_getset,
	.tp_new = cuda_new,
};

static void cuda_memory_dealloc(struct pyl_cuda_memory *self)
{
	if (self->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)self);
	if (self->cm) {
		llmem_cuda_memory_destroy(self->cm);
		self->cuda->imports--;
		self->memory->cuda_imports--;
	}
	if (self->root && !self->closed)
		self->root->exports--;
	Py_CLEAR(self->root);
	Py_CLEAR(self->cuda);
	Py_CLEAR(self->memory);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *cuda_memory_close(struct pyl_cuda_memory *self, PyObject *unused)
{
	(void)unused;
	if (self->closed)
		Py_RETURN_NONE;
	if (self->root) {
		self->root->exports--;
		self->closed = 1;
		Py_RETURN_NONE;
	}
	if (self->exports)
		return pyl_error_msg(EBUSY, "CUDA import has %zd live views or tensors",
				     self->exports);
	llmem_cuda_memory_destroy(self->cm);
	self->cm = NULL;
	self->cuda->imports--;
	self->memory->cuda_imports--;
	self->closed = 1;
	Py_RETURN_NONE;
}

static PyObject *cuda_memory_view(struct pyl_cuda_memory *self, PyObject *const *args,
				  Py_ssize_t nargs, PyObject *kwnames)
{
	static const char *const names[] = { "dtype", "shape", "offset", NULL };
	struct pyl_cuda_memory *root = self->root ? self->root : self, *v;
	uint64_t offset = 0, base = self->ptr - root->ptr;
	char format[2];
	Py_ssize_t itemsize;
	PyObject *a[3];

	if (self->closed)
		return pyl_closed("CUDA memory");
	if (pyl_args("view", args, nargs, kwnames, names, 3, 0, a) ||
	    pyl_parse_dtype(a[0], format, &itemsize) ||
	    pyl_u64(a[2], "offset", UINT64_MAX, &offset))
		return NULL;
	if (offset > root->size - base || root->size - base - offset > PY_SSIZE_T_MAX) {
		PyErr_Format(PyExc_ValueError, "offset %llu is past the %llu bytes",
			     (unsigned long long)offset, (unsigned long long)(root->size - base));
		return NULL;
	}
	v = (struct pyl_cuda_memory *)pyl_alloc(PYL_CUDA_MEMORY);
	if (!v)
		return NULL;
	if (pyl_layout_init(&v->layout, format, itemsize, a[1],
			    (Py_ssize_t)(root->size - base - offset))) {
		Py_DECREF(v);
		return NULL;
	}
	v->root = (struct pyl_cuda_memory *)Py_NewRef(root);
	root->exports++;
	v->ptr = self->ptr + offset;
	v->size = root->size - base - offset;
	v->device_id = root->device_id;
	return (PyObject *)v;
}

static void cuda_memory_dlpack_done(PyObject *owner)
{
	((struct pyl_cuda_memory *)owner)->exports--;
}

static PyObject *cuda_memory_dlpack(struct pyl_cuda_memory *self, PyObject *const *args,
				    Py_ssize_t nargs, PyObject *kwnames)
{
	struct pyl_cuda_memory *root = self->root ? self->root : self;
	PyObject *capsule;
	int versioned;

	if (pyl_dlpack_args(args, nargs, kwnames, PYL_DL_CUDA, self->device_id, &versioned))
		return NULL;
	if (self->closed)
		return pyl_closed("CUDA memory");
	capsule = pyl_dlpack_export((PyObject *)root, (void *)(uintptr_t)self->ptr, PYL_DL_CUDA,
				    self->device_id, &self->layout, versioned, 0,
				    cuda_memory_dlpack_done);
	if (capsule)
		root->exports++;
	return capsule;
}

static PyObject *cuda_memory_dlpack_device(struct pyl_cuda_memory *self, PyObject *unused)
{
	(void)unused;
	return Py_BuildValue("(ii)", PYL_DL_CUDA, self->device_id);
}

static PyObject *cuda_memory_get_pointer(struct pyl_cuda_memory *self, void *closure)
{
	(void)closure;
	if (self->closed)
		return pyl_closed("CUDA memory");
	return PyLong_FromUnsignedLongLong(self->ptr);
}

static PyObject *cuda_memory_get_size(struct pyl_cuda_memory *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(self->size);
}

static PyObject *cuda_memory_get_closed(struct pyl_cuda_memory *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->closed);
}

static PyObject *cuda_memory_get_exports(struct pyl_cuda_memory *self, void *closure)
{
	(void)closure;
	return PyLong_FromSsize_t(self->exports);
}

static PyMethodDef cuda_memory_methods[] = {
	{ "view", PYL_FAST(cuda_memory_view), PYL_FASTKW,
	  "view(dtype=None, shape=None, offset=0) -> CudaMemory: a typed tensor of the page's "
	  "bytes from offset" },
	{ "__dlpack__", PYL_FAST(cuda_memory_dlpack), PYL_FASTKW,
	  "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None) -> a "
	  "kDLCUDA capsule" },
	{ "__dlpack_device__", (PyCFunction)cuda_memory_dlpack_device, METH_NOARGS,
	  "(kDLCUDA, CUDA ordinal)" },
	{ "close", (PyCFunction)cuda_memory_close, METH_NOARGS,
	  "Destroys the import (a view: lets go of it); EBUSY while views or tensors live." },
	{ 0 },
};

static PyGetSetDef cuda_memory_getset[] = {
	{ "pointer", (getter)cuda_memory_get_pointer, NULL, "The CUDA device pointer.", NULL },
	{ "size", (getter)cuda_memory_get_size, NULL, "Bytes from the pointer on.", NULL },
	{ "closed", (getter)cuda_memory_get_closed, NULL, "Whether close() was called.", NULL },
	{ "exports", (getter)cuda_memory_get_exports, NULL, "Live views and DLPack tensors.",
	  NULL },
	{ 0 },
};

PyTypeObject pyl_CudaMemoryType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "llmem._llmem.CudaMemory",
	.tp_basicsize = sizeof(struct pyl_cuda_memory),
	.tp_dealloc = (destructor)cuda_memory_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A page imported into CUDA (Cuda.import_page()), or a typed view of one.",
	.tp_weaklistoffset = offsetof(struct pyl_cuda_memory, weakrefs),
	.tp_methods = cuda_memory_methods,
	.tp_getset = cuda_memory_getset,
};

int pyl_share_init(PyObject *module)
{
	return PyModule_AddIntConstant(module, "V4L2_PIX_FMT_YUYV", V4L2_PIX_FMT_YUYV) ||
	       PyModule_AddIntConstant(module, "V4L2_PIX_FMT_NV12", V4L2_PIX_FMT_NV12);
}
