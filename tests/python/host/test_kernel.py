# SPDX-License-Identifier: MIT
"""User compute from Python: a SPIR-V kernel loaded from a file or bytes, run
on sub-buffers with push constants and on image views with samplers, checked
against numpy; what a dispatch in flight holds; the errors."""
import errno
import gc
import os
import struct

import numpy as np
import pytest

import llmem

SCALE = os.environ.get("LLMEM_SCALE_SPV", "build/tests/python/scale.spv")
BLUR = os.environ.get("LLMEM_BLUR_SPV", "build/examples/blur.spv")
STORAGE = llmem.BindingType.STORAGE_BUFFER


@pytest.fixture
def scale(request, session):
    """y = a * x + b over count words: tests/shaders/scale.comp."""
    k = llmem.Kernel(session, path=SCALE, bindings=(STORAGE, STORAGE), push_size=12,
                     name="scale")
    yield k
    k.close()


def test_scale_on_sub_buffers(memory, queue, scale, session):
    assert scale.bindings == (STORAGE, STORAGE) and scale.push_size == 12
    assert repr(scale) == ("<llmem.Kernel 'scale' storage_buffer, storage_buffer, 12 bytes "
                           "of push constants>")
    x = np.arange(1000, dtype=np.uint32)
    xb = memory.create_buffer_from_host(x)
    yb = memory.create_buffer(8192)
    queue.fill_buffer(yb, np.uint32(0xDEADBEEF))
    # Sub-regions at an offset every device allows for storage buffers (256).
    xs, ys = xb.sub(256, 400 * 4), yb.sub(512, 400 * 4)
    ev = queue.dispatch(scale, [xs, ys], groups=(400 + 63) // 64,
                        push=struct.pack("<3I", 3, 7, 400), blocking=False)
    assert scale.pending == 1 and xs.pending == 1
    assert ev.wait()
    with yb.map(np.uint32) as m:
        y = np.asarray(m)
        assert np.array_equal(y[128:528], 3 * x[64:464] + 7)
        assert np.all(y[:128] == 0xDEADBEEF) and np.all(y[528:] == 0xDEADBEEF)
        del y
    # The same module from bytes, with push constants from numpy.
    with open(SCALE, "rb") as f:
        again = llmem.Kernel(session, f.read(), bindings=[0, 0], push_size=12)
    queue.dispatch(again, (xb, yb), (16, 1, 1), np.array([2, 0, 1000], np.uint32))
    with yb.map(np.uint32) as m:
        assert np.array_equal(np.asarray(m)[:1000], 2 * x)
    for o in (ev, again, xs, ys, xb, yb):
        o.close()


def blur_reference(img, r):
    f = img.astype(np.float32) / 255
    h, w = img.shape[:2]
    pad = np.pad(f, ((r, r), (r, r), (0, 0)), mode="edge")
    acc = np.zeros_like(f)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            acc += pad[dy:dy + h, dx:dx + w]
    return np.floor(acc / (2 * r + 1) ** 2 * 255 + 0.5).astype(np.uint8)


