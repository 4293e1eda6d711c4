"""The ensemble views of engine.inspection: OOB and staged error curves, permutation
importances, decision grids and the correlation between trees."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.inspection import permutation_importance as sk_permutation_importance

from engine import inspection
from engine.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
    first_members,
)
from engine.ensemble import _base as forest_base
from engine.inspection import (
    decision_grid,
    grid_axis,
    importance_frame,
    oob_error_curve,
    oob_permutation_drops,
    oob_permutation_importance,
    permutation_importance,
    staged_error_curve,
    staged_errors,
    tree_correlation,
)
from engine.metrics import accuracy_score, r2_score
from engine.naive_bayes import GaussianNB
from engine.tree import plurality
from tests.engine.test_estimator_checks import mixed_frame, numeric_data


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


def two_signals(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns 0 and 1 decide the class (with 0.3 noise); columns 2–4 are pure noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X, (X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)


# --------------------------------------------------------------------------- error curves


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_oob_error_curve_ends_at_one_minus_oob_score(kind):
    X, y = mixed_frame(kind)
    cls = RandomForestClassifier if kind == "classifier" else RandomForestRegressor
    forest = cls(n_estimators=25, oob_score=True, random_state=0).fit(X, y)
    stored, recomputed = oob_error_curve(forest), oob_error_curve(forest, X, y)
    assert stored.shape == (25,)
    assert stored[-1] == 1 - forest.oob_score_  # exactly, not approximately
    np.testing.assert_array_equal(stored, recomputed)


def test_oob_error_curve_point_by_point_against_brute_force():
    """Point b: the first b + 1 trees' OOB votes, over rows already OOB at least once."""
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=12, random_state=5).fit(X, y)
    curve = oob_error_curve(forest, X, y)
    codes = pd.Index(forest.classes_).get_indexer(y)
    probas = np.stack([m.predict_proba(X) for m in forest.estimators_])
    for b in (0, 3, 11):
        oob = forest.inbag_counts_[: b + 1] == 0
        votes = (probas[: b + 1] * oob[:, :, None]).sum(axis=0)
        seen = oob.any(axis=0)
        error = np.mean(np.argmax(votes[seen], axis=1) != codes[seen])
        assert curve[b] == pytest.approx(error, abs=1e-12)


def test_oob_error_curve_of_a_regressor_point_by_point_against_brute_force():
    """Point b: 1 − R² of the first b + 1 trees' mean OOB prediction, over rows OOB once."""
    X, y = mixed_frame("regressor")
    forest = RandomForestRegressor(n_estimators=9, random_state=2).fit(X, y)
    curve = oob_error_curve(forest, X, y)
    predictions = np.stack([m.predict(X) for m in forest.estimators_])
    for b in range(9):
        oob = forest.inbag_counts_[: b + 1] == 0
        seen = oob.any(axis=0)
        mean = (predictions[: b + 1] * oob).sum(axis=0)[seen] / oob.sum(axis=0)[seen]
        expected = 1 - r2_score(np.asarray(y)[seen], mean)
        assert curve[b] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_oob_error_curve_needs_data_or_a_stored_curve():
    X, y = numeric_data("classifier", n=60)
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="oob_score=True"):
        oob_error_curve(forest)
    with pytest.raises(ValueError, match="fitted on"):
        oob_error_curve(forest, X[:30], y[:30])


def test_staged_error_curve_of_a_forest_ends_at_its_test_error():
    X, y = numeric_data("classifier")
    X_test, y_test = numeric_data("classifier", seed=3)
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    curve = staged_error_curve(forest, X_test, y_test)
    assert curve.shape == (20,)
    assert curve[-1] == pytest.approx(1 - accuracy_score(y_test, forest.predict(X_test)))
    first = forest.estimators_[0]
    assert curve[0] == pytest.approx(1 - accuracy_score(y_test, first.predict(X_test)), abs=0.02)
    # Averaging helps: the forest of 20 beats its first tree on held-out rows.
    assert curve[-1] < curve[0]


