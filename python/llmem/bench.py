# SPDX-License-Identifier: MIT
"""python3 -m llmem.bench: what a call costs from Python, next to the same call from C.

Per call, in one process, one session and one memory: creating a buffer and
closing it, and mapping a buffer and closing the mapping, from a Python loop
and from a C loop inside the extension (_llmem._bench_c()) that makes the
same libllmem calls.  Each is run --runs times, the two loops taking turns
in an order drawn from a seeded PRNG (--seed), each timed in the thread's
CPU time (CLOCK_THREAD_CPUTIME_ID), which a busy machine's other programs do
not add to; the figures are the median nanoseconds per call with the min and
max of the runs, and the ratio Python over C taken per run: its median, min
and max.  Left out: the untimed warm-up run of each, and for map/unmap the
buffer's creation.  The goal for create/destroy is under 2.
"""

import argparse
import json
import random
import statistics
import sys
import time

import llmem
from llmem import _llmem


def _py_create(memory, n, size):
    create = memory.create_buffer
    t0 = time.thread_time_ns()
    for _ in range(n):
        create(size).close()
    return time.thread_time_ns() - t0


def _py_map(memory, n, size):
    with memory.create_buffer(size) as buf:
        map_ = buf.map
        t0 = time.thread_time_ns()
        for _ in range(n):
            map_().close()
        return time.thread_time_ns() - t0


_PY = {"create": _py_create, "map": _py_map}
_WHAT = {"create": "create/destroy buffer", "map": "map/unmap buffer"}


def measure(memory, op, n, runs, size, rng):
    """{"python": [ns per call per run], "c": [...]}, runs interleaved, the
    first of each pair drawn from @rng: the second runs on what the first
    left warm."""
    loops = {"python": lambda: _PY[op](memory, n, size),
             "c": lambda: _llmem._bench_c(memory, op, n, size)}
    out = {"python": [], "c": []}
    # One run of each first, untimed, so that the page and caches are warm.
    _PY[op](memory, n // 10 or 1, size)
    _llmem._bench_c(memory, op, n // 10 or 1, size)
    for _ in range(runs):
        order = ["python", "c"]
        rng.shuffle(order)
        for side in order:
            out[side].append(loops[side]() / n)
    return out


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m llmem.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20000, help="calls per run (20000)")
    ap.add_argument("--runs", type=int, default=9, help="runs of each loop (9)")
    ap.add_argument("--size", type=int, default=4096, help="buffer bytes (4096)")
    ap.add_argument("--seed", type=int, default=1, help="the PRNG that orders each run's loops (1)")
    ap.add_argument("--device", default=None, help="device index or name (as LLMEM_DEVICE)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = ap.parse_args(argv)
    if args.calls < 1 or args.runs < 1 or args.size < 1:
        ap.error("--calls, --runs and --size must be at least 1")
    device = int(args.device) if args.device and args.device.isdigit() else args.device

    results = {}
    rng = random.Random(args.seed)
    with llmem.Session(device) as session:
        memory = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE | llmem.MemoryFlags.HOST_COHERENT,
                                       name="bench")
        with memory:
            for op in ("create", "map"):
                m = measure(memory, op, args.calls, args.runs, args.size, rng)
                py, c = summary(m["python"]), summary(m["c"])
                ratios = summary([p / q for p, q in zip(m["python"], m["c"])])
                results[op] = {"python_ns": py, "c_ns": c, "ratio": ratios["median"],
                               "ratio_runs": ratios}
        device_name = session.info.device_name

    if args.json:
        json.dump({"device": device_name, "calls": args.calls, "runs": args.runs,
                   "size": args.size, "seed": args.seed, "clock": "thread CPU time", "python": sys.version.split()[0], "results": results},
                  sys.stdout, indent=1)
        print()
        return 0
    print(f"llmem.bench: {device_name}, Python {sys.version.split()[0]}, {args.runs} runs of "
          f"{args.calls} calls, {args.size}-byte buffers, the loops in turn (seed {args.seed}), "
          f"thread CPU time (ns per call: median, min, max; ratio per run: median, min, max)")
    for op, r in results.items():
        py, c, q = r["python_ns"], r["c_ns"], r["ratio_runs"]
        print(f"  {_WHAT[op]:<22} python {py['median']:8.1f} ({py['min']:.1f}-{py['max']:.1f})"
              f"   c {c['median']:8.1f} ({c['min']:.1f}-{c['max']:.1f})"
              f"   ratio python/c {r['ratio']:.2f} ({q['min']:.2f}-{q['max']:.2f})")
    print("  left out: a warm-up run of each loop; for map/unmap, creating the buffer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
