# SPDX-License-Identifier: MIT
"""Memories: creation, what they report, their pages and objects, errors."""
import errno
import json

import pytest

import llmem

HV = llmem.MemoryFlags.HOST_VISIBLE


def test_create_and_info(session):
    with session.create_memory(HV, page_size=1 << 20, name="frames") as m:
        i = m.info
        assert isinstance(i, llmem.MemoryInfo)
        assert HV in i.flags and i.page_size == 1 << 20
        assert i.page_count == 0 and i.object_count == 0
        assert i.mappable and i.sharing == llmem.Sharing.NONE
        assert i.backend == llmem.Backend.VULKAN and i.backend.label == "vulkan"
        assert m.name == "frames" and m.session is session
        b = m.create_buffer(1000)
        assert m.info.page_count == 1 and m.info.object_count == 1
        assert m.info.bytes_in_use >= 1000
        b.close()
        assert "'frames'" in repr(m)
    assert m.closed and "(closed)" in repr(m)


def test_exact_match_without_such_type_is_enotsup(session):
    with pytest.raises(llmem.Error) as e:
        session.create_memory(llmem.MemoryFlags.HOST_COHERENT, exact=True)
    assert e.value.errno == errno.ENOTSUP
    assert e.value.strerror


def test_bad_values(session):
    with pytest.raises(llmem.Error) as e:
        session.create_memory(HV, page_size=1000)
    assert e.value.errno == errno.EINVAL and "4096" in e.value.strerror
    with pytest.raises(llmem.Error) as e:
        session.create_memory(1 << 10)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        session.create_memory(HV, page_size=-4096)
    with pytest.raises(TypeError):
        session.create_memory(HV, page_size="big")
    with pytest.raises(ValueError, match="sharing"):
        session.create_memory(HV, sharing="telepathy")
    with pytest.raises(ValueError, match="backend"):
        session.create_memory(HV, backend="nowhere")
    with pytest.raises(TypeError):
        session.create_memory(HV, no_such_option=1)


def test_close_refuses_and_names_live_objects(memory):
    b = memory.create_buffer(64, name="y")
    img = memory.create_image((4, 4, 4), name="rgba")
    with pytest.raises(llmem.Error) as e:
        memory.close()
    assert e.value.errno == errno.EBUSY
    assert "'y'" in e.value.strerror and "'rgba'" in e.value.strerror
    assert not memory.closed
    img.close()
    b.close()


def test_objects_page_stats_and_layout(memory):
    a = memory.create_buffer(1000, name="a")
    b = memory.create_buffer(5000, name="b")
    objs = memory.objects
    assert [(o.kind, o.name, o.size) for o in objs] == [("buffer", "a", 1000),
                                                        ("buffer", "b", 5000)]
    assert objs[0].page == a.allocation_info.page
    assert objs[1].offset == b.allocation_info.offset
    st = memory.page_stats()
    assert st.pages == 1 and st.objects == 2
    assert st.used_bytes + st.free_bytes == st.bytes == 4 << 20
    assert memory.page_stats(a.allocation_info.page) == st
    layout = json.loads(memory.layout_json())
    assert layout["name"] == "test"
    assert [o["name"] for o in layout["objects"]] == ["a", "b"]
    with pytest.raises(llmem.Error) as e:
        memory.page_stats(7)
    assert e.value.errno == errno.ENOENT
    a.close()
    b.close()


def test_spare_pages_zero_releases_empty_pages(session):
    with session.create_memory(HV, page_size=1 << 20, spare_pages=0) as m:
        m.create_buffer(100).close()
        assert m.info.page_count == 0
    with session.create_memory(HV, page_size=1 << 20) as m:
        m.create_buffer(100).close()
        assert m.info.page_count == 1


def test_raw_pages(memory):
    page = memory.add_page(8192)
    assert memory.page_mappable(page) is True
    with pytest.raises(llmem.Error) as e:
        memory.add_page(1000)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        memory.page_mappable(99)
    assert e.value.errno == errno.ENOENT


def test_closed_memory_raises(session):
    m = session.create_memory(HV)
    m.close()
    m.close()
    for call in (lambda: m.create_buffer(16), lambda: m.create_image((4, 4)),
                 lambda: m.info, lambda: m.objects, lambda: m.import_host(bytearray(4096)),
                 lambda: m.export_page(0), lambda: m.layout_json()):
        with pytest.raises(ValueError, match="memory is closed"):
            call()
