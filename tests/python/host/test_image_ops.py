# SPDX-License-Identifier: MIT
"""What issue 23 gave images, from Python: image -> image copies (whole, boxes,
between formats of one texel size), fills with a texel of the image's own
type, images and buffers made like an image, channel orders."""
import errno
import struct

import numpy as np
import pytest

import llmem


def pattern(shape, dtype):
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        return (np.arange(n) / 8 - 30).astype(dtype).reshape(shape)
    return (np.arange(n) * 11 % 120).astype(dtype).reshape(shape)


def read(queue, img, dtype):
    out = np.empty(img.shape, dtype)
    queue.read_image(img, out)
    return out


def test_copy_whole_image(memory, queue):
    data = pattern((16, 24, 4), np.float32)
    src = memory.create_image_from_host(data)
    dst = memory.create_image_like(src, name="copy")
    assert llmem.enqueue_copy(queue, dst, src) is None
    assert np.array_equal(read(queue, dst, np.float32), data)
    for o in (src, dst):
        o.close()


def test_copy_boxes_with_events(memory, queue):
    data = pattern((16, 24, 4), np.uint8)
    src = memory.create_image_from_host(data)
    dst = memory.create_image((20, 30, 4), "uint8")
    queue.clear_image(dst, (0, 0, 0, 0), blocking=False).close()
    # PyOpenCL's argument names: src_origin, dest_origin, region (x, y[, z]).
    ev = llmem.enqueue_copy(queue, dst, src, src_origin=(4, 2), dest_origin=(10, 12),
                            region=(8, 5), blocking=False)
    assert isinstance(ev, llmem.Event) and src.pending == 1 and dst.pending == 1
    with pytest.raises(llmem.Error) as e:
        src.close()
    assert e.value.errno == errno.EBUSY
    assert ev.wait() and src.pending == 0
    expect = np.zeros((20, 30, 4), np.uint8)
    expect[12:17, 10:18] = data[2:7, 4:12]
    assert np.array_equal(read(queue, dst, np.uint8), expect)
    # Within one image, boxes that do not overlap.
    queue.copy_image(dst, dst, (10, 12), (0, 0), (8, 5))
    expect[0:5, 0:8] = expect[12:17, 10:18]
    assert np.array_equal(read(queue, dst, np.uint8), expect)
    ev.close()
    for o in (src, dst):
        o.close()


def test_copy_between_formats_of_one_texel_size(memory, queue):
    # u8 x4, unorm8 x4 and u32 x1 texels are 4 bytes each: bits copied unchanged.
    data = pattern((8, 8, 4), np.uint8)
    u8 = memory.create_image_from_host(data)
    unorm = memory.create_image((8, 8, 4), llmem.ChannelType.UNORM8)
    u32 = memory.create_image((8, 8), "uint32")
    queue.copy_image(u8, unorm)
    queue.copy_image(unorm, u32)
    assert np.array_equal(read(queue, unorm, np.uint8), data)
    assert np.array_equal(read(queue, u32, np.uint32), data.view(np.uint32)[..., 0])
    for o in (u8, unorm, u32):
        o.close()


def test_copy_errors(memory, queue, session):
    a = memory.create_image((8, 8, 4), "uint8")
    b = memory.create_image((8, 8, 2), "uint8")
    with pytest.raises(llmem.Error) as e:
        queue.copy_image(a, b)  # texels of 4 and 2 bytes
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        queue.copy_image(a, a, (0, 0), (2, 2), (4, 4))  # overlapping boxes
    assert e.value.errno == errno.EINVAL
    c = memory.create_image_like(a)
    with pytest.raises(llmem.Error) as e:
        queue.copy_image(a, c, (6, 0), (0, 0), (4, 4))  # outside the source
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError, match="llmem.Image"):
        queue.copy_image(a, bytearray(256))
    with pytest.raises(ValueError, match="at most 3"):
        queue.copy_image(a, c, (0, 0, 0, 0))
    ro = memory.create_image((8, 8, 4), "uint8", usage=llmem.ImageUsage.TRANSFER_DST)
    with pytest.raises(llmem.Error) as e:
        queue.copy_image(ro, c)  # no TRANSFER_SRC
    assert e.value.errno == errno.EPERM
    other = llmem.Session()
    om = other.create_memory(llmem.MemoryFlags.HOST_VISIBLE, page_size=1 << 20)
    foreign = om.create_image((8, 8, 4), "uint8")
    with pytest.raises(llmem.Error) as e:
        queue.copy_image(a, foreign)
    assert e.value.errno == errno.EINVAL
    for o in (a, b, c, ro, foreign, om, other):
        o.close()


FILLS = [
    ("U8", (1, 2, 3, 255), np.uint8),
    ("I16", (-5, 7, -32768, 32767), np.int16),
    ("U32", (0, 1, 2 ** 32 - 1, 7), np.uint32),
    ("F16", (0.25, -1.5, 65504.0, 0.0), np.float16),
    ("F32", (float("inf"), -0.0, 1e-30, 3.5), np.float32),
    # The normalised types take their stored integers: exact levels.
    ("UNORM8", (0, 128, 255, 1), np.uint8),
    ("SNORM8", (-128, -1, 127, 0), np.int8),
    ("UNORM16", (65535, 32768, 1, 0), np.uint16),
    ("SNORM16", (-32768, 32767, -1, 1), np.int16),
    ("SRGB8", (10, 20, 30, 40), np.uint8),
]


def test_fill_with_a_texel_of_its_own_type(memory, queue):
    for channel_type, texel, dtype in FILLS:
        img = memory.create_image((6, 10, 4), llmem.ChannelType[channel_type])
        queue.fill_image(img, texel)
        out = read(queue, img, dtype)
        want = np.array(texel, dtype)
        assert out.tobytes() == np.broadcast_to(want, out.shape).tobytes(), channel_type
        img.close()


