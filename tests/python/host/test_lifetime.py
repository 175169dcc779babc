# SPDX-License-Identifier: MIT
"""Lifetimes: children hold their parents, everything is freed once
unreferenced, nothing is left for the C API's destroy calls to refuse, and
nothing is reported as unraisable on the way."""
import errno
import gc
import sys
import weakref

import numpy as np
import pytest

import llmem


@pytest.fixture
def unraisable(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u))
    return seen


def test_a_view_holds_the_whole_chain(unraisable):
    s = llmem.Session(validation=True)
    m = s.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
    b = m.create_buffer(4096)
    mapping = b.map("uint32")
    view = np.asarray(mapping)
    refs = [weakref.ref(o) for o in (s, m, b, mapping)]
    del s, m, b, mapping
    gc.collect()
    assert all(r() is not None for r in refs)
    view[:] = 1
    messages = refs[0]().validation_messages
    del view
    gc.collect()
    # The session went last, through llmem_session_destroy(), which succeeded.
    assert all(r() is None for r in refs)
    assert messages == 0 and unraisable == []


def test_close_in_order_then_the_session_can_go(unraisable):
    s = llmem.Session(validation=True)
    m = s.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
    q = llmem.Queue(s)
    b, img = m.create_buffer(256), m.create_image((4, 4, 4))
    mapping = b.map()
    ev = q.fill_buffer(b, np.uint8(1), blocking=False)
    for parent, child in ((s, "memories"), (m, "objects"), (b, "mapping")):
        with pytest.raises(llmem.Error) as e:
            parent.close()
        assert e.value.errno == errno.EBUSY
    mapping.close()
    # The fill in flight holds the buffer until its event is done.
    assert b.pending == 1
    with pytest.raises(llmem.Error) as e:
        b.close()
    assert e.value.errno == errno.EBUSY and "in flight" in e.value.strerror
    assert ev.wait()
    assert b.pending == 0
    b.close()
    img.close()
    ev.close()
    q.close()
    m.close()
    s.close()
    assert s.closed and s.validation_log == () and unraisable == []


def test_references_are_counted(memory):
    before = sys.getrefcount(memory)
    objs = [memory.create_buffer(64) for _ in range(10)]
    assert sys.getrefcount(memory) == before + 10
    for o in objs[:5]:
        o.close()
    assert sys.getrefcount(memory) == before + 5
    del objs
    assert sys.getrefcount(memory) == before
    b = memory.create_buffer(64)
    before = sys.getrefcount(b)
    maps = [b.map() for _ in range(3)]
    assert sys.getrefcount(b) == before + 3 and b.mappings == 3
    views = [memoryview(mp) for mp in maps]
    for v in views:
        v.release()
    for mp in maps:
        mp.close()
    assert b.mappings == 0
    del maps, views, mp, v
    assert sys.getrefcount(b) == before
    b.close()


def test_many_objects_leave_nothing(session):
    m = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, page_size=1 << 20,
                              spare_pages=0)
    for i in range(200):
        b = m.create_buffer(1000 + i)
        with b.map() as mp:
            memoryview(mp)[0] = i % 256
        sub = b.sub(0, 16)
        del b, sub, mp
    gc.collect()
    assert m.info.object_count == 0 and m.info.page_count == 0
    m.close()


def test_subclass_instances_from_c(memory, queue):
    # What the C side creates is the Python layer's class.
    b = memory.create_buffer(64)
    assert type(b) is llmem.Buffer and type(b.map()) is llmem.Mapping
    ev = queue.fill_buffer(b, np.uint8(0), blocking=False)
    assert type(ev) is llmem.Event
    ev.close()
    assert type(memory) is llmem.Memory and type(memory.session) is llmem.Session
    with pytest.raises(TypeError):
        llmem.Buffer()
    with pytest.raises(AttributeError):
        b.anything = 1
    b.close()