def test_staged_error_curve_of_a_regression_forest_is_the_running_mse():
    X, y = numeric_data("regressor")
    forest = RandomForestRegressor(n_estimators=6, random_state=0).fit(X, y)
    curve = staged_error_curve(forest, X, y)
    running = np.cumsum([m.predict(X) for m in forest.estimators_], axis=0)
    expected = [np.mean((running[b] / (b + 1) - y) ** 2) for b in range(6)]
    np.testing.assert_allclose(curve, expected, rtol=1e-10)


def test_staged_error_curve_reads_staged_predict():
    """A boosting-like model is read through staged_predict, stage by stage."""

    class ThreeStages:
        _estimator_type = "classifier"
        classes_ = np.array(["a", "b"])

        def staged_predict(self, X):
            yield np.array(["a", "a", "a", "a"])
            yield np.array(["a", "b", "a", "a"])
            yield np.array(["a", "b", "b", "b"])

    curve = staged_error_curve(ThreeStages(), np.zeros((4, 1)), ["a", "b", "b", "b"])
    np.testing.assert_allclose(curve, [0.75, 0.5, 0.0])


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=30, random_state=0),
    lambda: RandomForestRegressor(n_estimators=30, random_state=0),
    lambda: BaggingClassifier(estimator=GaussianNB(), n_estimators=7, random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=12, random_state=0),
    lambda: AdaBoostClassifier(n_estimators=12, random_state=0),
], ids=["forest", "regression forest", "bagged naive Bayes", "boosting", "AdaBoost"])
def test_staged_errors_give_the_models_own_prediction(make):
    """The last stage of the pass is the model's prediction, to the last bit: the page
    hands it to the Results tab in place of predict. 3,000 rows of 30 trees walk in
    several chunks."""
    kind = "regressor" if "Regressor" in type(make()).__name__ else "classifier"
    X, y = numeric_data(kind)
    X_test, y_test = numeric_data(kind, n=3_000, seed=3)
    model = make().fit(X, y)
    staged = staged_errors(model, X_test, y_test)
    np.testing.assert_array_equal(staged.prediction, model.predict(X_test))
    np.testing.assert_array_equal(staged.errors, staged_error_curve(model, X_test, y_test))
    if kind == "classifier":
        assert staged.errors[-1] == pytest.approx(1 - accuracy_score(y_test, staged.prediction))
    if hasattr(model, "staged_predict"):  # boosting: counted by class places, as by labels
        by_label = [np.mean(stage != np.asarray(y_test)) for stage in model.staged_predict(X_test)]
        np.testing.assert_array_equal(staged.errors, by_label)


# --------------------------------------------------------------------------- importances


@pytest.fixture(scope="module")
def signal_forest():
    X, y = two_signals(600, seed=0)
    X_test, y_test = two_signals(600, seed=1)
    return RandomForestClassifier(n_estimators=50, random_state=0).fit(X, y), X, y, X_test, y_test


def _noise_is_negligible(table: pd.DataFrame) -> None:
    noise = table.iloc[2:]
    assert (noise.importance_mean.abs() < 2 * noise.importance_std + 0.01).all()


def test_permutation_importance_ranks_the_signals_first(signal_forest):
    forest, _, _, X_test, y_test = signal_forest
    table = permutation_importance(forest, X_test, y_test, n_repeats=5, random_state=0)
    assert table.columns.tolist() == ["feature", "importance_mean", "importance_std"]
    assert table.feature.tolist() == [f"x{j}" for j in range(5)]
    assert set(table.nlargest(2, "importance_mean").feature) == {"x0", "x1"}
    assert (table.importance_mean[:2] > 0.15).all()
    _noise_is_negligible(table)


