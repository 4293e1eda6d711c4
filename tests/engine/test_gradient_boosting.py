"""Gradient boosting: loss gradients by finite differences, scikit-learn as oracle, spambase."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import GradientBoostingClassifier as SkGBC
from sklearn.ensemble import GradientBoostingRegressor as SkGBR

from engine.ensemble import _gradient_boosting as gb_module
from engine.ensemble._gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from engine.ensemble._losses import (
    AbsoluteError,
    BinomialLogLoss,
    HuberLoss,
    MultinomialLogLoss,
    SquaredError,
)
from engine.tree import DecisionTreeRegressor
from engine.tree._classes import RoundGrower

from ._grown import assert_same_tree, counting_preparations, mixed_frame, round_grower

REPO = Path(__file__).resolve().parents[2]


def _friedman():
    return make_friedman1(n_samples=500, random_state=0)  # continuous: no tied splits


def _sk_regressor(**params):
    # scikit-learn 1.9 grows its boosting trees with squared error whatever `criterion`
    # says (the parameter is deprecated and ignored), the criterion of our trees.
    return SkGBR(n_estimators=50, max_depth=3, random_state=0, **params)


@pytest.mark.parametrize("loss", [SquaredError(), AbsoluteError(), HuberLoss(0.9),
                                  BinomialLogLoss(), MultinomialLogLoss(3)])
def test_negative_gradient_matches_finite_differences(loss):
    rng = np.random.default_rng(0)
    n, K = 40, loss.n_scores
    S = rng.normal(size=(n, K))
    y = rng.integers(0, K if K > 1 else 2, n) if isinstance(
        loss, (BinomialLogLoss, MultinomialLogLoss)) else rng.normal(size=n)
    if isinstance(loss, HuberLoss):
        loss.set_delta(y, S, np.ones(n))
    # Each row's loss only depends on its own score: perturb one score at a time, scaled
    # by n because the loss is a mean. Squared error and binomial deviance are reported
    # at twice the scale of their gradients (scikit-learn's convention).
    scale = 2.0 if isinstance(loss, (SquaredError, BinomialLogLoss)) else 1.0
    h = 1e-6
    numeric = np.zeros((n, K))
    for k in range(K):
        step = np.zeros((n, K))
        step[:, k] = h
        for i in range(n):
            plus, minus = S.copy(), S.copy()
            plus[i, k] += h
            minus[i, k] -= h
            numeric[i, k] = n * (loss(y, plus, np.ones(n)) - loss(y, minus, np.ones(n))) / (2 * h)
    np.testing.assert_allclose(-numeric / scale, loss.negative_gradient(y, S), atol=1e-6)


def test_squared_error_train_score_matches_sklearn():
    X, y = _friedman()
    ours = GradientBoostingRegressor(n_estimators=50, max_depth=3).fit(X, y)
    sk = _sk_regressor().fit(X, y)
    np.testing.assert_allclose(ours.train_score_, sk.train_score_, rtol=1e-6)
    for a, b in zip(ours.staged_predict(X), sk.staged_predict(X), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    # Friedman #1: only the first five features matter.
    assert set(np.argsort(ours.feature_importances_)[-5:]) == {0, 1, 2, 3, 4}
    assert ours.feature_importances_.sum() == pytest.approx(1.0)


def test_huber_close_to_sklearn():
    X, y = _friedman()
    ours = GradientBoostingRegressor(loss="huber", n_estimators=50).fit(X, y)
    sk = _sk_regressor(loss="huber").fit(X, y)
    # Same trees, δ (lower weighted quantile) and leaf steps: equal up to rounding.
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)
    np.testing.assert_allclose(ours.train_score_, sk.train_score_, rtol=1e-9)


def test_absolute_error_close_to_sklearn():
    X, y = _friedman()
    ours = GradientBoostingRegressor(loss="absolute_error", n_estimators=50).fit(X, y)
    sk = _sk_regressor(loss="absolute_error").fit(X, y)
    assert ours.init_[0] == pytest.approx(sk.init_.constant_.ravel()[0])
    # Residuals are signs (±1), so many splits tie and the two libraries' tie rules pick
    # different trees: compare the fit, not the trees. Both losses within 3%, predictions
    # within a tenth of the target's spread on average.
    np.testing.assert_allclose(ours.train_score_, sk.train_score_, rtol=0.03)
    assert np.mean(np.abs(ours.predict(X) - sk.predict(X))) <= 0.1 * np.std(y)


@pytest.mark.parametrize("n_classes, seed", [(2, 0), (3, 3)])
def test_classifier_staged_proba_matches_sklearn(n_classes, seed):
    # Round-1 residuals take only K values, so equal-gain splits are easy to meet; these
    # seeds have none (scikit-learn breaks ties by a random feature order, we by index).
    X, y = make_classification(n_samples=500, n_features=6, n_informative=4,
                               n_classes=n_classes, random_state=seed)
    ours = GradientBoostingClassifier(n_estimators=30).fit(X, y)
    sk = SkGBC(n_estimators=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.train_score_, sk.train_score_, rtol=1e-9)
    for a, b in zip(ours.staged_predict_proba(X), sk.staged_predict_proba(X), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-9)


def test_staged_outputs_end_at_the_final_model():
    X, y = make_classification(n_samples=200, n_classes=3, n_informative=4, random_state=1)
    gb = GradientBoostingClassifier(n_estimators=12, subsample=0.7, random_state=0).fit(X, y)
    stages = list(gb.staged_predict(X))
    assert len(stages) == 12 and gb.estimators_.shape == (12, 3)
    np.testing.assert_array_equal(stages[-1], gb.predict(X))
    *_, proba = gb.staged_predict_proba(X)
    np.testing.assert_allclose(proba, gb.predict_proba(X))
    assert gb.oob_improvement_.shape == (12,)
    X, y = _friedman()
    reg = GradientBoostingRegressor(n_estimators=10).fit(X, y)
    *_, last = reg.staged_predict(X)
    np.testing.assert_allclose(last, reg.predict(X))
    # the pseudo-residuals: the first round fits y minus the mean
    residuals = list(reg.staged_pseudo_residuals(X, y))
    np.testing.assert_allclose(residuals[0][:, 0], y - y.mean())
    assert len(residuals) == 10 and residuals[0].shape == (len(y), 1)


def test_subsample_is_reproducible_and_differs_from_full():
    X, y = _friedman()
    a = GradientBoostingRegressor(n_estimators=10, subsample=0.5, random_state=4).fit(X, y)
    b = GradientBoostingRegressor(n_estimators=10, subsample=0.5, random_state=4).fit(X, y)
    c = GradientBoostingRegressor(n_estimators=10).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert not np.allclose(a.predict(X), c.predict(X))


def test_binned_regression_tree_is_the_tree_engines_tree():
    rng = np.random.default_rng(1)
    for _ in range(20):
        n, p = int(rng.integers(10, 200)), int(rng.integers(1, 6))
        X = np.round(rng.normal(size=(n, p)), int(rng.integers(0, 3)))
        r, w = rng.normal(size=n), rng.random(n) if rng.random() < 0.5 else np.full(n, 2.0)
        depth, leaf = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        template = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf)
        ours, leaves = round_grower(template, X).grow(r, w)
        ref = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf).fit(X, r, w).tree_
        assert_same_tree(ours.tree_, ref, exact=("children_left", "feature", "missing_child",
                                                 "n_node_samples", "parent"))
        np.testing.assert_array_equal(leaves, ref.apply(X))


def test_regression_trees_on_categories_and_gaps_are_the_tree_engines():
    """Categorical columns and missing values, searched exactly on rows prepared once:
    every round's tree is the tree engine's, on all rows or on a subsample's."""
    rng = np.random.default_rng(4)
    for n in (80, 300):
        X = mixed_frame(rng, n)
        for depth, leaf in ((2, 1), (3, 5)):
            grower = round_grower(DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf), X)
            assert grower.search is None  # not the binned search: the exact one
            for _round in range(3):
                r = rng.normal(size=n) + (X["colour"] == "red") * 2.0
                w = np.ones(n)
                rows = np.sort(rng.permutation(n)[:int(0.7 * n)]) if _round else np.arange(n)
                ours, leaves = grower.grow(r, w, rows)
                mask = np.zeros(n)
                mask[rows] = 1.0
                ref = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf).fit(X, r, w * mask)
                assert_same_tree(ours.tree_, ref.tree_)
                np.testing.assert_array_equal(leaves[rows], ref.apply(X)[rows])


