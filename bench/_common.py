"""Timing helpers shared by the benchmarks: one core, median of repeats, one table.

Only the standard library here, so a benchmark can call :func:`pin_threads` before it
imports numpy (thread-pool sizes are read once, at import).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

THREAD_VARIABLES = (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
)


def pin_threads(n: int = 1) -> None:
    """Limit BLAS/OpenMP pools to ``n`` threads; call before importing numpy or sklearn.

    Also sets the allocator as the app does (``engine._memory.keep_freed_memory``), for
    both libraries alike: numpy temporaries are then not faulted in afresh every time.
    """
    if "numpy" in sys.modules:
        raise RuntimeError("pin_threads() must run before numpy is imported.")
    for name in THREAD_VARIABLES:
        os.environ[name] = str(n)
    use_repo_imports()
    from engine._memory import keep_freed_memory

    keep_freed_memory()


def use_repo_imports() -> None:
    """Make ``import engine`` work when a script is run as ``python bench/<name>.py``."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def data_file(name: str) -> Path:
    """A dataset from ``sample_data/`` or, failing that, ``shared/data/`` beside the repo."""
    for folder in (REPO / "sample_data", REPO.parent / "shared" / "data"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"{name} not found in sample_data/ or ../shared/data/")


@dataclass
class Timing:
    """Wall-clock seconds of each repeat; ``median`` is what tables report."""

    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def measure(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> Timing:
    """Run ``fn`` ``warmup`` times untimed, then ``repeats`` times timed."""
    for _ in range(warmup):
        fn()
    timing = Timing()
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        timing.seconds.append(time.perf_counter() - start)
    return timing


def measure_pair(ours: Callable[[], object], theirs: Callable[[], object],
                 repeats: int = 5, warmup: int = 1) -> tuple[Timing, Timing]:
    """Time two functions in alternation, so that load from other processes on a shared
    machine falls on both alike; returns (ours, theirs)."""
    for _ in range(warmup):
        ours()
        theirs()
    a, b = Timing(), Timing()
    for _ in range(repeats):
        for fn, timing in ((ours, a), (theirs, b)):
            start = time.perf_counter()
            fn()
            timing.seconds.append(time.perf_counter() - start)
    return a, b


@dataclass
class Row:
    """One line of a comparison: the same work done by Glassbox and by scikit-learn."""

    work: str
    ours: float
    theirs: float
    target: float | None = None  # the ratio ours/scikit-learn to stay under

    @property
    def ratio(self) -> float:
        return self.ours / self.theirs

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "ok" if self.ratio <= self.target else "MISSED"


HEADER = ("work", "ours (s)", "scikit-learn (s)", "ratio ours/sklearn", "target", "status")


def _cells(row: Row) -> tuple[str, ...]:
    target = "—" if row.target is None else f"≤ {row.target:g}"
    return (row.work, f"{row.ours:.4f}", f"{row.theirs:.4f}", f"{row.ratio:.2f}", target, row.verdict)


def format_table(rows: list[Row], markdown: bool = False) -> str:
    """The rows as aligned text, or as a Markdown table for bench/README.md."""
    lines = [HEADER] + [_cells(r) for r in rows]
    if markdown:
        out = ["| " + " | ".join(line) + " |" for line in lines]
        out.insert(1, "|" + "---|" * len(HEADER))
        return "\n".join(out)
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    text = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
            for line in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(text)


def environment() -> str:
    """One line naming the versions and thread settings a figure was measured with."""
    import numpy
    import pandas

    try:
        import sklearn
        sk = sklearn.__version__
    except ImportError:
        sk = "absent"
    return (f"python {sys.version.split()[0]}, numpy {numpy.__version__}, "
            f"pandas {pandas.__version__}, scikit-learn {sk}, "
            f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
            f"cpus {os.cpu_count()}, load average {_load()}")


def _load() -> str:
    """1-minute load average at the start: above the core count, figures are noisy."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):  # not available on Windows
        return "n/a"


#: The data every model benchmark can run on (``--shapes``): the two shapes the speed
#: targets were first measured on, then four nobody tuned for — more informative
#: features, three classes, a table mostly of coded categories, and 100,000 × 50.
SHAPES = {
    "synthetic": "20,000 × 20 synthetic",
    "spambase": "spambase 4,601 × 57",
    "informative": "20,000 × 20, 10 informative",
    "three-class": "20,000 × 20, three classes",
    "categorical": "20,000 × 20, 15 coded categories",
    "wide": "100,000 × 50 synthetic",
}
#: What a benchmark runs when ``--shapes`` is not given.
DEFAULT_SHAPES = ["synthetic", "spambase"]


def shape(name: str):
    """(X, y) of one of :data:`SHAPES`, float64 features, the same on every run."""
    import numpy as np
    import pandas as pd
    from sklearn.datasets import make_classification

    if name == "spambase":
        frame = pd.read_csv(data_file("spambase.csv"))
        return frame.drop(columns=["spam"]).to_numpy(dtype=np.float64), frame["spam"].to_numpy()
    if name == "wide":
        return make_classification(n_samples=100_000, n_features=50, n_informative=10,
                                   random_state=0)
    if name == "three-class":
        return make_classification(n_samples=20_000, n_features=20, n_informative=8,
                                   n_classes=3, random_state=0)
    informative = {"synthetic": 2, "informative": 10, "categorical": 8}[name]
    X, y = make_classification(n_samples=20_000, n_features=20, n_informative=informative,
                               random_state=0)
    if name == "categorical":  # 15 columns cut at quantiles into 3 to 12 levels each
        for j in range(15):
            levels = 3 + j % 10
            edges = np.quantile(X[:, j], np.linspace(0, 1, levels + 1)[1:-1])
            X[:, j] = np.searchsorted(edges, X[:, j])
    return X, y


def add_shapes_argument(parser) -> None:
    """``--shapes NAME ...`` (or ``all``) on a benchmark's command line."""
    parser.add_argument("--shapes", "--datasets", nargs="+", default=DEFAULT_SHAPES,
                        choices=[*SHAPES, "all"], help="data to run on (default: %(default)s)")


def chosen_shapes(args) -> list[str]:
    return list(SHAPES) if "all" in args.shapes else args.shapes
