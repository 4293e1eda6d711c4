"""Naive Bayes against scikit-learn: the same fits and predictions, one core, in one run.

Measures ``GaussianNB`` fit + predict (issue 9 target: ratio ≤ 2.0) on a 20,000 × 20
synthetic problem and on spambase (4,601 × 57), or on ``--shapes``, and, for reference,
the other variants on spambase. Run from the repository root::

    .venv/bin/python bench/bench_naive_bayes.py [--repeats 9] [--markdown] [--shapes all]
"""
from __future__ import annotations

import argparse

from _common import pin_threads, use_repo_imports

pin_threads(1)  # before numpy is imported: BLAS pools are sized once
use_repo_imports()

import numpy as np  # noqa: E402
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
from sklearn import naive_bayes as sk  # noqa: E402

from engine import naive_bayes as ours  # noqa: E402

GAUSSIAN_TARGET = 2.0


def fit_predict(model, X, y):
    """The work timed: fit, then predict the training rows."""
    return lambda: model.fit(X, y).predict(X)


def rows(repeats: int, shapes: list[str]) -> list[Row]:
    out = []
    for name in shapes:
        X, y = shape(name)
        a, b = measure_pair(fit_predict(ours.GaussianNB(), X, y),
                            fit_predict(sk.GaussianNB(), X, y), repeats=repeats)
        out.append(Row(f"GaussianNB fit + predict, {SHAPES[name]}", a.median, b.median,
                       GAUSSIAN_TARGET))
    X, y = shape("spambase")
    others = [
        ("MultinomialNB", ours.MultinomialNB(), sk.MultinomialNB()),
        ("BernoulliNB", ours.BernoulliNB(), sk.BernoulliNB()),
    ]
    for label, mine, theirs in others:
        a, b = measure_pair(fit_predict(mine, X, y), fit_predict(theirs, X, y), repeats=repeats)
        out.append(Row(f"{label} fit + predict, spambase 4,601 × 57", a.median, b.median))
    X_int = np.minimum(X * 4, 9).astype(np.int64)  # spambase cut into 10 integer levels
    a, b = measure_pair(fit_predict(ours.CategoricalNB(), X_int, y),
                        fit_predict(sk.CategoricalNB(), X_int, y), repeats=repeats)
    out.append(Row("CategoricalNB fit + predict, spambase as 10 levels", a.median, b.median))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--markdown", action="store_true")
    add_shapes_argument(parser)
    args = parser.parse_args()
    print(environment())
    print(format_table(rows(args.repeats, chosen_shapes(args)), markdown=args.markdown))


if __name__ == "__main__":
    main()