def test_gradient_boosting_prepares_categories_and_gaps_once(monkeypatch):
    rng = np.random.default_rng(6)
    X = mixed_frame(rng, 200)
    y = np.where(X["size"] > 0.7, "big", "small")
    calls = counting_preparations(monkeypatch)
    gb = GradientBoostingClassifier(n_estimators=6, subsample=0.8, random_state=0).fit(X, y)
    assert gb.estimators_.shape == (6, 1)
    assert len(calls) == 1


def test_dense_scoring_of_equal_weights_grows_the_tree_engines_trees(monkeypatch):
    """Rows of equal weight in entry mode (every row its own value in most columns) are
    scored run by run against broadcast left weights, ties marked in the columns that
    have them: the trees are the exact search's, at every depth and leaf size."""
    from engine.tree import _search_binned

    scored = []
    dense = _search_binned._dense_scores
    monkeypatch.setattr(_search_binned, "_dense_scores",
                        lambda *args: scored.append(1) or dense(*args))
    rng = np.random.default_rng(7)
    n = 600
    X = np.column_stack([rng.normal(size=n), np.round(rng.normal(size=n), 1),
                         rng.normal(size=n), rng.integers(0, 40, n).astype(float)])
    r = X[:, 0] - X[:, 1] + np.sin(3 * X[:, 3]) + rng.normal(size=n)
    for depth, leaf, w in ((1, 1, 1.0), (4, 1, 1.0), (6, 7, 2.5), (5, 3, 1.0)):
        grower = round_grower(DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf), X)
        for rows in (np.arange(n), np.sort(rng.permutation(n)[:n // 2])):
            ours, leaves = grower.grow(r, np.full(n, w), rows)
            in_bag = np.zeros(n)
            in_bag[rows] = w
            ref = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf).fit(X, r, in_bag)
            assert_same_tree(ours.tree_, ref.tree_)
            np.testing.assert_array_equal(leaves[rows], ref.apply(X[rows]))
    assert len(scored) > 20


def test_binned_regression_trees_on_sparse_data_with_a_cache_are_the_tree_engines():
    """Mostly zeros (histograms that skip each column's common bin) and one cache across
    rounds with new residuals, as gradient boosting uses them."""
    rng = np.random.default_rng(4)
    for _ in range(6):
        n, p = int(rng.integers(40, 300)), int(rng.integers(2, 8))
        X = np.where(rng.random((n, p)) < 0.7, 0.0, rng.exponential(size=(n, p)))
        X[:, 0] = np.where(rng.random(n) < 0.8, -2.0, X[:, 0])  # a common bin that is not 0
        depth = int(rng.integers(1, 5))
        leaf = int(rng.integers(4, 8))  # no tiny nodes, where two columns may tie exactly
        w = np.ones(n) if rng.random() < 0.5 else rng.random(n)
        grower = round_grower(DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf), X)
        for _round in range(4):
            r = rng.normal(size=n)
            # every row, then a subsample (stochastic gradient boosting's in-bag rows)
            rows = np.arange(n) if _round % 2 == 0 else np.sort(rng.permutation(n)[:n * 2 // 3])
            ours, leaves = grower.grow(r, w, rows)
            in_bag = np.zeros(n)
            in_bag[rows] = 1.0
            ref = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf).fit(X, r, w * in_bag)
            assert_same_tree(ours.tree_, ref.tree_, exact=("children_left", "feature",
                                                           "missing_child", "n_node_samples",
                                                           "parent"))
            np.testing.assert_array_equal(leaves[rows], ref.apply(X[rows]))
            assert (leaves[np.setdiff1d(np.arange(n), rows)] == -1).all()


def test_binned_trees_with_few_valued_columns_searched_apart_are_the_tree_engines():
    """Coded columns of a few values beside continuous ones: the binned search sums the
    few-valued columns in slots and sorts the others' entries, two groups whose best
    cuts meet under one tie rule; every tree equals the exact search's."""
    from engine.tree import DecisionTreeClassifier

    rng = np.random.default_rng(7)
    n = 2_000
    coded = rng.integers(0, 4, size=(n, 3)).astype(float)
    X = np.column_stack([rng.normal(size=n), coded[:, :2], rng.normal(size=n), coded[:, 2]])
    y = (X[:, 0] + X[:, 1] - X[:, 4] + rng.normal(size=n) > 0.5).astype(int)
    for depth, leaf in ((1, 1), (3, 1), (3, 9)):
        grower = round_grower(DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf), X)
        assert [list(p.features) for p in grower.search.parts] == [[1, 2, 4], [0, 3]]
        for _round in range(3):
            r, w = rng.normal(size=n) + X[:, 1], rng.uniform(0.5, 2.0, n) if _round else np.ones(n)
            rows = np.arange(n) if _round < 2 else np.sort(rng.permutation(n)[:n // 2])
            ours, leaves = grower.grow(r, w, rows)
            in_bag = np.zeros(n)
            in_bag[rows] = 1.0
            ref = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf).fit(X, r, w * in_bag)
            assert_same_tree(ours.tree_, ref.tree_)
            np.testing.assert_array_equal(leaves[rows], ref.apply(X[rows]))
        template = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf)
        grower = round_grower(template, X, classes=np.array([0, 1]))
        for w in (np.ones(n), rng.uniform(0.1, 1.0, n)):
            ours, _ = grower.grow(y, w)
            ref = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf).fit(X, y, w)
            assert_same_tree(ours.tree_, ref.tree_)
    # both groups offer cuts: the trees split on coded and on continuous columns
    assert {0, 1, 4} <= set(ours.tree_.feature[ours.tree_.feature >= 0])