def test_permutation_importance_agrees_with_scikit_learn(signal_forest):
    """Same model, same data, scikit-learn's function: its permutations come from another
    random stream, so the means differ by sampling noise only: each is a mean of 5
    shuffles, so their difference has sd ≈ std·√(2/5); allow 4 of those plus 0.005."""
    forest, _, _, X_test, y_test = signal_forest
    ours = permutation_importance(forest, X_test, y_test, n_repeats=5, random_state=0)
    theirs = sk_permutation_importance(forest, X_test, y_test, n_repeats=5, random_state=0)
    spread = np.maximum(ours.importance_std.to_numpy(), theirs.importances_std)
    bound = 4 * spread * np.sqrt(2 / 5) + 0.005
    assert (np.abs(ours.importance_mean.to_numpy() - theirs.importances_mean) <= bound).all()
    assert np.argsort(-ours.importance_mean.to_numpy())[:2].tolist() == \
        np.argsort(-theirs.importances_mean)[:2].tolist()


def test_permutation_importance_on_a_frame_with_categories():
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    table = permutation_importance(forest, X, y, n_repeats=3, random_state=0)
    assert table.feature.tolist() == ["size", "weight", "colour", "shape"]
    assert table.set_index("feature").importance_mean.idxmax() in {"size", "colour"}


def test_oob_permutation_importance_ranks_the_signals_first(signal_forest):
    forest, X, y, _, _ = signal_forest
    table = oob_permutation_importance(forest, X, y, random_state=0)
    assert set(table.nlargest(2, "importance_mean").feature) == {"x0", "x1"}
    assert (table.importance_mean[:2] > 0.1).all()
    # Averaged over 50 trees, a noise column's mean drop has sd ≈ std / √50.
    noise = table.iloc[2:]
    assert (noise.importance_mean.abs() < 3 * noise.importance_std / np.sqrt(50) + 0.005).all()


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_oob_permutation_importance_does_not_depend_on_how_trees_are_grouped(monkeypatch, n_jobs):
    """Trees are walked in groups bounded by CELLS_PER_GROUP (and spread over workers);
    one tree per group must give the same table, bit for bit."""

    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=9, random_state=3).fit(X, y)
    together = oob_permutation_importance(forest, X, y, random_state=2)
    monkeypatch.setattr(inspection, "CELLS_PER_GROUP", 1)
    assert len(inspection._tree_groups(np.full(9, 10), 3)) == 10  # every tree alone
    apart = oob_permutation_importance(forest, X, y, random_state=2, n_jobs=n_jobs)
    pd.testing.assert_frame_equal(together, apart, check_exact=True)


@pytest.mark.parametrize("max_rows", [None, 15])
def test_the_first_trees_oob_drops_are_those_of_the_forest_of_the_first_trees(max_rows):
    """A tree's OOB drops depend on the tree, its OOB rows and its own seed only: the
    first B rows of a forest's drops are the drops of its first B trees as a forest of
    their own (``first_members``), and give its importance table to the bit."""
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=9, random_state=3).fit(X, y)
    drops = oob_permutation_drops(forest, X, y, random_state=2, max_rows=max_rows)
    assert drops.shape == (9, X.shape[1])
    for B in (1, 4, 8):
        small = first_members(forest, B, X, y)
        np.testing.assert_array_equal(
            drops[:B], oob_permutation_drops(small, X, y, random_state=2, max_rows=max_rows))
        pd.testing.assert_frame_equal(
            importance_frame(forest.feature_names_in_, drops[:B].T),
            oob_permutation_importance(small, X, y, random_state=2, max_rows=max_rows),
            check_exact=True)


