"""AdaBoost: Freund & Schapire's formulas by hand, scikit-learn's SAMME as oracle, spambase."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.tree import DecisionTreeClassifier as SkTree

from engine.ensemble._weight_boosting import AdaBoostClassifier
from engine.tree import DecisionTreeClassifier

from ._grown import EXACT, assert_same_tree, counting_preparations, mixed_frame, round_grower

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise"):
        yield


def _three_classes():
    # Continuous features with no repeated values: stumps have no tied splits here.
    return make_classification(n_samples=300, n_features=5, n_informative=3, n_redundant=0,
                               n_classes=3, random_state=0)


def _sklearn_round_weights(sk, X, y) -> np.ndarray:
    """scikit-learn's normalised sample weights of every round, rebuilt from its stumps:
    SAMME multiplies misclassified weights by exp(weight) and renormalises."""
    alpha = np.full(len(y), 1.0 / len(y))
    rows = []
    for stump, weight in zip(sk.estimators_, sk.estimator_weights_, strict=True):
        rows.append(alpha)
        alpha = alpha * np.exp(weight * (stump.predict(X) != y))
        alpha = alpha / alpha.sum()
    return np.array(rows)


@pytest.mark.parametrize("data", ["breast_cancer", "three_classes"])
def test_matches_sklearn_samme(data):
    X, y = load_breast_cancer(return_X_y=True) if data == "breast_cancer" else _three_classes()
    ours = AdaBoostClassifier(n_estimators=40).fit(X, y)
    sk = SkAdaBoost(SkTree(max_depth=1), n_estimators=40, random_state=0).fit(X, y)
    # scikit-learn visits features in a random order, so tied splits could differ; on
    # these data the stumps coincide every round (checked here first), so the rest must
    # agree to rounding.
    assert [s.tree_.feature[0] for s in ours.estimators_] == [s.tree_.feature[0] for s in sk.estimators_]
    np.testing.assert_allclose([s.tree_.threshold[0] for s in ours.estimators_],
                               [s.tree_.threshold[0] for s in sk.estimators_], rtol=1e-6)
    np.testing.assert_allclose(ours.estimator_weights_, sk.estimator_weights_ / 2, rtol=1e-10)
    np.testing.assert_allclose(ours.estimator_errors_, sk.estimator_errors_, rtol=1e-10)
    np.testing.assert_allclose(ours.sample_weights_, _sklearn_round_weights(sk, X, y), rtol=1e-9)
    for a, b in zip(ours.staged_predict(X), sk.staged_predict(X), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(ours.staged_predict_proba(X), sk.staged_predict_proba(X), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, sk.feature_importances_, atol=1e-10)


def test_sample_weights_sum_to_one_each_round():
    X, y = _three_classes()
    ada = AdaBoostClassifier(n_estimators=25).fit(X, y)
    assert ada.sample_weights_.shape == (25, len(y))
    np.testing.assert_allclose(ada.sample_weights_.sum(axis=1), 1.0, rtol=1e-12)
    assert math.isclose(ada.final_sample_weight_.sum(), 1.0, rel_tol=1e-12)


@pytest.mark.parametrize("case", ["uniform", "weighted", "perfect"])
def test_replayed_weights_are_those_each_learner_was_fitted_with(case, monkeypatch):
    """The model keeps no rounds × rows weights: ``staged_sample_weights`` replays them,
    and they are the very arrays the fit handed each round's learner, to the bit."""
    X, y = _three_classes()
    weight, rate, rounds = None, 0.7, 20
    if case == "weighted":
        weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    if case == "perfect":  # the third round's learner gets every row right: boosting stops
        X, y, rate, rounds = X[:, :1], (X[:, 0] > 0).astype(int), 1.0, 10
    fitted_with = []
    real = AdaBoostClassifier._round_fitter

    def recording(self, *args):
        fit_round = real(self, *args)
        return lambda alpha: (fitted_with.append(alpha.copy()), fit_round(alpha))[1]

    monkeypatch.setattr(AdaBoostClassifier, "_round_fitter", recording)
    ada = AdaBoostClassifier(n_estimators=rounds, learning_rate=rate).fit(X, y, sample_weight=weight)
    assert len(fitted_with) == len(ada.estimators_) >= 1
    if case == "perfect":
        assert ada.estimator_errors_[-1] == 0.0 and len(ada.estimators_) < rounds
    replayed = list(ada.staged_sample_weights())
    assert len(replayed) == len(fitted_with)
    for mine, theirs in zip(replayed, fitted_with, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(ada.sample_weights_, np.array(fitted_with))
    assert "sample_weights_" not in vars(ada)  # nothing of rounds × rows floats is kept


@pytest.mark.parametrize("depth", [1, 2])
def test_training_misses_are_each_learners_wrong_rows(depth):
    """The rows each kept round's learner got wrong, as the fit weighed them, are the
    rows its own prediction gets wrong; their weighted share is ε_t."""
    X, y = _three_classes()
    ada = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=depth),
                             n_estimators=15).fit(X, y)
    assert ada.training_misses_.shape == (len(ada.estimators_), len(y))
    for t, predicted in enumerate(ada.learner_predictions(X)):
        np.testing.assert_array_equal(ada.training_misses_[t], predicted != y)
        alpha = ada.sample_weights_[t]
        assert math.isclose(alpha[ada.training_misses_[t]].sum() / alpha.sum(),
                            ada.estimator_errors_[t], rel_tol=1e-12)


