# SPDX-License-Identifier: MIT
"""What every test of the llmem package shares.

A session under the validation layer, whose messages fail the test (as the C
tests' VK_TEST_SESSION_END does) and which must close at teardown: a test
that leaves a memory, queue or camera open fails.  The closing line is the
kselftest harness's "# Totals:", which tests/runner counts.
"""
import gc

import pytest

import llmem


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


def _failed(request):
    call = getattr(request.node, "rep_call", None)
    return call is not None and call.failed


def _close(request, obj):
    """Closes obj; a test that failed may still hold its objects in the traceback."""
    gc.collect()
    if not _failed(request):
        obj.close()
        return
    try:
        obj.close()
    except llmem.Error:
        pass


def _close_session(request, s):
    gc.collect()
    messages = s.validation_messages
    _close(request, s)
    if _failed(request):
        return
    log = "\n".join(text for _, text in s.validation_log)
    assert messages == 0 and not s.validation_log, f"validation layer:\n{log}"


@pytest.fixture
def session(request):
    """A session with the validation layer, closed and checked at teardown."""
    s = llmem.Session(validation=True, app_name="llmem python tests")
    assert s.info.validation
    yield s
    _close_session(request, s)


@pytest.fixture
def memory(request, session):
    """Host-visible memory of 4 MiB pages."""
    m = session.create_memory(llmem.MemoryFlags.HOST_VISIBLE, page_size=4 << 20, name="test")
    yield m
    _close(request, m)


@pytest.fixture
def queue(request, session):
    q = llmem.Queue(session)
    yield q
    _close(request, q)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    stats = terminalreporter.stats

    def count(key):
        return len(stats.get(key, []))

    terminalreporter.write_line(
        f"# Totals: pass:{count('passed')} fail:{count('failed')} xfail:{count('xfailed')} "
        f"xpass:{count('xpassed')} skip:{count('skipped')} error:{count('error')}")