def test_oob_permutation_importance_gives_every_worker_a_group():
    """Trees that fit one group are still cut into one group a worker (none is left to
    the calling process), of even shares; the table is the same, bit for bit."""
    from engine import inspection

    edges = inspection._tree_groups(np.full(10, 100), 20, at_least=2)
    assert edges == [0, 5, 10]
    assert inspection._tree_groups(np.full(10, 100), 20) == [0, 10]
    assert len(inspection._tree_groups(np.full(3, 100), 20, at_least=4)) == 4  # a tree a group
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=9, random_state=3).fit(X, y)
    pd.testing.assert_frame_equal(oob_permutation_importance(forest, X, y, random_state=2),
                                  oob_permutation_importance(forest, X, y, random_state=2,
                                                             n_jobs=2), check_exact=True)


def test_oob_permutation_importance_with_room_for_every_oob_row_is_unchanged():
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=6, random_state=3).fit(X, y)
    most = int((forest.inbag_counts_ == 0).sum(axis=1).max())
    pd.testing.assert_frame_equal(oob_permutation_importance(forest, X, y, random_state=2),
                                  oob_permutation_importance(forest, X, y, random_state=2,
                                                             max_rows=most), check_exact=True)
    with pytest.raises(ValueError, match="max_rows"):
        oob_permutation_importance(forest, X, y, max_rows=0)


def test_oob_permutation_importance_of_an_unused_column_is_exactly_zero():
    X, y = two_signals(200, seed=2)
    X[:, 4] = 1.0  # constant: no tree can split on it, shuffling it changes nothing
    forest = RandomForestRegressor(n_estimators=10, random_state=0).fit(X, X[:, 0] * 2)
    table = oob_permutation_importance(forest, X, X[:, 0] * 2, random_state=0)
    assert table.importance_mean.iloc[4] == 0.0 and table.importance_std.iloc[4] == 0.0
    assert table.importance_mean.idxmax() == 0


@pytest.mark.parametrize("kind, max_rows", [("classifier", None), ("regressor", None),
                                            ("mixed", None), ("complete", None), ("ties", None),
                                            ("classifier", 25), ("mixed", 40)])
@pytest.mark.parametrize("walk", ["values", "ranks"])
def test_oob_permutation_importance_equals_scoring_every_shuffled_copy(kind, max_rows, walk, monkeypatch):
    """Only the (row, column) pairs whose path meets a split on the column are walked
    again; the drops must equal those of walking every shuffled copy in full, with the
    same permutations (one per column per tree, drawn in column order from the tree's
    own seed). "complete": numeric columns without missing values; "ties": values
    rounded to whole numbers, so that leaves hold rows of both classes in equal weight
    (a tree's class there is its predict's: the class listed last). With ``max_rows``,
    each tree scores that many of its OOB rows, drawn by its generator [seed, 1].
    Complete numeric rows are walked again comparing values or adding ranks (``walk``)."""
    for cost in ("RANK_STEPS_PER_VALUE", "RANK_STEPS_PER_NODE"):
        monkeypatch.setattr(forest_base, cost, 0 if walk == "ranks" else math.inf)
    if kind == "ties":
        X, y = numeric_data("classifier", 240, seed=3)
        X = np.round(X, 0)
        forest = RandomForestClassifier(n_estimators=8, random_state=1).fit(X, y)
        assert any((np.sort(m.tree_.value, axis=1)[:, -1] == np.sort(m.tree_.value, axis=1)[:, -2])
                   [m.tree_.children_left < 0].any() for m in forest.estimators_)
    elif kind == "complete":
        X, y = numeric_data("classifier", 240, seed=4)
        forest = RandomForestClassifier(n_estimators=8, random_state=1).fit(X, y)
    elif kind == "mixed":
        X, y = mixed_frame("classifier")
        forest = RandomForestClassifier(n_estimators=8, random_state=1).fit(X, y)
    else:
        X, y = numeric_data(kind, 240, seed=3)
        X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
        model = RandomForestClassifier if kind == "classifier" else RandomForestRegressor
        forest = model(n_estimators=8, random_state=1).fit(X, y)
    table = oob_permutation_importance(forest, X, y, random_state=5, max_rows=max_rows)
    X_enc = forest._encode(X)
    target = np.searchsorted(forest.classes_, y) if kind != "regressor" else np.asarray(y)
    seeds = np.random.default_rng(5).integers(0, np.iinfo(np.int64).max, size=(8, 2))[:, 0]
    drops = np.zeros((X_enc.shape[1], forest.n_estimators))

    def score(tree, X_rows, truth):
        value = tree.value[tree.apply(X_rows)]
        if kind == "regressor":
            return -np.mean((value[:, 0] - truth) ** 2)
        return np.mean(plurality(value) == truth)  # the tree's own predict: ties to the last

    for b, member in enumerate(forest.estimators_):
        rows = np.flatnonzero(forest.inbag_counts_[b] == 0)
        if max_rows is not None:
            assert len(rows) > max_rows  # the sample is exercised
            rows = np.sort(np.random.default_rng([seeds[b], 1]).choice(rows, max_rows,
                                                                       replace=False))
        X_oob, truth = X_enc[rows], target[rows]
        baseline = score(member.tree_, X_oob, truth)
        rng = np.random.default_rng(seeds[b])  # each tree its own generator
        for k in range(X_enc.shape[1]):
            shuffled = X_oob.copy()
            shuffled[:, k] = X_oob[rng.permutation(len(rows)), k]
            drops[k, b] = baseline - score(member.tree_, shuffled, truth)
    np.testing.assert_array_equal(table.importance_mean, drops.mean(axis=1))
    np.testing.assert_array_equal(table.importance_std, drops.std(axis=1))


