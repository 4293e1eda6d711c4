"""ui.fitting's shared slots: a prefetched result is taken, not computed again.

Outside a script run (no browser, no AppTest) Streamlit's caches still work, so the
slot logic is tested directly; the pages' own tests cover the views that use it.
"""
import threading

import pytest

from ui import fitting


def test_a_prefetched_result_is_taken_by_the_view_without_computing_again():
    key = ("test-prefetch", "taken")
    started, release = threading.Event(), threading.Event()
    calls = []

    def slow():
        calls.append("prefetch")
        started.set()
        release.wait(5)
        return 42

    fitting.prefetch(key, slow)
    assert started.wait(5)
    fitting.prefetch(key, lambda: calls.append("second prefetch"))  # on its way: not again
    assert not fitting.is_fitted(key)
    release.set()
    assert fitting.compute_once(key, lambda: calls.append("view") or 0, "Computing") == 42
    assert calls == ["prefetch"]
    assert fitting.is_fitted(key)


def test_a_failed_prefetch_leaves_the_view_to_compute_and_raise():
    key = ("test-prefetch", "failed")
    done = threading.Event()

    def broken():
        done.set()
        raise ValueError("no OOB rows")

    fitting.prefetch(key, broken)
    assert done.wait(5)
    with pytest.raises(ValueError, match="no OOB rows"):
        fitting.compute_once(key, broken, "Computing")
    assert fitting.compute_once(key, lambda: "fine", "Computing") == "fine"
