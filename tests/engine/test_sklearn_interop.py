"""scikit-learn's tools and its estimator checks, run on the engine's estimators.

The engine never imports scikit-learn to run; it describes its estimators to scikit-learn
through ``__sklearn_tags__``, which imports scikit-learn only when scikit-learn calls it.
The estimators under test are ``ESTIMATORS`` of test_estimator_checks. The checks an
estimator is expected to fail, and why, are :func:`expected_failed_checks` (the one list;
docs/scikit-learn.md explains it to users, and a test below keeps the two in step).
"""
from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone, is_classifier, is_regressor  # noqa: E402
from sklearn.datasets import load_diabetes, load_iris  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV,
    KFold,
    StratifiedKFold,
    cross_val_score,
)
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils import get_tags  # noqa: E402
from sklearn.utils.estimator_checks import estimator_checks_generator  # noqa: E402
from sklearn.utils.validation import check_is_fitted  # noqa: E402

from engine.ensemble import GradientBoostingClassifier  # noqa: E402
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402
from tests.engine.test_estimator_checks import ESTIMATORS, numeric_data  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------- expected failures

#: Checks every estimator fails, and why.
EVERY_ESTIMATOR = {
    "check_estimators_unfitted": (
        "predict before fit raises engine.base.NotFittedError, a ValueError and an "
        "AttributeError as scikit-learn's own is, but the check requires a subclass of "
        "sklearn.exceptions.NotFittedError, which the engine cannot derive from without "
        "importing scikit-learn."),
    "check_n_features_in_after_fitting": (
        "an array with another number of columns than in fit is refused with a ValueError, "
        "as the check wants, but in the words of the column encoder every model shares ('X "
        "has 1 features, but the model was fitted on 4: [...]'); the check matches "
        "scikit-learn's wording, which names the estimator's class."),
    "check_supervised_y_2d": (
        "a column vector y of shape (n, 1) is refused with a ValueError; the check wants it "
        "raveled with a sklearn.exceptions.DataConversionWarning, a class the engine cannot "
        "raise without importing scikit-learn."),
}
#: Checks every classifier fails, and why.
EVERY_CLASSIFIER = {
    "check_classifiers_regression_target": (
        "any hashable value is a class label, floats included (a column of 0.5 and 1.5 holds "
        "two classes), so a continuous target is fitted as one class per distinct value "
        "rather than refused as 'continuous'."),
}
#: Checks the models of numeric columns only fail, and why.
NUMERIC_ONLY = {
    "check_dtype_object": (
        "an object array is read column by column, as a table; a column holding a dict is "
        "refused with a TypeError naming the column ('holds values that are neither numbers "
        "nor categories'), not in the words of float() that the check matches."),
}
#: Checks one estimator class fails, and why.
BY_CLASS = {
    "GaussianNB": NUMERIC_ONLY,
    "MultinomialNB": NUMERIC_ONLY,
    "BernoulliNB": NUMERIC_ONLY,
    "CategoricalNB": {
        "check_sample_weight_equivalence_on_dense_data": (
            "the categories of a numeric column are the distinct values it holds, whatever "
            "their weight: a row of weight 0 still adds its values as categories (with count "
            "0), which changes the smoothing denominator N + αk, while a dropped row does "
            "not."),
    },
}
ROWS_ARE_DRAWN = (
    "{param} draws rows at random: a row of weight 3 is one row drawn with weight 3, "
    "not three rows each drawn on its own, so weights are not copies.")
ROWS_ARE_COUNTED = (
    "min_samples_leaf counts rows, not weights: three copies of a row are three rows, a "
    "row of weight 3 is one (scikit-learn's trees count the same way).")
LAZY_STACK = (
    "the first predict stacks the members' trees into one set of flat arrays and keeps it in "
    "a private cache (_stacked_cache, left out of pickles): state derived from the fitted "
    "trees, not learned; with oob_score=True fit builds it already.")


