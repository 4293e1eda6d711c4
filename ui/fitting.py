"""Fit a model once for every session that asks for it, with a progress bar.

``st.cache_resource`` cannot show progress itself: a bar updated from inside a cached
function is recorded and replayed on the next hit, into a block that no longer exists.
So the cache holds a *slot* per key (dataset content hash, model, parameters) and the
fit runs outside it, under the slot's lock: the first session fits and draws the bar,
sessions asking for the same model meanwhile wait for it and then share it. Slots are
bounded (``max_entries``), so a classroom server's memory stays bounded; a cached model
is shared by every student and must never be modified.

A slot can also be filled ahead of time (:func:`prefetch`): a view that a student is
likely to open next is computed in a background thread while the page draws, and the
view then finds it ready (or waits under the same lock for it to finish).
"""
from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from ui.tally import Tally

#: Worker processes for one forest fit. A fit runs once per (data, parameters) and every
#: session shares it, so it may take the server's cores while it lasts (at most four).
FIT_JOBS = max(1, min(os.cpu_count() or 1, 4))
#: How long idle worker processes are kept. joblib lets them go after 5 minutes, and a
#: lesson's forests are often further apart than that; starting them again costs the
#: next forest ≈ 0.7 s (the first of bench_browser's cold forest pages: 5.3-5.9 s
#: against 4.8-5.1 s for the next ones).
WORKER_IDLE_SECONDS = 3600
#: Niceness the worker processes take (``os.nice``, where the system has it): what they
#: run is a forest's trees or work done ahead of a click, and when a page's own run in the
#: server process (or the browser, on a laptop) wants a core at the same time, it comes
#: first. On an idle machine a niced process runs as fast as any.
WORKER_NICENESS = 10
#: How often a view waiting for a fit that reports to a :class:`~ui.tally.Tally` moves
#: its bar, and how often it redraws its picture of the fit so far.
FOLLOW_SECONDS, REDRAW_SECONDS = 0.5, 1.0


@contextmanager
def worker_processes() -> Iterator[None]:
    """Around a forest's fit: its parallel work goes to the server's worker processes,
    which stay up for :data:`WORKER_IDLE_SECONDS` after their last task and run at
    :data:`WORKER_NICENESS`. Every fit must use this same setting: joblib replaces its
    shared workers when it changes."""
    from joblib import parallel_config

    nice = getattr(os, "nice", None)
    with parallel_config(backend="loky", idle_worker_timeout=WORKER_IDLE_SECONDS,
                         initializer=nice, initargs=(WORKER_NICENESS,) if nice else ()):
        yield


@st.cache_resource(max_entries=1, show_spinner=False)
def start_workers() -> bool:
    """Start the worker processes once per server, in the background, with the engine
    imported in them, so that the first forest of a lesson does not wait for them."""
    if FIT_JOBS < 2:
        return False

    def start() -> None:
        from joblib import Parallel, delayed

        with worker_processes():
            Parallel(n_jobs=FIT_JOBS)(delayed(importlib.import_module)("engine.ensemble")
                                      for _ in range(FIT_JOBS))
    threading.Thread(target=start, name="glassbox-start-workers", daemon=True).start()
    return True


def in_worker(function: Callable[..., Any], *args) -> Any:
    """``function(*args)`` in one of the server's worker processes (in this process when
    it has none): a fit in the background then holds another process's interpreter
    lock, not the one the pages draw with. ``function`` and ``args`` are pickled (an
    engine estimator's bound ``fit`` and its data: not a page's closure)."""
    if FIT_JOBS < 2:
        return function(*args)
    from joblib import Parallel, delayed

    with worker_processes():
        return Parallel(n_jobs=FIT_JOBS)([delayed(function)(*args)])[0]