def test_hand_worked_six_points():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    y = np.array([1, 1, -1, -1, 1, 1])
    ada = AdaBoostClassifier(n_estimators=3).fit(X, y)
    # Round 1 by hand: any stump misses 2 of 6 equally weighted points.
    assert math.isclose(ada.estimator_errors_[0], 2 / 6)
    assert math.isclose(ada.estimator_weights_[0], 0.5 * math.log((1 - 1 / 3) / (1 / 3)))  # ½ ln 2
    alpha = [1 / 6] * 6
    for t, stump in enumerate(ada.estimators_):
        assert np.allclose(ada.sample_weights_[t], alpha)
        miss = [bool(p != yi) for p, yi in zip(stump.predict(X), y, strict=True)]
        error = sum(a for a, m in zip(alpha, miss, strict=True) if m) / sum(alpha)  # weighted error
        w_hat = 0.5 * math.log((1 - error) / error)  # model weight
        assert math.isclose(ada.estimator_errors_[t], error, rel_tol=1e-12)
        assert math.isclose(ada.estimator_weights_[t], w_hat, rel_tol=1e-12)
        alpha = [a * math.exp(w_hat if m else -w_hat) for a, m in zip(alpha, miss, strict=True)]
        alpha = [a / sum(alpha) for a in alpha]  # normalised
    assert np.allclose(ada.final_sample_weight_, alpha)
    # After round 1 the two missed points hold half the weight: 2·(1/6)e^{ŵ} = 4·(1/6)e^{-ŵ}.
    missed = ada.sample_weights_[1][ada.estimators_[0].predict(X) != y]
    assert math.isclose(missed.sum(), 0.5, rel_tol=1e-12)
    # The prediction: the sign of Σ ŵ_t f_t(x).
    vote = sum(w * stump.predict(X) for w, stump in zip(ada.estimator_weights_, ada.estimators_,
                                                         strict=True))
    np.testing.assert_array_equal(ada.predict(X), np.where(vote > 0, 1, -1))


def test_perfect_first_round_stops_with_half_weight():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    ada = AdaBoostClassifier(n_estimators=10).fit(X, y)
    sk = SkAdaBoost(SkTree(max_depth=1), n_estimators=10).fit(X, y)
    assert len(ada.estimators_) == 1 and len(sk.estimators_) == 1
    assert ada.estimator_weights_.tolist() == [0.5] and sk.estimator_weights_[0] == 1.0
    assert ada.estimator_errors_.tolist() == [0.0]
    np.testing.assert_array_equal(ada.predict(X), y)


def test_worse_than_chance_first_learner_raises():
    X = np.zeros((4, 1))  # no split possible: the stump predicts one class, error 1/2
    with pytest.raises(ValueError, match="no better than chance"):
        AdaBoostClassifier(n_estimators=3).fit(X, [0, 1, 0, 1])


