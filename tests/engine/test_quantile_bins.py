"""The binned threshold search (``binning="quantile"``) against the exact search."""
import numpy as np
import pandas as pd
import pytest

from engine.ensemble import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from engine.inspection import split_candidates
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from engine.tree._quantile import QuantileBins


def _data(n=3_000, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.5, size=n) > 0.5).astype(int)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(p)]), y


def _same_tree(a, b) -> None:
    for name in ("children_left", "children_right", "feature", "value", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)


def test_binned_equals_exact_when_every_feature_has_few_values():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.integers(0, 255, 4_000).astype(float),  # 255 values: not binned
                      "b": rng.normal(size=4_000).round(1),             # about 70 values
                      "c": rng.choice(["u", "v", "w"], 4_000)})
    y = (X["a"] + 40 * X["b"] > 120).astype(int)
    exact = DecisionTreeClassifier(random_state=0).fit(X, y)
    binned = DecisionTreeClassifier(random_state=0, binning="quantile").fit(X, y)
    assert binned.bins_ is None
    _same_tree(exact, binned)


def test_binned_tree_is_the_exact_tree_of_the_binned_values():
    X, y = _data()
    binned = DecisionTreeClassifier(random_state=0, binning="quantile", max_bins=32).fit(X, y)
    on_bins = DecisionTreeClassifier(random_state=0).fit(binned.bins_.transform(X.to_numpy()), y)
    np.testing.assert_array_equal(binned.tree_.feature, on_bins.tree_.feature)
    np.testing.assert_array_equal(binned.tree_.value, on_bins.tree_.value)
    # every training row reaches the leaf the search sent it to
    np.testing.assert_array_equal(binned.apply(X), on_bins.apply(binned.bins_.transform(X.to_numpy())))


def test_binned_thresholds_are_midpoints_between_adjacent_bins():
    X, y = _data()
    tree = DecisionTreeClassifier(random_state=0, binning="quantile", max_bins=16).fit(X, y).tree_
    split = np.flatnonzero(tree.split_kind == 1)
    for node in split:
        j, t = int(tree.feature[node]), tree.threshold[node]
        column = np.sort(X.iloc[:, j].to_numpy())
        below, above = column[column <= t].max(), column[column > t].min()
        assert t == below / 2 + above / 2  # a midpoint between adjacent observed values
    bins = QuantileBins.fit(X.to_numpy(), np.arange(X.shape[1]), 16)
    for j in range(X.shape[1]):
        assert len(bins.high[j]) <= 16
        assert (bins.low[j][1:] > bins.high[j][:-1]).all()
        counts = np.diff(np.searchsorted(np.sort(X.iloc[:, j]), bins.high[j], side="right"),
                         prepend=0)
        assert counts.max() <= 2 * len(X) / 16  # about equal counts


def test_bins_keep_missing_values_and_present_splits():
    X, y = _data()
    X.iloc[::7, 0] = np.nan
    exact = DecisionTreeClassifier(random_state=0, max_depth=4).fit(X, y)
    binned = DecisionTreeClassifier(random_state=0, max_depth=4, binning="quantile").fit(X, y)
    assert np.isnan(binned.bins_.transform(X.to_numpy())[::7, 0]).all()
    assert abs(exact.score(X, y) - binned.score(X, y)) < 0.02


@pytest.mark.parametrize("make", [
    lambda b: DecisionTreeClassifier(max_depth=6, random_state=0, binning=b),
    lambda b: DecisionTreeRegressor(max_depth=6, random_state=0, binning=b),
    lambda b: RandomForestClassifier(n_estimators=20, random_state=0, binning=b, oob_score=True),
    lambda b: GradientBoostingClassifier(n_estimators=30, random_state=0, binning=b),
    lambda b: AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1, binning=b),
                                 n_estimators=30, random_state=0),
], ids=["tree", "regressor", "forest", "gradient boosting", "adaboost"])
def test_binned_accuracy_within_half_a_point_of_exact(make):
    X, y = _data(n=20_000, p=6)
    X_test, y_test = _data(n=5_000, p=6, seed=9)
    exact, binned = make("exact").fit(X, y), make("quantile").fit(X, y)
    assert exact.score(X_test, y_test) - binned.score(X_test, y_test) < (0.005 if
           hasattr(exact, "classes_") else 0.02)


def test_forest_members_route_training_rows_as_grown():
    X, y = _data()
    forest = RandomForestClassifier(n_estimators=5, random_state=0, binning="quantile").fit(X, y)
    transformed = forest.estimators_[0].bins_.transform(X.to_numpy())
    for tree in forest.estimators_:
        np.testing.assert_array_equal(tree.tree_.apply(X.to_numpy()), tree.tree_.apply(transformed))


def test_split_candidates_of_a_binned_tree_mark_its_split():
    X, y = _data()
    tree = DecisionTreeClassifier(random_state=0, max_depth=3, binning="quantile",
                                  max_bins=20).fit(X, y)
    table = split_candidates(tree, 0, X, y)
    numeric = table[table["split"] == "threshold"]
    assert numeric.groupby("feature").size().max() <= 19 + 1  # cuts between bins (+ present)
    chosen = table[table["chosen"]]
    assert len(chosen) == 1
    assert chosen["threshold"].iloc[0] == tree.tree_.threshold[0]


def test_unknown_binning_is_refused():
    X, y = _data(n=50)
    with pytest.raises(ValueError, match="binning"):
        DecisionTreeClassifier(binning="fast").fit(X, y)


def test_features_prepared_from_bin_codes_equal_those_of_the_binned_values():
    """Presorting binned columns by their bin codes (a counting sort) gives the order,
    values and codes that presorting the transformed values gives: ties in row order,
    missing values last; columns with few values and categories are left as they are."""
    from engine.tree._binning import prepare_features

    rng = np.random.default_rng(5)
    n = 5_000
    X = np.column_stack([rng.normal(size=n).round(3),               # binned, with ties
                         rng.integers(0, 20, n).astype(float),      # 20 values: not binned
                         rng.integers(0, 3, n).astype(float),       # a categorical's codes
                         rng.exponential(size=n)])                  # binned, no ties
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.05, 1] = np.nan
    n_categories = np.array([0, 0, 3, 0])
    bins = QuantileBins.fit(X, np.array([0, 1, 3]), max_bins=64)
    assert sorted(bins.high) == [0, 3]
    by_codes = prepare_features(X, n_categories, 64, bins)
    by_values = prepare_features(bins.transform(X), n_categories, 64)
    for name in ("values", "numeric_values", "order", "codes", "coded", "n_bins", "bin_values"):
        a, b = getattr(by_codes, name), getattr(by_values, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    np.testing.assert_array_equal(by_codes.mode[0], by_values.mode[0])
    np.testing.assert_array_equal(by_codes.mode[1], by_values.mode[1])
