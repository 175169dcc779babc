# SPDX-License-Identifier: MIT
"""Queues and events: blocking and not, wait lists, fills, batches, host
memory held until a read lands, PyOpenCL's enqueue_copy."""
import errno
import gc
import weakref

import numpy as np
import pytest

import llmem

MiB = 1 << 20


@pytest.fixture
def staged(request, session):
    """A queue that never copies through a mapping: reads land on wait."""
    q = llmem.Queue(session, no_mapping=True, staging_size=MiB, chunk_size=256 << 10)
    yield q
    q.close()


def test_info(queue, staged):
    assert queue.info == (False, 32 * MiB, 8 * MiB, False)
    assert staged.info == llmem.QueueInfo(True, MiB, 256 << 10, False)
    assert staged.session is not None and not staged.in_batch


def test_blocking_round_trip(memory, queue, staged):
    data = np.random.default_rng(1).integers(0, 255, 3 * MiB, np.uint8)
    b = memory.create_buffer(3 * MiB)
    for q in (queue, staged):
        assert q.write_buffer(b, data) is None
        out = np.zeros_like(data)
        assert q.read_buffer(b, out) is None
        assert np.array_equal(out, data)
    out = bytearray(100)
    staged.read_buffer(b, out, 1000)
    assert bytes(out) == data[1000:1100].tobytes()
    b.close()


def test_read_lands_when_its_event_is_waited_for(memory, staged):
    b = memory.create_buffer(2 * MiB)
    staged.fill_buffer(b, np.uint32(0x01020304))
    out = np.zeros(2 * MiB, np.uint8)
    ev = staged.read_buffer(b, out, blocking=False)
    assert isinstance(ev, llmem.Event) and ev.queue is staged
    assert ev.wait() is True and ev.done
    assert np.all(out.view(np.uint32) == 0x01020304)
    ev.close()
    assert ev.closed
    with pytest.raises(ValueError, match="event is closed"):
        ev.wait()
    b.close()


def test_event_holds_the_host_memory_until_done(memory, staged):
    b = memory.create_buffer(MiB)
    staged.fill_buffer(b, np.uint8(5))
    backing = np.zeros(MiB, np.uint8)
    out = backing[:]
    ref = weakref.ref(out)
    ev = staged.read_buffer(b, out, blocking=False)
    del out
    gc.collect()
    assert ref() is not None
    assert ev.wait(timeout=10.0)
    # Landed, and let go of.
    assert np.all(backing == 5)
    gc.collect()
    assert ref() is None
    # Dropped without a wait, the event waits for its read first.
    out = np.zeros(MiB, np.uint8)
    staged.read_buffer(b, out, blocking=False)
    gc.collect()
    assert np.all(out == 5)
    b.close()


