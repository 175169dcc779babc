# SPDX-License-Identifier: MIT
"""Events beyond waiting: status without waiting, profiling times, completion
callbacks (which thread, the GIL, what they keep alive), user events in wait
lists (complete, and an error that fails what waits for them), and waiting
for several events at once."""
import errno
import gc
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import llmem

MiB = 1 << 20


class Calls:
    """A callback that records its status and the thread it ran in."""

    def __init__(self):
        self.calls = []

    def __call__(self, status):
        self.calls.append((status, threading.get_ident()))


def test_status_without_waiting(memory, queue):
    b = memory.create_buffer(MiB)
    queue.begin_batch()
    ev = queue.fill_buffer(b, np.uint8(1), blocking=False)
    assert ev.status == llmem.EventStatus.QUEUED
    queue.submit_batch()
    # The batch is done: status finds it so and lets go of what the event held.
    assert ev.status == llmem.EventStatus.COMPLETE and b.pending == 0
    assert repr(ev) == "<llmem.Event complete>"
    ev.close()
    with pytest.raises(ValueError, match="event is closed"):
        ev.status
    b.close()


def test_profile(memory, session):
    q = llmem.Queue(session, profiling=True)
    assert q.info.profiling
    b = memory.create_buffer(4 * MiB)
    ev = q.fill_buffer(b, np.uint32(7), blocking=False)
    assert ev.wait()
    p = ev.profile
    assert isinstance(p, llmem.EventProfile)
    assert 0 < p.queued <= p.submitted and p.start <= p.end
    # Before it is done there are no times: an event of a batch not yet submitted.
    q.begin_batch()
    pending = q.fill_buffer(b, np.uint32(8), blocking=False)
    with pytest.raises(llmem.Error) as e:
        pending.profile
    assert e.value.errno == errno.EBUSY
    q.submit_batch()
    assert pending.wait() and pending.profile.end >= pending.profile.start
    plain = llmem.Queue(session)
    ev2 = plain.fill_buffer(b, np.uint32(9), blocking=False)
    ev2.wait()
    with pytest.raises(llmem.Error) as e:
        ev2.profile
    assert e.value.errno == errno.ENOTSUP
    user = llmem.UserEvent(session)
    with pytest.raises(llmem.Error) as e:
        user.profile
    assert e.value.errno == errno.EINVAL
    for o in (ev, pending, ev2, user, b, q, plain):
        o.close()


def test_callback_of_a_done_event_runs_at_once(memory, queue):
    b = memory.create_buffer(4096)
    ev = queue.fill_buffer(b, np.uint8(1), blocking=False)
    ev.wait()
    cb = Calls()
    ev.set_callback(cb)
    assert cb.calls == [(0, threading.get_ident())] and not ev.has_callback
    with pytest.raises(llmem.Error) as e:
        ev.set_callback(cb)
    assert e.value.errno == errno.EBUSY
    with pytest.raises(TypeError, match="callable"):
        ev.set_callback(5)
    ev.close()
    with pytest.raises(ValueError, match="closed"):
        ev.set_callback(cb)
    b.close()


def test_callback_runs_in_the_thread_that_finds_the_event_done(memory, queue):
    b = memory.create_buffer(MiB)
    queue.begin_batch()
    ev = queue.fill_buffer(b, np.uint8(2), blocking=False)
    cb = Calls()
    ev.set_callback(cb)
    assert ev.has_callback and cb.calls == []
    # Another thread submits the batch and waits for it, without the GIL: the
    # callback runs there, taking the GIL.
    t = threading.Thread(target=queue.submit_batch)
    t.start()
    t.join()
    assert cb.calls == [(0, t.ident)]
    assert ev.done and not ev.has_callback
    ev.close()
    b.close()


def test_a_callback_keeps_its_event_until_it_runs(memory, queue):
    b = memory.create_buffer(4096)
    queue.begin_batch()
    ev = queue.fill_buffer(b, np.uint8(3), blocking=False)
    cb = Calls()
    ev.set_callback(cb)
    ref = weakref.ref(ev)
    del ev
    gc.collect()
    assert ref() is not None
    queue.submit_batch()
    assert [s for s, _ in cb.calls] == [0]
    gc.collect()
    assert ref() is None and b.pending == 0
    b.close()


