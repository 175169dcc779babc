# SPDX-License-Identifier: MIT
"""Linear images on a real GPU (suite python-gpu, by hand): mapped where the
memory is host visible, at the driver's pitch, both ways; refused with EPERM
in device memory the host cannot map, which lavapipe does not have."""
import errno

import numpy as np
import pytest

import llmem


def test_linear_images_on_a_gpu(session, queue):
    types = session.info.memory_types
    if all(t.flags & llmem.MemoryFlags.HOST_VISIBLE for t in types):
        pytest.fail(f"the gpu suite needs device memory the host cannot map: {types}")
    host = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE | llmem.MemoryFlags.HOST_COHERENT,
                                 page_size=4 << 20, name="host")
    img = host.create_image((33, 50, 4), "uint16", tiling="linear")
    data = (np.arange(33 * 50 * 4) % 60000).astype(np.uint16).reshape(33, 50, 4)
    with img.map() as m:
        assert m.strides[1:] == (8, 2) and m.strides[0] >= 50 * 8
        view = np.asarray(m)
        view[...] = data
        del view
    out = np.zeros_like(data)
    queue.read_image(img, out)
    assert np.array_equal(out, data)
    queue.fill_image(img, (1, 2, 3, 4))
    with img.map() as m:
        assert np.all(np.asarray(m) == (1, 2, 3, 4))
    dev = session.create_memory(llmem.MemoryFlags.DEVICE_LOCAL, exact=True, page_size=4 << 20,
                                name="dev")
    assert not dev.info.mappable
    far = dev.create_image((8, 8, 4), "uint8", tiling="linear")
    with pytest.raises(llmem.Error) as e:
        far.map()
    assert e.value.errno == errno.EPERM and "host visible" in e.value.strerror
    for o in (img, far, host, dev):
        o.close()
