# SPDX-License-Identifier: MIT
"""What Python users expect of any package: with blocks that never hide the
exception in flight, closed objects that refuse to be used, TypeError for
the wrong type, ValueError for a NUL in a name, and __version__."""
import errno
import pathlib
import re

import numpy as np
import pytest

import llmem

HV = llmem.MemoryFlags.HOST_VISIBLE
SOURCE = pathlib.Path(__file__).resolve().parents[3]


def test_exit_keeps_the_exception_in_flight(session):
    """Closing a memory with a live buffer fails (EBUSY); the KeyError that
    left the with block is still what the caller sees, with a note."""
    with pytest.raises(KeyError) as e:
        with session.create_memory(HV, name="busy") as m:
            b = m.create_buffer(16, name="left")
            raise KeyError("the caller's")
    assert e.value.args == ("the caller's",)
    notes = getattr(e.value, "__notes__", None)
    if notes is not None:
        assert any("closing Memory failed too" in n and "'left'" in n for n in notes), notes
    assert not m.closed
    b.close()
    m.close()


def test_exit_without_exception_raises_close_error(session):
    with pytest.raises(llmem.Error) as e:
        with session.create_memory(HV) as m:
            b = m.create_buffer(16)
    assert e.value.errno == errno.EBUSY
    b.close()
    m.close()


def test_batch_exit_keeps_the_exception_in_flight(queue, memory):
    with memory.create_buffer(16) as b:
        with pytest.raises(ZeroDivisionError):
            with queue.batch():
                queue.write_buffer(b, bytes(16))
                1 / 0
        # The batch was discarded: the queue takes work again.
        queue.write_buffer(b, bytes(range(16)))
        out = bytearray(16)
        queue.read_buffer(b, out)
        assert out == bytes(range(16))


def test_asarray_of_a_closed_mapping_raises(memory):
    with memory.create_buffer(16) as b:
        mp = b.map()
        mp.close()
        with pytest.raises(ValueError, match="mapping is closed"):
            np.asarray(mp)
        with pytest.raises(ValueError, match="mapping is closed"):
            np.array(mp)
        with pytest.raises(BufferError):
            memoryview(mp)
        with b.map() as mp:
            assert np.asarray(mp).shape == (16,)
        with pytest.raises(ValueError, match="mapping is closed"):
            np.asarray(mp)


def test_asarray_of_a_closed_image_mapping_raises(memory):
    with memory.create_image((4, 4, 4), tiling=llmem.Tiling.LINEAR) as img:
        with img.map() as mp:
            assert np.asarray(mp).shape == (4, 4, 4)
        with pytest.raises(ValueError, match="mapping is closed"):
            np.asarray(mp)


def test_wrong_types_raise_type_error(session, memory):
    with pytest.raises(TypeError, match="size"):
        memory.create_buffer(None)
    for bad in (True, False):
        with pytest.raises(TypeError, match="bool"):
            memory.create_buffer(bad)
        with pytest.raises(TypeError, match="bool"):
            memory.create_buffer(16, alignment=bad)
        with pytest.raises(TypeError, match="bool"):
            session.create_memory(HV, page_size=bad)
        with pytest.raises(TypeError, match="bool"):
            memory.create_image((bad, 4, 4))
    with pytest.raises(TypeError):
        memory.create_buffer("16")
    with pytest.raises(TypeError):
        memory.create_buffer(16.0)
    with pytest.raises(TypeError, match="shape"):
        memory.create_image(None)
    with memory.create_buffer(64) as b:
        with pytest.raises(TypeError):
            b.sub(None, 16)
        with pytest.raises(TypeError, match="bool"):
            b.sub(0, True)
    assert memory.info.object_count == 0


def test_nul_in_names_is_refused(session, memory):
    with pytest.raises(ValueError, match="NUL"):
        memory.create_buffer(16, name="a\0b")
    with pytest.raises(ValueError, match="NUL"):
        memory.create_image((4, 4), name="\0")
    with pytest.raises(ValueError, match="NUL"):
        session.create_memory(HV, name="frames\0")
    with memory.create_buffer(64) as b:
        with pytest.raises(ValueError, match="NUL"):
            b.sub(0, 16, name="x\0")
    assert memory.info.object_count == 0


def test_version_is_the_meson_project_version():
    project = (SOURCE / "meson.build").read_text()
    version = re.search(r"project\([^)]*?version\s*:\s*'([^']+)'", project, re.S).group(1)
    assert llmem.__version__ == version


def test_live_objects_counted_in_words():
    """A session closed under live objects names each kind once, in the
    singular for one, and leaves out the kinds it has none of."""
    s = llmem.Session()
    m = s.create_memory(HV)
    with pytest.raises(llmem.Error) as e:
        s.close()
    assert e.value.errno == errno.EBUSY
    assert e.value.strerror.endswith("session has live objects: 1 memory"), e.value.strerror
    m2 = s.create_memory(HV)
    with pytest.raises(llmem.Error, match=r"live objects: 2 memories$"):
        s.close()
    m.close()
    m2.close()
    s.close()


def test_unknown_choice_names_the_choices(session):
    """A str that names no choice is refused with the choices it could be."""
    with pytest.raises(ValueError, match=r"unknown sharing 'nope': one of 'none', "):
        session.create_memory(HV, sharing="nope")
    with pytest.raises(ValueError, match=r"unknown backend 'nope': one of '"):
        session.create_memory(HV, backend="nope")
