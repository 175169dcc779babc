// SPDX-License-Identifier: MIT
/*
 * DLPack tensors over mapped host memory and CUDA device memory: the
 * arguments of __dlpack__, the managed tensor (0.x or 1.0), its deleter and
 * the capsule around it.
 */
#include "_dlpack.h"

#include <string.h>

struct dl_ctx {
	union {
		DLManagedTensor legacy;
		DLManagedTensorVersioned versioned;
	} t;
	PyObject *owner;
	void (*done)(PyObject *owner);
	int64_t shape[PYL_MAX_DIMS];
	int64_t strides[PYL_MAX_DIMS];
};

/*
 * Consumers call the deleter from any thread, with or without the GIL
 * (PyTorch frees tensors from its own threads).  After the interpreter is
 * gone the owner is leaked: nothing could run its release any more.
 */
static void dl_release(struct dl_ctx *c)
{
	struct pyl_saved_error saved;
	PyGILState_STATE g;

	if (!Py_IsInitialized())
		return;
	g = PyGILState_Ensure();
	pyl_error_save(&saved);
	if (c->done)
		c->done(c->owner);
	Py_DECREF(c->owner);
	PyMem_RawFree(c);
	pyl_error_restore(&saved);
	PyGILState_Release(g);
}

static void dl_deleter(DLManagedTensor *t)
{
	dl_release(t->manager_ctx);
}

static void dl_versioned_deleter(DLManagedTensorVersioned *t)
{
	dl_release(t->manager_ctx);
}

/* A capsule still under its first name was never consumed: it is ours. */
static void dl_capsule_destructor(PyObject *capsule)
{
	DLManagedTensor *t;

	if (PyCapsule_IsValid(capsule, PYL_DLPACK_USED_CAPSULE))
		return;
	t = PyCapsule_GetPointer(capsule, PYL_DLPACK_CAPSULE);
	if (!t) {
		PyErr_WriteUnraisable(capsule);
		return;
	}
	if (t->deleter)
		t->deleter(t);
}

static void dl_versioned_capsule_destructor(PyObject *capsule)
{
	DLManagedTensorVersioned *t;

	if (PyCapsule_IsValid(capsule, PYL_DLPACK_USED_VERSIONED_CAPSULE))
		return;
	t = PyCapsule_GetPointer(capsule, PYL_DLPACK_VERSIONED_CAPSULE);
	if (!t) {
		PyErr_WriteUnraisable(capsule);
		return;
	}
	if (t->deleter)
		t->deleter(t);
}

static int dl_dtype(const char *format, Py_ssize_t itemsize, DLDataType *out)
{
	static const struct {
		char format;
		uint8_t code;
	} codes[] = {
		{ 'B', PYL_DL_UINT },  { 'H', PYL_DL_UINT },  { 'I', PYL_DL_UINT },
		{ 'Q', PYL_DL_UINT },  { 'b', PYL_DL_INT },   { 'h', PYL_DL_INT },
		{ 'i', PYL_DL_INT },   { 'q', PYL_DL_INT },   { 'e', PYL_DL_FLOAT },
		{ 'f', PYL_DL_FLOAT }, { 'd', PYL_DL_FLOAT }, { '?', PYL_DL_BOOL },
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i].format == format[0]) {
			out->code = codes[i].code;
			out->bits = (uint8_t)(itemsize * 8);
			out->lanes = 1;
			return 0;
		}
	PyErr_Format(PyExc_BufferError, "DLPack has no type for format '%s'", format);
	return -1;
}

static int int_pair(PyObject *o, const char *what, long *a, long *b)
{
	if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
		PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints", what);
		return -1;
	}
	*a = PyLong_AsLong(PyTuple_GET_ITEM(o, 0));
	if (*a == -1 && PyErr_Occurred())
		return -1;
	*b = PyLong_AsLong(PyTuple_GET_ITEM(o, 1));
	return *b == -1 && PyErr_Occurred() ? -1 : 0;
}