# --------------------------------------------------------------------------- grids


def test_decision_grid_shapes_and_predictions():
    X, y = numeric_data("classifier")
    X2 = pd.DataFrame(X[:, :2], columns=["left", "right"])
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X2, y)
    grid = decision_grid(forest, X2, resolution=30)
    assert grid.xx.shape == grid.yy.shape == grid.class_index.shape == grid.max_proba.shape == (30, 30)
    assert grid.feature_names == ["left", "right"] and grid.value is None
    assert grid.xx.min() < X2.left.min() and grid.yy.max() > X2.right.max()
    points = pd.DataFrame({"left": grid.xx.ravel(), "right": grid.yy.ravel()})
    proba = forest.predict_proba(points)
    np.testing.assert_array_equal(grid.class_index.ravel(), np.argmax(proba, axis=1))
    np.testing.assert_allclose(grid.max_proba.ravel(), proba.max(axis=1))
    assert (grid.max_proba >= 1 / 3).all()


def _on_grid_rows(model, xs, ys):
    rows = np.column_stack([np.tile(xs, len(ys)), np.repeat(ys, len(xs))])
    return model.predict_proba(rows) if hasattr(model, "predict_proba") else model.predict(rows)


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=25, random_state=0),
    lambda: RandomForestClassifier(n_estimators=25, binning="quantile", max_samples=60,
                                   random_state=1),
    lambda: RandomForestRegressor(n_estimators=25, random_state=0),
    lambda: BaggingClassifier(n_estimators=9, random_state=0),
], ids=["forest", "binned forest", "regression forest", "bagged trees"])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_a_forest_walks_the_grid_as_rectangles_to_the_numbers_of_its_rows(make, ties):
    """grid_average (the grid cut into the trees' rectangles) equals predict on the
    grid's points to the last bit: on grids through every threshold (a point on a
    threshold goes left), past the data, and inside it."""
    kind = "regressor" if "Regressor" in type(make()).__name__ else "classifier"
    X, y = numeric_data(kind, n=300)
    X = np.round(X[:, :2], 1) if ties else X[:, :2]  # ties: few distinct values
    model = make().fit(X, y)
    thresholds = np.unique(np.concatenate([m.tree_.threshold for m in model.estimators_]))
    thresholds = thresholds[np.isfinite(thresholds)]
    thresholds = thresholds[::max(1, len(thresholds) // 120)]  # a grid of ~120² points
    inside = np.linspace(*np.quantile(X[:, 0], [0.3, 0.6]), 17)  # thresholds beyond both ends
    for xs, ys in [(thresholds, thresholds), (grid_axis(X[:, 0], 40), grid_axis(X[:, 1], 31)),
                   (inside, np.sort(np.concatenate([thresholds[:5], inside])))]:
        np.testing.assert_array_equal(model.grid_average(xs, ys), _on_grid_rows(model, xs, ys))


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_a_forests_grid_stages_are_the_boundaries_of_its_first_trees(classes, ties):
    """Row b - 1 of grid_stage_classes is the boundary the forest of the first b trees
    (``first_members``) draws: the class its ``predict`` gives for its grid_average
    (``class_index``: a tie to the first class), to the bit, ties between classes
    included (few trees on rounded data tie often)."""
    X, y = numeric_data("classifier", n=300)
    X = np.round(X[:, :2], 1) if ties else X[:, :2]
    y = y % classes
    forest = RandomForestClassifier(n_estimators=12, random_state=0).fit(X, y)
    xs, ys = grid_axis(X[:, 0], 40), grid_axis(X[:, 1], 31)
    stages = forest.grid_stage_classes(xs, ys)
    assert stages.shape == (12, 40 * 31) and stages.dtype == np.uint8
    tied = 0
    for b in range(1, 13):
        mean = first_members(forest, b, X, y).grid_average(xs, ys)
        np.testing.assert_array_equal(stages[b - 1], np.argmax(mean, axis=1))
        tied += int((np.sort(mean, axis=1)[:, -1] == np.sort(mean, axis=1)[:, -2]).sum())
    assert tied  # the rule for ties was exercised
    np.testing.assert_array_equal(stages[-1], np.argmax(forest.grid_average(xs, ys), axis=1))
    assert RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y).grid_stage_classes(xs, ys) is None


def test_the_grid_walk_takes_single_leaf_trees_and_declines_the_rest():
    X, _ = numeric_data("classifier")
    xs = np.linspace(0, 8, 5)
    stumps = RandomForestClassifier(n_estimators=3, random_state=0).fit(X[:, :2], np.zeros(len(X)))
    np.testing.assert_array_equal(stumps.grid_average(xs, xs), _on_grid_rows(stumps, xs, xs))
    frame = pd.DataFrame({"a": X[:, 0], "b": np.where(X[:, 1] > X[:, 1].mean(), "hi", "lo")})
    assert RandomForestClassifier(n_estimators=2, random_state=0).fit(
        frame, X[:, 0] > X[:, 0].mean()).grid_average(xs, xs) is None  # a categorical feature
    assert BaggingClassifier(estimator=GaussianNB(), n_estimators=2, random_state=0).fit(
        X[:, :2], X[:, 0] > 1).grid_average(xs, xs) is None  # members not trees
    assert RandomForestClassifier(n_estimators=2, random_state=0).fit(
        X[:, :3], X[:, 0] > 1).grid_average(xs, xs) is None  # three features


def test_decision_grid_refuses_other_column_counts():
    X, y = numeric_data("classifier")
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="two columns"):
        decision_grid(forest, X[:, :2])


