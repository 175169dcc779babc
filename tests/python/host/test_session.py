# SPDX-License-Identifier: MIT
"""Sessions: what the device reports, choosing it, closing it, errors."""
import errno
import gc
import subprocess
import sys
import weakref

import pytest

import llmem


def test_info_describes_the_device(session):
    info = session.info
    assert isinstance(info, llmem.SessionInfo)
    assert info.device_name and info.api_version[0] == 1
    assert isinstance(info.caps, llmem.Caps)
    assert info.validation is True
    assert info.memory_types and all(isinstance(t.flags, llmem.MemoryFlags)
                                     for t in info.memory_types)
    assert all(t.heap_index < len(info.memory_heaps) for t in info.memory_types)
    # The flag sets are the distinct flags of the types, in type order.
    distinct = []
    for t in info.memory_types:
        if t.flags not in distinct:
            distinct.append(t.flags)
    assert list(info.flag_sets) == distinct
    assert info.buffer_image_granularity >= 1 and info.non_coherent_atom_size >= 1
    if llmem.Caps.HOST_POINTER_IMPORT in info.caps:
        assert info.min_imported_host_pointer_alignment >= 1
    assert repr(session).startswith("<llmem.Session ")


def test_device_by_index_and_by_name(session):
    name = session.info.device_name
    with llmem.Session(0) as s:
        assert s.info.device_name == name
    with llmem.Session(device=name.split()[0].upper()) as s:
        assert s.info.device_name == name


def test_unknown_device_raises_enodev():
    with pytest.raises(llmem.Error) as e:
        llmem.Session(device="no device has this name")
    assert e.value.errno == errno.ENODEV
    assert "no device has this name" in e.value.strerror
    assert isinstance(e.value, OSError)
    with pytest.raises(llmem.Error) as e:
        llmem.Session(device=999)
    assert e.value.errno == errno.ENODEV


def test_bad_arguments_raise_type_and_value_errors():
    with pytest.raises(TypeError):
        llmem.Session(device=1.5)
    with pytest.raises(ValueError):
        llmem.Session(device=-1)
    with pytest.raises(TypeError):
        llmem.Session(app_name=3)


def test_close_refuses_while_children_live(session):
    m = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
    q = llmem.Queue(session)
    with pytest.raises(llmem.Error) as e:
        session.close()
    assert e.value.errno == errno.EBUSY
    assert "1 memory, 1 queue" in e.value.strerror
    assert not session.closed
    q.close()
    m.close()
    assert session._children == {"memories": 0, "queues": 0, "cameras": 0, "codecs": 0,
                                 "cudas": 0, "kernels": 0, "converters": 0}


def test_closed_session_raises_and_closes_twice():
    s = llmem.Session()
    s.close()
    s.close()
    assert s.closed
    assert repr(s) == "<llmem.Session (closed)>"
    with pytest.raises(ValueError, match="session is closed"):
        s.create_memory()
    with pytest.raises(ValueError):
        s.info
    with pytest.raises(ValueError):
        s.validation_messages
    with pytest.raises(ValueError):
        llmem.Queue(s)
    assert s.validation_log == ()


def test_context_manager_closes():
    with llmem.Session() as s:
        assert not s.closed
    assert s.closed


def test_session_freed_when_unreferenced():
    s = llmem.Session()
    m = s.create_memory(llmem.MemoryFlags.HOST_VISIBLE)
    ref = weakref.ref(s)
    del s
    gc.collect()
    # The memory holds its session.
    assert ref() is m.session
    del m
    gc.collect()
    assert ref() is None


def test_validation_is_counted(session):
    assert session.validation_messages == 0
    assert session.validation_log == ()


def test_numpy_is_optional():
    """Without numpy the package imports, and mappings are still buffers."""
    code = """
import sys
sys.modules["numpy"] = None
import llmem
with llmem.Session() as s:
    m = s.create_memory(llmem.MemoryFlags.HOST_VISIBLE, page_size=1 << 20)
    with m.create_buffer(64) as b, b.map("uint32") as mp:
        v = memoryview(mp)
        v[3] = 0xDEADBEEF
        print(v.format, v.shape, hex(v[3]))
        v.release()
    m.close()
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["I", "(16,)", "0xdeadbeef"]
