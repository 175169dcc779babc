# SPDX-License-Identifier: MIT
"""Buffers and their mappings: zero-copy views through the buffer protocol and
DLPack, seen by device copies both ways, kept alive by their views."""
import ctypes
import errno
import gc
import weakref

import numpy as np
import pytest

import llmem

DL_CPU = 1


def test_create_usage_and_errors(memory):
    b = memory.create_buffer(4096, name="data")
    assert b.size == 4096 and b.name == "data" and b.memory is memory
    assert b.usage == llmem.BufferUsage.DEFAULT
    c = memory.create_buffer(64, llmem.BufferUsage.TRANSFER_SRC)
    assert c.usage == llmem.BufferUsage.TRANSFER_SRC
    with pytest.raises(llmem.Error) as e:
        memory.create_buffer(0)
    assert e.value.errno == errno.EINVAL and "size is 0" in e.value.strerror
    with pytest.raises(llmem.Error) as e:
        memory.create_buffer(64, usage=1 << 20)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        memory.create_buffer(-1)
    with pytest.raises(TypeError):
        memory.create_buffer(4.0)
    with pytest.raises(TypeError):
        memory.create_buffer()
    with pytest.raises(TypeError):
        memory.create_buffer(64, name=5)
    b.close()
    c.close()


def test_create_from_host_and_like(memory, queue):
    data = np.arange(256, dtype=np.uint16)
    b = memory.create_buffer_from_host(data, name="from numpy")
    assert b.size == data.nbytes
    with b.map(dtype=np.uint16) as m:
        assert np.array_equal(np.asarray(m), data)
    c = memory.create_buffer_from_host(b"\x01\x02\x03")
    assert c.size == 3
    like = memory.create_buffer_like(b)
    assert like.size == b.size and like.usage == b.usage
    img = memory.create_image((8, 8, 4))
    like_img = memory.create_buffer_like(img)
    assert like_img.size == 8 * 8 * 4
    with pytest.raises(TypeError):
        memory.create_buffer_from_host(5)
    with pytest.raises(TypeError):
        memory.create_buffer_like(data)
    with pytest.raises(ValueError):
        memory.create_buffer_from_host(np.zeros((4, 4))[:, 1])
    for o in (b, c, like, img, like_img):
        o.close()


def test_allocation_info(memory):
    a = memory.create_buffer(1000)
    b = memory.create_buffer(1000)
    ia, ib = a.allocation_info, b.allocation_info
    assert isinstance(ia, llmem.AllocationInfo)
    assert ia._fields == ("page", "offset", "left_padding", "size")
    assert ia.size == 1000 and ib.size == 1000
    assert ia.page == ib.page
    assert ia.offset + ia.size <= ib.offset - ib.left_padding or \
        ib.offset + ib.size <= ia.offset - ia.left_padding
    a.close()
    b.close()


def test_sub_buffers_share_bytes(memory):
    parent = memory.create_buffer(4096, name="parent")
    sub = parent.sub(256, 512, name="sub")
    pa, sa = parent.allocation_info, sub.allocation_info
    assert sa == (pa.page, pa.offset + 256, 0, 512)
    assert sub.parent is parent and sub.size == 512
    with parent.map() as pm, sub.map() as sm:
        p, s = np.asarray(pm), np.asarray(sm)
        s[:] = 7
        assert np.all(p[256:768] == 7) and not p[:256].any()
        del p, s
    with pytest.raises(llmem.Error) as e:
        parent.sub(4000, 512)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        parent.sub(1, 16)
    assert e.value.errno == errno.EINVAL
    # The parent may go first: the sub-region keeps the range.
    parent.close()
    with sub.map() as sm:
        assert np.all(np.asarray(sm) == 7)
    sub.close()


def test_numpy_writes_are_seen_by_a_device_copy(memory, queue):
    src = memory.create_buffer(1 << 16)
    dst = memory.create_buffer(1 << 16)
    view = np.asarray(src.map(dtype=np.uint32))
    view[:] = np.arange(view.size, dtype=np.uint32) * 3
    llmem.enqueue_copy(queue, dst, src)
    out = np.empty(view.size, np.uint32)
    llmem.enqueue_copy(queue, out, dst)
    assert np.array_equal(out, view)
    del view
    gc.collect()
    src.close()
    dst.close()


def test_device_writes_are_seen_by_numpy(memory, queue):
    b = memory.create_buffer(4096)
    m = b.map(dtype="float32", shape=(16, 64))
    view = np.asarray(m)
    assert view.shape == (16, 64) and view.dtype == np.float32
    llmem.enqueue_fill_buffer(queue, b, np.float32(2.5))
    assert np.all(view == 2.5)
    queue.write_buffer(b, np.full(64, -1, np.float32), 64 * 4 * 3)
    assert np.all(view[3] == -1) and np.all(view[4] == 2.5)
    del view
    m.close()
    b.close()