def test_dataframe_with_categories_is_boosted_on_the_boosters_encoding():
    """Text columns are grown round by round on the booster's own encoding (no tree
    encodes the frame again), and the trees read a new frame as the booster does."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=120), "c": rng.choice(["a", "b", "c"], 120)})
    y = frame["x"] + (frame["c"] == "b") * 3.0
    gb = GradientBoostingRegressor(n_estimators=30, max_depth=2).fit(frame, y)
    assert gb.estimators_[0, 0].encoder_ is gb.encoder_
    assert gb.score(frame, y) > 0.9
    shuffled = frame.sample(frac=1.0, random_state=1)[["c", "x"]]  # columns found by name
    np.testing.assert_allclose(gb.predict(shuffled), gb.predict(frame.loc[shuffled.index]))


@pytest.mark.slow
def test_spambase_error_at_most_5_5_percent():
    path = REPO / "sample_data" / "spambase.csv"
    frame = pd.read_csv(path if path.is_file() else REPO.parent / "shared" / "data" / "spambase.csv")
    X, y = frame.drop(columns="spam").to_numpy(), frame["spam"].to_numpy()
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:3065], order[3065:]
    gb = GradientBoostingClassifier(n_estimators=200, max_depth=4).fit(X[train], y[train])
    assert 1 - gb.score(X[test], y[test]) <= 0.055


@pytest.fixture(autouse=True)
def _quiet_sklearn_and_strict_numpy():
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("ignore", FutureWarning)
        yield


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber", "log_loss"])
def test_pseudo_residuals_are_what_each_rounds_tree_was_fitted_to(loss):
    """Refitting round t's tree to the pseudo-residuals at S_{t-1}, on the training rows,
    gives its structure (and, for squared error, its leaves; the other losses replace
    them by their own step): Huber's δ is the round's own."""
    X, y = _friedman()
    if loss == "log_loss":
        y = (y > np.median(y)).astype(int)
        model = GradientBoostingClassifier(n_estimators=6, max_depth=2, random_state=0)
    else:
        model = GradientBoostingRegressor(loss=loss, n_estimators=6, max_depth=2, random_state=0)
    model.fit(X, y)
    residuals = list(model.staged_pseudo_residuals(X, y))
    assert len(residuals) == 6
    for trees, r in zip(model.estimators_, residuals, strict=True):
        ref = DecisionTreeRegressor(max_depth=2).fit(X, r[:, 0])
        for field in ("feature", "threshold", "children_left", "n_node_samples"):
            np.testing.assert_array_equal(getattr(trees[0].tree_, field), getattr(ref.tree_, field))
        if loss == "squared_error":
            np.testing.assert_array_equal(trees[0].tree_.value, ref.tree_.value)
    if loss == "huber":
        assert len(np.unique(model.huber_deltas_)) > 1  # δ moves from round to round


def test_a_model_without_trees_has_zero_importances():
    """One class: nothing to boost, no tree, no split anywhere: every importance 0."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]])
    model = GradientBoostingClassifier(n_estimators=3).fit(X, ["a", "a", "a"])
    assert model.feature_importances_.tolist() == [0.0, 0.0]