def test_wait_lists_order_operations(memory, session):
    q1, q2 = llmem.Queue(session), llmem.Queue(session, no_mapping=True)
    a, b = memory.create_buffer(MiB), memory.create_buffer(MiB)
    data = np.arange(MiB // 4, dtype=np.uint32)
    w = q1.write_buffer(a, data, blocking=False)
    c = q2.copy_buffer(a, b, wait_for=[w], blocking=False)
    out = np.zeros_like(data)
    r = q2.read_buffer(b, out, wait_for=(w, c), blocking=False)
    llmem.wait_for_events([w, c, r])
    assert np.array_equal(out, data)
    assert all(e.done for e in (w, c, r))
    with pytest.raises(TypeError, match="llmem.Event"):
        q1.copy_buffer(a, b, wait_for=[a])
    with pytest.raises(TypeError):
        q1.copy_buffer(a, b, wait_for=5)
    w.close()
    with pytest.raises(ValueError, match="closed"):
        q1.copy_buffer(a, b, wait_for=[w])
    for e in (c, r):
        e.close()
    a.close()
    b.close()
    q1.close()
    q2.close()


def test_timeouts(memory, staged):
    b = memory.create_buffer(MiB)
    ev = staged.fill_buffer(b, np.uint8(1), blocking=False)
    assert ev.wait(timeout=0) in (True, False)
    assert ev.wait(timeout=30) is True and ev.wait(timeout=0) is True
    with pytest.raises(ValueError):
        ev.wait(timeout=-1)
    with pytest.raises(TypeError):
        ev.wait(timeout="soon")
    b.close()


@pytest.mark.parametrize("pattern", [np.uint8(0xA5), np.uint16(0x1234), np.float32(1.5),
                                     np.uint64(0x0102030405060708),
                                     np.arange(4, dtype=np.uint32) + 7])
def test_fill_patterns(memory, queue, pattern):
    b = memory.create_buffer(4096 + 64)
    queue.fill_buffer(b, np.uint8(0))
    p = np.asarray(pattern)
    n = p.nbytes
    llmem.enqueue_fill_buffer(queue, b, pattern, offset=2 * n, size=64 * n)
    with b.map() as m:
        got = np.asarray(m)
        want = np.tile(np.frombuffer(p.tobytes(), np.uint8), 64)
        assert np.array_equal(got[2 * n:66 * n], want)
        assert not got[:2 * n].any() and not got[66 * n:].any()
        del got
    b.close()


def test_fill_errors(memory, queue):
    b = memory.create_buffer(64)
    with pytest.raises(ValueError, match="1, 2, 4, 8 or 16"):
        queue.fill_buffer(b, b"abc")
    with pytest.raises(llmem.Error) as e:
        queue.fill_buffer(b, np.uint32(1), offset=2, size=8)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError):
        queue.fill_buffer(b, 7)
    b.close()


def test_batches(memory, staged):
    a, b = memory.create_buffer(MiB), memory.create_buffer(MiB)
    data = np.arange(MiB, dtype=np.uint8)
    out = np.zeros_like(data)
    with staged.batch() as batch:
        assert staged.in_batch
        staged.write_buffer(a, data)
        staged.copy_buffer(a, b)
        staged.read_buffer(b, out)
    assert batch.event is None and not staged.in_batch
    assert np.array_equal(out, data)
    backing = np.zeros_like(data)
    out2 = backing[:]
    ref = weakref.ref(out2)
    with staged.batch(blocking=False) as batch:
        staged.read_buffer(a, out2)
    del out2
    gc.collect()
    assert ref() is not None
    assert batch.event.wait()
    assert np.array_equal(backing, data)
    gc.collect()
    assert ref() is None
    # An exception discards the batch: its reads never land.
    out3 = np.zeros_like(data)
    with pytest.raises(RuntimeError):
        with staged.batch():
            staged.read_buffer(a, out3)
            raise RuntimeError("stop")
    assert not staged.in_batch and not out3.any()
    with pytest.raises(llmem.Error) as e:
        staged.submit_batch()
    assert e.value.errno == errno.EINVAL
    staged.begin_batch()
    with pytest.raises(llmem.Error) as e:
        staged.begin_batch()
    assert e.value.errno == errno.EBUSY
    staged.discard_batch()
    a.close()
    b.close()


def test_enqueue_copy_dispatch(memory, queue):
    img = memory.create_image((4, 8, 4), "uint8")
    data = np.arange(img.size, dtype=np.uint8).reshape(img.shape)
    a, b = memory.create_buffer(img.size), memory.create_buffer(img.size)
    llmem.enqueue_copy(queue, a, data)                      # host -> buffer
    llmem.enqueue_copy(queue, b, a, byte_count=64, src_offset=0, dst_offset=64)
    llmem.enqueue_copy(queue, img, a)                       # buffer -> image
    out = np.zeros_like(data)
    assert llmem.enqueue_copy(queue, out, img, is_blocking=True) is None  # image -> host
    assert np.array_equal(out, data)
    llmem.enqueue_copy(queue, img, data[::-1].copy())       # host -> image
    ev = llmem.enqueue_copy(queue, a, img, blocking=False)  # image -> buffer
    ev.wait()
    host = bytearray(img.size)
    queue.copy(host, a)                                     # buffer -> host
    assert bytes(host) == data[::-1].tobytes()
    with b.map() as m:
        assert bytes(m)[64:128] == data.tobytes()[:64]
    with pytest.raises(TypeError, match="no copy"):
        llmem.enqueue_copy(queue, bytearray(4), b"1234")
    with pytest.raises(TypeError, match="no copy"):
        llmem.enqueue_copy(queue, 5, a)
    ev.close()
    for o in (img, a, b):
        o.close()


