# SPDX-License-Identifier: MIT
"""Sharing on the host: host memory imported and used in place, frame
layouts, opaque fds, and CUDA's error where there is none (its DLPack
tensors are tested in gpu/, on a machine with CUDA)."""
import errno
import fcntl
import mmap
import os

import numpy as np
import pytest

import llmem

def import_memory(session):
    return session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, sharing="import",
                                 backend="import-host-pointer", name="host")


def test_host_memory_is_used_in_place(session, queue):
    size = 1 << 20
    with mmap.mmap(-1, size) as mm:
        m = import_memory(session)
        assert m.info.sharing == llmem.Sharing.IMPORT
        assert m.import_host(mm) == 0
        b = m.create_buffer(4096)
        assert b.allocation_info.page == 0
        off = b.allocation_info.offset
        host = np.frombuffer(mm, np.uint8)
        # The device writes where the host reads, and the reverse.
        queue.fill_buffer(b, np.uint32(0xCAFEF00D))
        assert np.all(host[off:off + 4096].view(np.uint32) == 0xCAFEF00D)
        host[off:off + 4096] = 42
        out = np.zeros(4096, np.uint8)
        queue.read_buffer(b, out)
        assert np.all(out == 42)
        del host
        # The memory holds the allocation until it is closed.
        with pytest.raises(BufferError):
            mm.close()
        b.close()
        m.close()


def test_host_import_errors(session):
    m = import_memory(session)
    with mmap.mmap(-1, 8192) as mm:
        view = memoryview(mm)
        with pytest.raises(llmem.Error) as e:
            m.import_host(view[1:4097])
        assert e.value.errno == errno.EINVAL and "4096" in e.value.strerror
        with pytest.raises(llmem.Error) as e:
            m.import_host(view[:100])
        assert e.value.errno == errno.EINVAL
        view.release()
    with pytest.raises(ValueError, match="writable"):
        m.import_host(bytes(4096))
    with pytest.raises(TypeError):
        m.import_host(4096)
    plain = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
    with mmap.mmap(-1, 4096) as mm:
        with pytest.raises(llmem.Error) as e:
            plain.import_host(mm)
        assert e.value.errno == errno.EINVAL
    plain.close()
    m.close()


def test_frame_layouts():
    yuyv = llmem.frame_layout("YUYV", 640, 480)
    assert isinstance(yuyv, llmem.FrameLayout)
    assert (yuyv.fourcc, yuyv.num_planes, yuyv.pitches, yuyv.offsets) == \
        (llmem.fourcc("YUYV"), 1, (1280,), (0,))
    assert yuyv.size == 1280 * 480 and yuyv.modifier == 0
    nv12 = llmem.frame_layout("NV12", 64, 32, pitch_alignment=256)
    assert nv12.num_planes == 2 and nv12.pitches == (256, 256)
    assert nv12.offsets[1] >= 256 * 32
    rgba = llmem.frame_layout(llmem.fourcc("AB24"), 100, 10, pitch=512, min_size=8192)
    assert rgba.pitches == (512,) and rgba.size >= 8192
    assert llmem.fourcc_str(rgba.fourcc) == "AB24"
    with pytest.raises(llmem.Error) as e:
        llmem.frame_layout("YUYV", 641, 480)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        llmem.frame_layout("YUYV", 640, 480, pitch=100)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        llmem.frame_layout("YUV", 640, 480)
    # Without padding the coded size is the picture's.
    assert (yuyv.coded_width, yuyv.coded_height) == (640, 480)


def test_frame_layout_of_a_coded_size():
    # vicodec codes a 1000x562 NV12 picture as 1008x576: the CbCr plane
    # follows the coded rows, the picture keeps its size.
    nv12 = llmem.frame_layout("NV12", 1000, 562, coded_width=1008, coded_height=576)
    assert (nv12.width, nv12.height, nv12.coded_width, nv12.coded_height) == \
        (1000, 562, 1008, 576)
    assert nv12.pitches == (1008, 1008) and nv12.offsets == (0, 1008 * 576)
    assert nv12.size == 1008 * 576 * 3 // 2
    with pytest.raises(llmem.Error) as e:
        llmem.frame_layout("YUYV", 1000, 562, coded_width=990, coded_height=568)
    assert e.value.errno == errno.EINVAL
    # A FrameLayout of eight fields, as before coded sizes, reads as unpadded.
    old = llmem.FrameLayout(*nv12[:8])
    assert old.coded_width is None and old.coded_height is None
    with pytest.raises(ValueError):
        llmem.fourcc("TOOLONG")


def test_opaque_fd_pages(session):
    m = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, sharing="opaque-fd")
    assert m.info.backend == llmem.Backend.VULKAN_OPAQUE_FD
    b = m.create_buffer(4096)
    page = b.allocation_info.page
    fds = [m.export_page_opaque_fd(page) for _ in range(2)]
    assert fds[0] != fds[1]
    for fd in fds:
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        os.close(fd)
    with pytest.raises(llmem.Error) as e:
        m.export_page(page)
    assert e.value.errno == errno.ENOTSUP
    with pytest.raises(llmem.Error) as e:
        b.export_dmabuf()
    assert e.value.errno == errno.ENOTSUP
    b.close()
    m.close()


def cuda_or_reason(session):
    try:
        return llmem.Cuda(session), None
    except llmem.Error as e:
        return None, f"no CUDA behind the session: {e.strerror} ({errno.errorcode[e.errno]})"


def test_cuda_missing_raises_a_clear_error(session):
    cuda, reason = cuda_or_reason(session)
    if cuda is not None:
        cuda.close()
        pytest.skip("this session's device is a CUDA device: the error path cannot be taken")
    with pytest.raises(llmem.Error) as e:
        llmem.Cuda(session)
    assert e.value.errno in (errno.ENOTSUP, errno.ENODEV)
    assert e.value.strerror
    assert session._children["cudas"] == 0