def _stages_tree_by_tree(model, X) -> list[np.ndarray]:
    """The scores after each round by their definition: S_0, then each round's trees
    walked one at a time and added in order."""
    X_enc = model.encoder_.transform(X)
    S = np.tile(model.init_, (len(X_enc), 1))
    out = []
    for trees in model.estimators_:
        for k, tree in enumerate(trees):
            S[:, k] += model.learning_rate * tree.tree_.value[tree.apply(X), 0]
        out.append(S.copy())
    return out


@pytest.mark.parametrize("case", ["binary", "three classes", "regression", "categories, missing"])
def test_stages_walked_in_blocks_are_the_rounds_added_one_by_one(case):
    """The staged scores come from walks of several rounds' trees at once; each stage is
    the running sum tree by tree, to the bit, over block boundaries (19 rounds: blocks
    of 8, 8 and 3), and the staged classes are the staged probabilities' argmax."""
    from engine.inspection import staged_error_curve

    rng = np.random.default_rng(5)
    if case == "categories, missing":
        X = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(["a", "b", "c"], 300)})
        X.loc[rng.random(300) < 0.1, "x"] = np.nan
        y = np.where((X["x"].fillna(0) > 0) ^ (X["c"] == "b"), "yes", "no")
    else:
        X, y = make_classification(n_samples=400, n_features=6, n_informative=4,
                                   n_classes=3 if case == "three classes" else 2, random_state=2)
        if case == "regression":
            y = X[:, 0] * 2.0 + rng.normal(size=len(y))
    cls = GradientBoostingRegressor if case == "regression" else GradientBoostingClassifier
    model = cls(n_estimators=19, max_depth=2, random_state=0).fit(X, y)
    walked = list(model._raw_stages(X))
    assert len(walked) == 19
    for a, b in zip(walked, _stages_tree_by_tree(model, X), strict=True):
        np.testing.assert_array_equal(a, b)
    if case != "regression":
        labels = np.asarray(y)
        for codes, proba, stage in zip(model._staged_codes(X), model.staged_predict_proba(X),
                                       model.staged_predict(X), strict=True):
            np.testing.assert_array_equal(codes, np.argmax(proba, axis=1))
            np.testing.assert_array_equal(model.classes_[codes], stage)
        expected = [np.mean(stage != labels) for stage in model.staged_predict(X)]
        np.testing.assert_array_equal(staged_error_curve(model, X, y), expected)


