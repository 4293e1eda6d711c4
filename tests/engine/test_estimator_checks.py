"""The generic estimator checks of STYLE.md, run over every estimator in ``ESTIMATORS``.

To cover a new model, append a :class:`Case` to ``ESTIMATORS`` (a factory returning a fresh
unfitted estimator, its kind, and whether an integer sample weight acts exactly like copies
of the row). Every check then runs on it; checks that only make sense for classifiers run
over ``CLASSIFIERS``.
"""
from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from engine._validation import encode_labels
from engine.base import BaseEstimator, NotFittedError, clone
from engine.metrics import accuracy_score, r2_score
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor


@dataclass(frozen=True)
class Case:
    """One estimator configuration under test."""

    name: str
    factory: Callable[[], BaseEstimator]
    kind: str  # "classifier" or "regressor"
    # A weight of k fits the same model as k copies of the row. False for randomised fits
    # (random draws are per row) and for row-count rules such as min_samples_leaf=3
    # (copies are counted as rows, weights are not; scikit-learn's convention too).
    weights_as_copies: bool = True
    # How much higher column k of predict_proba must be, on average, on rows of class k.
    proba_margin: float = 0.2
    # False for models of numeric columns only (GaussianNB, MultinomialNB, BernoulliNB
    # refuse string categories by design): the checks fed with the mixed frame of string
    # categories are skipped for them; test_numeric_only_* checks their numeric frame.
    categorical_frames: bool = True

    def __str__(self) -> str:
        return self.name


ESTIMATORS: list[Case] = [
    Case("tree-gini", lambda: DecisionTreeClassifier(random_state=0), "classifier"),
    Case("tree-entropy-depth3",
         lambda: DecisionTreeClassifier(criterion="entropy", max_depth=3), "classifier"),
    Case("tree-misclassification-multiway",
         lambda: DecisionTreeClassifier(criterion="misclassification", categorical_split="multiway"),
         "classifier"),
    Case("tree-gain-ratio-leaf3",
         lambda: DecisionTreeClassifier(criterion="gain_ratio", min_samples_leaf=3), "classifier",
         weights_as_copies=False),
    Case("tree-max-features-2",
         lambda: DecisionTreeClassifier(max_features=2, random_state=3), "classifier",
         weights_as_copies=False),
    Case("tree-max-leaf-nodes-5",
         lambda: DecisionTreeClassifier(max_leaf_nodes=5, ccp_alpha=0.001), "classifier"),
    Case("tree-entropy-chi2-pruned",
         lambda: DecisionTreeClassifier(criterion="entropy", chi2_alpha=0.05), "classifier"),
    Case("tree-regressor", lambda: DecisionTreeRegressor(random_state=0), "regressor"),
    Case("tree-regressor-depth3-leaf2",
         lambda: DecisionTreeRegressor(max_depth=3, min_samples_leaf=2), "regressor",
         weights_as_copies=False),
]

# Bagging and forests: bootstrap draws are per row, so weights are not copies.
from engine.ensemble import (  # noqa: E402
    BaggingClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)

ESTIMATORS += [
    Case("bagging-trees", lambda: BaggingClassifier(n_estimators=5, random_state=0),
         "classifier", weights_as_copies=False),
    # Without bootstrap every member sees every row once: weights act as copies again.
    Case("bagging-no-bootstrap",
         lambda: BaggingClassifier(n_estimators=3, bootstrap=False, random_state=0), "classifier"),
    Case("forest-classifier-oob",
         lambda: RandomForestClassifier(n_estimators=10, oob_score=True, random_state=0),
         "classifier", weights_as_copies=False),
    Case("forest-classifier-multiway-entropy",
         lambda: RandomForestClassifier(n_estimators=8, criterion="entropy",
                                        categorical_split="multiway", random_state=1),
         "classifier", weights_as_copies=False),
    Case("forest-regressor-oob",
         lambda: RandomForestRegressor(n_estimators=10, oob_score=True, random_state=0),
         "regressor", weights_as_copies=False),
]


# Boosting (AdaBoost, gradient boosting).
from engine.ensemble import (  # noqa: E402
    AdaBoostClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
)