def test_close_before_the_callback_waits_for_it(memory, queue):
    b = memory.create_buffer(MiB)
    queue.begin_batch()
    ev = queue.fill_buffer(b, np.uint8(4), blocking=False)
    cb = Calls()
    ev.set_callback(cb)
    queue.submit_batch(blocking=False).close()
    ev.close()
    assert ev.closed and [s for s, _ in cb.calls] == [0]
    b.close()


def test_callbacks_the_library_never_calls_are_dropped(session, memory):
    q = llmem.Queue(session)
    b = memory.create_buffer(4096)
    q.begin_batch()
    ev = q.fill_buffer(b, np.uint8(5), blocking=False)
    cb = Calls()
    ev.set_callback(cb)
    ref = weakref.ref(ev)
    del ev
    q.discard_batch()
    gc.collect()
    assert ref() is not None
    q.close()
    gc.collect()
    assert ref() is None and cb.calls == []
    # A user event closed before it is set calls nothing either.
    user = llmem.UserEvent(session)
    user.set_callback(cb)
    ref = weakref.ref(user)
    user.close()
    del user
    gc.collect()
    assert ref() is None and cb.calls == []
    b.close()


def test_closing_the_queue_runs_the_callbacks_of_done_work(session, memory):
    q = llmem.Queue(session)
    b = memory.create_buffer(MiB)
    q.begin_batch()
    ev = q.fill_buffer(b, np.uint8(6), blocking=False)
    cb = Calls()
    ev.set_callback(cb)
    submitted = q.submit_batch(blocking=False)
    q.close()
    # Found done by the submission or by close(), in this thread either way.
    assert cb.calls == [(0, threading.get_ident())]
    assert ev.done and submitted.done and ev.status == llmem.EventStatus.COMPLETE
    for o in (ev, submitted):
        o.close()
    b.close()


def test_a_callback_that_raises_is_reported(memory, queue):
    b = memory.create_buffer(4096)
    ev = queue.fill_buffer(b, np.uint8(1), blocking=False)
    ev.wait()

    def boom(status):
        raise RuntimeError("from the callback")

    # pytest installs its own hook around each test: this one, for the call only.
    seen, hook = [], sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        ev.set_callback(boom)
    finally:
        sys.unraisablehook = hook
    assert len(seen) == 1 and isinstance(seen[0].exc_value, RuntimeError)
    assert seen[0].object is boom
    ev.close()
    b.close()