@dataclass
class _Slot:
    lock: threading.Lock = field(default_factory=threading.Lock)
    model: Any = None
    tally: Tally | None = None  # set while a :func:`tallied` job fills the slot

    def fill(self, make: Callable[[], Any]) -> Any:
        """The model, made by ``make()`` unless someone made it first (waits for a
        session or a prefetch making it now). An exception leaves the slot empty."""
        with self.lock:
            if self.model is None:
                self.model = make()
        return self.model


@st.cache_resource(max_entries=32, show_spinner=False)
def _slot(key: tuple) -> _Slot:
    return _Slot()


#: One background thread for the whole server, one job at a time, so prefetching takes at
#: most one core (and the forest workers a job asks for).
_BACKGROUND = ThreadPoolExecutor(max_workers=1, thread_name_prefix="glassbox-prefetch")


class _Prefetcher:
    """The jobs of the newest :func:`prefetch` not started yet, and whether the
    background thread is taking them.

    A new prefetch replaces the jobs an older one has not started: the job under way
    finishes (its result is kept), then the thread goes on with the newest request. So
    the work done ahead follows the last click — after "50 trees", the 50-tree views,
    not the 100-tree ones left over — and a busy classroom server never builds a queue
    of guesses: at most one list waits, each guess's view computes on demand."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.jobs: list[tuple[tuple, Callable[[], Any]]] = []
        self.busy = False

    def submit(self, jobs: list[tuple[tuple, Callable[[], Any]]]) -> None:
        with self.changed:
            self.jobs = jobs
            if self.busy:
                return
            self.busy = True
        _BACKGROUND.submit(self._run)

    def _next(self) -> tuple[tuple, Callable[[], Any]] | None:
        """The next job whose result is not there or on its way; None (and idle) when
        there is none."""
        with self.changed:
            try:
                while self.jobs:
                    key, compute = self.jobs.pop(0)
                    if not _taken(key):
                        return key, compute
            except Exception:  # noqa: BLE001 - the list is dropped, never the thread's state
                self.jobs = []
            # idle under the same lock a submit takes: a submit after this starts a new run
            self.busy = False
            self.changed.notify_all()
            return None

    def _run(self) -> None:
        while (job := self._next()) is not None:
            key, compute = job
            try:
                _slot(key).fill(compute)
            except Exception:  # noqa: BLE001 - shown when the view asks for it
                pass

    def wait_idle(self, timeout: float | None) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: not self.busy, timeout)


_PREFETCHER = _Prefetcher()


def is_fitted(key: tuple) -> bool:
    """Whether the model for ``key`` is there already (``fit_once`` then returns at once)."""
    return _slot(key).model is not None


def fitted_model(key: tuple) -> Any:
    """The model for ``key`` if it is there already, else None (nothing is fitted)."""
    return _slot(key).model


@dataclass
class _Family:
    """The sizes of one family's models fitted so far (``sizes``: a set replaced, never
    changed, so a reader never sees it change under it), and the size being grown now
    (0: none); ``changed`` is notified when either changes."""

    changed: threading.Condition = field(default_factory=threading.Condition)
    sizes: frozenset = frozenset()
    growing: int = 0
    growing_key: tuple | None = None  # the slot of the model being grown
    passed: dict = field(default_factory=dict)  # size -> model, the growth's waves so far


@st.cache_resource(max_entries=32, show_spinner=False)
def _family(family: tuple) -> _Family:
    return _Family()


def shared(key: tuple, make: Callable[[], Any]) -> Any:
    """The result for ``key``, made by ``make()`` unless it is there (waits while a
    session or a prefetch makes it); no progress shown: for a model that another
    computation needs, itself run by :func:`compute_once` or :func:`prefetch`."""
    return _slot(key).fill(make)


def keep_model(key: tuple, model: Any) -> None:
    """Share ``model`` as the model for ``key`` (a fit that made it on the way to another
    one), unless that key has its model or is being fitted now."""
    slot = _slot(key)
    if slot.lock.acquire(blocking=False):
        try:
            if slot.model is None:
                slot.model = model
        finally:
            slot.lock.release()


def note_size(family: tuple, size: int, model: Any = None) -> None:
    """Record that the model of ``family`` with ``size`` members is fitted (see
    :func:`fitted_sizes`). A growth passing through ``size`` hands its ``model`` to
    whoever waits for it (:func:`wait_for_growth`), whose own slot, locked while it
    waits, cannot take it."""
    found = _family(family)
    with found.changed:
        found.sizes = found.sizes | {size}
        if model is not None and found.growing:
            found.passed = {**found.passed, size: model}
        found.changed.notify_all()


@contextmanager
def growing(family: tuple, size: int, key: tuple) -> Iterator[None]:
    """Around the growth of ``family``'s model of ``size`` members, the model for ``key``,
    which notes the sizes it passes through (:func:`note_size`) and, once grown, its own:
    meanwhile :func:`wait_for_growth` waits for it instead of growing the same members
    beside it."""
    found = _family(family)
    with found.changed:
        found.growing, found.growing_key = size, key
    grown = False
    try:
        yield
        grown = True
    finally:
        with found.changed:
            if grown:  # its slot is filled as soon as the fit returns (see fitted_sizes)
                found.sizes = found.sizes | {size}
            found.growing, found.growing_key, found.passed = 0, None, {}
            found.changed.notify_all()


def wait_for_growth(family: tuple, size: int, timeout: float = 600.0) -> dict[int, Any]:
    """If a model of ``family`` of at least ``size`` members is being grown elsewhere (a
    prefetch, another session), wait until it has passed through a model of at least
    ``size`` members or has ended (and its model is in its slot), so that its members
    are taken, not grown a second time on the same cores. Returns the models it passed
    through by then, by size (see :func:`note_size`); :func:`fitted_sizes` has the rest."""
    found = _family(family)
    with found.changed:
        key = found.growing_key if found.growing >= size else None
        if key is None:
            return {}
        found.changed.wait_for(lambda: found.growing_key != key
                               or any(s >= size for s in found.passed), timeout)
        ended, passed = found.growing_key != key, found.passed
    if ended:  # the grown model goes into its slot under this lock, once the fit returns
        with _slot(key).lock:
            pass
    return passed


def fitted_sizes(family: tuple, key_of: Callable[[int], tuple]) -> dict[int, Any]:
    """The fitted models of ``family`` by size: models whose keys differ only in their
    number of members (``key_of(size)`` is a member's key). A family is an ensemble's
    parameters without its size; a model dropped from the cache since is left out."""
    holder = _family(family)
    found = {size: fitted_model(key_of(size)) for size in holder.sizes}
    # a size whose slot is being filled stays noted: its model is on its way
    gone = {size for size, model in found.items()
            if model is None and not _slot(key_of(size)).lock.locked()}
    with holder.changed:
        holder.sizes = holder.sizes - gone
    return {size: model for size, model in found.items() if model is not None}


def fit_once(key: tuple, fit: Callable[[Callable[[int, int], None]], Any], label: str,
             partial: Callable[[int, int, Any], None] | None = None) -> Any:
    """The model for ``key``: fitted now by ``fit(progress)`` or shared from before.

    ``fit`` receives ``progress(done, total)`` (pass it to the engine's ``fit``); while
    it runs a bar shows ``label`` and the count. While a fit of the same key started
    elsewhere finishes: if it is a :func:`tallied` prefetch, the bar follows its steps
    and ``partial(done, total, numbers)`` (if given) draws the fit so far from its
    tally's numbers, redrawn as it goes; otherwise (another session's fit) a spinner says
    so, as its steps are not seen here. Exceptions from ``fit`` propagate and leave the
    slot empty, so the next attempt fits again.
    """
    slot = _slot(key)
    if slot.model is not None:
        return slot.model
    tally = slot.tally
    if slot.lock.locked() and tally is not None:
        _follow(slot, tally, label, partial)
    if slot.lock.locked():  # fitting for another session: no steps to show here
        with st.spinner(f"{label}: already under way, waiting for it…"):
            return slot.fill(lambda: fit(lambda done, total: None))
    if slot.model is not None:
        return slot.model
    bar = st.progress(0.0, text=f"{label}…")

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // 50) == 0:  # ~50 redraws, not 1,000
            bar.progress(min(done / max(total, 1), 1.0), text=f"{label}: {done} of {total}")
    try:
        return slot.fill(lambda: fit(progress))  # another session fitting it: wait for it
    finally:
        bar.empty()


def _follow(slot: _Slot, tally: Tally, label: str,
            partial: Callable[[int, int, Any], None] | None) -> None:
    """Until ``slot``'s lock is free: a bar of ``tally``'s steps and ``partial``'s picture
    of the fit so far, each redrawn when the tally has moved (a picture at most every
    :data:`REDRAW_SECONDS`). Both are gone on return."""
    bar, place = st.progress(0.0, text=f"{label}: under way…"), st.empty()
    steps = drawn = -1
    last_drawn = 0.0
    try:
        while True:
            done, total, numbers = tally.read()
            if done != steps and total:
                bar.progress(min(done / total, 1.0), text=f"{label}: {done} of {total}")
                steps = done
            now = time.monotonic()
            due = now - last_drawn >= REDRAW_SECONDS
            if partial is not None and done not in (0, drawn) and due:
                with place.container():
                    partial(done, total, numbers)
                drawn, last_drawn = done, now
            if slot.lock.acquire(timeout=FOLLOW_SECONDS):
                slot.lock.release()
                return
    finally:
        bar.empty()
        place.empty()


def compute_once(key: tuple, compute: Callable[[], Any], label: str) -> Any:
    """Like :func:`fit_once` for a result without progress steps: a spinner says
    ``label`` while ``compute()`` runs (or while a prefetch of it finishes)."""
    slot = _slot(key)
    if slot.model is not None:
        return slot.model
    with st.spinner(f"{label}…"):
        return slot.fill(compute)


def under_way(key: tuple, family: tuple | None = None, size: int = 0) -> bool:
    """Whether the result for ``key`` is being made elsewhere now (a prefetch, another
    session), or a model of ``family`` with at least ``size`` members is being grown
    (see :func:`growing`): asking for it now would wait for that work."""
    if _slot(key).lock.locked():
        return True
    return family is not None and _family(family).growing >= max(size, 1)


def _taken(key: tuple) -> bool:
    """Whether the result for ``key`` is there or on its way."""
    slot = _slot(key)
    return slot.model is not None or slot.lock.locked()


def prefetch(*jobs: tuple[tuple, Callable[[], Any]]) -> bool:
    """Compute the ``(key, compute)`` jobs in the background, one after another, each
    unless its result is there or on its way by then; :func:`compute_once` (or
    :func:`fit_once`) with the same key then takes it. The jobs replace those of an
    earlier prefetch that have not started (:class:`_Prefetcher`). Returns False, and
    changes nothing, when every result is taken already. An error is dropped here: the
    view computes again and shows it."""
    if all(_taken(key) for key, _ in jobs):
        return False
    _PREFETCHER.submit(list(jobs))
    return True


def tallied(key: tuple, size: int,
            compute: Callable[[Tally], Any]) -> tuple[tuple, Callable[[], Any]]:
    """A :func:`prefetch` job for ``key`` whose ``compute(tally)`` writes its steps (and
    ``size`` numbers) to a :class:`~ui.tally.Tally` as it goes, which :func:`fit_once`
    of that key follows meanwhile; the tally is removed when the job ends."""
    def run() -> Any:
        slot, tally = _slot(key), Tally(size)
        slot.tally = tally
        try:
            return compute(tally)
        finally:
            slot.tally = None
            tally.remove()
    return key, run


def prefetch_idle(timeout: float | None = None) -> bool:
    """Wait until no prefetch is running: True, or False after ``timeout`` seconds."""
    return _PREFETCHER.wait_idle(timeout)
