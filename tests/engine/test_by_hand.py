"""A tree built from chosen splits: given the splits of a grown tree it is that tree, node
for node and prediction for prediction, on random tables with every criterion, binary
and multiway categorical splits, missing values and weights."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from engine.data import Dataset, load_sample  # noqa: E402
from engine.tree import DecisionTreeClassifier, HandSplit, path_of, splits_of  # noqa: E402
from engine.tree._tree import Tree  # noqa: E402

from .test_reference_grower import PARAMS, WEIGHTS, _weights  # noqa: E402
from .test_tree_properties import frames  # noqa: E402

pytestmark = pytest.mark.usefixtures("raise_on_float_errors")


def _same_tree(a: Tree, b: Tree) -> None:
    for f in dataclasses.fields(Tree):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if np.issubdtype(np.asarray(x).dtype, np.floating):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12, err_msg=f.name)
        else:
            np.testing.assert_array_equal(x, y, err_msg=f.name)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=frames(), params=PARAMS, weights=WEIGHTS)
def test_the_splits_of_a_grown_tree_build_that_tree(data, params, weights):
    X, y = data
    sample_weight = _weights(weights, len(y), len(y))
    settings_ = {k: v for k, v in params.items() if k in ("criterion", "categorical_split")}
    grown = DecisionTreeClassifier(**params).fit(X, y, sample_weight=sample_weight)
    hand = DecisionTreeClassifier(**settings_).fit_splits(X, y, splits_of(grown.tree_),
                                                          sample_weight=sample_weight)
    _same_tree(hand.tree_, grown.tree_)
    np.testing.assert_array_equal(hand.predict_proba(X), grown.predict_proba(X))
    np.testing.assert_allclose(hand.feature_importances_, grown.feature_importances_)


def test_playtennis_by_hand_is_mitchells_tree():
    data = Dataset(load_sample("playtennis"), "PlayTennis")
    grown = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway").fit(
        data.X, data.y)
    splits = splits_of(grown.tree_)
    outlook = list(data.X.columns).index("Outlook")
    assert splits[()].feature == outlook and splits[()].multiway  # Mitchell's root
    hand = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway")
    hand.fit_splits(data.X, data.y, splits)
    assert (hand.predict(data.X) == data.y.to_numpy()).all()
    assert hand.tree_.node_count == grown.tree_.node_count == 8


def test_a_stump_by_hand_and_its_paths():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, np.nan], "c": list("aabba")})
    y = np.array(["n", "n", "y", "y", "y"])
    model = DecisionTreeClassifier().fit_splits(X, y, {(): HandSplit(0, 2.5),
                                                       (1,): HandSplit(1, left=(0,))})
    tree = model.tree_
    assert tree.node_count == 5 and tree.n_leaves == 3
    assert [path_of(tree, i) for i in range(5)] == [(), (0,), (1,), (1, 0), (1, 1)]
    # the missing row goes where the split scores best: right, with the other "y" rows
    assert tree.missing_child[0] == 2
    assert model.predict(X).tolist() == ["n", "n", "y", "y", "y"]


def test_a_split_below_a_leaf_or_an_empty_child_is_refused():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="no node at path"):
        DecisionTreeClassifier().fit_splits(X, y, {(0,): HandSplit(0, 1.5)})
    with pytest.raises(ValueError, match="every row"):
        DecisionTreeClassifier().fit_splits(X, y, {(): HandSplit(0, 9.0)})


@pytest.mark.parametrize("seed", range(3))
def test_a_binned_tree_by_hand_asks_the_binned_trees_questions(seed):
    """With ``binning="quantile"`` a hand-grown tree keeps the bins a fit makes, so a
    node's questions are those of the tree the binned search grows (a few per column,
    not one between every two values), and a question chosen there splits the rows as
    its counts said; the splits of the grown binned tree build that tree."""
    from engine.inspection import split_candidates

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(3_000, 4)).round(3), columns=list("abcd"))
    X.loc[rng.random(len(X)) < 0.05, "b"] = np.nan
    y = np.where(X["a"].fillna(0) + 0.5 * rng.normal(size=len(X)) > 0, "yes", "no")
    settings_ = {"binning": "quantile", "max_bins": 16}
    grown = DecisionTreeClassifier(max_depth=3, **settings_).fit(X, y)
    root = DecisionTreeClassifier(**settings_).fit_splits(X, y, {})
    assert root.bins_ is not None and grown.bins_ is not None
    np.testing.assert_array_equal(root.bins_.high[0], grown.bins_.high[0])
    asked = split_candidates(root, 0, X, y)
    searched = split_candidates(grown, 0, X, y)
    assert len(asked) <= 4 * 16
    pd.testing.assert_frame_equal(asked.drop(columns="chosen"), searched.drop(columns="chosen"))
    exact = split_candidates(DecisionTreeClassifier().fit_splits(X, y, {}), 0, X, y)
    assert len(exact) > 10 * len(asked)
    best = asked.loc[asked["gini_decrease"].idxmax()]
    hand = DecisionTreeClassifier(**settings_).fit_splits(
        X, y, {(): HandSplit(int(best["feature_idx"]), float(best["threshold"]))})
    left = hand.tree_.children_left[0]
    np.testing.assert_array_equal(hand.tree_.value[left], best["left_counts"])
    _same_tree(DecisionTreeClassifier(**settings_).fit_splits(X, y, splits_of(grown.tree_)).tree_,
               grown.tree_)
