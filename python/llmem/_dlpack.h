/* SPDX-License-Identifier: MIT */
/*
 * The DLPack ABI, declared here from the specification (dlpack.h 0.8, what
 * numpy 1.22 and later, PyTorch and CuPy consume through __dlpack__, and
 * the 1.0 versioned tensor newer consumers ask for with max_version): no
 * header of DLPack's is needed to build.  A producer hands out a PyCapsule
 * named "dltensor" around a DLManagedTensor ("dltensor_versioned" around a
 * DLManagedTensorVersioned); the consumer renames it "used_dltensor"
 * ("used_dltensor_versioned") and calls the tensor's deleter once it is
 * done with the memory.  A capsule never consumed calls the deleter when it
 * is destroyed.
 */
#ifndef LLMEM_PY_DLPACK_H
#define LLMEM_PY_DLPACK_H

#include "_layout.h"

/* DLDeviceType values used here. */
#define PYL_DL_CPU 1
#define PYL_DL_CUDA 2

/* DLDataTypeCode values. */
#define PYL_DL_INT 0
#define PYL_DL_UINT 1
#define PYL_DL_FLOAT 2
#define PYL_DL_BOOL 6

typedef struct {
	/* DLDeviceType, an enum: an int in the C ABI. */
	int32_t device_type;
	int32_t device_id;
} DLDevice;

typedef struct {
	uint8_t code;
	uint8_t bits;
	uint16_t lanes;
} DLDataType;

typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape;
	/* In items, not bytes; NULL for a compact row-major tensor. */
	int64_t *strides;
	uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
	DLTensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* DLPack 1.0: a versioned tensor with flags, for consumers that ask. */
typedef struct {
	uint32_t major;
	uint32_t minor;
} DLPackVersion;

#define PYL_DLPACK_FLAG_READ_ONLY (1ull << 0)

typedef struct DLManagedTensorVersioned {
	DLPackVersion version;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensorVersioned *self);
	uint64_t flags;
	DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define PYL_DLPACK_CAPSULE "dltensor"
#define PYL_DLPACK_USED_CAPSULE "used_dltensor"
#define PYL_DLPACK_VERSIONED_CAPSULE "dltensor_versioned"
#define PYL_DLPACK_USED_VERSIONED_CAPSULE "used_dltensor_versioned"

/*
 * The arguments of __dlpack__(stream=None, *, max_version=None,
 * dl_device=None, copy=None) for a tensor on (@device_type, @device_id):
 * host memory takes no stream; a dl_device other than ours and copy=True
 * are BufferError (these are views, never copies).  *@versioned is set when
 * the consumer takes DLPack 1.0.  Return: 0 or -1.
 */
int pyl_dlpack_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int32_t device_type,
		    int32_t device_id, int *versioned);

/*
 * A capsule over @data laid out as @layout on a device: "dltensor" (0.x),
 * or "dltensor_versioned" (1.0, with the read-only flag) when @versioned.
 * The tensor holds a reference to @owner; its deleter, with the GIL, calls
 * @done(@owner) and drops the reference.  Return: the capsule, or NULL with
 * an exception (BufferError for a dtype DLPack cannot name).
 */
PyObject *pyl_dlpack_export(PyObject *owner, void *data, int32_t device_type, int32_t device_id,
			    const struct pyl_layout *layout, int versioned, int readonly,
			    void (*done)(PyObject *owner));

#endif /* LLMEM_PY_DLPACK_H */
