# SPDX-License-Identifier: MIT
"""Linear images mapped for numpy: the image's shape, the driver's row and
slice pitches as strides, the channel type's item format; writes through
numpy seen by device copies and the reverse; views keeping the mapping and
image alive; the images that cannot be mapped refusing with a reason."""
import errno
import gc
import weakref

import numpy as np
import pytest

import llmem

# (channel type, struct format numpy's dtype reads it as)
FORMATS = [("U8", "B", np.uint8), ("I8", "b", np.int8), ("U16", "H", np.uint16),
           ("I16", "h", np.int16), ("U32", "I", np.uint32), ("I32", "i", np.int32),
           ("F16", "e", np.float16), ("F32", "f", np.float32), ("UNORM8", "B", np.uint8),
           ("SNORM8", "b", np.int8), ("UNORM16", "H", np.uint16),
           ("SNORM16", "h", np.int16), ("SRGB8", "B", np.uint8)]


def pattern(shape, dtype):
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        return (np.arange(n) / 4 - 20).astype(dtype).reshape(shape)
    return (np.arange(n) * 7 % 100).astype(dtype).reshape(shape)


def linear(memory, shape, channel_type="U8", **kw):
    return memory.create_image(shape, llmem.ChannelType[channel_type], tiling="linear", **kw)


def test_format_follows_the_channel_type(memory):
    for name, fmt, dtype in FORMATS:
        img = linear(memory, (6, 10, 4), name)
        assert img.tiling == llmem.Tiling.LINEAR
        with img.map() as m:
            size = np.dtype(dtype).itemsize
            assert (m.format, m.itemsize, m.shape) == (fmt, size, (6, 10, 4)), name
            assert m.strides[1:] == (4 * size, size) and m.strides[0] >= 10 * 4 * size
            assert m.image is img and m.buffer is None and m.coherent
            view = np.asarray(m)
            assert view.dtype == dtype and view.strides == m.strides
            del view
        img.close()


def test_every_shape_maps_at_the_drivers_pitch(memory, queue):
    for shape in ((64,), (8, 20), (8, 20, 2), (3, 8, 20, 4), (1, 8, 20, 4)):
        img = linear(memory, shape, "U16")
        with img.map() as m:
            assert m.shape == shape and len(m.strides) == len(shape)
            # Rows at the driver's pitch, at least a row of texels apart.
            if len(shape) >= 2:
                texel = shape[-1] * 2 if len(shape) >= 3 else 2
                assert m.strides[-3 if len(shape) >= 3 else -2] >= 20 * texel
            if len(shape) == 4:
                assert m.strides[0] >= 8 * m.strides[1]
            view = np.asarray(m)
            data = pattern(shape, np.uint16)
            view[...] = data
            del view
        out = np.zeros(shape, np.uint16)
        queue.read_image(img, out)
        assert np.array_equal(out, data), shape
        img.close()


def test_numpy_writes_are_seen_by_a_device_copy(memory, queue):
    img = linear(memory, (17, 23, 4), "F32")
    data = pattern((17, 23, 4), np.float32)
    with img.map() as m:
        view = np.asarray(m)
        assert not view.flags.c_contiguous  # rows padded: a strided view, no copy
        view[...] = data
        del view
    # The device copies the image to a buffer; the buffer's bytes are the texels.
    buf = memory.create_buffer_like(img)
    llmem.enqueue_copy(queue, buf, img)
    with buf.map(np.float32, (17, 23, 4)) as bm:
        assert np.array_equal(np.asarray(bm), data)
    buf.close()
    img.close()


def test_device_writes_are_seen_by_numpy(memory, queue):
    img = linear(memory, (12, 9, 4), "U8")
    mapping = img.map()
    view = np.asarray(mapping)
    data = pattern((12, 9, 4), np.uint8)
    queue.write_image(img, data)
    assert np.array_equal(view, data)
    # A device fill of a box, seen through the same view.
    queue.fill_image(img, (1, 2, 3, 4), origin=(2, 3), region=(4, 5))
    data[3:8, 2:6] = (1, 2, 3, 4)
    assert np.array_equal(view, data)
    del view
    mapping.close()
    img.close()


def test_dlpack_of_an_image_is_a_strided_view(memory, queue):
    img = linear(memory, (5, 7, 4), "U16")
    with img.map() as m:
        t = np.from_dlpack(m)
        assert t.shape == (5, 7, 4) and t.strides == m.strides
        assert t.__array_interface__["data"][0] == m.address
        del t
    img.close()


def test_the_view_keeps_mapping_and_image_alive(memory, queue):
    img = linear(memory, (4, 8, 4), "U8")
    refs = [weakref.ref(img)]
    mapping = img.map()
    refs.append(weakref.ref(mapping))
    view = np.asarray(mapping)
    del img, mapping
    gc.collect()
    assert all(r() is not None for r in refs)
    assert memory.info.object_count == 1
    view[...] = 7
    # The image, reached without a name of its own, is still there for the device.
    out = np.zeros((4, 8, 4), np.uint8)
    queue.read_image(refs[0](), out)
    assert np.all(out == 7)
    del view, out
    gc.collect()
    assert all(r() is None for r in refs)
    assert memory.info.object_count == 0


def test_close_waits_for_views_and_image_refuses(memory):
    img = linear(memory, (4, 4, 4))
    m = img.map()
    view = np.asarray(m)
    m.close()
    assert m.closed and not m.released and img.mappings == 1
    with pytest.raises(BufferError, match="closed"):
        memoryview(m)
    with pytest.raises(llmem.Error) as e:
        img.close()
    assert e.value.errno == errno.EBUSY and "mapping" in e.value.strerror
    view[0, 0, 0] = 1
    del view
    assert m.released and img.mappings == 0
    img.close()


def test_flush_and_invalidate_an_image_mapping(memory):
    img = linear(memory, (4, 16, 4))
    with img.map() as m:
        m.flush()
        m.invalidate(0, 64)
        size = img.allocation_info.size
        with pytest.raises(llmem.Error) as e:
            m.flush(size, 1)
        assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="closed"):
        m.flush()
    img.close()


def test_what_cannot_be_mapped(memory, session):
    optimal = memory.create_image((4, 4, 4))
    assert optimal.tiling == llmem.Tiling.OPTIMAL
    with pytest.raises(llmem.Error) as e:
        optimal.map()
    assert e.value.errno == errno.EINVAL
    assert "optimal tiling" in e.value.strerror and "LLMEM_TILING_LINEAR" in e.value.strerror
    assert optimal.mappings == 0
    optimal.close()
    with pytest.raises(ValueError, match="image is closed"):
        optimal.map()
    with pytest.raises(ValueError, match="unknown tiling"):
        memory.create_image((4, 4), tiling="diagonal")
    with pytest.raises(llmem.Error) as e:
        memory.create_image((4, 4), tiling=2)
    assert e.value.errno == errno.EINVAL
    assert memory.info.object_count == 0


def test_bgra_maps_in_memory_order(memory, queue):
    img = linear(memory, (2, 3, 4), "UNORM8", order="bgra")
    assert img.order == llmem.ChannelOrder.BGRA
    queue.fill_image(img, (10, 20, 30, 40))  # B, G, R, A as stored
    with img.map() as m:
        assert np.asarray(m)[1, 2].tolist() == [10, 20, 30, 40]
    img.close()