def test_decision_grid_of_a_regressor_holds_values():
    X, y = numeric_data("regressor")
    forest = RandomForestRegressor(n_estimators=5, random_state=0).fit(X[:, :2], y)
    grid = decision_grid(forest, X[:, :2], resolution=7)
    assert grid.class_index is None and grid.value.shape == (7, 7)
    np.testing.assert_allclose(grid.value.ravel(),
                               forest.predict(np.column_stack([grid.xx.ravel(), grid.yy.ravel()])))


# --------------------------------------------------------------------------- correlation


def test_feature_sampling_decorrelates_trees():
    """Random forests improve on bagging by lowering ρ between the trees."""
    X, y = two_signals(400, seed=3)
    bagged = BaggingClassifier(n_estimators=30, random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=30, max_features=1, random_state=0).fit(X, y)
    X_test, _ = two_signals(400, seed=4)
    rho_bag, rho_forest = tree_correlation(bagged, X_test), tree_correlation(forest, X_test)
    for corr in (rho_bag, rho_forest):
        assert -1 <= corr.rho <= 1 and corr.sigma2 > 0
    assert rho_bag.rho > rho_forest.rho + 0.05


def _brute_correlation(outputs: np.ndarray) -> tuple[float, float]:
    """ρ and σ² from every tree's outputs on every row (trees × rows): numpy's Pearson
    correlation of every two trees that vary, and their population variances."""
    variance = outputs.var(axis=1)
    varying = outputs[variance > 1e-12]
    corr = np.corrcoef(varying)
    m = len(varying)
    return (corr.sum() - np.trace(corr)) / (m * (m - 1)), variance.mean()