def test_blur_through_views(memory, queue, session):
    h, w, r = 37, 61, 2
    yy, xx = np.mgrid[0:h, 0:w]
    pic = np.stack([(xx * 255 // w) ^ np.where(yy & 8, 255, 0), yy * 6, xx ^ yy,
                    np.full((h, w), 200)], axis=-1).astype(np.uint8)
    src = memory.create_image((h, w, 4), llmem.ChannelType.UNORM8)
    queue.write_image(src, pic)
    dst = memory.create_image_like(src)
    sv = src.view(address_mode="clamp_to_edge")
    dv = dst.view()
    assert (sv.filter, sv.address_mode, sv.unnormalized) == \
        (llmem.Filter.NEAREST, llmem.AddressMode.CLAMP_TO_EDGE, False)
    assert sv.image is src and src.views == 1
    k = llmem.Kernel(session, path=BLUR, name="blur",
                     bindings=[llmem.BindingType.SAMPLED_IMAGE, llmem.BindingType.STORAGE_IMAGE],
                     push_size=4)
    ev = queue.dispatch(k, [sv, dv], ((w + 7) // 8, (h + 7) // 8), np.int32(r),
                        blocking=False)
    # In flight, the dispatch holds its kernel and views; the views hold their images.
    for o in (k, sv):
        with pytest.raises(llmem.Error) as e:
            o.close()
        assert e.value.errno == errno.EBUSY
    with pytest.raises(llmem.Error) as e:
        session.close()
    assert e.value.errno == errno.EBUSY and "1 kernel" in e.value.strerror
    assert ev.wait() and k.pending == 0 and sv.pending == 0
    out = np.empty_like(pic)
    queue.read_image(dst, out)
    assert np.abs(out.astype(int) - blur_reference(pic, r)).max() <= 1
    with pytest.raises(llmem.Error) as e:
        src.close()
    assert e.value.errno == errno.EBUSY and "1 view" in e.value.strerror
    for o in (ev, k, sv, dv, src, dst):
        o.close()
    assert sv.closed and sv.image is None


def test_views(memory):
    img = memory.create_image((8, 8, 4), llmem.ChannelType.F32)
    v = img.view("linear", llmem.AddressMode.CLAMP_TO_BORDER, unnormalized=True)
    assert type(v) is llmem.ImageView
    assert (v.filter, v.address_mode, v.unnormalized) == \
        (llmem.Filter.LINEAR, llmem.AddressMode.CLAMP_TO_BORDER, True)
    assert repr(v) == "<llmem.ImageView of None linear clamp_to_border>"
    with pytest.raises(llmem.Error) as e:
        img.view(unnormalized=True)  # with the default repeat
    assert e.value.errno == errno.EINVAL
    ints = memory.create_image((8, 8, 4), "uint8")
    with pytest.raises(llmem.Error) as e:
        ints.view(filter="linear")
    assert e.value.errno == errno.ENOTSUP
    with pytest.raises(ValueError, match="unknown filter"):
        ints.view(filter="cubic")
    with pytest.raises(llmem.Error) as e:
        ints.view(address_mode=9)
    assert e.value.errno == errno.EINVAL
    ref = v.image
    del v
    gc.collect()
    assert ref.views == 0
    img.close()
    ints.close()
    with pytest.raises(ValueError, match="image is closed"):
        img.view()


def test_kernel_errors(session, tmp_path):
    with pytest.raises(TypeError, match="not both"):
        llmem.Kernel(session)
    with pytest.raises(TypeError, match="not both"):
        llmem.Kernel(session, b"x" * 8, path=SCALE)
    for bad in (b"not spirv!", bytes(20)):
        with pytest.raises(llmem.Error) as e:
            llmem.Kernel(session, bad)
        assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        llmem.Kernel(session, path=tmp_path / "missing.spv")
    assert e.value.errno == errno.ENOENT
    for kw in ({"bindings": [9]}, {"push_size": 3}, {"entry": "nope"}):
        with pytest.raises(llmem.Error) as e:
            llmem.Kernel(session, path=SCALE, **kw)
        assert e.value.errno == errno.EINVAL, kw
    with pytest.raises(ValueError, match="at most 16"):
        llmem.Kernel(session, path=SCALE, bindings=[0] * 17)
    with pytest.raises(TypeError):
        llmem.Kernel(session, path=SCALE, bindings=["storage"])
    with pytest.raises(TypeError, match="llmem.Session"):
        llmem.Kernel(None, path=SCALE)
    assert session._children["kernels"] == 0


def test_dispatch_errors(memory, queue, scale):
    a, b = memory.create_buffer(4096), memory.create_buffer(4096)
    push = struct.pack("<3I", 1, 0, 16)
    img = memory.create_image((4, 4, 4), llmem.ChannelType.UNORM8)
    view = img.view()
    cases = [
        ((scale, [a]), {"push": push}, llmem.Error, errno.EINVAL),  # too few args
        ((scale, [a, view]), {"push": push}, llmem.Error, errno.EINVAL),  # view for a buffer
        ((scale, [a, b]), {}, llmem.Error, errno.EINVAL),  # no push constants
        ((scale, [a, b]), {"push": push, "groups": 1 << 31}, llmem.Error, errno.EINVAL),
        ((scale, [a, b]), {"push": push[:8]}, ValueError, None),
        ((scale, [a, 5]), {"push": push}, TypeError, None),
        ((a, [a, b]), {"push": push}, TypeError, None),
        ((scale, [a, b]), {"push": push, "groups": (1, 1, 1, 1)}, ValueError, None),
    ]
    for args, kw, exc, err in cases:
        with pytest.raises(exc) as e:
            queue.dispatch(*args, **kw)
        if err is not None:
            assert e.value.errno == err, (args, kw)
    uniform = memory.create_buffer(4096, usage=llmem.BufferUsage.UNIFORM)
    with pytest.raises(llmem.Error) as e:
        queue.dispatch(scale, [uniform, b], push=push)
    assert e.value.errno == errno.EPERM
    # Nothing was left pending by the failures.
    assert (a.pending, b.pending, scale.pending, view.pending) == (0, 0, 0, 0)
    for o in (view, img, uniform, a):
        o.close()
    with pytest.raises(ValueError, match=r"args\[0\]: buffer is closed"):
        queue.dispatch(scale, [a, b], push=push)
    gone = llmem.Kernel(memory.session, path=SCALE, bindings=[0, 0], push_size=12)
    gone.close()
    gone.close()
    with pytest.raises(ValueError, match="kernel is closed"):
        queue.dispatch(gone, [b, b], push=push)
    b.close()