ESTIMATORS += [
    # SAMME's probabilities are a softmax of the normalised vote / (K - 1), so they stay
    # near 1/K by construction (scikit-learn's too; test_adaboost checks ours equal
    # scikit-learn's): only the direction is checked here, with a small margin.
    Case("adaboost-stumps", lambda: AdaBoostClassifier(n_estimators=20, random_state=0),
         "classifier", proba_margin=0.01),
    Case("gradient-boosting-classifier",
         lambda: GradientBoostingClassifier(n_estimators=20, random_state=0), "classifier"),
    Case("gradient-boosting-classifier-subsample",
         lambda: GradientBoostingClassifier(n_estimators=15, subsample=0.8, random_state=0),
         "classifier", weights_as_copies=False),
    # Weighted means of copies and of weights differ in the last bit, and boosting sums them.
    Case("gradient-boosting-regressor",
         lambda: GradientBoostingRegressor(n_estimators=30, random_state=0), "regressor",
         weights_as_copies=False),
    # Unweighted medians average the middle pair, weighted ones take the lower value
    # (scikit-learn's convention): integer weights are then not exactly copies.
    Case("gradient-boosting-huber",
         lambda: GradientBoostingRegressor(loss="huber", n_estimators=20), "regressor",
         weights_as_copies=False),
    Case("gradient-boosting-absolute-error",
         lambda: GradientBoostingRegressor(loss="absolute_error", n_estimators=20, max_depth=2),
         "regressor", weights_as_copies=False),
]


# Naive Bayes: every count, mean and variance is weighted, so weights act as copies.
from engine.naive_bayes import (  # noqa: E402
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
)

NUMERIC_OFFSET = 6.0  # numeric_data's features are N(6, 1): counts for MultinomialNB

ESTIMATORS += [
    Case("naive-bayes-mixed", lambda: MixedNB(), "classifier"),
    # Bin edges are quantiles of the rows: copies move them, weights do not.
    Case("naive-bayes-mixed-binned-mle", lambda: MixedNB(numeric="binned", alpha=0),
         "classifier", weights_as_copies=False),
    Case("naive-bayes-categorical", lambda: CategoricalNB(), "classifier"),
    Case("naive-bayes-gaussian", lambda: GaussianNB(), "classifier", categorical_frames=False),
    # A multinomial model sees only each row's shares of its total count, which four
    # N(6, 1) features barely move: its posteriors stay within 0.01 of 1/3, so only the
    # direction is checked (test_naive_bayes compares it with scikit-learn to 1e-9).
    Case("naive-bayes-multinomial", lambda: MultinomialNB(), "classifier",
         categorical_frames=False, proba_margin=0.0),
    # Present = above the mean: one bit per feature keeps part of the signal.
    Case("naive-bayes-bernoulli", lambda: BernoulliNB(binarize=NUMERIC_OFFSET), "classifier",
         categorical_frames=False, proba_margin=0.05),
]


CLASSIFIERS = [c for c in ESTIMATORS if c.kind == "classifier"]
WEIGHTS_AS_COPIES = [c for c in ESTIMATORS if c.weights_as_copies]


def _ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


all_cases = pytest.mark.parametrize("case", ESTIMATORS, ids=_ids(ESTIMATORS))
classifier_cases = pytest.mark.parametrize("case", CLASSIFIERS, ids=_ids(CLASSIFIERS))
weights_as_copies_cases = pytest.mark.parametrize("case", WEIGHTS_AS_COPIES,
                                                  ids=_ids(WEIGHTS_AS_COPIES))


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    """Overflow, 0/0 and x/0 fail the test instead of slipping through as inf or NaN
    (underflow, IEEE's gradual rounding towards 0, stays silent)."""
    with np.errstate(all="raise", under="ignore"):
        yield


# --------------------------------------------------------------------------- data


def numeric_data(kind: str, n: int = 160, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Four numeric features; three classes (or a smooth target) that depend on two.

    The features are N(NUMERIC_OFFSET, 1), positive, so count models (MultinomialNB) take
    them too; every other model is unchanged by the shift.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    signal = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    X = X + NUMERIC_OFFSET
    if kind == "regressor":
        return X, signal
    return X, np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))


def mixed_frame(kind: str, n: int = 160, seed: int = 1) -> tuple[pd.DataFrame, pd.Series]:
    """Numeric columns with NaN, string categories with missing values, a string target."""
    rng = np.random.default_rng(seed)
    size = rng.normal(size=n)
    weight = rng.uniform(0, 10, size=n)
    weight[rng.random(n) < 0.15] = np.nan
    colour = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=n)
    colour[rng.random(n) < 0.1] = None
    shape = rng.choice(np.array(["round", "square"], dtype=object), size=n)
    X = pd.DataFrame({"size": size, "weight": weight, "colour": colour, "shape": shape})
    score = size + (colour == "red") * 1.5 - (shape == "square") + 0.3 * rng.normal(size=n)
    if kind == "regressor":
        return X, pd.Series(score, name="target")
    return X, pd.Series(np.where(score > 0.3, "yes", "no"), name="target")


