# SPDX-License-Identifier: MIT
"""CUDA (suite python-gpu, by hand on a machine with an NVIDIA GPU and its
driver, as the C gpu suite): DEVICE_LOCAL opaque-fd pages imported into
CUDA, handed out as DLPack tensors of CUDA device pointers; a Vulkan upload
read by CUDA and a CUDA write read back by Vulkan; torch or cupy take the
tensors without a copy where they are installed."""
import ctypes
import errno
import gc

import numpy as np
import pytest

import llmem

DL_CUDA = 2


def _capsule_tensor(capsule):
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    p = api.PyCapsule_GetPointer(capsule, b"dltensor")
    # DLTensor: data, {device_type, device_id}, ndim, dtype, shape, strides, byte_offset.
    data = ctypes.c_uint64.from_address(p).value
    device = (ctypes.c_int32.from_address(p + 8).value, ctypes.c_int32.from_address(p + 12).value)
    ndim = ctypes.c_int32.from_address(p + 16).value
    return data, device, ndim


def test_cuda_pages_as_dlpack_tensors(session, queue):
    try:
        cuda = llmem.Cuda(session)
    except llmem.Error as e:
        pytest.fail(f"the gpu suite runs where CUDA is: {e.strerror}")
    m = session.create_memory(llmem.MemoryFlags.DEVICE_LOCAL, sharing="opaque-fd", name="cuda")
    b = m.create_buffer(1 << 20)
    a = b.allocation_info
    cm = cuda.import_page(m, a.page)
    assert cm.size >= a.offset + a.size and cm.pointer
    view = cm.view("float32", (256, 1024), offset=a.offset)
    kind, ordinal = view.__dlpack_device__()
    assert kind == DL_CUDA and ordinal >= 0
    capsule = view.__dlpack__(stream=None)
    data, device, ndim = _capsule_tensor(capsule)
    assert data == cm.pointer + a.offset and device == (DL_CUDA, ordinal) and ndim == 2
    del capsule
    # A Vulkan upload is seen by CUDA, a CUDA write by a Vulkan read.
    values = np.arange(256 * 1024, dtype=np.float32)
    queue.write_buffer(b, values)
    back = np.zeros_like(values)
    cuda.copy_to_host(back, view.pointer)
    assert np.array_equal(back, values)
    cuda.memset(view.pointer, 0, 4096)
    out = np.zeros(1024, np.float32)
    queue.read_buffer(b, out)
    assert not out.any()
    for name in ("torch", "cupy"):
        try:
            lib = __import__(name)
        except ImportError:
            continue
        t = lib.from_dlpack(view)
        assert t.shape == (256, 1024)
        ptr = t.data_ptr() if name == "torch" else t.data.ptr
        assert ptr == cm.pointer + a.offset
        t[1] = 7
        if name == "torch":
            lib.cuda.synchronize()
        else:
            lib.cuda.runtime.deviceSynchronize()
        queue.read_buffer(b, out, 4096)
        assert np.all(out == 7)
        with pytest.raises(llmem.Error) as e:
            cm.close()
        assert e.value.errno == errno.EBUSY
        del t
        gc.collect()
    view.close()
    # The import holds the context and the memory open.
    with pytest.raises(llmem.Error) as e:
        cuda.close()
    assert e.value.errno == errno.EBUSY
    b.close()
    with pytest.raises(llmem.Error) as e:
        m.close()
    assert e.value.errno == errno.EBUSY
    cm.close()
    m.close()
    cuda.close()