def test_staged_outputs_end_at_the_final_model():
    X, y = _three_classes()
    ada = AdaBoostClassifier(n_estimators=15, learning_rate=0.5).fit(X, y)
    *_, last = ada.staged_predict(X)
    np.testing.assert_array_equal(last, ada.predict(X))
    *_, last_proba = ada.staged_predict_proba(X)
    np.testing.assert_allclose(last_proba, ada.predict_proba(X))
    scores = list(ada.staged_score(X, y))
    assert len(scores) == 15
    assert math.isclose(scores[-1], ada.score(X, y))


def test_binned_stump_is_the_tree_engines_stump():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n, p = int(rng.integers(10, 200)), int(rng.integers(1, 6))
        X = np.round(rng.normal(size=(n, p)), int(rng.integers(0, 3)))  # ties at times
        y, w = rng.integers(0, 3, n), rng.random(n)
        depth, leaf = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        template = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf)
        ours, leaves = round_grower(template, X, np.unique(y)).grow(np.unique(y, return_inverse=True)[1], w)
        ref = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf).fit(X, y, w).tree_
        assert_same_tree(ours.tree_, ref)
        np.testing.assert_array_equal(leaves, ref.apply(X))


def test_binned_trees_on_sparse_data_with_a_cache_are_the_tree_engines():
    """Mostly zeros (histograms that skip each column's common bin) and one cache across
    rounds, as AdaBoost uses them: every round's tree is the tree engine's."""
    rng = np.random.default_rng(3)
    for _ in range(6):
        n, p = int(rng.integers(40, 300)), int(rng.integers(2, 8))
        X = np.where(rng.random((n, p)) < 0.7, 0.0, rng.exponential(size=(n, p)))
        X[:, 0] = np.where(rng.random(n) < 0.8, 1.5, X[:, 0])  # a common bin that is not 0
        K = int(rng.integers(2, 4))
        y = rng.integers(0, K, n)
        depth = int(rng.integers(1, 4))
        leaf = int(rng.integers(4, 8))  # no tiny nodes, where two columns may tie exactly
        template = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf)
        grower = round_grower(template, X, np.arange(K))
        for _round in range(4):
            w = rng.exponential(size=n)  # uneven weights, as after a few rounds
            ours, leaves = grower.grow(y, w)
            np.testing.assert_array_equal(leaves, ours.tree_.apply(X))
            ref = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf).fit(X, y, w).tree_
            assert_same_tree(ours.tree_, ref)


def test_a_kept_histogram_root_searches_only_cuts_next_to_a_class_change():
    """Slots summed at the root, every leaf size allowed: the root kept across rounds
    holds only the cuts next to a class change, and every round's tree is still the
    tree engine's (ties included: the values are rounded, so many cuts tie)."""
    rng = np.random.default_rng(11)
    for K in (2, 3):
        n, p = 300, 5
        X = np.where(rng.random((n, p)) < 0.6, 0.0, np.round(rng.exponential(size=(n, p)), 1))
        y = np.where(X[:, 0] + X[:, 1] > 1.0, K - 1, rng.integers(0, K, n))
        for depth in (1, 3):
            grower = round_grower(DecisionTreeClassifier(max_depth=depth), X, np.arange(K))
            for _round in range(4):
                w = np.full(n, 1.0) if _round == 0 else rng.exponential(size=n)
                ours, leaves = grower.grow(y, w)
                ref = DecisionTreeClassifier(max_depth=depth).fit(X, y, w).tree_
                assert_same_tree(ours.tree_, ref)
                np.testing.assert_array_equal(leaves, ref.apply(X))
            root = grower.search.parts[0]._root[1]
            assert root.hist is not None  # slots, not entries
            assert len(root.cut) < len(root.sel) - p  # some cuts inside one class went


