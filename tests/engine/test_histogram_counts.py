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


def test_a_forest_counts_balanced_few_valued_features_by_histogram(monkeypatch):
    """Few-valued features with most rows off their common value go to the histograms,
    not the bits search (which keeps the mostly-zero ones), and the forest is the same
    as when the bits search reads them too."""
    import engine.tree._search_exact as exact
    from engine.ensemble import RandomForestClassifier
    from engine.tree import _search_sparse

    rng = np.random.default_rng(3)
    X, y = _few_valued(3_000, 4, 2, False, seed=3)
    X //= 4  # 8 values each: about 7/8 of the rows off the common one
    sparse = np.where(rng.random(len(y)) < 0.9, 0.0, rng.integers(1, 9, len(y)))
    X = np.column_stack([X, sparse, rng.normal(size=len(y))])  # mostly 0; continuous
    read = []  # per level: the columns the bits search read, the histogram's columns
    bits_runs, histogram = _search_sparse.SparseBits.level_runs, _search_histogram.search
    monkeypatch.setattr(_search_sparse.SparseBits, "level_runs",
                        lambda self, crit, level, allowed: read.append(("bits", allowed.shape[1]))
                        or bits_runs(self, crit, level, allowed))
    monkeypatch.setattr(exact._search_histogram, "search",
                        lambda inp, features, allowed=None: read.append(("histogram", len(features)))
                        or histogram(inp, features, allowed))
    grown = {}
    for share in (exact.BITS_FEW_VALUED_SHARE, 1.0):  # as it is; every feature by bits
        monkeypatch.setattr(exact, "BITS_FEW_VALUED_SHARE", share)
        read.clear()
        forest = RandomForestClassifier(n_estimators=8, max_features=2, random_state=0).fit(X, y)
        grown[share] = [tree.tree_ for tree in forest.estimators_]
        searched = {kind for kind, _ in read}
        if share == 1.0:  # the few-valued columns read off the bits, none by histogram
            assert searched == {"bits"} and max(n for _, n in read) == 5
        else:  # the bits read the mostly-zero column alone; the histograms the others
            assert {n for kind, n in read if kind == "bits"} == {1}
            assert "histogram" in searched
    ours, old = grown.values()
    for a, b in zip(ours, old, strict=True):
        for field in dataclasses.fields(a):
            np.testing.assert_array_equal(getattr(a, field.name), getattr(b, field.name),
                                          err_msg=field.name)


def test_a_forest_level_counted_in_parts_of_whole_trees_is_the_same(monkeypatch):
    """The drawn pairs' histograms summed a few trees at a time (each node's slots in one
    part) give the trees grown from the whole level's at once, to the bit, with
    fractional weights too."""
    from engine.ensemble import RandomForestClassifier

    X, y = _few_valued(2_000, 5, 3, True, seed=4)
    X //= 6  # 5 values and missing ones
    weight = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    levels, parts = [], []
    histogram, keys = _search_histogram._slot_histogram, _search_histogram._drawn_keys
    monkeypatch.setattr(_search_histogram, "_slot_histogram",
                        lambda *a: levels.append(1) or histogram(*a))
    monkeypatch.setattr(_search_histogram, "_drawn_keys", lambda *a: parts.append(1) or keys(*a))
    grown = []
    for limit in (10**9, 500):  # the whole level at once; a few hundred entries a part
        monkeypatch.setattr(_search_histogram, "DRAWN_CHUNK_ENTRIES", limit)
        levels.clear()
        parts.clear()
        forest = RandomForestClassifier(n_estimators=6, max_features=2, random_state=1)
        grown.append([t.tree_ for t in forest.fit(X, y, sample_weight=weight).estimators_])
        assert len(levels) > 5
        assert len(parts) == len(levels) if limit > 10**6 else len(parts) > 2 * len(levels)
    for a, b in zip(*grown, strict=True):
        for field in dataclasses.fields(a):
            np.testing.assert_array_equal(getattr(a, field.name), getattr(b, field.name),
                                          err_msg=field.name)


@pytest.mark.parametrize("bootstrap", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_forest_bins_drawn_pairs_by_its_data_rows_classes(bootstrap, weighted, monkeypatch):
    """A forest's drawn histogram keys carry each row's class from a (code, class) table
    of the data rows, made once per forest: the trees are those counted from the stacked
    rows' own classes, to the bit, with unit, bootstrap and fractional weights."""
    from engine.ensemble import RandomForestClassifier

    X, y = _few_valued(2_000, 5, 3, True, seed=6)
    X //= 6
    weight = np.random.default_rng(6).uniform(0.5, 2.0, len(y)) if weighted else None
    tables, real = [], _search_histogram._data_coded_classes
    grown = []
    for by_table in (True, False):
        def table(crit, source, by_table=by_table):
            found = real(crit, source) if by_table else None
            tables.append(found is not None)
            return found
        monkeypatch.setattr(_search_histogram, "_data_coded_classes", table)
        forest = RandomForestClassifier(n_estimators=6, max_features=2, bootstrap=bootstrap,
                                        random_state=2)
        grown.append([t.tree_ for t in forest.fit(X, y, sample_weight=weight).estimators_])
    assert sum(tables) > 5 and not all(tables)  # the table was used, then not
    for a, b in zip(*grown, strict=True):
        for field in dataclasses.fields(a):
            np.testing.assert_array_equal(getattr(a, field.name), getattr(b, field.name),
                                          err_msg=field.name)