@pytest.mark.parametrize("kind", ["two classes", "three classes", "regressor"])
def test_tree_correlation_equals_the_pairwise_correlations_of_every_output(kind, monkeypatch):
    """Summed a few rows at a time (chunks of 7 rows here), ρ and σ² are those of every
    tree's outputs on every row taken at once; trees that predict a constant (bootstrap
    samples of three rows, some of one class) are left out of ρ and count 0 in σ². A
    forest's staged errors give the same figures from their own pass (a regressor's
    targets rounded to whole numbers, so that some of its trees are constant too)."""
    monkeypatch.setattr(forest_base, "PAIRS_PER_CHUNK", 7 * 30)
    X, y = numeric_data("regressor" if kind == "regressor" else "classifier", n=200)
    if kind == "two classes":
        y = (y == 2).astype(int)
    if kind == "regressor":  # whole numbers: three rows of one value now and then
        y = np.round(y)
    model = RandomForestRegressor if kind == "regressor" else RandomForestClassifier
    forest = model(n_estimators=30, max_samples=3, random_state=0).fit(X, y)
    X_test, y_test = numeric_data("regressor" if kind == "regressor" else "classifier", n=90, seed=1)
    outputs = forest.member_outputs(X_test)
    columns = ([outputs] if outputs.ndim == 2 else
               [outputs[:, :, 1]] if outputs.shape[2] == 2 else list(np.moveaxis(outputs, 2, 0)))
    assert any((c.var(axis=1) == 0).any() and (c.var(axis=1) > 0).sum() >= 2 for c in columns)
    expected = np.array([_brute_correlation(c) for c in columns])
    found = tree_correlation(forest, X_test)
    assert found.rho == pytest.approx(expected[:, 0].mean(), rel=1e-10)
    assert found.sigma2 == pytest.approx(expected[:, 1].mean(), rel=1e-10)
    assert found.n_estimators == 30
    staged = staged_errors(forest, X_test, y_test if kind != "two classes" else (y_test == 2).astype(int))
    assert staged.correlation == found


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=30, random_state=0),
    lambda: RandomForestClassifier(n_estimators=25, max_depth=3, random_state=1),
    lambda: BaggingClassifier(n_estimators=12, random_state=0),
], ids=["two classes", "shallow", "bagging"])
@pytest.mark.parametrize("classes", [2, 3])
def test_a_forests_pass_gives_the_pass_of_its_first_trees(make, classes):
    """``first(n)`` of a forest's pass is the pass of the forest of its first n trees
    (``first_members``), walked on its own: the same errors and predictions to the bit,
    and the same ρ and σ². Each stage's error is that stage's own ``predict``, ties
    included (its class is ``class_index`` of the trees' mean, as ``predict`` finds it)."""
    X, y = numeric_data("classifier", n=400)
    X_test, y_test = numeric_data("classifier", n=3_000, seed=3)
    y, y_test = y % classes, y_test % classes
    model = make().fit(X, y)
    whole = staged_errors(model, X_test, y_test)
    n_trees = len(model.estimators_)
    for n in (1, 2, n_trees // 2, n_trees - 1, n_trees):
        small = first_members(model, n, X, y)
        part, walked = whole.first(n), staged_errors(small, X_test, y_test)
        np.testing.assert_array_equal(part.errors, walked.errors)
        np.testing.assert_array_equal(part.prediction, small.predict(X_test))
        assert part.correlation.n_estimators == n
        for name in ("rho", "sigma2"):
            a, b = getattr(part.correlation, name), getattr(walked.correlation, name)
            assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12)
    brute = [np.mean(first_members(model, n, X, y).predict(X_test) != y_test)
             for n in range(1, n_trees + 1)]
    np.testing.assert_array_equal(whole.errors, brute)
    assert whole.first(n_trees + 1) is None and whole.first(0) is None