def expected_failed_checks(estimator) -> dict[str, str]:
    """``{check name: reason}`` for the scikit-learn checks ``estimator`` fails."""
    params = estimator.get_params()
    expected = dict(EVERY_ESTIMATOR)
    if is_classifier(estimator):
        expected.update(EVERY_CLASSIFIER)
    expected.update(BY_CLASS.get(type(estimator).__name__, {}))
    weights = "check_sample_weight_equivalence_on_dense_data"
    if params.get("bootstrap", False):
        expected[weights] = ROWS_ARE_DRAWN.format(param="bootstrap=True")
    elif params.get("subsample", 1.0) < 1.0:
        expected[weights] = ROWS_ARE_DRAWN.format(param="subsample < 1")
    elif params.get("min_samples_leaf", 1) > 1:
        expected[weights] = ROWS_ARE_COUNTED
    if "oob_score" in params and not params["oob_score"]:
        expected["check_dict_unchanged"] = LAZY_STACK
    return expected


def check_name(check) -> str:
    """The name of a check as scikit-learn yields it (bound with ``functools.partial``)."""
    while isinstance(check, functools.partial):
        check = check.func
    return check.__name__


def check_label(check) -> str:
    """The check's name and the keywords it was bound with: ``check_x(readonly_memmap=True)``."""
    inner = check.func  # partial(check, estimator_name)
    if isinstance(inner, functools.partial) and inner.keywords:
        return f"{check_name(inner)}({','.join(f'{k}={v}' for k, v in inner.keywords.items())})"
    return check_name(inner)


def every_check() -> list:
    """Each (estimator, check) pair scikit-learn runs on ESTIMATORS, as one pytest param."""
    with warnings.catch_warnings():
        # By design: deriving from scikit-learn's BaseEstimator would import it at run time.
        warnings.filterwarnings("ignore", message=".*does not inherit from `sklearn.base")
        return [pytest.param(estimator, check, id=f"{case.name}-{check_label(check)}")
                for case in ESTIMATORS
                for estimator, check in estimator_checks_generator(case.factory(), mark=None)]


@pytest.mark.parametrize("estimator, check", every_check())
def test_sklearn_estimator_check(estimator, check):
    """Every check passes, or fails as ``expected_failed_checks`` says; a listed check that
    passes fails here, so the list stays true."""
    reason = expected_failed_checks(estimator).get(check_name(check))
    if reason is None:
        check(estimator)
        return
    try:
        check(estimator)
    except Exception:  # the check's own assertion, or the estimator's error
        failed = True
    else:
        failed = False
    if failed:  # outside the except block: the report then skips the check's long traceback
        pytest.xfail(reason)
    pytest.fail(f"{check_name(check)} passes now: take it out of expected_failed_checks.")


def test_every_expected_failure_is_explained_in_the_docs():
    docs = (REPO / "docs" / "scikit-learn.md").read_text(encoding="utf-8")
    names = {name for case in ESTIMATORS for name in expected_failed_checks(case.factory())}
    assert sorted(n for n in names if f"`{n}`" not in docs) == []


# --------------------------------------------------------------------------- tags and clone


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
def test_tags_say_what_the_estimator_takes(case):
    tags = get_tags(case.factory())
    assert tags.estimator_type == case.kind
    assert is_classifier(case.factory()) == (case.kind == "classifier")
    assert is_regressor(case.factory()) == (case.kind == "regressor")
    assert tags.target_tags.required
    assert tags.input_tags.allow_nan
    # The models fed string categories by test_estimator_checks are the ones that take them.
    assert tags.input_tags.string == tags.input_tags.categorical == case.categorical_frames
    assert tags.input_tags.positive_only == (type(case.factory()).__name__ == "MultinomialNB")


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
def test_sklearn_clone_is_unfitted_with_equal_params(case):
    X, y = numeric_data(case.kind)
    model = case.factory().fit(X, y)
    copy = clone(model)
    assert type(copy) is type(model)
    assert copy.get_params() == model.get_params() == case.factory().get_params()
    assert not [k for k in vars(copy) if k.endswith("_") and not k.startswith("__")]
    with pytest.raises(NotFittedError):
        check_is_fitted(copy)
    check_is_fitted(model)


