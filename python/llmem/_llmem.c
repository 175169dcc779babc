// SPDX-License-Identifier: MIT
/*
 * The _llmem module, on top of the extension's other files and the only one
 * that knows every type: it readies them and gives them their names, makes
 * llmem.Error, holds the module's functions, and instantiates the Python
 * layer's subclasses once _register() names them.
 *
 * The extension is written against the CPython C API directly: the buffer
 * protocol and DLPack need no header of numpy's, which stays optional.
 */
#include "_bench.h"
#include "_camera.h"
#include "_codec.h"
#include "_convert.h"
#include "_cuda.h"
#include "_event.h"
#include "_kernel.h"
#include "_layout.h"
#include "_mapping.h"
#include "_objects.h"
#include "_session.h"
#include "_transfer.h"

/* Each class's name, in the module and as _register()'s argument. */
static const char *const class_names[PYL_CLASSES + 1] = {
	"Session",	"Memory", "Buffer",    "Image",	  "Mapping",	  "Queue",
	"Event",	"Camera", "Frame",     "Cuda",	  "CudaMemory",	  "UserEvent",
	"ImageView",	"Kernel", "Bitstream", "Decoder", "DecodedFrame", "Encoder",
	"EncoderFrame", "Packet", "Converter",
};

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
	[PYL_BITSTREAM] = &pyl_BitstreamType,
	[PYL_DECODER] = &pyl_DecoderType,
	[PYL_DECODED_FRAME] = &pyl_DecodedFrameType,
	[PYL_ENCODER] = &pyl_EncoderType,
	[PYL_ENCODER_FRAME] = &pyl_EncoderFrameType,
	[PYL_PACKET] = &pyl_PacketType,
	[PYL_CONVERTER] = &pyl_ConverterType,
};

static PyObject *mod_register(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	PyObject *cls[PYL_CLASSES];

	(void)module;
	if (pyl_args("_register", args, nargs, kwnames, class_names, 0, 0, cls))
		return NULL;
	for (int i = 0; i < PYL_CLASSES; i++) {
		if (!cls[i])
			continue;
		if (!PyType_Check(cls[i]) ||
		    !PyType_IsSubtype((PyTypeObject *)cls[i], base_types[i])) {
			PyErr_Format(PyExc_TypeError, "_register: %s must subclass _llmem.%s",
				     class_names[i], class_names[i]);
			return NULL;
		}
	}
	for (int i = 0; i < PYL_CLASSES; i++)
		if (cls[i])
			pyl_set_class(i, (PyTypeObject *)cls[i]);
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

static PyMethodDef module_methods[] = {
	{ "_register", PYL_FAST(mod_register), PYL_FASTKW,
	  "Registers the Python layer's subclasses as the classes to instantiate." },
	{ "strerror", mod_strerror, METH_O, "strerror(errno): llmem_strerror() of an errno." },
	{ "frame_layout", PYL_FAST(pyl_frame_layout), PYL_FASTKW,
	  "frame_layout(fourcc, width, height, pitch=0, pitch_alignment=0, plane_alignment=0, "
	  "min_size=0, coded_width=0, coded_height=0): llmem_frame_layout_init() as a tuple." },
	{ "backend_names", pyl_backend_names, METH_NOARGS,
	  "The names of enum llmem_backend, by value." },
	{ "convert", PYL_FAST(pyl_convert), PYL_FASTKW,
	  "convert(src, src_layout, dst, dst_layout, encoding=None, range=None, src_chroma=None): "
	  "llmem_convert() of one frame, YUV to RGB or RGB to YUV, returning once it is done." },
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
	for (int i = 0; i < PYL_CLASSES; i++) {
		if (add_type(m, base_types[i], class_names[i]))
			goto fail;
		pyl_set_class(i, base_types[i]);
	}
	if (PyModule_AddStringConstant(m, "__version__", PYL_VERSION) ||
	    PyModule_AddIntConstant(m, "DEFAULT_PAGE_SIZE", LLMEM_MEMORY_DEFAULT_PAGE_SIZE) ||
	    PyModule_AddIntConstant(m, "MAX_DIMS", PYL_MAX_DIMS) || pyl_camera_init(m))
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