def test_binned_trees_on_continuous_data_with_a_cache_are_the_tree_engines():
    """Continuous columns (the root's entries sorted, kept across rounds, each class's
    weights summed on its own entries): every round's tree is the tree engine's, for
    two to four classes, one of them rare."""
    rng = np.random.default_rng(5)
    for K in (2, 3, 4):
        n, p = 400, 4
        X = rng.normal(size=(n, p))
        y = np.minimum(rng.integers(0, K, n), (X[:, 0] > 1.8) * K + K - 1 - (X[:, 1] > 0))
        classes = np.unique(y)
        codes = np.searchsorted(classes, y)
        for depth in (1, 2):
            grower = round_grower(DecisionTreeClassifier(max_depth=depth), X, classes)
            for _round in range(3):
                w = np.full(n, 1.0 / n) if _round == 0 else rng.exponential(size=n)
                ours, leaves = grower.grow(codes, w)
                ref = DecisionTreeClassifier(max_depth=depth).fit(X, y, w).tree_
                assert_same_tree(ours.tree_, ref)
                np.testing.assert_array_equal(leaves, ref.apply(X))
            part = grower.search.parts[0]
            assert part._root_classes is not None  # the continuous root took that path


def test_trees_on_categories_and_gaps_grown_round_by_round_are_the_tree_engines():
    """Categorical columns and missing values: the rows are prepared once and searched
    exactly every round; each round's tree is the tree engine's, whatever the criterion,
    the categorical split, quantile bins, or rows of zero weight left out."""
    rng = np.random.default_rng(7)
    settings = [{"max_depth": 2}, {"max_depth": 3, "criterion": "entropy"},
                {"max_depth": 2, "categorical_split": "multiway"},
                {"max_depth": 2, "binning": "quantile", "max_bins": 6}]
    for n in (60, 250):
        X = mixed_frame(rng, n)
        y = np.where(X["colour"].isin(["red", "grey"]) ^ (X["size"] > 1.0), "yes", "no")
        y = np.where(rng.random(n) < 0.1, "maybe", y)
        classes, codes = np.unique(y, return_inverse=True)
        for params in settings:
            grower = round_grower(DecisionTreeClassifier(**params), X, classes)
            assert grower.search is None  # not the binned search: the exact one
            for _round in range(3):
                w = rng.exponential(size=n)
                if "binning" not in params:  # (bins are the rows', zero weights or not)
                    w[rng.random(n) < 0.1] = 0.0
                ours, leaves = grower.grow(codes, w)
                ref = DecisionTreeClassifier(**params).fit(X, y, w)
                assert_same_tree(ours.tree_, ref.tree_,
                                 exact=(*EXACT, "category_count", "category_children",
                                        "unseen_child"))
                grown = w > 0
                np.testing.assert_array_equal(leaves[grown], ref.apply(X)[grown])
                assert (leaves[~grown] == -1).all()


def test_boosting_prepares_categories_and_gaps_once(monkeypatch):
    """A round on a table the binned search does not serve costs a tree's search, not
    a tree's fit: the rows are presorted and coded once for every round."""
    rng = np.random.default_rng(2)
    X = mixed_frame(rng, 200)
    y = np.where((X["size"] > 0.7) ^ (rng.random(200) < 0.2), "big", "small")  # no perfect learner
    calls = counting_preparations(monkeypatch)
    ada = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=2), n_estimators=8,
                             random_state=0).fit(X, y)
    assert len(ada.estimators_) == 8
    assert len(calls) == 1


def test_any_estimator_falls_back_to_its_own_fit():
    X, y = load_breast_cancer(return_X_y=True)
    fast = AdaBoostClassifier(n_estimators=10).fit(X, y)
    slow = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1, max_bins=None),
                              n_estimators=10).fit(X, y)
    np.testing.assert_allclose(fast.estimator_weights_, slow.estimator_weights_, rtol=1e-10)
    np.testing.assert_array_equal(fast.predict(X), slow.predict(X))


def _spambase_split():
    path = REPO / "sample_data" / "spambase.csv"
    frame = pd.read_csv(path if path.is_file() else REPO.parent / "shared" / "data" / "spambase.csv")
    X, y = frame.drop(columns="spam").to_numpy(), frame["spam"].to_numpy()
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:3065], order[3065:]
    return X[train], y[train], X[test], y[test]


@pytest.mark.slow
def test_spambase_400_stumps_error_at_most_6_5_percent():
    X, y, X_test, y_test = _spambase_split()
    ada = AdaBoostClassifier(n_estimators=400).fit(X, y)
    assert 1 - ada.score(X_test, y_test) <= 0.065
