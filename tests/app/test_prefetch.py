"""ui.fitting's shared slots: a prefetched result is taken, not computed again.

Outside a script run (no browser, no AppTest) Streamlit's caches still work, so the
slot logic is tested directly; the pages' own tests cover the views that use it.
"""
import threading
import time

import pytest

from ui import fitting


def start(*jobs) -> None:
    """Prefetch the ``(key, compute)`` jobs once the background thread is free (an
    earlier test's prefetch may still be letting go of it)."""
    deadline = time.monotonic() + 5
    while not fitting.prefetch(*jobs):
        assert time.monotonic() < deadline, "the background thread stayed busy"
        time.sleep(0.01)


def test_a_prefetched_result_is_taken_by_the_view_without_computing_again():
    key = ("test-prefetch", "taken")
    started, release = threading.Event(), threading.Event()
    calls = []

    def slow():
        calls.append("prefetch")
        started.set()
        release.wait(5)
        return 42

    start((key, slow))
    assert started.wait(5)
    # on its way: not again; and while it runs, no other prefetch starts at all
    assert not fitting.prefetch((key, lambda: calls.append("second prefetch")))
    assert not fitting.prefetch((("test-prefetch", "other"), lambda: calls.append("other")))
    assert not fitting.is_fitted(key)
    release.set()
    assert fitting.compute_once(key, lambda: calls.append("view") or 0, "Computing") == 42
    assert calls == ["prefetch"]
    assert fitting.is_fitted(key)
    start((("test-prefetch", "after"), lambda: 1))  # free again once it has finished


def test_prefetch_skips_what_is_already_there():
    key = ("test-prefetch", "there")
    assert fitting.compute_once(key, lambda: "computed", "Computing") == "computed"
    assert not fitting.prefetch((key, lambda: "again"))


def test_a_failed_prefetch_leaves_the_view_to_compute_and_raise():
    key = ("test-prefetch", "failed")
    done = threading.Event()

    def broken():
        done.set()
        raise ValueError("no OOB rows")

    start((key, broken))
    assert done.wait(5)
    with pytest.raises(ValueError, match="no OOB rows"):
        fitting.compute_once(key, broken, "Computing")
    assert fitting.compute_once(key, lambda: "fine", "Computing") == "fine"


def test_one_prefetch_computes_several_results_in_turn_and_skips_those_there():
    first, second, there = (("test-prefetch", "chain", name) for name in ("a", "b", "there"))
    assert fitting.compute_once(there, lambda: "before", "Computing") == "before"
    calls = []

    def broken():
        calls.append("a")
        raise ValueError("dropped: the view computes again")

    start((first, broken), (there, lambda: calls.append("there")),
          (second, lambda: calls.append("b") or 2))
    assert fitting.prefetch_idle(timeout=5)
    assert calls == ["a", "b"]  # in turn, past an error; what was there is not recomputed
    assert [fitting.fitted_model(k) for k in (first, second, there)] == [None, 2, "before"]
