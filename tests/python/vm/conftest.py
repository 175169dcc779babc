# SPDX-License-Identifier: MIT
"""One session for every test in the guest.

Under TCG a session with the validation layer takes 15 to 35 s to open: one
per test made most of the suite's time.  The checks the host's fixture makes
at teardown are made after each test all the same: no new validation
message, and nothing of the test's left open on the session.
"""
import gc

import pytest

import llmem


@pytest.fixture(scope="session")
def _guest_session():
    s = llmem.Session(validation=True, app_name="llmem python vm tests")
    assert s.info.validation
    yield s
    gc.collect()
    s.close()
    assert not s.validation_log, "\n".join(text for _, text in s.validation_log)


@pytest.fixture
def session(request, _guest_session):
    s = _guest_session
    seen = len(s.validation_log)
    yield s
    gc.collect()
    call = getattr(request.node, "rep_call", None)  # set by ../conftest.py
    if call is not None and call.failed:
        return
    new = s.validation_log[seen:]
    assert not new, "validation layer:\n" + "\n".join(text for _, text in new)
    assert not any(s._children.values()), f"left open: {s._children}"