def test_fill_boxes_bytes_and_events(memory, queue):
    img = memory.create_image((8, 8, 2), "uint16")
    queue.fill_image(img, np.array([1, 2], np.uint16))  # bytes of one texel
    ev = llmem.enqueue_fill_image(queue, img, (7, 9), origin=(2, 3), region=(4, 2),
                                  blocking=False)
    assert img.pending == 1 and ev.wait()
    expect = np.broadcast_to(np.array([1, 2], np.uint16), (8, 8, 2)).copy()
    expect[3:5, 2:6] = (7, 9)
    assert np.array_equal(read(queue, img, np.uint16), expect)
    # A NaN payload goes in bit for bit, where a clear would convert it.
    f = memory.create_image((2, 2), "float32")
    nan = struct.pack("<I", 0x7FC01234)
    queue.fill_image(f, nan)
    assert read(queue, f, np.float32).view(np.uint32)[0, 0] == 0x7FC01234
    ev.close()
    img.close()
    f.close()


def test_fill_errors(memory, queue):
    img = memory.create_image((4, 4, 4), "uint8")
    with pytest.raises(ValueError, match="4 channels"):
        queue.fill_image(img, (1, 2, 3))
    with pytest.raises(ValueError, match="does not fit"):
        queue.fill_image(img, (1, 2, 3, 256))
    with pytest.raises(ValueError, match="does not fit"):
        queue.fill_image(img, (1.5, 2, 3, 4))
    with pytest.raises(ValueError, match="texel has 8 bytes"):
        queue.fill_image(img, np.zeros(2, np.uint32))
    with pytest.raises(TypeError):
        queue.fill_image(img, 5)
    with pytest.raises(llmem.Error) as e:
        queue.fill_image(img, (1, 2, 3, 4), origin=(3, 3), region=(4, 4))
    assert e.value.errno == errno.EINVAL
    src_only = memory.create_image((4, 4, 4), "uint8", usage=llmem.ImageUsage.TRANSFER_SRC)
    with pytest.raises(llmem.Error) as e:
        queue.fill_image(src_only, (1, 2, 3, 4))
    assert e.value.errno == errno.EPERM
    img.close()
    src_only.close()


def test_create_image_like(memory, session, queue):
    host = memory
    dev = session.create_memory(llmem.MemoryFlags.DEVICE_LOCAL, page_size=1 << 20, name="dev")
    src = host.create_image((3, 5, 7, 4), llmem.ChannelType.SNORM16, name="src",
                            usage=llmem.ImageUsage.TRANSFER_SRC | llmem.ImageUsage.TRANSFER_DST)
    like = dev.create_image_like(src)
    assert (like.shape, like.channel_type, like.usage, like.name, like.memory) == \
        ((3, 5, 7, 4), llmem.ChannelType.SNORM16, src.usage, "src", dev)
    renamed = host.create_image_like(src, usage=llmem.ImageUsage.DEFAULT, name="other")
    assert renamed.usage == llmem.ImageUsage.DEFAULT and renamed.name == "other"
    bgra = host.create_image((4, 4, 4), llmem.ChannelType.UNORM8, order="bgra",
                             tiling="linear")
    twin = host.create_image_like(bgra)
    assert twin.order == llmem.ChannelOrder.BGRA and twin.tiling == llmem.Tiling.LINEAR
    one_d = host.create_image_like(host.create_image(64, "float32"))
    assert one_d.shape == (64,) and one_d.depth == 1
    # The buffer like an image holds its texels tightly packed.
    buf = host.create_buffer_like(src)
    assert buf.size == 3 * 5 * 7 * 4 * 2 == src.size
    with pytest.raises(TypeError):
        host.create_image_like(buf)
    other = llmem.Session()
    om = other.create_memory(llmem.MemoryFlags.HOST_VISIBLE, page_size=1 << 20)
    with pytest.raises(llmem.Error) as e:
        om.create_image_like(src)
    assert e.value.errno == errno.EINVAL
    om.close()
    other.close()
    for o in (like, renamed, bgra, twin, one_d, buf, src):
        o.close()
    dev.close()


def test_orders(memory, queue):
    with pytest.raises(llmem.Error) as e:
        memory.create_image((4, 4, 4), "uint16", order="bgra")
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="unknown order"):
        memory.create_image((4, 4, 4), order="argb")
    # A colour names R, G, B, A whatever the order; the texels hold B, G, R, A.
    img = memory.create_image((2, 2, 4), "uint8", order=llmem.ChannelOrder.BGRA)
    queue.clear_image(img, (1, 2, 3, 4))
    assert read(queue, img, np.uint8)[0, 0].tolist() == [3, 2, 1, 4]
    img.close()


def test_host_memory_is_checked_for_every_channel_type(memory, queue):
    for channel_type in llmem.ChannelType:
        img = memory.create_image((4, 4, 4), channel_type)
        short = bytearray(img.size - 1)
        with pytest.raises(ValueError, match="needs more"):
            queue.write_image(img, short)
        with pytest.raises(ValueError, match="needs more"):
            queue.read_image(img, short)
        img.close()


def test_missing_arguments_raise(queue):
    for name in ("write_buffer", "read_buffer", "copy_buffer", "fill_buffer", "write_image",
                 "read_image", "copy_buffer_to_image", "copy_image_to_buffer", "clear_image",
                 "fill_image", "copy_image", "dispatch"):
        with pytest.raises(TypeError, match="missing"):
            getattr(queue, name)()