def test_only_a_classifier_forests_pass_gives_its_first_trees():
    X, y = numeric_data("regressor", n=300)
    forest = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    assert staged_errors(forest, X, y).first(3) is None
    X, y = numeric_data("classifier", n=300)
    boosted = GradientBoostingClassifier(n_estimators=5).fit(X, y)
    assert staged_errors(boosted, X, y).first(3) is None


def test_tree_correlation_of_constant_trees_is_undefined_and_their_variance_zero():
    """Stumps that cannot split (every bootstrap sample of one row) predict a constant:
    no correlation to measure, σ² exactly 0."""
    X, y = two_signals(60, seed=2)
    forest = RandomForestClassifier(n_estimators=5, max_samples=1, random_state=0).fit(X, y)
    found = tree_correlation(forest, two_signals(40, seed=3)[0])
    assert np.isnan(found.rho) and found.sigma2 == 0.0


def test_tree_correlation_formula_matches_the_forest_variance():
    """ρσ² + (1−ρ)σ²/B is the variance across rows of the averaged prediction when the
    trees' variances are equal; theirs differ a little (0.5% apart here), so allow 5%."""
    X, y = numeric_data("regressor", n=300)
    forest = RandomForestRegressor(n_estimators=40, random_state=0).fit(X, y)
    X_test, _ = numeric_data("regressor", n=300, seed=5)
    corr = tree_correlation(forest, X_test)
    assert corr.n_estimators == 40
    assert corr.ensemble_variance() == pytest.approx(forest.predict(X_test).var(), rel=0.05)
    assert corr.ensemble_variance(1) == pytest.approx(corr.sigma2)


def test_grid_axis_leaves_out_a_long_tail_and_nothing_else():
    """An axis stops at the 0.5 % quantile on a side whose values reach further than half
    the span between the two quantiles (a word count with a few huge values); a bell
    curve, a uniform column and a short table keep every value on the picture."""
    rng = np.random.default_rng(0)
    counts = np.concatenate([np.zeros(3000), rng.exponential(0.2, 1000), [6.0, 9.0, 32.5]])
    axis = grid_axis(counts, 50, margin=0.0)
    q_low, q_high = np.quantile(counts, [inspection.GRID_TAIL, 1 - inspection.GRID_TAIL])
    assert axis[0] == 0.0 and axis[-1] == pytest.approx(q_high)
    assert (counts > axis[-1]).sum() <= inspection.GRID_TAIL * len(counts) + 1  # few left out
    mirrored = grid_axis(-counts, 50, margin=0.0)
    assert mirrored[0] == pytest.approx(-q_high) and mirrored[-1] == 0.0
    for values in (rng.normal(size=5000), rng.uniform(size=5000),
                   np.array([1.0, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7, 8, 80])):  # 14 rows
        axis = grid_axis(values, 20, margin=0.0)
        assert (axis[0], axis[-1]) == (values.min(), values.max())
