"""Boosting: Glassbox against scikit-learn, same data, same run, one core each.

Run from the repository root::

    .venv/bin/python bench/bench_boosting.py            # median of 3 fits each
    .venv/bin/python bench/bench_boosting.py --markdown # table for bench/README.md

Targets (issue 5 / 9): fit time ratio ours / scikit-learn ≤ 0.25 for AdaBoost with 200
stumps and for gradient boosting with 100 depth-3 trees.
"""
from __future__ import annotations

import argparse
import warnings

from _common import pin_threads, use_repo_imports

pin_threads(1)
use_repo_imports()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import Row, data_file, environment, format_table, measure_pair  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier as SkGradientBoosting  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkTree  # noqa: E402

from engine.ensemble._gradient_boosting import GradientBoostingClassifier  # noqa: E402
from engine.ensemble._weight_boosting import AdaBoostClassifier  # noqa: E402

TARGET = 0.25


def synthetic(n_samples: int = 20_000, n_features: int = 20):
    return make_classification(n_samples=n_samples, n_features=n_features, random_state=0)


def spambase():
    frame = pd.read_csv(data_file("spambase.csv"))
    return frame.drop(columns=["spam"]).to_numpy(dtype=np.float64), frame["spam"].to_numpy()


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
    args = parser.parse_args()
    warnings.simplefilter("ignore", FutureWarning)
    data = {"20,000 × 20 synthetic": synthetic(), "spambase 4,601 × 57": spambase()}
    rows = [adaboost_row(name, X, y, args.repeats) for name, (X, y) in data.items()]
    rows += [gradient_boosting_row(name, X, y, args.repeats) for name, (X, y) in data.items()]
    print(environment())
    print(format_table(rows, markdown=args.markdown))


if __name__ == "__main__":
    main()
