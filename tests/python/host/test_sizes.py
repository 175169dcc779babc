# SPDX-License-Identifier: MIT
"""Every size a Python int can hold either works or is refused as documented.

The C test vk_sizes sweeps the library; this sweeps the same sizes through
the bindings, where Python adds ints past 64 bits and below 0 (ValueError)
and bools (TypeError).  Page sizes, buffer sizes, image extents, sub-regions,
flush ranges and queue offsets: each fixed size (0, 1, around a page, around
each limit, 2^32, 2^50, 2^62, 2^64 - 1, 2^64) and RANDOM sizes drawn
log-uniformly from LLMEM_SIZES_SEED (default 12345).  Never a crash; the
session fixture fails the test on any validation message.
"""
import errno
import os
import random

import numpy as np
import pytest

import llmem

HV = llmem.MemoryFlags.HOST_VISIBLE
MIB = 1 << 20
RANDOM = 48
U64 = (1 << 64) - 1
# The least maxBufferSize Vulkan allows: a buffer up to it must be made.
MIN_MAX_BUFFER = 1 << 30


def _random_sizes(n):
    rng = random.Random(int(os.environ.get("LLMEM_SIZES_SEED", "12345"), 0))
    return [rng.getrandbits(rng.randrange(0, 66)) for _ in range(n)]


def _sizes(*limits):
    fixed = [0, 1, 4095, 4096, 4097, 32 * MIB - 1, 32 * MIB, 32 * MIB + 1, 1 << 32, 1 << 50,
             1 << 62, 1 << 63, U64 - 4095, U64, U64 + 1]
    around = [x for l in limits for x in (l - 4096, l - 1, l, l + 1, (l + 4096) & ~4095)]
    return fixed + around + _random_sizes(RANDOM)


def _heaps(session):
    """The heap sizes of the memory types with HOST_VISIBLE."""
    info = session.info
    return [info.memory_heaps[t.heap_index].size for t in info.memory_types
            if t.flags & HV]


@pytest.fixture
def limit(session):
    """The most one allocation of the HOST_VISIBLE memory the tests use holds."""
    with session.create_memory(HV) as m:
        return m.info.max_allocation_size


def _errno(call):
    try:
        result = call()
    except llmem.Error as e:
        assert e.strerror and e.strerror != "Unknown error"
        return e.errno, None
    return 0, result


def test_limit_is_at_most_the_heap(session, limit):
    assert 0 < limit <= max(_heaps(session))


def test_page_sizes(session, limit):
    largest_heap = max(_heaps(session))
    for ps in _sizes(limit, largest_heap):
        if ps < 0 or ps > U64:
            with pytest.raises(ValueError):
                session.create_memory(HV, page_size=ps)
            continue
        err, m = _errno(lambda: session.create_memory(HV, page_size=ps))
        if ps % 4096 or ps > largest_heap:
            assert err == errno.EINVAL, ps
            continue
        if ps <= limit:
            assert err == 0, ps
        if err:
            assert err == errno.EINVAL, ps
            continue
        with m:
            assert m.info.max_allocation_size >= (ps or llmem._llmem.DEFAULT_PAGE_SIZE)
            with m.create_buffer(16) as b:
                with b.map() as mp:
                    a = np.asarray(mp)
                    a[:] = 7
                    assert bytes(a) == b"\x07" * 16
                    del a


def test_buffer_sizes(session, limit):
    with session.create_memory(HV, spare_pages=0) as m:
        for size in _sizes(limit, MIN_MAX_BUFFER):
            if size > U64:
                with pytest.raises(ValueError):
                    m.create_buffer(size)
                continue
            err, b = _errno(lambda: m.create_buffer(size))
            if size == 0:
                assert err == errno.EINVAL
            elif size > limit:
                assert err == errno.ENOMEM, size
            elif size <= min(limit - 4096, MIN_MAX_BUFFER):
                assert err == 0, size
            else:
                assert err in (0, errno.ENOMEM), size
            if err:
                continue
            with b, b.map() as mp:
                a = np.asarray(mp)
                a[-1] = 0xA5
                a[0] = 0x5A
                assert a[0] == 0x5A and a[-1] == (0xA5 if size > 1 else 0x5A)
                del a
        assert m.info.page_count == 0


def test_image_extents(session, limit):
    extents = [1, 255, 16384, 16385, 1 << 31, (1 << 32) - 1, 1 << 32]
    with session.create_memory(HV, spare_pages=0) as m:
        for h in extents:
            for w in extents:
                if h > (1 << 32) - 1 or w > (1 << 32) - 1:
                    with pytest.raises(ValueError):
                        m.create_image((h, w, 4))
                    continue
                err, img = _errno(lambda: m.create_image((h, w, 4)))
                if h * w * 4 > limit:
                    assert err in (errno.ENOTSUP, errno.ENOMEM), (h, w)
                elif h <= 4096 and w <= 4096:
                    assert err == 0, (h, w)  # Vulkan's minimum maxImageDimension2D
                else:
                    assert err in (0, errno.ENOTSUP, errno.ENOMEM), (h, w)
                if not err:
                    img.close()


def test_ranges(session, memory, queue):
    n = 1 << 20
    with memory.create_buffer(n) as b, b.map() as mp:
        for off in _sizes(n):
            for size in _sizes(n)[::4]:
                if off > U64 or size > U64:
                    with pytest.raises(ValueError):
                        b.sub(off, size)
                    with pytest.raises(ValueError):
                        mp.flush(off, size)
                    continue
                inside = off <= n and size <= n - off
                err, sub = _errno(lambda: b.sub(off, size))
                if size == 0 or not inside:
                    assert err == errno.EINVAL, (off, size)
                elif off % 4096 == 0:
                    assert err == 0, (off, size)
                else:
                    assert err in (0, errno.EINVAL)
                if not err:
                    sub.close()
                # None, or 2^64 - 1, is the whole rest from offset.
                whole = inside or (size == U64 and off <= n)
                assert _errno(lambda: mp.flush(off, size))[0] == (0 if whole else errno.EINVAL)
                assert _errno(lambda: mp.invalidate(off, size))[0] == (
                    0 if whole else errno.EINVAL)
        data = bytes(4096)
        for off in _sizes(n):
            if off > U64:
                with pytest.raises(ValueError):
                    queue.write_buffer(b, data, off)
                continue
            err, _ = _errno(lambda: queue.write_buffer(b, data, off))
            assert err == (0 if off <= n - len(data) else errno.EINVAL), off
            err, _ = _errno(lambda: queue.fill_buffer(b, b"\0\0\0\0", off & ~3, 4))
            assert err == (0 if (off & ~3) <= n - 4 else errno.EINVAL), off


def test_negative_and_bool_sizes(session, memory):
    for bad in (-1, -4096, -(1 << 64)):
        with pytest.raises(ValueError):
            memory.create_buffer(bad)
        with pytest.raises(ValueError):
            session.create_memory(HV, page_size=bad)
    for bad in (True, False):
        with pytest.raises(TypeError):
            memory.create_buffer(bad)
        with pytest.raises(TypeError):
            session.create_memory(HV, page_size=bad)
        with pytest.raises(TypeError):
            memory.create_image((bad, 4))