def fitted(case: Case, X=None, y=None, **fit_kwargs):
    if X is None:
        X, y = numeric_data(case.kind)
    return case.factory().fit(X, y, **fit_kwargs)


def learned_arrays(model) -> dict[str, np.ndarray]:
    """Every array that describes a fitted model: its tree(s) and fitted attributes."""
    arrays = {}
    trees = [("tree_", model.tree_)] if hasattr(model, "tree_") else []
    trees += [(f"estimators_[{i}].tree_", e.tree_)
              for i, e in enumerate(getattr(model, "estimators_", [])) if hasattr(e, "tree_")]
    for prefix, tree in trees:
        for f in dataclasses.fields(tree):
            arrays[f"{prefix}.{f.name}"] = np.asarray(getattr(tree, f.name))
    for name in ("classes_", "feature_importances_"):
        if hasattr(model, name):
            arrays[name] = np.asarray(getattr(model, name))
    return arrays


def assert_same_arrays(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


# --------------------------------------------------------------------------- every estimator


@all_cases
def test_fit_returns_self(case):
    X, y = numeric_data(case.kind)
    model = case.factory()
    assert model.fit(X, y) is model


@all_cases
def test_fitted_attributes(case):
    X, y = mixed_frame(case.kind)
    model = fitted(case, X, y)
    assert model.n_features_in_ == 4
    assert list(model.feature_names_in_) == ["size", "weight", "colour", "shape"]
    if case.kind == "classifier":
        assert model.classes_.tolist() == ["no", "yes"] and model.n_classes_ == 2
    Xa, ya = numeric_data(case.kind)
    assert list(fitted(case, Xa, ya).feature_names_in_) == ["x0", "x1", "x2", "x3"]


@all_cases
def test_inputs_not_mutated(case):
    X, y = mixed_frame(case.kind)
    X_before, y_before = X.copy(deep=True), y.copy(deep=True)
    w = np.linspace(0.5, 2.0, len(y))
    w_before = w.copy()
    model = fitted(case, X, y, sample_weight=w)
    model.predict(X)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)
    np.testing.assert_array_equal(w, w_before)
    Xa, ya = numeric_data(case.kind)
    Xa_before, ya_before = Xa.copy(), ya.copy()
    fitted(case, Xa, ya).predict(Xa)
    np.testing.assert_array_equal(Xa, Xa_before)
    np.testing.assert_array_equal(ya, ya_before)


@all_cases
def test_same_seed_same_model(case):
    X, y = mixed_frame(case.kind)
    a, b = fitted(case, X, y), fitted(case, X, y)
    assert_same_arrays(learned_arrays(a), learned_arrays(b))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@all_cases
def test_clone_is_unfitted_with_equal_params(case):
    model = fitted(case)
    copy_ = clone(model)
    assert type(copy_) is type(model)
    assert copy_.get_params() == case.factory().get_params()
    assert not [k for k in vars(copy_) if k.endswith("_") and not k.startswith("__")]
    with pytest.raises(NotFittedError):
        copy_.predict(numeric_data(case.kind)[0])


@all_cases
def test_pickle_round_trip(case):
    X, y = mixed_frame(case.kind)
    model = fitted(case, X, y)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
    assert_same_arrays(learned_arrays(restored), learned_arrays(model))


@all_cases
def test_get_set_params_round_trip(case):
    model = case.factory()
    params = model.get_params()
    assert model.set_params(**params) is model
    assert model.get_params() == params
    name = sorted(model.get_params(deep=False))[0]
    other = {**copy.deepcopy(params), name: "changed"}
    model.set_params(**{name: "changed"})
    assert model.get_params() == other
    with pytest.raises(ValueError, match="no_such_parameter"):
        model.set_params(no_such_parameter=1)


@all_cases
def test_init_only_stores_params(case):
    model = case.factory()
    assert set(vars(model)) == set(model.get_params(deep=False))
    assert repr(model).startswith(type(model).__name__ + "(")


@all_cases
def test_dataframe_with_categories_and_nan(case):
    X, y = mixed_frame(case.kind)
    model = fitted(case, X, y)
    new = X.head(6).copy()
    new.loc[new.index[0], "colour"] = "purple"  # a category never seen in training
    new.loc[new.index[1], "size"] = np.nan
    new.loc[new.index[2], "shape"] = None
    pred = model.predict(new)
    assert pred.shape == (6,)
    if case.kind == "classifier":
        assert set(pred) <= {"no", "yes"}
        _check_proba(model.predict_proba(new), 2)
    else:
        assert np.isfinite(pred).all()


