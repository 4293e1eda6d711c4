"""The class histograms inside split nodes, checked against a brute-force count of the
rows on each node's path."""
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from engine.tree._tree import NUMERIC
from viz.style import Style
from viz.tree_dot import tree_to_dot
from viz.tree_hist import HIST_BINS, node_histograms


@pytest.fixture(scope="module")
def mixed():
    """Numbers with gaps, a categorical column and three classes."""
    rng = np.random.default_rng(4)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(list("pqrst"), n),
                      "c": rng.uniform(0, 10, n)})
    y = np.where(X["a"] > 0.3, "hi", np.where(X["b"].isin(["p", "q"]), "mid", "lo"))
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    return X, pd.Series(y)


def _reaching(model, X, node):
    return model.decision_path(X).astype(bool)[:, node]


@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_each_bar_counts_the_rows_reaching_the_node_by_class(mixed, split):
    X, y = mixed
    model = DecisionTreeClassifier(max_depth=4, categorical_split=split).fit(X, y)
    tree = model.tree_
    hists = node_histograms(model, X, y, np.arange(tree.node_count))
    splits = np.flatnonzero(tree.children_left >= 0)
    present_tests = np.isinf(tree.threshold) & (tree.split_kind == NUMERIC)
    assert set(hists) == set(splits.tolist()) - set(np.flatnonzero(present_tests).tolist())
    encoded = model.encoder_.transform(X)
    for node, h in hists.items():
        rows = _reaching(model, X, node)
        values = encoded[rows, tree.feature[node]]
        labels = y.to_numpy()[rows]
        present = ~np.isnan(values)
        assert h.missing == (~present).sum()
        for k, c in enumerate(model.classes_):  # every row of each class is in one bar
            assert h.counts[:, k].sum() == ((labels == c) & present).sum()
        yes = (h.counts * h.yes[:, None]).sum()
        if tree.split_kind[node] == NUMERIC:
            # the bars left of the line are exactly the values ≤ threshold
            assert yes == (values[present] <= tree.threshold[node]).sum()
            assert h.yes.sum() == h.cut and len(h.counts) <= HIST_BINS + 1
        else:
            codes = np.unique(values[present]).astype(int)
            per_code = [(values == c).sum() for c in codes]
            np.testing.assert_array_equal(h.counts.sum(axis=1), per_code)
            if split == "binary":
                left = tree.children_by_code(node)[codes] == tree.children_left[node]
                np.testing.assert_array_equal(h.yes, left)


def test_numeric_bars_are_equal_width_bins_with_the_threshold_on_an_edge():
    X = pd.DataFrame({"x": np.arange(100.0)})
    y = np.where(X["x"] < 37, "a", "b")
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    h = node_histograms(model, X, y, [0])[0]
    width, t = 99 / HIST_BINS, model.tree_.threshold[0]
    bins = np.ceil((X["x"].to_numpy() - t) / width).astype(int)
    expected = np.bincount(bins - bins.min())
    np.testing.assert_array_equal(h.counts.sum(axis=1), expected)
    assert h.counts[:h.cut, 1].sum() == 0 and h.counts[h.cut:, 0].sum() == 0
    assert h.ends == ("0", "99")


def test_a_regression_tree_counts_rows_in_one_colour():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(size=300)})
    y = np.sin(6 * X["x"]) + rng.normal(0, 0.1, 300)
    model = DecisionTreeRegressor(max_depth=2).fit(X, y)
    hists = node_histograms(model, X, y, np.arange(model.tree_.node_count))
    for node, h in hists.items():
        assert h.counts.shape[1] == 1
        assert h.counts.sum() == model.tree_.n_node_samples[node]


def test_hostile_category_names_stay_out_of_the_histogram(mixed):
    X, y = mixed
    X = X.assign(b=X["b"].map(lambda v: f'<b>{v}"];x['))
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    dot = tree_to_dot(model, histograms=node_histograms(model, X, y, [0, 1, 2]))
    assert '"];x[' not in dot.replace('&quot;];x[', "")


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz")
@pytest.mark.parametrize("style", [Style(), Style.presentation()])
def test_graphviz_draws_the_histograms_without_a_warning(mixed, style):
    X, y = mixed
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    hists = node_histograms(model, X, y, np.arange(model.tree_.node_count))
    dot = tree_to_dot(model, style=style, histograms=hists)
    done = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr
    # one bar per bin and class drawn: the cells carry the class colours
    assert dot.count(f'BGCOLOR="{style.color(0)}"') > len(hists)