def test_members_that_lost_their_shared_encoder_still_share_one_encoding(monkeypatch):
    """A model sent back from a worker process holds copies of its encoder, one per
    member (joblib pickles the array of members apart). The staged passes still encode X
    once and give the same stages; an encoder of other categories is not taken for it."""
    import copy

    from engine._validation import FeatureEncoder
    from engine.ensemble import AdaBoostClassifier

    X, y = make_classification(n_samples=300, n_features=5, random_state=3)
    gb = GradientBoostingClassifier(n_estimators=10, max_depth=2).fit(X, y)
    ada = AdaBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    before = [list(gb._raw_stages(X)), list(ada.staged_decision_function(X))]
    for model in (gb, ada):
        for member in model.estimators_.ravel() if model is gb else model.estimators_:
            member.encoder_ = copy.deepcopy(member.encoder_)
            assert member.encoder_ is not model.encoder_ and model.encoder_.encodes_as(member.encoder_)
    encoded = []
    transform = FeatureEncoder.transform
    monkeypatch.setattr(FeatureEncoder, "transform", lambda self, *a, **k: encoded.append(1)
                        or transform(self, *a, **k))
    after = [list(gb._raw_stages(X)), list(ada.staged_decision_function(X))]
    assert len(encoded) == 2  # once a pass, not once a member
    for a, b in zip(before, after, strict=True):
        for s, t in zip(a, b, strict=True):
            np.testing.assert_array_equal(s, t)
    other = FeatureEncoder().fit(pd.DataFrame({"a": ["x", "y"]}))
    assert not other.encodes_as(FeatureEncoder().fit(pd.DataFrame({"a": ["x", "z"]})))
    assert not other.encodes_as(FeatureEncoder().fit(pd.DataFrame({"b": ["x", "y"]})))
    assert other.encodes_as(FeatureEncoder().fit(pd.DataFrame({"a": ["y", "x"]})))


def _alike_table(rng, n: int = 12_000):
    """A large table whose rows repeat: a binned measurement, two few-valued columns (one
    with gaps, searched exactly), and a target of three classes that depends on them."""
    x = rng.normal(size=n)
    X = pd.DataFrame({"x": x, "level": rng.integers(0, 5, n).astype(float),
                      "gappy": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 3, n))})
    y = np.digitize(x + 0.5 * X["level"] + rng.normal(scale=0.5, size=n), [0.5, 1.5])
    return X, y


