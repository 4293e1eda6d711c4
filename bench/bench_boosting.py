"""Boosting: Glassbox against scikit-learn, same data, same run, one core each.

Run from the repository root::

    .venv/bin/python bench/bench_boosting.py            # median of 3 fits each
    .venv/bin/python bench/bench_boosting.py --markdown # table for bench/README.md
    .venv/bin/python bench/bench_boosting.py --shapes all --repeats 1

Targets (issue 5 / 9): fit time ratio ours / scikit-learn ≤ 0.25 for AdaBoost with 200
stumps and for gradient boosting with 100 depth-3 trees.
"""
from __future__ import annotations

import argparse
import warnings

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
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier as SkGradientBoosting  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkTree  # noqa: E402

from engine.ensemble._gradient_boosting import GradientBoostingClassifier  # noqa: E402
from engine.ensemble._weight_boosting import AdaBoostClassifier  # noqa: E402

TARGET = 0.25


def adaboost_row(name, X, y, repeats) -> Row:
    ours = AdaBoostClassifier(n_estimators=200)
    theirs = SkAdaBoost(SkTree(max_depth=1), n_estimators=200, random_state=0)
    a, b = measure_pair(lambda: ours.fit(X, y), lambda: theirs.fit(X, y), repeats, warmup=0)
    return Row(f"AdaBoost 200 stumps fit, {name}", a.median, b.median, TARGET)


def gradient_boosting_row(name, X, y, repeats) -> Row:
    ours = GradientBoostingClassifier(n_estimators=100, max_depth=3)
    theirs = SkGradientBoosting(n_estimators=100, max_depth=3, random_state=0)
    a, b = measure_pair(lambda: ours.fit(X, y), lambda: theirs.fit(X, y), repeats, warmup=0)
    return Row(f"GradientBoosting 100 × depth 3 fit, {name}", a.median, b.median, TARGET)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    add_shapes_argument(parser)
    args = parser.parse_args()
    warnings.simplefilter("ignore", FutureWarning)
    data = {SHAPES[name]: shape(name) for name in chosen_shapes(args)}
    rows = [adaboost_row(name, X, y, args.repeats) for name, (X, y) in data.items()]
    rows += [gradient_boosting_row(name, X, y, args.repeats) for name, (X, y) in data.items()]
    print(environment())
    print(format_table(rows, markdown=args.markdown))


if __name__ == "__main__":
    main()
