# SPDX-License-Identifier: MIT
"""DMA-BUFs in the guest: buffers exported with their layout and mapped by
another mapping of the fd, pages imported back, frames described for
importers.  The backend is whatever the kernel allows: Vulkan's own export
on 6.12, llmem.ko's pages on 6.1."""
import errno
import fcntl
import mmap
import os

import numpy as np
import pytest

import llmem

SHARED = (llmem.Backend.VULKAN_DMABUF, llmem.Backend.LLMEM_DMABUF,
          llmem.Backend.LLMEM_HOST_POINTER)


@pytest.fixture
def shared(request, session):
    m = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, page_size=4 << 20,
                              sharing="dmabuf", name="shared")
    yield m
    m.close()


def pattern(n):
    return (np.arange(n, dtype=np.uint32) * 2654435761 % (1 << 32)).astype(np.uint32)


def test_export_is_seen_through_the_fd(shared):
    assert shared.info.backend in SHARED and shared.info.sharing == llmem.Sharing.DMABUF
    pad = shared.create_buffer(1000)
    b = shared.create_buffer(64 << 10, name="exported")
    data = pattern(16 << 10)
    with b.map("uint32") as m:
        view = np.asarray(m)
        view[:] = data
        del view
    d = b.export_dmabuf()
    assert isinstance(d, llmem.DmaBuf)
    assert d.size == 64 << 10 and d.offset == b.allocation_info.offset > 0
    assert fcntl.fcntl(d.fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    try:
        with b.cpu_access(llmem.CpuAccess.READ):
            with mmap.mmap(d.fd, d.offset + d.size, prot=mmap.PROT_READ) as mm:
                seen = np.frombuffer(mm, np.uint32, count=d.size // 4, offset=d.offset)
                assert np.array_equal(seen, data)
                del seen
    finally:
        os.close(d.fd)
    pad.close()
    b.close()


def test_pages_import_back(session, shared, queue):
    b = shared.create_buffer(256 << 10)
    data = pattern(64 << 10)
    queue.write_buffer(b, data)
    a = b.allocation_info
    fd = shared.export_page(a.page)
    imported = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, sharing="import",
                                     name="imported")
    try:
        assert imported.import_dmabuf(fd) == 0
    finally:
        os.close(fd)
    assert imported.info.backend in (llmem.Backend.IMPORT_DMABUF,
                                     llmem.Backend.IMPORT_HOST_POINTER)
    whole = imported.create_buffer(a.offset + a.size)
    assert whole.allocation_info.offset == 0
    with whole.map("uint32") as m:
        view = np.asarray(m)
        assert np.array_equal(view[a.offset // 4:], data)
        # Written through the import, read through the exporter's buffer.
        view[a.offset // 4:] = data[::-1]
        del view
    out = np.zeros_like(data)
    queue.read_buffer(b, out)
    assert np.array_equal(out, data[::-1])
    whole.close()
    imported.close()
    b.close()


def test_frames_are_described_for_importers(shared):
    layout = llmem.frame_layout("NV12", 640, 480, pitch_alignment=64)
    b = shared.create_buffer(layout.size)
    f = b.export_frame(layout)
    try:
        assert isinstance(f, llmem.DmaBufFrame)
        assert (f.fourcc, f.width, f.height, f.modifier) == (llmem.fourcc("NV12"), 640, 480, 0)
        assert f.pitches == layout.pitches
        start = b.allocation_info.offset
        assert f.offsets == tuple(start + o for o in layout.offsets)
    finally:
        os.close(f.fd)
    small = shared.create_buffer(1000)
    with pytest.raises(llmem.Error) as e:
        small.export_frame(layout)
    assert e.value.errno == errno.EINVAL
    small.close()
    b.close()


def test_a_buffer_exported_as_a_dmabuf_of_its_own(session):
    m = session.create_memory(0, page_size=64 << 10, sharing="dmabuf",
                              backend="llmem-dmabuf", name="ranges")
    a = m.create_buffer(8192, alignment=4096)
    b = m.create_buffer(5000, alignment=4096)
    off = b.allocation_info.offset
    assert off and off % 4096 == 0
    d = b.export_range()
    try:
        assert (d.offset, d.size) == (0, 8192)
        data = (np.arange(5000) * 7 + 1).astype(np.uint8)
        with b.map() as mp, mmap.mmap(d.fd, d.size) as mm:
            np.asarray(mp)[:] = data
            mp.flush()
            assert np.array_equal(np.frombuffer(mm, np.uint8, 5000), data)
            mm[:5000] = b"\x5a" * 5000
            mp.invalidate()
            assert (np.asarray(mp) == 0x5a).all()
    finally:
        os.close(d.fd)
    # A frame in the buffer's own DMA-BUF starts at its first byte, which
    # V4L2 (NO_OFFSET) needs; in the page's it starts at the buffer's offset.
    layout = llmem.frame_layout("AB24", 32, 16)
    f = a.export_frame(layout, llmem.ExportFlags.RANGE | llmem.ExportFlags.NO_OFFSET)
    os.close(f.fd)
    assert f.offsets == (0,)
    f = b.export_frame(llmem.frame_layout("AB24", 32, 16), llmem.ExportFlags.RANGE)
    os.close(f.fd)
    assert f.offsets == (0,)
    with pytest.raises(llmem.Error) as e:
        b.export_frame(layout, llmem.ExportFlags.NO_OFFSET)
    assert e.value.errno == errno.EINVAL and e.value.strerror
    a.close()
    b.close()
    m.close()


def test_import_errors(session, shared):
    imported = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, sharing="import")
    with pytest.raises(ValueError):
        imported.import_dmabuf(-1)
    closed = os.open("/dev/null", os.O_RDONLY)
    os.close(closed)
    with pytest.raises(llmem.Error) as e:
        imported.import_dmabuf(closed)
    assert e.value.errno == errno.EBADF
    b = shared.create_buffer(4096)
    fd = shared.export_page(b.allocation_info.page)
    try:
        with pytest.raises(llmem.Error) as e:
            shared.import_dmabuf(fd)
        assert e.value.errno == errno.EINVAL
        with pytest.raises(llmem.Error) as e:
            imported.import_dmabuf(fd, size=64 << 20)
        assert e.value.errno == errno.EINVAL
    finally:
        os.close(fd)
    b.close()
    imported.close()