def _rounds(model) -> list:
    return [tree.tree_ for tree in model.estimators_.ravel()]


@pytest.mark.parametrize("case", ["binomial", "multinomial", "regression", "exact search"])
def test_distinct_rows_weighing_their_copies_grow_the_trees_of_every_row(case, monkeypatch):
    """Where many rows are alike, each round grows its tree on the distinct ones, each
    weighing its copies: the same trees (features, thresholds, row counts and weights
    per node) as on every row, and the same scores up to rounding."""
    rng = np.random.default_rng(5)
    X, y = _alike_table(rng)
    binning = "exact" if case == "exact search" else "quantile"
    columns = ["level", "gappy"] if case == "exact search" else ["x"]
    if case == "binomial":
        y = (y == 2).astype(int)
    cls = GradientBoostingRegressor if case == "regression" else GradientBoostingClassifier
    target = y.astype(float) if case == "regression" else y
    w = rng.integers(1, 4, len(y)).astype(float)
    params = dict(n_estimators=12, max_depth=4, learning_rate=0.3, binning=binning)
    grown_rows = []
    original = RoundGrower.grow

    def grow(self, target, weight, rows=None):
        grown_rows.append(len(weight))
        return original(self, target, weight, rows)
    monkeypatch.setattr(RoundGrower, "grow", grow)
    alike = cls(**params).fit(X[columns], target, sample_weight=w)
    assert max(grown_rows) <= 0.25 * len(y)  # grown on the distinct rows
    monkeypatch.setattr(gb_module, "ALIKE_MIN_ROWS", len(y) + 1)
    grown_rows.clear()
    every = cls(**params).fit(X[columns], target, sample_weight=w)
    assert min(grown_rows) == len(y)
    for ours, ref in zip(_rounds(alike), _rounds(every), strict=True):
        assert ours.n_node_samples[0] == len(y)
        assert_same_tree(ours, ref, exact=("children_left", "feature", "threshold", "missing_child",
                                           "n_node_samples", "parent"),
                         close=("weighted_n_node_samples", "impurity", "value"))
    score = "predict_proba" if cls is GradientBoostingClassifier else "predict"
    np.testing.assert_allclose(getattr(alike, score)(X[columns]), getattr(every, score)(X[columns]),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(alike.train_score_, every.train_score_, rtol=1e-9)
    np.testing.assert_allclose(alike.feature_importances_, every.feature_importances_, atol=1e-12)


@pytest.mark.parametrize("setting", [{"subsample": 0.5}, {"loss": "huber"}, {"loss": "absolute_error"},
                                     {"min_samples_leaf": 3}, {"min_samples_split": 5}, {"weights": 0}])
def test_rows_are_grown_one_by_one_where_copies_would_change_the_trees(setting, monkeypatch):
    """A subsample draws rows, a median weighs each row on its own, and a leaf or split
    size counts rows: there every row is grown, however many are alike."""
    rng = np.random.default_rng(6)
    X, y = _alike_table(rng)
    w = np.ones(len(y))
    if setting.pop("weights", None) == 0:
        w[::7] = 0.0
    calls = []
    monkeypatch.setattr(gb_module, "alike_rows", lambda *a: calls.append(a))
    GradientBoostingRegressor(n_estimators=2, binning="quantile", **setting).fit(
        X[["x"]], y.astype(float), sample_weight=w)
    assert calls == []


def test_alike_rows_are_the_groups_of_equal_rows():
    """Against a dictionary of the rows seen: groups in the order of their first rows,
    gaps alike, and None where too many rows are distinct."""
    rng = np.random.default_rng(7)
    values = rng.integers(0, 3, size=(2, 400)).astype(float)
    values[0, rng.random(400) < 0.2] = np.nan
    target = rng.integers(0, 2, 400)
    first, group, size = gb_module.alike_rows(values, target)
    seen: dict = {}
    for i, row in enumerate(zip(*np.nan_to_num(values, nan=-1.0), target, strict=True)):
        seen.setdefault(row, []).append(i)
    groups = sorted(seen.values())
    np.testing.assert_array_equal(first, [g[0] for g in groups])
    np.testing.assert_array_equal(size, [len(g) for g in groups])
    for number, rows in enumerate(groups):
        np.testing.assert_array_equal(group[rows], number)
    assert gb_module.alike_rows(rng.normal(size=(1, 400)), target) is None
