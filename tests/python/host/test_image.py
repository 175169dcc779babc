# SPDX-License-Identifier: MIT
"""Images: Lluvia's shapes, every channel type from numpy, boxes, clears."""
import errno

import numpy as np
import pytest

import llmem

DTYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float16", "float32"]
GENERAL = 1  # VK_IMAGE_LAYOUT_GENERAL


def pattern(shape, dtype):
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        return (np.arange(n) / 7 - 50).astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    return (np.arange(n) * 37 % (int(info.max) - int(info.min) + 1) + info.min).astype(
        dtype).reshape(shape)


@pytest.mark.parametrize("shape, dims", [((64,), (64, 1, 1, 1)), ((16, 32), (32, 16, 1, 1)),
                                         ((16, 32, 4), (32, 16, 1, 4)),
                                         ((4, 8, 16, 2), (16, 8, 4, 2))])
def test_shapes(memory, shape, dims):
    img = memory.create_image(shape, "float32", name="img")
    assert img.shape == shape
    assert (img.width, img.height, img.depth, img.channels) == dims
    assert img.channel_type == llmem.ChannelType.F32 and img.dtype == "float32"
    assert img.size == int(np.prod(shape)) * 4
    assert img.usage == llmem.ImageUsage.DEFAULT
    assert img.vk_layout == GENERAL
    a = img.allocation_info
    assert a.size >= img.size
    assert memory.objects[0].kind == "image"
    assert repr(img) == f"<llmem.Image 'img' {shape} float32 in 'test'>"
    img.close()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_from_host_round_trip(memory, queue, dtype, channels):
    data = pattern((8, 16, channels) if channels > 1 else (8, 16), dtype)
    img = memory.create_image_from_host(data)
    assert img.shape == data.shape and img.dtype == dtype
    out = np.zeros_like(data)
    llmem.enqueue_copy(queue, out, img)
    assert np.array_equal(out, data)
    img.close()


def test_channel_type_of():
    assert llmem.ChannelType.of(np.float16) == llmem.ChannelType.F16
    assert llmem.ChannelType.of(np.dtype("int16")) == llmem.ChannelType.I16
    assert llmem.ChannelType.of("uint32") == llmem.ChannelType.U32
    assert llmem.ChannelType.of(1) == llmem.ChannelType.I8
    with pytest.raises(ValueError):
        llmem.ChannelType.of("float64")


def test_bad_images(memory):
    with pytest.raises(ValueError, match="no channel type"):
        memory.create_image_from_host(np.zeros((4, 4), np.float64))
    with pytest.raises(ValueError, match="dimensions"):
        memory.create_image_from_host(np.zeros((2, 2, 2, 2, 2), np.uint8))
    with pytest.raises(ValueError, match="C-contiguous"):
        memory.create_image_from_host(np.zeros((8, 8), np.uint8).T)
    with pytest.raises(llmem.Error) as e:
        memory.create_image((4, 4, 5))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        memory.create_image((0, 4))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        memory.create_image((1, 2, 3, 4, 5))
    with pytest.raises(llmem.Error) as e:
        memory.create_image((4, 4), channel_type=13)
    assert e.value.errno == errno.EINVAL
    assert memory.info.object_count == 0


def test_boxes(memory, queue):
    img = memory.create_image((16, 32, 4), "uint8")
    queue.clear_image(img, (0, 0, 0, 0))
    box = pattern((4, 8, 4), "uint8")
    llmem.enqueue_copy(queue, img, box, origin=(10, 3), region=(8, 4))
    whole = np.empty((16, 32, 4), np.uint8)
    llmem.enqueue_copy(queue, whole, img)
    expect = np.zeros_like(whole)
    expect[3:7, 10:18] = box
    assert np.array_equal(whole, expect)
    # A box read into host memory with a row pitch wider than the box.
    wide = np.zeros((4, 12, 4), np.uint8)
    queue.read_image(img, wide, (10, 3), (8, 4), row_pitch=12 * 4)
    assert np.array_equal(wide[:, :8], box) and not wide[:, 8:].any()
    with pytest.raises(ValueError, match="needs more"):
        queue.write_image(img, np.zeros(10, np.uint8))
    with pytest.raises(ValueError, match="needs more"):
        queue.read_image(img, wide, (10, 3), (8, 4), row_pitch=64)
    with pytest.raises(llmem.Error) as e:
        queue.write_image(img, box, (30, 0), (8, 4))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="writable"):
        queue.read_image(img, bytes(whole.nbytes))
    img.close()


@pytest.mark.parametrize("dtype, color", [("uint8", (1, 2, 3, 255)), ("int16", (-5, 7, 0, 1)),
                                          ("float32", (0.5, -1.5, 2.0, 1.0)),
                                          ("float16", (0.25, 1.0, -2.0, 0.0))])
def test_clear(memory, queue, dtype, color):
    img = memory.create_image((4, 8, 4), dtype)
    llmem.enqueue_clear_image(queue, img, color)
    out = np.empty((4, 8, 4), dtype)
    queue.read_image(img, out)
    assert np.array_equal(out, np.broadcast_to(np.array(color, dtype), out.shape))
    queue.clear_image(img, (9, 9, 9, 9) if dtype != "float32" else (9.0,) * 4, (1, 1), (2, 2))
    queue.read_image(img, out)
    assert np.all(out[1:3, 1:3] == 9) and out[0, 0, 0] == np.array(color[0], dtype)
    img.close()


def test_clear_errors(memory, queue):
    img = memory.create_image((4, 4, 4), "uint8")
    with pytest.raises(llmem.Error) as e:
        queue.clear_image(img, (256, 0, 0, 0))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        queue.clear_image(img, (-1, 0, 0, 0))
    with pytest.raises(TypeError):
        queue.clear_image(img, (0.5, 0, 0, 0))
    with pytest.raises(ValueError):
        queue.clear_image(img, ())
    img.close()


def test_buffer_image_copies(memory, queue):
    data = pattern((8, 8, 4), "uint16")
    img = memory.create_image_from_host(data)
    buf = memory.create_buffer_like(img)
    llmem.enqueue_copy(queue, buf, img)
    with buf.map("uint16", (8, 8, 4)) as m:
        assert np.array_equal(np.asarray(m), data)
    queue.fill_buffer(buf, np.uint16(3))
    llmem.enqueue_copy(queue, img, buf)
    out = np.empty_like(data)
    queue.read_image(img, out)
    assert np.all(out == 3)
    img.close()
    buf.close()


def test_closed_image_raises(memory, queue):
    img = memory.create_image((4, 4))
    img.close()
    img.close()
    for call in (lambda: img.width, lambda: img.allocation_info, lambda: img.memory):
        with pytest.raises(ValueError, match="image is closed"):
            call()
    with pytest.raises(ValueError, match="closed"):
        queue.read_image(img, bytearray(64))
