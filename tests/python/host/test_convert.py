# SPDX-License-Identifier: MIT
"""Frame conversion from Python: llmem.convert() both ways, checked against a
numpy reference of convert.h's formulas (a code within 1e-3 of a half may
round either way, as in the C tests); llmem.Converter's tickets, waits and
the buffers it holds until their tickets are found done; the errors."""
import errno
import gc
import weakref

import numpy as np
import pytest

import llmem

W, H = 64, 48


def ycbcr(rgb, matrix, full):
    """convert.h's Y, Cb and Cr codes of R, G, B (0-255), unrounded."""
    kr, kb = (0.2126, 0.0722) if matrix == "bt709" else (0.299, 0.114)
    r, g, b = (rgb[..., i].astype(np.float64) / 255 for i in range(3))
    y = kr * r + (1 - kr - kb) * g + kb * b
    cb, cr = (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr))
    if full == "full":
        return 255 * y, 128 + 255 * cb, 128 + 255 * cr
    return 16 + 219 * y, 128 + 224 * cb, 128 + 224 * cr


def codes_match(got, exact):
    """Each byte is its code rounded to nearest (halves up), or within 1e-3 of a half
    the other way."""
    rounded = np.clip(np.floor(exact + 0.5), 0, 255)
    tie = np.abs(exact - np.floor(exact) - 0.5) < 1e-3
    return np.all((got == rounded) | (tie & (np.abs(got - rounded) <= 1)))


def plane(buf, layout, index, row_bytes, rows):
    """A copy of a plane of the frame in buf, a (rows, row_bytes) uint8 array."""
    off, pitch = layout.offsets[index], layout.pitches[index]
    with buf.map() as m:
        return np.array(np.asarray(m)[off:off + pitch * rows].reshape(rows, pitch)[:, :row_bytes])


def random_rgb(memory, layout, seed):
    buf = memory.create_buffer(layout.size)
    with buf.map() as m:
        np.asarray(m)[:] = np.random.default_rng(seed).integers(0, 256, layout.size, np.uint8)
    return buf