@all_cases
def test_columns_are_matched_by_name(case):
    X, y = mixed_frame(case.kind)
    model = fitted(case, X, y)
    shuffled = X[["shape", "size", "colour", "weight"]]
    np.testing.assert_array_equal(model.predict(shuffled), model.predict(X))
    with pytest.raises(ValueError, match="colour"):
        model.predict(X.drop(columns=["colour"]))


@all_cases
def test_predict_before_fit_raises(case):
    X, _ = numeric_data(case.kind)
    with pytest.raises(NotFittedError):
        case.factory().predict(X)


@all_cases
def test_score(case):
    X, y = mixed_frame(case.kind)
    model = fitted(case, X, y)
    X_test, y_test = mixed_frame(case.kind, seed=9)
    metric = accuracy_score if case.kind == "classifier" else r2_score
    assert model.score(X_test, y_test) == pytest.approx(metric(y_test, model.predict(X_test)))


@weights_as_copies_cases
def test_integer_weights_equal_repeated_rows(case):
    """A weight of k is k copies of the row: how bootstrap counts reach the tree code."""
    X, y = numeric_data(case.kind, n=90)
    w = np.random.default_rng(5).integers(1, 4, size=len(y))
    weighted = fitted(case, X, y, sample_weight=w)
    repeated = fitted(case, np.repeat(X, w, axis=0), np.repeat(y, w))
    X_test, _ = numeric_data(case.kind, seed=11)
    np.testing.assert_array_equal(weighted.predict(X_test), repeated.predict(X_test))


@all_cases
def test_unit_weights_equal_no_weights(case):
    X, y = mixed_frame(case.kind)
    a = fitted(case, X, y)
    b = fitted(case, X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# --------------------------------------------------------------------------- classifiers


def _check_proba(proba: np.ndarray, n_classes: int) -> None:
    assert proba.shape[1] == n_classes
    assert np.isfinite(proba).all()
    assert ((proba >= 0) & (proba <= 1)).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)


@classifier_cases
def test_predict_proba_is_a_distribution(case):
    X, y = mixed_frame("classifier")
    model = fitted(case, X, y)
    X_test, _ = mixed_frame("classifier", seed=7)
    proba = model.predict_proba(X_test)
    _check_proba(proba, len(model.classes_))


@classifier_cases
def test_proba_columns_follow_classes(case):
    """Column k is the probability of classes_[k]: it is higher on rows of that class."""
    X, y = numeric_data("classifier")
    model = fitted(case, X, y)
    proba = model.predict_proba(X)
    assert list(model.classes_) == [0, 1, 2]
    for k, label in enumerate(model.classes_):
        assert proba[y == label, k].mean() > proba[y != label, k].mean() + case.proba_margin


@classifier_cases
def test_argmax_proba_is_predict(case):
    """predict is the most probable class; on an exact tie any of the tied classes is
    acceptable (the tie rule is the estimator's to document), so the check is that the
    predicted class has the maximal probability, and equals argmax wherever it is unique."""
    X, y = mixed_frame("classifier")
    # Repeated rows with opposite labels make tied leaves for the fully grown trees.
    X = pd.concat([X, X.head(10)], ignore_index=True)
    y = pd.concat([y, y.head(10).map({"yes": "no", "no": "yes"})], ignore_index=True)
    model = fitted(case, X, y)
    X_test = pd.concat([mixed_frame("classifier", seed=4)[0], X.head(10)], ignore_index=True)
    proba, pred = model.predict_proba(X_test), model.predict(X_test)
    column = pd.Index(model.classes_).get_indexer(pred)
    rows = np.arange(len(pred))
    np.testing.assert_array_equal(proba[rows, column], proba.max(axis=1))
    unique = (proba == proba.max(axis=1, keepdims=True)).sum(axis=1) == 1
    np.testing.assert_array_equal(pred[unique], model.classes_[np.argmax(proba[unique], axis=1)])


@classifier_cases
@pytest.mark.parametrize("labels", [("no", "yes"), ("Setosa", "versicolor", "VIRGINICA")])
def test_string_labels(case, labels):
    X, codes = numeric_data("classifier")
    y = np.array(labels, dtype=object)[codes % len(labels)]
    model = fitted(case, X, y)
    assert list(model.classes_) == sorted(labels)
    pred = model.predict(X)
    assert set(pred) <= set(labels)
    assert accuracy_score(y, pred) > 1 / len(labels) + 0.1


