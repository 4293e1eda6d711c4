"""engine.inspection's "why this prediction?" tools: path contributions (Saabas 2014)
and partial dependence / ICE (Friedman 2001 §8.2, Goldstein et al. 2015)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine import _explain as explain
from engine.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from engine.inspection import PartialDependence, contributions, partial_dependence
from engine.naive_bayes import GaussianNB
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor

datasets = pytest.importorskip("sklearn.datasets")

# The identity bias + Σ contrib = output is exact arithmetic (a telescoping sum); what is
# left is float rounding of a few dozen additions of numbers of order 1.
IDENTITY = 1e-9


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


def mixed(n: int, seed: int, train: bool = True) -> pd.DataFrame:
    """A numeric column with NaN, a two-valued and a three-valued string column.

    In training rows ``c`` is never "z" where ``g`` is "v", so an ID3 split on ``c``
    below ``g = v`` has an empty "z" branch; new rows reach it, and some hold a
    category never seen ("new") or a missing one.
    """
    rng = np.random.default_rng(seed)
    g = rng.choice(["u", "v"], size=n)
    c = rng.choice(["x", "y", "z"], size=n)
    if train:
        c = np.where((g == "v") & (c == "z"), "x", c)
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "g": g, "c": c})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.05, "c"] = None
    if not train:
        X.loc[:9, "c"] = "new"
    return X


def mixed_targets(X: pd.DataFrame, seed: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    three = np.where(X.g == "u", "p", np.where(X.c == "x", "q", "r"))
    three = np.where(rng.random(len(X)) < 0.15, rng.choice(["p", "q", "r"], len(X)), three)
    a = X.a.fillna(0).to_numpy()
    return {
        "two": np.where((a > 0.3) ^ (X.c == "y").to_numpy() ^ (rng.random(len(X)) < 0.1), "yes", "no"),
        "three": three,
        "value": 2 * a + 3 * (X.g == "u") - (X.c == "x") + rng.normal(scale=0.3, size=len(X)),
    }


X_TRAIN, X_NEW = mixed(300, 0), mixed(200, 1, train=False)
Y = mixed_targets(X_TRAIN)


def numeric_binary():
    return datasets.make_classification(300, 6, n_informative=3, random_state=0)


def iris():
    return datasets.load_iris(return_X_y=True)


def mixed_data(target: str):
    return lambda: (X_TRAIN, Y[target])


# --------------------------------------------------------------------------- the identity

CASES = {
    "tree-2-binary-split": (lambda: DecisionTreeClassifier(), mixed_data("two"), "predict_proba"),
    "tree-2-multiway": (lambda: DecisionTreeClassifier(categorical_split="multiway"),
                        mixed_data("two"), "predict_proba"),
    "tree-3-binary-split": (lambda: DecisionTreeClassifier(max_depth=5), mixed_data("three"),
                            "predict_proba"),
    "tree-3-multiway": (lambda: DecisionTreeClassifier(categorical_split="multiway",
                                                       criterion="entropy"),
                        mixed_data("three"), "predict_proba"),
    "tree-3-iris": (lambda: DecisionTreeClassifier(), iris, "predict_proba"),
    "tree-regressor": (lambda: DecisionTreeRegressor(min_samples_leaf=3), mixed_data("value"),
                       "predict"),
    "tree-regressor-multiway": (lambda: DecisionTreeRegressor(categorical_split="multiway"),
                                mixed_data("value"), "predict"),
    "forest-classifier": (lambda: RandomForestClassifier(n_estimators=15, random_state=0),
                          mixed_data("three"), "predict_proba"),
    "forest-regressor": (lambda: RandomForestRegressor(n_estimators=15, random_state=0),
                         mixed_data("value"), "predict"),
    "bagging": (lambda: BaggingClassifier(n_estimators=8, random_state=0), mixed_data("two"),
                "predict_proba"),
    "bagging-stumps-numeric": (
        lambda: BaggingClassifier(estimator=DecisionTreeClassifier(max_depth=2), n_estimators=8,
                                  random_state=1), numeric_binary, "predict_proba"),
    "gb-2-numeric": (lambda: GradientBoostingClassifier(n_estimators=15), numeric_binary,
                     "decision_function"),
    "gb-2-mixed": (lambda: GradientBoostingClassifier(n_estimators=10, subsample=0.7,
                                                      random_state=0),
                   mixed_data("two"), "decision_function"),
    "gb-3-iris": (lambda: GradientBoostingClassifier(n_estimators=10), iris, "decision_function"),
    "gb-3-mixed": (lambda: GradientBoostingClassifier(n_estimators=5), mixed_data("three"),
                   "decision_function"),
    "gb-regressor": (lambda: GradientBoostingRegressor(n_estimators=15), mixed_data("value"),
                     "predict"),
    "gb-regressor-huber": (lambda: GradientBoostingRegressor(n_estimators=15, loss="huber"),
                           mixed_data("value"), "predict"),
    "ada-2-numeric": (lambda: AdaBoostClassifier(n_estimators=20), numeric_binary,
                      "decision_function"),
    "ada-2-mixed": (lambda: AdaBoostClassifier(n_estimators=10), mixed_data("two"),
                    "decision_function"),
    "ada-3-iris": (lambda: AdaBoostClassifier(n_estimators=20), iris, "decision_function"),
    "ada-3-mixed-depth2": (
        lambda: AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=2), n_estimators=8),
        mixed_data("three"), "decision_function"),
}


def _new_rows(X):
    return X_NEW if isinstance(X, pd.DataFrame) else X[::-1] + 0.1


@pytest.mark.parametrize("name", CASES)
def test_bias_plus_contributions_is_the_output(name):
    factory, data, method = CASES[name]
    X, y = data()
    model = factory().fit(X, y)
    rows = _new_rows(X)
    bias, contrib = contributions(model, rows)
    output = getattr(model, method)(rows)
    assert bias.shape == output.shape
    assert contrib.shape == output.shape[:1] + (model.n_features_in_,) + output.shape[1:]
    np.testing.assert_allclose(bias + contrib.sum(axis=1), output, rtol=0, atol=IDENTITY)
    assert np.abs(contrib).max() > 0.01  # the features do explain something


def test_the_mixed_data_reach_every_kind_of_branch():
    """The rows the identity is checked on meet missing values, unseen categories and
    empty ID3 branches (which predict their parent's shares)."""
    tree = DecisionTreeClassifier(categorical_split="multiway").fit(X_TRAIN, Y["three"])
    t = tree.tree_
    X_enc = tree.encoder_.transform(X_NEW)
    path = tree.decision_path(X_NEW)
    empty = np.flatnonzero(t.n_node_samples == 0)
    assert len(empty) and path[:, empty].any()
    assert (X_enc[:, 2] == -1).any() and np.isnan(X_enc[:, 0]).any()
    assert set(np.unique(t.split_kind)) == {0, 1, 3}


# --------------------------------------------------------------------------- a walk by hand


def walk(t, x: np.ndarray) -> list[int]:
    """The nodes row ``x`` (encoded) passes, read off the tree's arrays one node at a time."""
    node, path = 0, [0]
    while t.children_left[node] != -1:
        value = x[t.feature[node]]
        if np.isnan(value):
            node = t.missing_child[node]
        elif t.split_kind[node] == 1:  # numeric: x <= threshold goes left
            node = t.children_left[node] if value <= t.threshold[node] else t.children_right[node]
        else:  # categorical: the child of the code, or the unseen categories' child
            code = int(value)
            by_code = t.children_by_code(node)
            known = 0 <= code < len(by_code) and by_code[code] >= 0
            node = by_code[code] if known else t.unseen_child[node]
        path.append(int(node))
    return path


@pytest.mark.parametrize("model", [
    DecisionTreeClassifier(categorical_split="multiway"),
    DecisionTreeClassifier(categorical_split="binary", max_depth=6),
    DecisionTreeRegressor(categorical_split="multiway", max_depth=6),
], ids=["classifier-multiway", "classifier-binary", "regressor-multiway"])
def test_contributions_equal_a_node_by_node_walk(model):
    target = "value" if model._estimator_type == "regressor" else "three"
    model.fit(X_TRAIN, Y[target])
    t = model.tree_
    shares = t.value / t.value.sum(axis=1, keepdims=True) if target == "three" else t.value
    X_enc = model.encoder_.transform(X_NEW)
    bias, contrib = contributions(model, X_NEW)
    if target == "value":
        bias, contrib = bias[:, None], contrib[:, :, None]
    path_matrix = model.decision_path(X_NEW)
    for i, x in enumerate(X_enc):
        path = walk(t, x)
        assert sorted(path) == np.flatnonzero(path_matrix[i]).tolist()
        expected = np.zeros((X_enc.shape[1], shares.shape[1]))
        for parent, child in zip(path[:-1], path[1:], strict=True):
            expected[t.feature[parent]] += shares[child] - shares[parent]
        np.testing.assert_allclose(contrib[i], expected, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(bias[i], shares[0])


# --------------------------------------------------------------------------- by hand


def test_regression_tree_by_hand():
    """y = 1, 3, 5, 11 on (a, b) = 00, 01, 10, 11. Splitting on a leaves 20 of the 56
    squared error, on b 40: the root splits on a (mean 5 → 2 or 8), each child on b
    (2 → 1 or 3, 8 → 5 or 11)."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    tree = DecisionTreeRegressor().fit(X, [1.0, 3.0, 5.0, 11.0])
    bias, contrib = contributions(tree, X)
    assert bias.tolist() == [5.0] * 4
    assert contrib.tolist() == [[-3.0, -1.0], [-3.0, 1.0], [3.0, -3.0], [3.0, 3.0]]


def test_classification_tree_by_hand():
    """a = 0 (b = 0 throughout): classes 0, 0, 0, 1; a = 1: all 1. Splitting on a
    leaves Gini 0.1875, on b 0.375: the root (shares 3/8, 5/8) splits on a into leaves
    (3/4, 1/4) and (0, 1), so a moves P(1) by -3/8 or +3/8; b is never split on."""
    X = np.array([[0, 0], [0, 0], [0, 0], [0, 0], [1, 0], [1, 1], [1, 0], [1, 1]])
    tree = DecisionTreeClassifier().fit(X, [0, 0, 0, 1, 1, 1, 1, 1])
    bias, contrib = contributions(tree, X[[0, 4]])
    np.testing.assert_array_equal(bias, [[3 / 8, 5 / 8]] * 2)
    np.testing.assert_array_equal(contrib[:, 0], [[3 / 8, -3 / 8], [-3 / 8, 3 / 8]])
    np.testing.assert_array_equal(contrib[:, 1], 0.0)


def test_adaboost_stump_by_hand():
    """One perfect stump (weight ½): the root votes for the majority class 0, vote
    (½, -½) / ½, score -2; the leaf x > 3.5 votes for class 1, score +2."""
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    ada = AdaBoostClassifier(n_estimators=5).fit(X, [0, 0, 0, 1])
    assert len(ada.estimators_) == 1
    bias, contrib = contributions(ada, X)
    assert bias.tolist() == [-2.0] * 4
    assert contrib[:, 0].tolist() == [0.0, 0.0, 0.0, 4.0]
    assert ada.decision_function(X).tolist() == [-2.0, -2.0, -2.0, 2.0]


def test_gradient_boosting_by_hand():
    """y = 0, 2: S₀ = 1; the one tree's root holds the mean residual 0, its leaves -1
    and +1, times ν = 0.5."""
    gb = GradientBoostingRegressor(n_estimators=1, learning_rate=0.5, max_depth=1)
    gb.fit(np.array([[0.0], [1.0]]), [0.0, 2.0])
    bias, contrib = contributions(gb, np.array([[0.0], [1.0]]))
    assert bias.tolist() == [1.0, 1.0]
    assert contrib[:, 0].tolist() == [-0.5, 0.5]


@pytest.mark.parametrize("factory", [
    lambda: GradientBoostingClassifier(n_estimators=10),
    lambda: GradientBoostingRegressor(n_estimators=10, loss="absolute_error"),
], ids=["log-loss", "absolute-error"])
def test_boosted_bias_is_the_mean_training_score(factory):
    """The leaves of a boosted tree hold line-searched steps; an inner node's value is
    the training-weighted mean of the leaves below, so the bias, the root's, is the
    mean raw score over the training rows (without it the inner nodes would hold mean
    pseudo-residuals, on another scale than the leaves)."""
    X, y = numeric_binary()
    model = factory().fit(X, y)
    bias, _ = contributions(model, X[:3])
    score = model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)
    np.testing.assert_allclose(bias, np.full(3, score.mean()), rtol=0, atol=1e-12)
    stored_root = model.init_[0] + model.learning_rate * sum(
        t.tree_.value[0, 0] for t in model.estimators_[:, 0])
    assert abs(stored_root - bias[0]) > 1e-3  # the stored inner values would differ


def test_squared_error_keeps_the_stored_node_means():
    X, y = numeric_binary()
    gb = GradientBoostingRegressor(n_estimators=5, max_depth=3).fit(X, y.astype(float))
    for tree in gb.estimators_[:, 0]:
        np.testing.assert_allclose(explain._mean_leaf_values(tree.tree_),
                                   tree.tree_.value[:, 0], rtol=0, atol=1e-12)


def test_forest_contributions_are_the_mean_of_its_trees():
    forest = RandomForestClassifier(n_estimators=6, random_state=3).fit(X_TRAIN, Y["three"])
    bias, contrib = contributions(forest, X_NEW)
    per_tree = [contributions(tree, X_NEW) for tree in forest.estimators_]
    np.testing.assert_allclose(bias, np.mean([b for b, _ in per_tree], axis=0), atol=1e-12)
    np.testing.assert_allclose(contrib, np.mean([c for _, c in per_tree], axis=0), atol=1e-12)


def test_unsupported_models_are_refused():
    X, y = numeric_binary()
    with pytest.raises(TypeError, match="GaussianNB"):
        contributions(GaussianNB().fit(X, y), X)
    bag = BaggingClassifier(estimator=GaussianNB(), n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="GaussianNB"):
        contributions(bag, X)
    with pytest.raises(TypeError, match="GaussianNB"):
        contributions(AdaBoostClassifier(estimator=GaussianNB(), n_estimators=2).fit(X, y), X)


# --------------------------------------------------------------------------- partial dependence


def brute_force(model, X, columns, values):
    """Set the columns to the values, predict, average: one grid point at a time."""
    changed = X.copy()
    for j, v in zip(columns, values, strict=True):
        if isinstance(X, pd.DataFrame):
            changed[X.columns[j]] = v
        else:
            changed[:, j] = v
    output = (model.predict_proba(changed) if model._estimator_type == "classifier"
              else model.predict(changed))
    if output.ndim == 2 and output.shape[1] == 2:
        output = output[:, 1]
    return output


def test_partial_dependence_of_a_forest_equals_the_brute_force_loop():
    X, y = iris()
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    result = partial_dependence(forest, X, 2, kind="individual")
    assert isinstance(result, PartialDependence)
    grid = result.grid[0]
    np.testing.assert_array_equal(grid, np.unique(X[:, 2]))  # 43 values: all of them
    assert result.average.shape == (len(grid), 3)
    assert result.individual.shape == (len(X), len(grid), 3)
    for g, v in enumerate(grid):
        curves = brute_force(forest, X, [2], [v])
        np.testing.assert_allclose(result.individual[:, g], curves, rtol=0, atol=1e-12)
        np.testing.assert_allclose(result.average[g], curves.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.individual.mean(axis=0), result.average, atol=1e-12)
    assert result.classes.tolist() == [0, 1, 2]


def test_partial_dependence_of_gradient_boosting_on_a_frame():
    gb = GradientBoostingClassifier(n_estimators=15).fit(X_TRAIN, Y["two"])
    result = partial_dependence(gb, X_TRAIN, "a", grid=[-1.0, 0.0, 0.5, 2.0])
    assert result.features == ["a"] and result.average.shape == (4,)
    assert result.individual is None
    expected = [brute_force(gb, X_TRAIN, [0], [v]).mean() for v in [-1.0, 0.0, 0.5, 2.0]]
    np.testing.assert_allclose(result.average, expected, rtol=0, atol=1e-12)  # P("yes")


def test_default_numeric_grid_is_percentiles_when_values_are_many():
    X, y = numeric_binary()
    model = GradientBoostingRegressor(n_estimators=5).fit(X, y.astype(float))
    result = partial_dependence(model, X, 0)
    grid = result.grid[0]
    assert len(grid) == explain.PD_GRID_POINTS
    np.testing.assert_allclose(grid[[0, -1]], np.percentile(X[:, 0], [5, 95]))
    expected = [brute_force(model, X, [0], [v]).mean() for v in grid]
    np.testing.assert_allclose(result.average, expected, rtol=0, atol=1e-12)


def test_categorical_feature_grid_is_its_categories():
    forest = RandomForestRegressor(n_estimators=10, random_state=0).fit(X_TRAIN, Y["value"])
    result = partial_dependence(forest, X_TRAIN, "c", kind="individual")
    assert result.grid[0].tolist() == ["x", "y", "z"]
    for g, v in enumerate(["x", "y", "z"]):
        curves = brute_force(forest, X_TRAIN, [2], [v])
        np.testing.assert_allclose(result.individual[:, g], curves, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.individual.mean(axis=0), result.average, atol=1e-12)


def test_categorical_dtype_column_keeps_its_dtype():
    X = X_TRAIN.assign(c=X_TRAIN.c.astype("category"))
    tree = DecisionTreeClassifier(max_depth=4).fit(X, Y["three"])
    result = partial_dependence(tree, X, "c")
    for g, v in enumerate(result.grid[0]):
        expected = brute_force(tree, X, [2], [v]).mean(axis=0)
        np.testing.assert_allclose(result.average[g], expected, rtol=0, atol=1e-12)


def test_two_feature_partial_dependence():
    gb = GradientBoostingRegressor(n_estimators=10).fit(X_TRAIN, Y["value"])
    grid = ([-1.0, 0.0, 1.5], ["u", "v"])
    result = partial_dependence(gb, X_TRAIN, ("a", "g"), grid=grid, kind="individual")
    assert result.features == ["a", "g"]
    assert result.average.shape == (3, 2)
    assert result.individual.shape == (len(X_TRAIN), 3, 2)
    for i, a in enumerate(grid[0]):
        for k, g in enumerate(grid[1]):
            curves = brute_force(gb, X_TRAIN, [0, 1], [a, g])
            np.testing.assert_allclose(result.individual[:, i, k], curves, rtol=0, atol=1e-12)
            np.testing.assert_allclose(result.average[i, k], curves.mean(), rtol=0, atol=1e-12)


def test_chunks_do_not_change_the_result(monkeypatch):
    X, y = iris()
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y)
    whole = partial_dependence(tree, X, (0, 3), kind="individual")
    monkeypatch.setattr(explain, "PD_CELLS", 7 * X.size)  # 7 grid points a chunk
    chunked = partial_dependence(tree, X, (0, 3), kind="individual")
    np.testing.assert_array_equal(chunked.individual, whole.individual)
    np.testing.assert_array_equal(chunked.average, whole.average)


def test_partial_dependence_of_naive_bayes_equals_the_brute_force_loop():
    X, y = numeric_binary()
    nb = GaussianNB().fit(X, y)
    result = partial_dependence(nb, X, 1, grid=[-2.0, 0.0, 2.0])
    expected = [brute_force(nb, X, [1], [v]).mean() for v in [-2.0, 0.0, 2.0]]
    np.testing.assert_allclose(result.average, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("feature, kind, message", [
    ("nope", "average", "not a column"),
    (7, "average", "out of range"),
    (("a", "a"), "average", "two different"),
    ("a", "both", "kind"),
])
def test_partial_dependence_refuses_bad_arguments(feature, kind, message):
    tree = DecisionTreeRegressor(max_depth=2).fit(X_TRAIN, Y["value"])
    with pytest.raises(ValueError, match=message):
        partial_dependence(tree, X_TRAIN, feature, kind=kind)


# --------------------------------------------------------------------------- rounds

ROUND_CASES = {
    name: CASES[name] for name in ("gb-2-numeric", "gb-2-mixed", "gb-3-iris", "gb-3-mixed",
                                   "gb-regressor", "gb-regressor-huber")
}


@pytest.mark.parametrize("name", ROUND_CASES)
def test_start_plus_the_rounds_so_far_is_the_staged_score(name):
    """S_t = S_0 + ν Σ_{s≤t} f_s: the running sum of the parts is each staged output."""
    factory, data, method = ROUND_CASES[name]
    X, y = data()
    model = factory().fit(X, y)
    rows = _new_rows(X)
    start, parts = explain.round_contributions(model, rows)
    staged = list(model.staged_predict(rows) if method == "predict"
                  else model.staged_decision_function(rows))
    assert start.shape == staged[0].shape
    assert parts.shape == staged[0].shape[:1] + (len(staged),) + staged[0].shape[1:]
    np.testing.assert_array_equal(start, np.broadcast_to(model.init_.squeeze(), start.shape))
    for t, score in enumerate(staged):
        np.testing.assert_allclose(start + parts[:, :t + 1].sum(axis=1), score,
                                   rtol=0, atol=IDENTITY)
    # the rounds and the features are two splits of the same output
    bias, contrib = contributions(model, rows)
    np.testing.assert_allclose(start + parts.sum(axis=1), bias + contrib.sum(axis=1),
                               rtol=0, atol=IDENTITY)


def test_a_gradient_boosting_round_is_nu_times_its_tree():
    X, y = numeric_binary()
    gb = GradientBoostingRegressor(n_estimators=4, learning_rate=0.3).fit(X, y.astype(float))
    _, parts = explain.round_contributions(gb, X[:20])
    for t, tree in enumerate(gb.estimators_[:, 0]):
        np.testing.assert_array_equal(parts[:, t], 0.3 * tree.predict(X[:20]))


@pytest.mark.parametrize("name", ["ada-2-numeric", "ada-2-mixed", "ada-3-iris",
                                  "ada-3-mixed-depth2"])
def test_adaboost_rounds_are_the_weighted_vote_before_normalising(name):
    """Two classes: staged = 2 F_t / W_t, F_t = Σ ŵ_s (±1); K: staged = F_t / W_t with
    SAMME's code (ŵ for the predicted class, -ŵ/(K-1) for the others)."""
    factory, data, _ = CASES[name]
    X, y = data()
    model = factory().fit(X, y)
    rows = _new_rows(X)
    start, parts = explain.round_contributions(model, rows)
    np.testing.assert_array_equal(start, 0.0)
    weights = model.estimator_weights_
    W = np.cumsum(weights)
    binary = model.n_classes_ == 2
    staged = list(model.staged_decision_function(rows))
    assert parts.shape[1] == len(staged) == len(weights)
    for t, score in enumerate(staged):
        F = start + parts[:, :t + 1].sum(axis=1)
        np.testing.assert_allclose((2 if binary else 1) * F / W[t], score, rtol=0, atol=1e-12)
    for t, predicted in enumerate(model.learner_predictions(rows)):
        codes = np.searchsorted(model.classes_, predicted)
        if binary:
            np.testing.assert_array_equal(parts[:, t], weights[t] * np.where(codes == 1, 1, -1))
        else:
            K = model.n_classes_
            expected = np.full((len(codes), K), -weights[t] / (K - 1))
            expected[np.arange(len(codes)), codes] = weights[t]
            np.testing.assert_allclose(parts[:, t], expected, rtol=0, atol=1e-15)
    final = parts.sum(axis=1)
    best = (final > 0).astype(int) if binary else np.argmax(final, axis=1)
    np.testing.assert_array_equal(model.classes_[best], model.predict(rows))


def test_round_contributions_refuses_models_without_rounds():
    X, y = numeric_binary()
    with pytest.raises(TypeError, match="RandomForestClassifier"):
        explain.round_contributions(RandomForestClassifier(n_estimators=2).fit(X, y), X)