@pytest.mark.parametrize("encoding", ["bt601", "bt709"])
@pytest.mark.parametrize("range_", ["limited", "full"])
def test_rgb_to_nv12_matches_reference(memory, encoding, range_):
    rgb_l = llmem.frame_layout("XR24", W, H)
    nv12_l = llmem.frame_layout("NV12", W, H)
    src = random_rgb(memory, rgb_l, 1)
    dst = memory.create_buffer(nv12_l.size)
    llmem.convert(src, rgb_l, dst, nv12_l, encoding=encoding, range=range_)
    # XRGB8888 holds B, G, R, X: reversed to R, G, B.
    rgb = plane(src, rgb_l, 0, 4 * W, H).reshape(H, W, 4)[..., 2::-1]
    y, cb, cr = ycbcr(rgb, encoding, range_)
    assert codes_match(plane(dst, nv12_l, 0, W, H), y)
    chroma = plane(dst, nv12_l, 1, W, H // 2).reshape(H // 2, W // 2, 2)
    block_mean = lambda c: c.reshape(H // 2, 2, W // 2, 2).mean(axis=(1, 3))
    assert codes_match(chroma[..., 0], block_mean(cb))
    assert codes_match(chroma[..., 1], block_mean(cr))
    src.close()
    dst.close()


def test_yuyv_round_trip(memory):
    """YUYV inside the gamut to ABGR8888 and back: every byte within 1."""
    yuyv_l = llmem.frame_layout("YUYV", W, H)
    rgba_l = llmem.frame_layout("AB24", W, H)
    rng = np.random.default_rng(2)
    yuv = np.where(np.arange(yuyv_l.size) % 2 == 1, rng.integers(112, 145, yuyv_l.size),
                   rng.integers(64, 193, yuyv_l.size)).astype(np.uint8)
    src = memory.create_buffer_from_host(yuv)
    rgba = memory.create_buffer(rgba_l.size)
    back = memory.create_buffer(yuyv_l.size)
    llmem.convert(src, yuyv_l, rgba, rgba_l, encoding="bt709")
    llmem.convert(rgba, rgba_l, back, yuyv_l, encoding=1)
    assert np.abs(plane(back, yuyv_l, 0, 2 * W, H).astype(int) - yuv.reshape(H, 2 * W)).max() <= 1
    for b in (src, rgba, back):
        b.close()


def test_converter_tickets(session, memory):
    rgb_l = llmem.frame_layout("AR24", W, H)
    nv12_l = llmem.frame_layout("NV12", W, H)
    srcs = [random_rgb(memory, rgb_l, 10 + i) for i in range(3)]
    dsts = [memory.create_buffer(nv12_l.size) for _ in range(2)]
    one_off = memory.create_buffer(nv12_l.size)
    with llmem.Converter(session, rgb_l, nv12_l, range="full", frames_in_flight=3) as conv:
        assert conv.frames_in_flight == 3 and conv.completed == 0
        assert repr(conv) == "<llmem.Converter 3 frames in flight, 0 done, 0 held>"
        tickets = []
        for i in range(7):
            tickets.append(conv.submit(srcs[i % 3], dsts[i % 2]))
            assert conv.completed >= tickets[-1] - 3
        assert tickets == list(range(1, 8))
        assert conv.wait(7) is True
        assert conv.completed == 7 and conv.pending == 0
        assert conv.wait(1, timeout=0) is True
        # The last frame into each destination, as llmem.convert() gives it.
        for d, s in ((dsts[0], srcs[0]), (dsts[1], srcs[2])):
            llmem.convert(s, rgb_l, one_off, nv12_l, range="full")
            with d.map() as dm, one_off.map() as om:
                assert bytes(dm) == bytes(om)
    assert conv.closed and repr(conv) == "<llmem.Converter (closed)>"
    for b in srcs + dsts + [one_off]:
        b.close()


def test_converter_holds_buffers_until_done(session, memory):
    """A ticket's buffers live, and refuse close(), until it is found done."""
    rgb_l = llmem.frame_layout("AB24", 640, 480)
    yuyv_l = llmem.frame_layout("YUYV", 640, 480)
    src = random_rgb(memory, rgb_l, 3)
    dst = memory.create_buffer(yuyv_l.size)
    conv = llmem.Converter(session, rgb_l, yuyv_l)
    t = conv.submit(src, dst)
    assert src.pending == dst.pending == conv.pending
    if conv.pending:
        with pytest.raises(llmem.Error) as e:
            src.close()
        assert e.value.errno == errno.EBUSY
    ref = weakref.ref(src)
    del src
    gc.collect()
    assert conv.wait(t, timeout=None)
    assert conv.pending == 0 and dst.pending == 0
    gc.collect()
    assert ref() is None
    conv.close()
    dst.close()


def test_converter_close_waits(session, memory):
    rgb_l = llmem.frame_layout("AB24", W, H)
    nv12_l = llmem.frame_layout("NV12", W, H)
    src = random_rgb(memory, rgb_l, 4)
    dst = memory.create_buffer(nv12_l.size)
    conv = llmem.Converter(session, rgb_l, nv12_l, frames_in_flight=16)
    for _ in range(5):
        conv.submit(src, dst)
    conv.close()
    assert src.pending == 0 and dst.pending == 0
    conv.close()
    src.close()
    dst.close()


def test_convert_errors(memory):
    rgb_l = llmem.frame_layout("AB24", W, H)
    nv12_l = llmem.frame_layout("NV12", W, H)
    a = memory.create_buffer(rgb_l.size)
    b = memory.create_buffer(rgb_l.size)
    with pytest.raises(llmem.Error) as e:
        llmem.convert(a, rgb_l, b, rgb_l)
    assert e.value.errno == errno.EINVAL and "0x34324241" in e.value.strerror
    with pytest.raises(llmem.Error) as e:
        llmem.convert(a, rgb_l, a, nv12_l)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        llmem.convert(a, rgb_l, b, nv12_l, encoding=2)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="unknown encoding 'bt2020'"):
        llmem.convert(a, rgb_l, b, nv12_l, encoding="bt2020")
    with pytest.raises(ValueError, match="unknown range"):
        llmem.convert(a, rgb_l, b, nv12_l, range="studio")
    with pytest.raises(TypeError):
        llmem.convert(a, rgb_l, b)
    with pytest.raises(TypeError):
        llmem.convert(a, "NV12", b, nv12_l)
    with pytest.raises(TypeError):
        llmem.convert(bytearray(16), rgb_l, b, nv12_l)
    b.close()
    with pytest.raises(ValueError, match="closed"):
        llmem.convert(a, rgb_l, b, nv12_l)
    assert a.pending == 0
    a.close()


def test_converter_errors(session, memory):
    rgb_l = llmem.frame_layout("AB24", W, H)
    nv12_l = llmem.frame_layout("NV12", W, H)
    for kwargs, err in (({"frames_in_flight": 17}, errno.EINVAL), ({"encoding": 5}, errno.EINVAL)):
        with pytest.raises(llmem.Error) as e:
            llmem.Converter(session, rgb_l, nv12_l, **kwargs)
        assert e.value.errno == err
    with pytest.raises(llmem.Error) as e:
        llmem.Converter(session, rgb_l, rgb_l)
    assert e.value.errno == errno.EINVAL
    if not session.info.caps & llmem.Caps.SYNC_FD_EXPORT:
        with pytest.raises(llmem.Error) as e:
            llmem.Converter(session, rgb_l, nv12_l, sync_files=True)
        assert e.value.errno == errno.ENOTSUP
    with pytest.raises(TypeError):
        llmem.Converter(session, rgb_l)
    with pytest.raises(TypeError):
        llmem.Converter(memory, rgb_l, nv12_l)
    a = memory.create_buffer(rgb_l.size)
    b = memory.create_buffer(nv12_l.size)
    small = memory.create_buffer(64)
    conv = llmem.Converter(session, rgb_l, nv12_l)
    for ticket in (0, 1):
        with pytest.raises(llmem.Error) as e:
            conv.wait(ticket)
        assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        conv.submit(a, small)
    assert e.value.errno == errno.EINVAL and "needs" in e.value.strerror
    assert small.pending == 0 and conv.pending == 0
    with pytest.raises(TypeError):
        conv.submit(a)
    with pytest.raises(TypeError):
        conv.submit(a, b"frame")
    t = conv.submit(a, b)
    assert t == 1
    with pytest.raises(llmem.Error) as e:
        conv.export_sync_file(t)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        conv.wait(t, timeout=-1)
    with pytest.raises(llmem.Error) as e:
        session.close()
    assert e.value.errno == errno.EBUSY and "1 converter" in e.value.strerror
    conv.close()
    for call in (lambda: conv.submit(a, b), lambda: conv.wait(1), lambda: conv.completed):
        with pytest.raises(ValueError, match="closed"):
            call()
    assert session._children["converters"] == 0
    for buf in (a, b, small):
        buf.close()