@classifier_cases
def test_integer_labels_keep_their_values_and_dtype(case):
    X, codes = numeric_data("classifier")
    y = np.where(codes == 0, 3, 7)
    model = fitted(case, X, y)
    pred = model.predict(X)
    assert model.classes_.tolist() == [3, 7]
    assert np.issubdtype(pred.dtype, np.integer)
    assert set(pred.tolist()) <= {3, 7}


@pytest.mark.parametrize("y", [
    np.array([7, -2, 7, 0]), np.array([3, 1, 3], dtype=np.uint8), np.array([0.5, -1.0, 0.5]),
    pd.Series([2, 9, 2], name="target"),
])
def test_numeric_labels_encode_as_through_python_objects(y):
    """Numeric arrays take np.unique; a list of the same labels takes the object path:
    the same classes, in the same dtype, and the same codes."""
    classes, codes = encode_labels(y)
    expected_classes, expected_codes = encode_labels(list(np.asarray(y).tolist()))
    assert classes.dtype == expected_classes.dtype
    np.testing.assert_array_equal(classes, expected_classes)
    np.testing.assert_array_equal(codes, expected_codes)
    assert codes.dtype == np.intp


@classifier_cases
def test_single_class_target_predicts_that_class(case):
    """One class in y is not an error: the tree is a single leaf predicting it."""
    X, _ = numeric_data("classifier", n=30)
    model = fitted(case, X, np.array(["only"] * 30))
    assert model.classes_.tolist() == ["only"]
    assert model.predict(X).tolist() == ["only"] * 30
    np.testing.assert_array_equal(model.predict_proba(X), np.ones((30, 1)))


# --------------------------------------------------------------------------- numeric-only models

#: The checks that feed ``mixed_frame`` (string categories) to the estimator.
CATEGORICAL_FRAME_CHECKS = {
    "test_fitted_attributes", "test_inputs_not_mutated", "test_same_seed_same_model",
    "test_pickle_round_trip", "test_dataframe_with_categories_and_nan",
    "test_columns_are_matched_by_name", "test_score", "test_unit_weights_equal_no_weights",
    "test_predict_proba_is_a_distribution", "test_argmax_proba_is_predict",
}
NUMERIC_ONLY = [c for c in ESTIMATORS if not c.categorical_frames]


@pytest.fixture(autouse=True)
def _skip_categorical_frames_for_numeric_only(request):
    callspec = getattr(request.node, "callspec", None)
    case = callspec.params.get("case") if callspec else None
    if (isinstance(case, Case) and not case.categorical_frames
            and request.node.originalname in CATEGORICAL_FRAME_CHECKS):
        pytest.skip(f"{case.name} takes numeric columns only; see test_numeric_only_*")


def numeric_frame(n: int = 160, seed: int = 1) -> tuple[pd.DataFrame, pd.Series]:
    """``mixed_frame`` with its categories as numbers (codes, NaN kept): non-negative."""
    X, y = mixed_frame("classifier", n, seed)
    X = X.assign(size=X["size"] + NUMERIC_OFFSET,
                 colour=X["colour"].map({"red": 0.0, "green": 1.0, "blue": 2.0}),
                 shape=(X["shape"] == "square").astype(float))
    return X, y


@pytest.mark.parametrize("case", NUMERIC_ONLY, ids=_ids(NUMERIC_ONLY))
def test_numeric_only_models_refuse_string_columns_by_name(case):
    X, y = mixed_frame("classifier")
    with pytest.raises(ValueError, match="colour"):
        case.factory().fit(X, y)


@pytest.mark.parametrize("case", NUMERIC_ONLY, ids=_ids(NUMERIC_ONLY))
def test_numeric_only_models_on_a_numeric_frame_with_nan(case):
    """The mixed-frame checks, on the same table with its categories as numbers."""
    X, y = numeric_frame()
    X_before = X.copy(deep=True)
    model = fitted(case, X, y)
    pd.testing.assert_frame_equal(X, X_before)
    assert list(model.feature_names_in_) == ["size", "weight", "colour", "shape"]
    X_test, y_test = numeric_frame(seed=7)
    proba = model.predict_proba(X_test)
    _check_proba(proba, 2)
    pred = model.predict(X_test)
    np.testing.assert_array_equal(pred, model.classes_[np.argmax(proba, axis=1)])
    assert model.score(X_test, y_test) == pytest.approx(accuracy_score(y_test, pred))
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict_proba(X_test), proba)
    shuffled = X_test[["shape", "size", "colour", "weight"]]
    np.testing.assert_array_equal(model.predict(shuffled), pred)
    unit = fitted(case, X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(unit.predict(X_test), pred)