def test_copy_errors(memory, queue, session):
    a = memory.create_buffer(4096)
    with pytest.raises(llmem.Error) as e:
        queue.copy_buffer(a, a, 1024, 0, 512)
    assert e.value.errno == errno.EINVAL
    b = memory.create_buffer(1024)
    with pytest.raises(llmem.Error) as e:
        queue.copy_buffer(a, b)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(llmem.Error) as e:
        queue.read_buffer(a, bytearray(16), 4090)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError, match="writable"):
        queue.read_buffer(a, b"readonly")
    with pytest.raises(TypeError, match="buffer protocol"):
        queue.write_buffer(a, [1, 2, 3])
    with pytest.raises(TypeError, match="llmem.Buffer"):
        queue.copy_buffer(a, "b")
    with llmem.Session() as other:
        with llmem.Queue(other) as q:
            with pytest.raises(llmem.Error) as e:
                q.copy_buffer(a, b, 16)
            assert e.value.errno == errno.EINVAL
    a.close()
    b.close()


def test_operations_in_flight_hold_their_objects(memory, session):
    q = llmem.Queue(session, no_mapping=True)
    a, b = memory.create_buffer(MiB), memory.create_buffer(MiB)
    img = memory.create_image((64, 64, 4))
    refs = [weakref.ref(o) for o in (a, b, img)]
    ev = q.copy_buffer(a, b, blocking=False)
    ev2 = q.clear_image(img, (1, 2, 3, 4), blocking=False)
    assert (a.pending, b.pending, img.pending) == (1, 1, 1)
    for o in (a, b, img):
        with pytest.raises(llmem.Error) as e:
            o.close()
        assert e.value.errno == errno.EBUSY
    del a, b, img, o
    gc.collect()
    assert all(r() is not None for r in refs)
    # Dropping the events waits for them and lets go.
    del ev, ev2
    gc.collect()
    assert all(r() is None for r in refs)
    # In a batch, the batch holds them until it is done.
    c = memory.create_buffer(64)
    q.begin_batch()
    q.fill_buffer(c, np.uint8(1))
    assert c.pending == 1
    q.discard_batch()
    assert c.pending == 0
    with q.batch(blocking=False) as batch:
        q.fill_buffer(c, np.uint8(1))
    assert c.pending == 1
    q.close()
    # Closing the queue waited for everything.
    assert c.pending == 0 and batch.event.done
    c.close()


def test_closed_queue(memory, session):
    q = llmem.Queue(session, no_mapping=True)
    b = memory.create_buffer(MiB)
    out = np.zeros(MiB, np.uint8)
    ev = q.fill_buffer(b, np.uint8(3), blocking=False)
    r = q.read_buffer(b, out, wait_for=[ev], blocking=False)
    q.close()
    # Closing waited for everything: the read landed, the events are done.
    assert np.all(out == 3)
    assert ev.done and r.wait() is True
    assert "closed" in repr(q)
    with pytest.raises(ValueError, match="queue is closed"):
        q.copy_buffer(b, b)
    with pytest.raises(ValueError, match="queue is closed"):
        q.finish()
    ev.close()
    r.close()
    b.close()
    q.close()


def test_finish_and_queue_holds_session(session, memory):
    q = llmem.Queue(session)
    b = memory.create_buffer(64)
    q.fill_buffer(b, np.uint8(1), blocking=False).close()
    q.finish()
    with pytest.raises(TypeError):
        llmem.Queue("session")
    with pytest.raises(ValueError):
        llmem.Queue(session, staging_size=-1)
    with pytest.raises(llmem.Error) as e:
        llmem.Queue(session, staging_size=1000)
    assert e.value.errno == errno.EINVAL
    b.close()
    q.close()
