# SPDX-License-Identifier: MIT
"""The benchmark runs both loops and leaves its memory as it found it (a
smoke test: no time is asserted)."""
import errno
import io
import json
from contextlib import redirect_stdout

import pytest

import llmem
import llmem.bench
from llmem import _llmem


def test_bench_reports_both_ops():
    out = io.StringIO()
    with redirect_stdout(out):
        assert llmem.bench.main(["--calls", "200", "--runs", "2", "--json"]) == 0
    r = json.loads(out.getvalue())
    assert set(r["results"]) == {"create", "map"}
    for op in r["results"].values():
        assert op["python_ns"]["median"] > 0 and op["c_ns"]["median"] > 0
        # The ratio is taken per run, its median reported with its spread.
        q = op["ratio_runs"]
        assert op["ratio"] == q["median"] and q["min"] <= q["median"] <= q["max"]
    out = io.StringIO()
    with redirect_stdout(out):
        llmem.bench.main(["--calls", "100", "--runs", "1"])
    assert "ratio python/c" in out.getvalue()


def test_c_loop(memory):
    assert _llmem._bench_c(memory, "create", 50) > 0
    assert _llmem._bench_c(memory, "map", 50, 128) > 0
    assert memory.info.object_count == 0 and memory.info.mapped_pages == 0
    with pytest.raises(ValueError):
        _llmem._bench_c(memory, "fly", 1)
    with pytest.raises(TypeError):
        _llmem._bench_c("memory", "create", 1)
    with pytest.raises(llmem.Error) as e:
        _llmem._bench_c(memory, "create", 1, 0)
    assert e.value.errno == errno.EINVAL
