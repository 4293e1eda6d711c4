"""Decision trees: Glassbox against scikit-learn, same data, same run, one core each.

Run from the repository root::

    .venv/bin/python bench/bench_tree.py            # the tables, median of 5 repeats
    .venv/bin/python bench/bench_tree.py --full     # also fit 1,000,000 rows
    .venv/bin/python bench/bench_tree.py --markdown # tables ready for bench/README.md
    .venv/bin/python bench/bench_tree.py --shapes all  # every shape of _common.SHAPES

Targets are the ratios ours / scikit-learn of issue 9 (≤ 0.8 for a full-depth fit).
"""
from __future__ import annotations

import argparse
import math

from _common import pin_threads, use_repo_imports

pin_threads(1)
use_repo_imports()

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
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkTree  # noqa: E402

from engine.tree import DecisionTreeClassifier  # noqa: E402

FIT_TARGET = 0.8


def synthetic(n_samples: int, n_features: int = 20):
    return make_classification(n_samples=n_samples, n_features=n_features, random_state=0)


def fit_and_predict_rows(name: str, X, y, repeats: int, **params) -> list[Row]:
    """Fit time and predict_proba time (on the training rows) for both libraries."""
    ours, theirs = DecisionTreeClassifier(**params), SkTree(random_state=0, **params)
    fit_ours, fit_theirs = measure_pair(lambda: ours.fit(X, y), lambda: theirs.fit(X, y), repeats)
    proba_ours, proba_theirs = measure_pair(
        lambda: ours.predict_proba(X), lambda: theirs.predict_proba(X), repeats
    )
    depth = "full depth" if params.get("max_depth") is None else f"depth {params['max_depth']}"
    leaves = f"{ours.get_n_leaves()} / {theirs.get_n_leaves()} leaves"
    return [
        Row(f"tree fit, {depth}, {name} ({leaves})", fit_ours.median, fit_theirs.median,
            FIT_TARGET if params.get("max_depth") is None else None),
        Row(f"tree predict_proba, {depth}, {name}", proba_ours.median, proba_theirs.median),
    ]


def fitter(factory, X, y):
    """A no-argument function fitting a fresh model from ``factory`` on (X, y)."""
    return lambda: factory().fit(X, y)


def scaling_rows(sizes: list[int], repeats: int) -> list[Row]:
    """Full-depth fit time as the number of rows grows tenfold at each step."""
    rows = []
    for n in sizes:
        X, y = synthetic(n)
        reps = repeats if n <= 10_000 else (min(repeats, 3) if n <= 100_000 else 1)
        ours, theirs = measure_pair(fitter(DecisionTreeClassifier, X, y),
                                    fitter(lambda: SkTree(random_state=0), X, y), reps, warmup=0)
        rows.append(Row(f"tree fit, full depth, {n:,} × 20", ours.median, theirs.median,
                        FIT_TARGET))
    return rows


def growth_line(rows: list[Row], sizes: list[int]) -> str:
    """Exponent b in time ∝ n^b between consecutive sizes (1 = linear)."""
    lines = []
    for i in range(1, len(rows)):
        k = math.log(sizes[i] / sizes[i - 1])
        ours, theirs = rows[i].ours / rows[i - 1].ours, rows[i].theirs / rows[i - 1].theirs
        lines.append(f"{sizes[i - 1]:,} → {sizes[i]:,} rows: ours ×{ours:.1f} (n^{math.log(ours) / k:.2f}), "
                     f"scikit-learn ×{theirs:.1f} (n^{math.log(theirs) / k:.2f})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--full", action="store_true", help="include the 1,000,000-row fit")
    parser.add_argument("--markdown", action="store_true")
    add_shapes_argument(parser)
    args = parser.parse_args()

    print(environment())
    rows = []
    for name in chosen_shapes(args):
        rows += fit_and_predict_rows(SHAPES[name], *shape(name), args.repeats)
    rows += fit_and_predict_rows("100,000 × 20 synthetic", *synthetic(100_000),
                                 min(args.repeats, 3), max_depth=5)
    print(format_table(rows, args.markdown), end="\n\n")

    sizes = [10_000, 100_000] + ([1_000_000] if args.full else [])
    scaling = scaling_rows(sizes, args.repeats)
    print(format_table(scaling, args.markdown), end="\n\n")
    print(growth_line(scaling, sizes))


if __name__ == "__main__":
    main()