def test_callbacks_from_many_threads(memory, session):
    q = llmem.Queue(session)
    b = memory.create_buffer(64 * 1024)
    count = [0]
    lock = threading.Lock()

    def cb(status):
        assert status == 0
        with lock:
            count[0] += 1

    def worker():
        events = []
        for i in range(40):
            ev = q.fill_buffer(b, np.uint8(i), blocking=False)
            ev.set_callback(cb)
            events.append(ev)
            if i % 3 == 0:
                events[i // 2].wait()
        assert llmem.wait_for_events(events)
        for ev in events:
            ev.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    q.finish()
    assert count[0] == 160
    q.close()
    b.close()


def test_user_event_gates_an_operation_in_another_thread(memory, queue, session):
    user = llmem.UserEvent(session)
    assert user.status == llmem.EventStatus.QUEUED and not user.done
    assert user.queue is None and user.session is session
    b = memory.create_buffer(4096)
    queue.fill_buffer(b, np.uint8(0))
    data = np.full(4096, 9, np.uint8)
    t = threading.Thread(target=queue.write_buffer, args=(b, data), kwargs={"wait_for": [user]})
    t.start()
    time.sleep(0.2)
    # The write waits for the host, in its thread, before anything is recorded.
    assert t.is_alive()
    with b.map() as m:
        assert bytes(m)[:4] == b"\0\0\0\0"
    with pytest.raises(llmem.Error) as e:
        user.close()
    assert e.value.errno == errno.EBUSY
    cb = Calls()
    user.set_callback(cb)
    user.set_complete()
    t.join()
    assert cb.calls == [(0, threading.get_ident())]
    assert user.done and user.wait() and user.status == llmem.EventStatus.COMPLETE
    with b.map() as m:
        assert bytes(m) == data.tobytes()
    with pytest.raises(llmem.Error) as e:
        user.set_complete()
    assert e.value.errno == errno.EINVAL
    user.close()
    b.close()


def test_a_user_event_set_to_an_error_fails_what_waits(memory, queue, session):
    user = llmem.UserEvent(session)
    b = memory.create_buffer(4096)
    queue.fill_buffer(b, np.uint8(1))
    cb = Calls()
    user.set_callback(cb)
    user.set_error(errno.ECANCELED)
    assert cb.calls == [(-errno.ECANCELED, threading.get_ident())]
    assert user.status == -errno.ECANCELED
    assert "Operation canceled" in repr(user)
    # What lists it fails with its errno, and nothing is enqueued.
    with pytest.raises(llmem.Error) as e:
        queue.fill_buffer(b, np.uint8(2), wait_for=[user])
    assert e.value.errno == errno.ECANCELED
    with pytest.raises(llmem.Error) as e:
        queue.write_buffer(b, bytes(16), wait_for=[user], blocking=False)
    assert e.value.errno == errno.ECANCELED
    with b.map() as m:
        assert set(bytes(m)) == {1}
    for wait in (user.wait, lambda: user.done, lambda: llmem.wait_for_events([user])):
        with pytest.raises(llmem.Error) as e:
            wait()
        assert e.value.errno == errno.ECANCELED
    user.close()
    b.close()


def test_user_event_errors(memory, queue, session):
    user = llmem.UserEvent(session)
    with pytest.raises(ValueError, match="positive errno"):
        user.set_error(0)
    with pytest.raises(llmem.Error) as e:
        user.set_status(5)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError):
        llmem.UserEvent(memory)
    other = llmem.Session()
    foreign = llmem.UserEvent(other)
    foreign.set_complete()
    b = memory.create_buffer(64)
    with pytest.raises(llmem.Error) as e:
        queue.fill_buffer(b, np.uint8(1), wait_for=[foreign])
    assert e.value.errno == errno.EINVAL
    user.close()
    with pytest.raises(ValueError, match="closed"):
        queue.fill_buffer(b, np.uint8(1), wait_for=[user])
    with pytest.raises(ValueError, match="closed"):
        user.set_complete()
    other.close()
    closed = llmem.Session()
    closed.close()
    with pytest.raises(ValueError, match="session is closed"):
        llmem.UserEvent(closed)
    foreign.close()
    b.close()


def test_wait_for_several(memory, session):
    q1, q2 = llmem.Queue(session), llmem.Queue(session)
    b1, b2 = memory.create_buffer(MiB), memory.create_buffer(MiB)
    user = llmem.UserEvent(session)
    events = [q1.fill_buffer(b1, np.uint8(1), blocking=False),
              q2.fill_buffer(b2, np.uint8(2), blocking=False)]
    assert llmem.wait_for_events(events) is True
    assert b1.pending == 0 and b2.pending == 0
    assert llmem.wait_for_events([]) is True
    t0 = time.monotonic()
    assert llmem.wait_for_events(events + [user], timeout=0.05) is False
    assert time.monotonic() - t0 >= 0.04
    user.set_complete()
    assert llmem.wait_for_events(events + [user], timeout=1.0) is True
    with pytest.raises(TypeError, match="llmem.Event"):
        llmem.wait_for_events([b1])
    with pytest.raises(ValueError, match="timeout"):
        llmem.wait_for_events(events, timeout=-1)
    events[0].close()
    with pytest.raises(ValueError, match="closed"):
        llmem.wait_for_events(events)
    # Events of a closed queue were waited for by its close().
    q2.close()
    assert llmem.wait_for_events(events[1:]) is True
    for o in (events[1], user, b1, b2, q1):
        o.close()