int pyl_dlpack_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int32_t device_type,
		    int32_t device_id, int *versioned)
{
	static const char *const names[] = { "stream", "max_version", "dl_device", "copy", NULL };
	PyObject *a[4];
	long x, y;

	*versioned = 0;
	if (pyl_args("__dlpack__", args, nargs, kwnames, names, 1, 0, a))
		return -1;
	if (a[0] && a[0] != Py_None) {
		if (device_type == PYL_DL_CPU) {
			PyErr_SetString(PyExc_ValueError,
					"host memory takes no stream: pass stream=None");
			return -1;
		}
		/*
		 * llmem's CUDA copies are synchronous and its blocking transfers
		 * done when they return: nothing is pending to order with.
		 */
		if (!PyLong_Check(a[0])) {
			PyErr_SetString(PyExc_TypeError, "stream must be an int or None");
			return -1;
		}
	}
	if (a[1] && a[1] != Py_None) {
		if (int_pair(a[1], "max_version", &x, &y))
			return -1;
		*versioned = x >= 1;
	}
	if (a[2] && a[2] != Py_None) {
		if (int_pair(a[2], "dl_device", &x, &y))
			return -1;
		if (x != device_type || y != device_id) {
			PyErr_Format(PyExc_BufferError,
				     "the tensor is on device (%d, %d), not (%ld, %ld): llmem does "
				     "not copy",
				     device_type, device_id, x, y);
			return -1;
		}
	}
	if (a[3] && a[3] != Py_None) {
		int copy = PyObject_IsTrue(a[3]);

		if (copy < 0)
			return -1;
		if (copy) {
			PyErr_SetString(PyExc_BufferError,
					"llmem exports views of its memory, never copies");
			return -1;
		}
	}
	return 0;
}

PyObject *pyl_dlpack_export(PyObject *owner, void *data, int32_t device_type, int32_t device_id,
			    const struct pyl_layout *layout, int versioned, int readonly,
			    void (*done)(PyObject *owner))
{
	DLTensor tensor = { 0 };
	struct dl_ctx *c;
	PyObject *capsule;

	if (dl_dtype(layout->format, layout->itemsize, &tensor.dtype))
		return NULL;
	for (int i = 0; i < layout->ndim; i++)
		if (layout->strides[i] % layout->itemsize) {
			PyErr_SetString(PyExc_BufferError,
					"DLPack strides count items: a stride is not a whole "
					"number of them");
			return NULL;
		}
	c = PyMem_RawCalloc(1, sizeof(*c));
	if (!c)
		return PyErr_NoMemory();
	for (int i = 0; i < layout->ndim; i++) {
		c->shape[i] = layout->shape[i];
		c->strides[i] = layout->strides[i] / layout->itemsize;
	}
	tensor.data = data;
	tensor.device.device_type = device_type;
	tensor.device.device_id = device_id;
	tensor.ndim = layout->ndim;
	tensor.shape = c->shape;
	tensor.strides = c->strides;
	c->owner = Py_NewRef(owner);
	c->done = done;
	if (versioned) {
		c->t.versioned = (DLManagedTensorVersioned){
			.version = { .major = 1, .minor = 0 },
			.manager_ctx = c,
			.deleter = dl_versioned_deleter,
			.flags = readonly ? PYL_DLPACK_FLAG_READ_ONLY : 0,
			.dl_tensor = tensor,
		};
		capsule = PyCapsule_New(&c->t.versioned, PYL_DLPACK_VERSIONED_CAPSULE,
					dl_versioned_capsule_destructor);
	} else {
		c->t.legacy = (DLManagedTensor){
			.dl_tensor = tensor,
			.manager_ctx = c,
			.deleter = dl_deleter,
		};
		capsule = PyCapsule_New(&c->t.legacy, PYL_DLPACK_CAPSULE, dl_capsule_destructor);
	}
	if (!capsule) {
		Py_DECREF(c->owner);
		PyMem_RawFree(c);
	}
	return capsule;
}
