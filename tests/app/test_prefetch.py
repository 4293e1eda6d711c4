"""ui.fitting's shared slots: a prefetched result is taken, not computed again, and a
view waiting for a tallied one follows its steps.

Outside a script run (no browser, no AppTest) Streamlit's caches still work, so the
slot logic is tested directly; the pages' own tests cover the views that use it.
"""
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest

from engine.ensemble import GradientBoostingClassifier
from engine.ensemble._gradient_boosting import importance_shares
from ui import fitting
from ui.tally import Tally, boost_tallied


def start(*jobs) -> None:
    """Prefetch the ``(key, compute)`` jobs once the background thread is idle, so that
    an earlier test's jobs neither replace these nor run before them."""
    assert fitting.prefetch_idle(timeout=5), "the background thread stayed busy"
    assert fitting.prefetch(*jobs)


def held(calls: list, name: str, result):
    """A job that notes ``name`` in ``calls`` and returns ``result`` once released; and
    the events it started and that release it."""
    started, release = threading.Event(), threading.Event()

    def job():
        calls.append(name)
        started.set()
        release.wait(5)
        return result
    return job, started, release


def test_a_prefetched_result_is_taken_by_the_view_without_computing_again():
    key, calls = ("test-prefetch", "taken"), []
    slow, started, release = held(calls, "prefetch", 42)
    start((key, slow))
    assert started.wait(5)
    assert not fitting.prefetch((key, lambda: calls.append("second prefetch")))  # on its way
    assert not fitting.is_fitted(key)
    release.set()
    assert fitting.compute_once(key, lambda: calls.append("view") or 0, "Computing") == 42
    assert calls == ["prefetch"]
    assert fitting.is_fitted(key)
    assert fitting.prefetch_idle(timeout=5)


def test_a_newer_prefetch_replaces_the_jobs_an_older_one_has_not_started():
    under_way, old, newer = (("test-prefetch", "replaced", name)
                             for name in ("under way", "old", "newer"))
    calls = []
    slow, started, release = held(calls, "under way", "kept")
    start((under_way, slow), (old, lambda: calls.append("old") or 1))
    assert started.wait(5)
    # the click that made the old request is gone: its waiting job gives way
    assert fitting.prefetch((newer, lambda: calls.append("newer") or 2))
    release.set()
    assert fitting.prefetch_idle(timeout=5)
    assert calls == ["under way", "newer"]  # the job under way finished, the old one never ran
    assert [fitting.fitted_model(k) for k in (under_way, old, newer)] == ["kept", None, 2]


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


def test_a_view_waiting_for_a_tallied_prefetch_follows_its_steps_and_takes_its_result():
    key = ("test-prefetch", "tallied")
    half, release = threading.Event(), threading.Event()
    paths = []

    def fitting_ahead(tally):
        paths.append(tally.path)
        tally.write(3, 10, np.array([2.0, 6.0]))
        half.set()
        release.wait(5)
        tally.write(10, 10, np.array([5.0, 5.0]))
        return "fitted ahead"

    start(fitting.tallied(key, 2, fitting_ahead))
    assert half.wait(5)
    seen = []
    threading.Timer(2.5 * fitting.REDRAW_SECONDS, release.set).start()
    model = fitting.fit_once(key, lambda progress: "fitted again", "Fitting",
                             partial=lambda done, total, numbers: seen.append(
                                 (done, total, numbers.tolist())))
    assert model == "fitted ahead"
    assert seen[0] == (3, 10, [2.0, 6.0])  # the fit so far, drawn while it went on
    assert fitting.prefetch_idle(timeout=5)
    assert not os.path.exists(paths[0])  # the tally is gone with its job
    assert fitting._slot(key).tally is None


def test_a_tally_travels_to_a_worker_process_as_its_path():
    tally = Tally(3)
    try:
        fitting.in_worker(tally.write, 4, 7, np.array([0.5, 0.25, 0.25]))
        done, total, numbers = tally.read()
        assert (done, total, numbers.tolist()) == (4, 7, [0.5, 0.25, 0.25])
    finally:
        tally.remove()


def test_a_tallied_boosting_fit_reports_the_importances_it_ends_with():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 4)), columns=list("abcd"))
    y = np.where(X["a"] + 0.5 * X["c"] + rng.normal(scale=0.5, size=400) > 0, "yes", "no")
    tally, seen = Tally(4), []
    original = tally.write

    def write(done, total, numbers=None):
        original(done, total, numbers)
        seen.append(importance_shares(tally.read()[2]))
    tally.write = write
    try:
        model = boost_tallied(GradientBoostingClassifier(n_estimators=12, max_depth=2), X, y,
                              tally)
    finally:
        tally.remove()
    assert tally.read()[:2] == (12, 12)
    assert len(seen) == 12
    np.testing.assert_allclose(seen[-1], model.feature_importances_, rtol=1e-12)
    first_round = GradientBoostingClassifier(n_estimators=1, max_depth=2).fit(X, y)
    np.testing.assert_allclose(seen[0], first_round.feature_importances_, rtol=1e-12)


def test_waiting_for_a_growth_returns_its_wave_or_waits_for_its_end():
    family, key = ("test-prefetch", "family"), ("test-prefetch", "family", 100)
    assert fitting.wait_for_growth(family, 50) == {}  # nothing under way: at once
    noted = []

    def grow(fail: bool):  # as a fit in its slot does: the slot locked while it grows
        with fitting._slot(key).lock, fitting.growing(family, 100, key):
            time.sleep(0.3)
            noted.append(50)
            fitting.note_size(family, 50, "the forest of 50")
            time.sleep(0.3)
            if fail:
                raise ValueError("stopped")

    def in_background(fail: bool) -> threading.Thread:
        def run():
            try:
                grow(fail)
            except ValueError:
                pass
        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.05)
        return thread

    thread = in_background(fail=False)
    assert fitting.wait_for_growth(family, 50) == {50: "the forest of 50"}
    assert noted == [50] and thread.is_alive()  # the wave of 50, before the growth ends
    assert fitting.wait_for_growth(family, 80) == {}  # 80: only once the 100 are grown
    assert not thread.is_alive()
    assert {50, 100} <= fitting._family(family).sizes
    family, key = ("test-prefetch", "failing family"), ("test-prefetch", "failing family", 100)
    thread = in_background(fail=True)
    assert fitting.wait_for_growth(family, 80) == {}
    thread.join()
    assert fitting._family(family).sizes == frozenset({50})  # a failed growth notes nothing


def test_work_is_under_way_while_its_slot_is_filled_or_its_family_grows():
    """``under_way``: the result's slot being filled elsewhere, or a model of the family
    with at least the members asked for growing; neither once the work has ended."""
    family, key = ("test-prefetch", "under way"), ("test-prefetch", "under way", "grid")
    grown_key = ("test-prefetch", "under way", 100)
    assert not fitting.under_way(key, family, 50)
    with fitting._slot(key).lock:
        assert fitting.under_way(key)
    with fitting.growing(family, 100, grown_key):
        assert fitting.under_way(key, family, 50) and fitting.under_way(key, family, 100)
        assert not fitting.under_way(key, family, 101) and not fitting.under_way(key)
    assert not fitting.under_way(key, family, 50)
