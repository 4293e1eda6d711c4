"""The exact search's histogram counts: a node's class counts taken as its parent's
minus its sibling's give the tree grown from every node's own rows, bit for bit."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engine.tree import DecisionTreeClassifier, _search_histogram


def _few_valued(n: int, p: int, n_classes: int, missing: bool, seed: int):
    """Columns of few values (counted by histogram), a class that depends on them."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 30, size=(n, p)).astype(float)
    score = X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 2] + rng.normal(0, 6, n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    if missing:
        X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def _grown(X, y, derive: bool, monkeypatch, **params):
    """The tree and how many levels derived some node's counts."""
    derived = []
    real = _search_histogram._derived

    def counted(*args):
        found = real(*args) if derive else None
        derived.append(found is not None)
        return found
    with monkeypatch.context() as patch:
        patch.setattr(_search_histogram, "_derived", counted)
        tree = DecisionTreeClassifier(random_state=0, **params).fit(X, y)
    return tree.tree_, sum(derived)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("params", [{}, {"min_samples_leaf": 5}, {"max_depth": 4},
                                    {"binning": "quantile", "max_bins": 16}])
def test_derived_counts_grow_the_same_tree(n_classes, missing, params, monkeypatch):
    X, y = _few_valued(4_000, 6, n_classes, missing, seed=n_classes)
    derived_tree, n_derived = _grown(X, y, True, monkeypatch, **params)
    counted_tree, none = _grown(X, y, False, monkeypatch, **params)
    assert n_derived >= 2 and none == 0  # the subtraction ran, at more than one level
    for field in dataclasses.fields(counted_tree):
        np.testing.assert_array_equal(getattr(derived_tree, field.name),
                                      getattr(counted_tree, field.name), err_msg=field.name)


def test_weighted_rows_are_counted_not_derived(monkeypatch):
    """Weights other than 1 are summed as floats: nothing is derived from them."""
    X, y = _few_valued(2_000, 4, 2, False, seed=5)
    weight = np.random.default_rng(0).integers(1, 4, len(y)).astype(float)
    calls = []
    monkeypatch.setattr(_search_histogram, "_derived",
                        lambda *args: calls.append(args) or None)
    DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=weight)
    assert calls == []
