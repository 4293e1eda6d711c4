"""Random forests: Glassbox against scikit-learn, same data, same run.

Run from the repository root::

    .venv/bin/python bench/bench_forest.py              # 100 trees, median of 3
    .venv/bin/python bench/bench_forest.py --trees 30   # a quicker look
    .venv/bin/python bench/bench_forest.py --markdown   # tables for bench/README.md
    .venv/bin/python bench/bench_forest.py --shapes all # every shape of _common.SHAPES

Measures ``RandomForestClassifier(n_estimators=100)`` fit and ``predict_proba`` (on the
training rows) on ``make_classification(20_000, 20)`` and spambase (or ``--shapes``) with ``n_jobs=1``
and one BLAS/OpenMP thread each; then the fit with ``n_jobs=2`` (both libraries), our
n_jobs=2 fit in loky worker processes (the engine's choice) against joblib threads,
and the peak memory of a fit, each library in a fresh process (``ru_maxrss`` after the
fit minus before it, the heap trimmed first, /proc/self/status). Targets are issue 9's (fit ≤ 0.8, predict_proba ≤ 1.0).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import subprocess
import sys

from _common import pin_threads, use_repo_imports

pin_threads(1)
use_repo_imports()

import time  # noqa: E402

from _common import (  # noqa: E402
    SHAPES,
    Row,
    add_shapes_argument,
    chosen_shapes,
    environment,
    format_table,
    measure_pair,
    shape,
)
from sklearn.ensemble import RandomForestClassifier as SkForest  # noqa: E402

from engine.ensemble import RandomForestClassifier  # noqa: E402
from engine.ensemble import _base as forest_base  # noqa: E402

FIT_TARGET, PREDICT_TARGET = 0.8, 1.0


def models(trees: int, n_jobs: int = 1):
    return (RandomForestClassifier(n_estimators=trees, random_state=0, n_jobs=n_jobs),
            SkForest(n_estimators=trees, random_state=0, n_jobs=n_jobs))


def speed_rows(name: str, trees: int, repeats: int) -> list[Row]:
    X, y = shape(name)
    ours, theirs = models(trees)
    fit = measure_pair(lambda: ours.fit(X, y), lambda: theirs.fit(X, y), repeats, warmup=0)
    proba = measure_pair(lambda: ours.predict_proba(X), lambda: theirs.predict_proba(X), repeats)
    label = f"{trees} trees, {SHAPES[name]}"
    return [Row(f"forest fit, {label}", fit[0].median, fit[1].median, FIT_TARGET),
            Row(f"forest predict_proba, {label}", proba[0].median, proba[1].median, PREDICT_TARGET)]


def parallel_rows(name: str, trees: int) -> list[Row]:
    X, y = shape(name)
    ours, theirs = models(trees, n_jobs=2)
    # One fit first for both: ours starts its two worker processes then (about 0.5 s,
    # once per process, as the app does when it starts), scikit-learn its threads.
    fit = measure_pair(lambda: ours.fit(X, y), lambda: theirs.fit(X, y), repeats=3, warmup=1)
    rows = [Row(f"forest fit n_jobs=2 (workers started), {trees} trees, {SHAPES[name]}",
                fit[0].median, fit[1].median)]
    default, forest_base.PARALLEL_PREFER = forest_base.PARALLEL_PREFER, "threads"
    try:
        start = time.perf_counter()
        ours.fit(X, y)
        threads = time.perf_counter() - start
    finally:
        forest_base.PARALLEL_PREFER = default
    rows.append(Row(f"ours n_jobs=2: {default} vs threads (ratio {default}/threads), "
                    f"{SHAPES[name]}", fit[0].median, threads))
    return rows


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith(field + ":"))
    return int(line.split()[1])


def peak_memory_child(library: str, name: str, trees: int) -> None:
    """Fit one forest and print its peak RSS above the RSS before the fit (MiB).

    Linux with glibc: ``malloc_trim(0)`` first gives back the free memory that loading the
    data left in the heap (kept there by ``pin_threads``' allocator settings), which a
    fit would otherwise reuse without its RSS rising: the figure is then the memory the
    fit itself takes, for either library. Writing 5 to /proc/self/clear_refs resets the
    high-water mark VmHWM, so the imports' own peak does not hide the fit's.
    """
    X, y = shape(name)
    ours, theirs = models(trees)
    ctypes.CDLL(None).malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    before = _status_kib("VmRSS")
    (ours if library == "ours" else theirs).fit(X, y)
    print(json.dumps({"mib": (_status_kib("VmHWM") - before) / 1024}))


def memory_row(name: str, trees: int) -> Row:
    peaks = []
    for library in ("ours", "sklearn"):
        out = subprocess.run(
            [sys.executable, __file__, "--memory-child", library, "--dataset", name,
             "--trees", str(trees)], capture_output=True, text=True, check=True,
        )
        peaks.append(json.loads(out.stdout.strip().splitlines()[-1])["mib"])
    return Row(f"peak memory of the fit (MiB, not s), {trees} trees, {SHAPES[name]}", *peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    add_shapes_argument(parser)
    parser.add_argument("--memory-child", choices=["ours", "sklearn"])
    parser.add_argument("--dataset", default="spambase")
    args = parser.parse_args()
    if args.memory_child:
        peak_memory_child(args.memory_child, args.dataset, args.trees)
        return
    print(environment())
    rows = []
    for name in chosen_shapes(args):
        rows += speed_rows(name, args.trees, args.repeats)
        print(format_table(rows, markdown=args.markdown), flush=True)
    extra = []
    for name in chosen_shapes(args):
        extra += parallel_rows(name, args.trees)
        extra.append(memory_row(name, args.trees))
        print(format_table(extra, markdown=args.markdown), flush=True)


if __name__ == "__main__":
    main()