# --------------------------------------------------------------------------- model selection


def test_pipeline_cross_val_score_equals_a_manual_fold_loop():
    """A classifier is cross-validated on stratified folds (iris is sorted by class, so
    plain folds would hold out one class whole and score far lower)."""
    X, y = load_iris(return_X_y=True)
    pipeline = make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=3))
    scores = cross_val_score(pipeline, X, y, cv=5, error_score="raise")
    manual = []
    for train, test in StratifiedKFold(n_splits=5).split(X, y):
        scaler = StandardScaler().fit(X[train])
        tree = DecisionTreeClassifier(max_depth=3).fit(scaler.transform(X[train]), y[train])
        manual.append(np.mean(tree.predict(scaler.transform(X[test])) == y[test]))
    np.testing.assert_array_equal(scores, manual)
    assert scores.min() > 0.85


def test_regressor_cross_val_score_equals_a_manual_fold_loop():
    X, y = load_diabetes(return_X_y=True)
    scores = cross_val_score(DecisionTreeRegressor(max_depth=3), X, y, cv=5, error_score="raise")
    manual = []
    for train, test in KFold(n_splits=5).split(X):
        tree = DecisionTreeRegressor(max_depth=3).fit(X[train], y[train])
        residual = y[test] - tree.predict(X[test])
        manual.append(1 - np.sum(residual ** 2) / np.sum((y[test] - y[test].mean()) ** 2))
    np.testing.assert_allclose(scores, manual, rtol=1e-12)  # the same sums, other order


def test_grid_search_picks_the_manual_best_depth():
    X, y = load_iris(return_X_y=True)
    depths = [1, 2, 3, 4]
    search = GridSearchCV(DecisionTreeClassifier(), {"max_depth": depths}, error_score="raise")
    search.fit(X, y)
    folds = list(StratifiedKFold(n_splits=5).split(X, y))
    means = [np.mean([np.mean(DecisionTreeClassifier(max_depth=d).fit(X[tr], y[tr])
                              .predict(X[te]) == y[te]) for tr, te in folds])
             for d in depths]
    np.testing.assert_array_equal(search.cv_results_["mean_test_score"], means)
    assert search.best_params_ == {"max_depth": depths[int(np.argmax(means))]}
    assert search.best_score_ == max(means)
    assert isinstance(search.best_estimator_, DecisionTreeClassifier)
    assert len(set(means)) > 1  # the depths differ, so the choice means something


def test_gradient_boosting_refuses_a_class_without_weight():
    """check_classifiers_one_label_sample_weights found the two-class case (log(p / 0));
    with three classes the initial log-share of the weightless class was -inf."""
    X, y = numeric_data("classifier")
    weight = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="y has a class, 1, whose rows all have sample_weight 0"):
        GradientBoostingClassifier(n_estimators=2).fit(X, y, sample_weight=weight)


# --------------------------------------------------------------------------- no run-time import

ENGINE_WITHOUT_SKLEARN = textwrap.dedent("""
    import importlib, pkgutil, sys
    sys.modules["sklearn"] = None  # from here on, importing scikit-learn raises ImportError
    import engine
    names = [m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")]
    for name in names:
        importlib.import_module(name)
    import numpy as np
    from engine.tree import DecisionTreeClassifier
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = DecisionTreeClassifier().fit(X, ["a", "a", "b", "b"])
    try:
        model.__sklearn_tags__()
    except ImportError:
        blocked = True
    print(len(names), model.predict(X).tolist(), blocked)
""")


def test_engine_imports_and_fits_with_sklearn_blocked():
    result = subprocess.run([sys.executable, "-c", ENGINE_WITHOUT_SKLEARN], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    n_modules, rest = result.stdout.strip().split(" ", 1)
    assert int(n_modules) >= 30  # every engine module, subpackages included
    assert rest == "['a', 'a', 'b', 'b'] True"