def test_views_keep_the_mapping_and_buffer_alive(memory):
    b = memory.create_buffer(1024)
    m = b.map()
    view = np.asarray(m)
    mref, bref = weakref.ref(m), weakref.ref(b)
    assert m.exports == 1 and b.mappings == 1
    del m
    gc.collect()
    assert mref() is not None
    with pytest.raises(llmem.Error) as e:
        b.close()
    assert e.value.errno == errno.EBUSY and "mapping" in e.value.strerror
    del b
    gc.collect()
    assert bref() is not None
    view[:] = 9
    assert bref().mappings == 1
    del view
    gc.collect()
    assert mref() is None and bref() is None
    assert memory.info.object_count == 0


def test_closing_a_mapping_waits_for_its_views(memory):
    b = memory.create_buffer(256)
    m = b.map()
    view = np.asarray(m)
    m.close()
    assert m.closed and not m.released and b.mappings == 1
    with pytest.raises(BufferError):
        memoryview(m)
    with pytest.raises(BufferError):
        m.__dlpack__()
    view[0] = 1
    del view
    gc.collect()
    assert m.released and b.mappings == 0
    assert "(released)" in repr(m)
    with pytest.raises(ValueError):
        m.address
    b.close()


def test_map_shapes_and_formats(memory):
    b = memory.create_buffer(4096)
    for dtype, fmt, size in ((None, "B", 1), ("uint8", "B", 1), (np.float16, "e", 2),
                             (np.dtype("<i4"), "i", 4), ("f8", "d", 8), ("uint64", "Q", 8)):
        with b.map(dtype=dtype) as m:
            mv = memoryview(m)
            assert (mv.format, mv.itemsize, mv.shape) == (fmt, size, (4096 // size,))
            assert m.format == fmt and m.nbytes == 4096
            mv.release()
    with b.map("int16", (8, 4, 16)) as m:
        mv = memoryview(m)
        assert mv.shape == (8, 4, 16) and mv.strides == (128, 32, 2) and mv.c_contiguous
        assert m.shape == (8, 4, 16) and m.strides == (128, 32, 2)
        mv.release()
    with pytest.raises(ValueError, match="does not fit"):
        b.map("float32", (32, 33))
    with pytest.raises(ValueError, match="big-endian"):
        b.map(">f4")
    with pytest.raises(ValueError, match="unknown dtype"):
        b.map("complex64")
    with pytest.raises(TypeError):
        b.map(dtype=3)
    assert b.mappings == 0
    c = memory.create_buffer(10)
    with pytest.raises(ValueError, match="whole number"):
        c.map("uint32")
    b.close()
    c.close()


def test_explicit_flush_and_invalidate(memory):
    b = memory.create_buffer(1000)
    with b.map() as m:
        assert m.coherent
        m.flush()
        m.flush(10, 100)
        m.invalidate(0, 1000)
        with pytest.raises(llmem.Error) as e:
            m.flush(900, 200)
        assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        m.flush()
    b.close()


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def read_capsule(capsule, name=b"dltensor"):
    """The DLManagedTensor inside a capsule, read by ctypes from the DLPack spec."""
    assert _api.PyCapsule_GetName(capsule) == name
    return DLManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, name))


def test_dlpack_capsule_fields(memory):
    b = memory.create_buffer(4096)
    m = b.map(dtype=np.float32, shape=(32, 32))
    assert m.__dlpack_device__() == (DL_CPU, 0)
    capsule = m.__dlpack__()
    t = read_capsule(capsule)
    d = t.dl_tensor
    assert d.data == m.address and d.byte_offset == 0
    assert (d.device.device_type, d.device.device_id) == (DL_CPU, 0)
    assert d.ndim == 2 and (d.dtype.code, d.dtype.bits, d.dtype.lanes) == (2, 32, 1)
    assert [d.shape[i] for i in range(2)] == [32, 32]
    assert [d.strides[i] for i in range(2)] == [32, 1]
    assert t.manager_ctx and t.deleter
    assert m.exports == 1
    # Not consumed: dropping the capsule calls the deleter.
    del t, d, capsule
    gc.collect()
    assert m.exports == 0
    with b.map("int8") as m8:
        capsule = m8.__dlpack__()
        t = read_capsule(capsule).dl_tensor
        assert (t.dtype.code, t.dtype.bits) == (0, 8)
        del t, capsule
    assert m8.exports == 0 and m8.released
    m.close()
    b.close()


class Producer:
    """Hands a mapping's capsule to a consumer and keeps it, to look at afterwards."""

    def __init__(self, mapping):
        self.mapping = mapping
        self.capsule = None

    def __dlpack__(self, stream=None):
        self.capsule = self.mapping.__dlpack__(stream=stream)
        return self.capsule

    def __dlpack_device__(self):
        return self.mapping.__dlpack_device__()


