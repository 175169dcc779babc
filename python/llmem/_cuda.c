// SPDX-License-Identifier: MIT
/*
 * Pages imported into CUDA with their DLPack tensors.  A CUDA context counts
 * its imports and an import its views and DLPack tensors: each refuses
 * close() (EBUSY) while they live, since what they point at would go.
 */
#include "_cuda.h"
#include "_dlpack.h"
#include "_session.h"

#include <dlfcn.h>
#include <errno.h>

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