def test_numpy_from_dlpack_is_a_view(memory, queue):
    b = memory.create_buffer(1024)
    m = b.map(dtype=np.uint16)
    producer = Producer(m)
    arr = np.from_dlpack(producer)
    assert arr.shape == (512,) and arr.dtype == np.uint16
    assert arr.__array_interface__["data"][0] == m.address
    # numpy took the capsule: renamed, its deleter is numpy's to call.
    assert _api.PyCapsule_GetName(producer.capsule) == b"used_dltensor"
    del producer
    assert m.exports == 1
    # numpy marks what it takes through DLPack read-only; device writes show.
    assert not arr.flags.writeable
    queue.fill_buffer(b, np.uint16(0xBEEF))
    assert np.all(arr == 0xBEEF)
    m.close()
    assert not m.released
    del arr
    gc.collect()
    assert m.released and m.exports == 0
    b.close()


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))),
    ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


def test_dlpack_1_0_when_asked(memory):
    b = memory.create_buffer(256)
    with b.map("uint16", (8, 16)) as m:
        capsule = m.__dlpack__(max_version=(1, 0), dl_device=(DL_CPU, 0), copy=False)
        assert _api.PyCapsule_GetName(capsule) == b"dltensor_versioned"
        t = DLManagedTensorVersioned.from_address(
            _api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
        assert (t.version.major, t.version.minor) == (1, 0)
        assert t.flags == 0  # writable
        d = t.dl_tensor
        assert d.data == m.address and d.ndim == 2
        assert (d.dtype.code, d.dtype.bits) == (1, 16)
        assert [d.shape[i] for i in range(2)] == [8, 16]
        assert m.exports == 1
        del t, d, capsule
        gc.collect()
        assert m.exports == 0
        # Consumers that know only 0.x get 0.x.
        assert _api.PyCapsule_GetName(m.__dlpack__(max_version=(0, 8))) == b"dltensor"
    b.close()


def test_dlpack_arguments_on_host(memory):
    b = memory.create_buffer(64)
    with b.map() as m:
        with pytest.raises(ValueError, match="stream"):
            m.__dlpack__(stream=1)
        with pytest.raises(BufferError, match="device"):
            m.__dlpack__(dl_device=(2, 0))
        with pytest.raises(BufferError, match="never copies"):
            m.__dlpack__(copy=True)
        with pytest.raises(TypeError):
            m.__dlpack__(max_version=1)
        with pytest.raises(TypeError):
            m.__dlpack__(unknown=1)
        m.__dlpack__(stream=None)
        assert m.exports == 0
    b.close()


def test_closed_buffer_raises(memory):
    b = memory.create_buffer(64)
    b.close()
    b.close()
    assert b.closed and "(closed)" in repr(b)
    for call in (b.map, lambda: b.sub(0, 16), b.export_dmabuf, lambda: b.allocation_info,
                 lambda: b.usage, lambda: b.memory, b.begin_cpu_access):
        with pytest.raises(ValueError, match="buffer is closed"):
            call()
    q = llmem.Queue(memory.session)
    with pytest.raises(ValueError, match="closed"):
        q.write_buffer(b, b"x")
    q.close()


def test_buffer_holds_its_memory(session):
    m = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
    b = m.create_buffer(64)
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is b.memory
    b.close()
    # A closed buffer lets go of its memory at once.
    assert ref() is None


def test_export_needs_a_shared_memory(memory):
    b = memory.create_buffer(64)
    with pytest.raises(llmem.Error) as e:
        b.export_dmabuf()
    assert e.value.errno == errno.ENOTSUP
    with pytest.raises(llmem.Error) as e:
        b.export_frame(llmem.frame_layout("AB24", 4, 4))
    assert e.value.errno in (errno.ENOTSUP, errno.EINVAL)
    with pytest.raises(TypeError):
        b.export_frame((1, 2))
    # Eight fields (a FrameLayout from before coded sizes) and ten are
    # layouts; nine are not.
    padded = llmem.frame_layout("AB24", 4, 4, coded_width=8, coded_height=8)
    for layout in (tuple(padded[:8]), tuple(padded)):
        with pytest.raises(llmem.Error) as e:
            b.export_frame(layout)
        assert e.value.errno in (errno.ENOTSUP, errno.EINVAL)
    with pytest.raises(TypeError):
        b.export_frame(tuple(padded[:9]))
    with pytest.raises(llmem.Error) as e:
        b.export_range()
    assert e.value.errno == errno.ENOTSUP and "llmem.ko" in e.value.strerror
    with pytest.raises(llmem.Error) as e:
        b.export_frame(llmem.frame_layout("AB24", 4, 4), 1 << 7)
    assert e.value.errno == errno.EINVAL
    b.close()


def test_alignment_places_a_buffer(memory):
    a = memory.create_buffer(100)
    b = memory.create_buffer(5000, alignment=4096)
    assert b.allocation_info.offset % 4096 == 0 and b.allocation_info.offset > 0
    with pytest.raises(llmem.Error) as e:
        memory.create_buffer(64, alignment=3000)
    assert e.value.errno == errno.EINVAL
    a.close()
    b.close()
