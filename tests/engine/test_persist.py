"""JSON model files: every estimator saves and loads back to the same predictions, and
anything that is not a valid file (tampered, foreign, hostile) raises ModelFileError."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import persist
from engine._persist_schema import NOT_SAVED
from engine.base import BaseEstimator
from engine.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from engine.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB
from engine.persist import ModelFileError, model_from_json, model_to_json
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from tests.conftest import data_path

REPO = Path(__file__).resolve().parents[2]


def mixed_frame(n: int = 160, seed: int = 0):
    """Numeric and categorical columns with gaps; a three-class and a numeric target."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "size": rng.normal(size=n),
        "colour": rng.choice(["red", "green", "=blue"], size=n).astype(object),
        "weight": rng.gamma(2.0, size=n),
        "note": rng.choice(["a lovely ripe fruit", "hard sour thing", "sweet and soft"], size=n),
    })
    X.loc[::7, "size"] = np.nan
    X.loc[::9, "colour"] = None
    y = np.where(X["weight"] > 2.0, "heavy", np.where(X["size"].fillna(0) > 0, "big", "small"))
    return X, y, X["weight"].to_numpy() * 3 + rng.normal(size=n)


@pytest.fixture(scope="module")
def spam():
    frame = pd.read_csv(data_path("spambase.csv")).sample(500, random_state=0)
    target = frame.columns[-1]
    return frame.drop(columns=target), frame[target].to_numpy()


CLASSIFIERS = {
    "DecisionTreeClassifier": lambda: DecisionTreeClassifier(max_depth=6),
    "DecisionTreeClassifier-multiway": lambda: DecisionTreeClassifier(
        categorical_split="multiway", criterion="entropy"),
    "BaggingClassifier": lambda: BaggingClassifier(n_estimators=4, random_state=1),
    "BaggingClassifier-of-nb": lambda: BaggingClassifier(
        estimator=MixedNB(), n_estimators=3, random_state=1),
    "RandomForestClassifier": lambda: RandomForestClassifier(n_estimators=5, oob_score=True,
                                                             random_state=2),
    "AdaBoostClassifier": lambda: AdaBoostClassifier(n_estimators=5, random_state=0),
    "AdaBoostClassifier-depth2": lambda: AdaBoostClassifier(
        estimator=DecisionTreeClassifier(max_depth=2), n_estimators=4),
    "GradientBoostingClassifier": lambda: GradientBoostingClassifier(n_estimators=4, max_depth=2),
    "MixedNB": lambda: MixedNB(),
    "MixedNB-binned": lambda: MixedNB(numeric="binned", alpha=0.5),
}
REGRESSORS = {
    "DecisionTreeRegressor": lambda: DecisionTreeRegressor(max_depth=5),
    "RandomForestRegressor": lambda: RandomForestRegressor(n_estimators=4, random_state=0),
    "GradientBoostingRegressor": lambda: GradientBoostingRegressor(n_estimators=5, loss="huber"),
}
NUMERIC_ONLY = {
    "GaussianNB": lambda: GaussianNB(),
    "MultinomialNB": lambda: MultinomialNB(alpha=0.0),  # alpha 0: -inf log probabilities
    "BernoulliNB": lambda: BernoulliNB(binarize=0.1),
    "CategoricalNB": lambda: CategoricalNB(alpha=0.5),
}


def round_trip(model: BaseEstimator, X) -> BaseEstimator:
    """Save, load, and assert the loaded model predicts exactly the same."""
    loaded = model_from_json(model_to_json(model))
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert_same_params(loaded, model)
    assert_same_state(loaded, model)
    return loaded


def assert_same_params(a: BaseEstimator, b: BaseEstimator) -> None:
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    assert pa.keys() == pb.keys()
    for name in pa:
        if isinstance(pb[name], BaseEstimator):
            assert type(pa[name]) is type(pb[name])
            assert pa[name].get_params() == pb[name].get_params()
        else:
            assert pa[name] == pb[name], name


def assert_same_state(a: BaseEstimator, b: BaseEstimator) -> None:
    """Every fitted attribute but the documented training-row records, equal."""
    kept = {k for k in vars(b) if k.endswith("_") and k not in NOT_SAVED}
    assert kept <= set(vars(a))
    for name in ("classes_", "feature_names_in_", "feature_importances_", "class_log_prior_",
                 "estimator_weights_", "init_", "train_score_", "oob_score_", "var_"):
        if name in kept:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    if hasattr(b, "tree_"):
        for field in ("threshold", "value", "children_left", "category_count",
                      "category_children", "unseen_child"):
            np.testing.assert_array_equal(getattr(a.tree_, field), getattr(b.tree_, field))


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_classifier_round_trip_on_mixed_frame(name):
    X, y, _ = mixed_frame()
    X = X if name.startswith(("MixedNB", "BaggingClassifier-of")) else X.drop(columns="note")
    round_trip(CLASSIFIERS[name]().fit(X, y), X)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_regressor_round_trip_on_mixed_frame(name):
    X, _, target = mixed_frame()
    round_trip(REGRESSORS[name]().fit(X.drop(columns="note"), target), X.drop(columns="note"))


@pytest.mark.parametrize("name", sorted({**CLASSIFIERS, **NUMERIC_ONLY}))
def test_classifier_round_trip_on_spambase(name, spam):
    X, y = spam
    X = X.round(0).astype(np.int64) if name == "CategoricalNB" else X
    factory = {**CLASSIFIERS, **NUMERIC_ONLY}[name]
    round_trip(factory().fit(X, y), X)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_regressor_round_trip_on_spambase(name, spam):
    X, y = spam
    round_trip(REGRESSORS[name]().fit(X.iloc[:, 1:], X.iloc[:, 0].to_numpy() + y), X.iloc[:, 1:])


def test_numeric_only_models_on_plain_arrays():
    rng = np.random.default_rng(3)
    X = rng.poisson(2.0, size=(80, 5)).astype(np.int64)
    y = rng.choice([0, 1, 2], size=80)
    for name, factory in NUMERIC_ONLY.items():
        loaded = round_trip(factory().fit(X, y), X)
        assert loaded.classes_.dtype == np.int64, name


def test_every_engine_estimator_is_covered():
    covered = {f().__class__.__name__ for f in {**CLASSIFIERS, **REGRESSORS, **NUMERIC_ONLY}.values()}
    assert covered == set(persist.ESTIMATORS)


def test_non_finite_numbers_are_written_as_tagged_strings():
    X = np.array([[0, 3], [2, 0], [0, 1], [4, 0]])
    model = MultinomialNB(alpha=0.0).fit(X, ["a", "b", "a", "b"])
    text = model_to_json(model)
    assert "-inf" in text and "Infinity" not in text and "NaN" not in text
    assert np.isneginf(model_from_json(text).feature_log_prob_).sum() == 2


def test_floats_are_exact_to_the_last_bit():
    X = pd.DataFrame({"x": [0.1 + 0.2, 1 / 3, 2 / 3, np.pi, 1e-300, 5e-324]})
    tree = DecisionTreeRegressor().fit(X, [np.e, 1 / 7, 2.0, 3.5, 1e100, -1e-310])
    loaded = model_from_json(model_to_json(tree))
    assert loaded.tree_.threshold.tobytes() == tree.tree_.threshold.tobytes()
    assert loaded.tree_.value.tobytes() == tree.tree_.value.tobytes()


def test_ensemble_members_share_the_loaded_encoder():
    X, y, _ = mixed_frame()
    forest = model_from_json(model_to_json(
        RandomForestClassifier(n_estimators=3, random_state=0).fit(X.drop(columns="note"), y)))
    assert all(m.encoder_ is forest.encoder_ for m in forest.estimators_)


def test_file_layout_is_the_documented_one():
    X, y, _ = mixed_frame()
    doc = json.loads(model_to_json(DecisionTreeClassifier(max_depth=2).fit(X.drop(columns="note"), y)))
    assert list(doc) == ["format", "version", "estimator", "params", "fitted"]
    assert (doc["format"], doc["version"]) == ("glassbox-model", 2)
    assert doc["params"]["max_depth"] == 2
    assert doc["fitted"]["tree_"]["threshold"]["dtype"] == "float64"
    spec = (REPO / "docs" / "model-format.md").read_text()
    for word in ("glassbox-model", "parent_encoder", "ndarray", '"nan"', "children_left", "grid",
                 "category_count", "category_children", "version 1",
                 *NOT_SAVED, *persist.ESTIMATORS):
        assert word in spec


def test_summary_and_parameter_table_of_a_loaded_file():
    X, y, _ = mixed_frame()
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0)
    loaded = model_from_json(model_to_json(forest.fit(X.drop(columns="note"), y)))
    assert persist.summary(loaded) == {"model": "RandomForestClassifier", "members": 3,
                                       "columns": ["size", "colour", "weight"],
                                       "classes": ["big", "heavy", "small"]}
    table = persist.describe(loaded)
    assert len(table) == len(forest.get_params()) and "2" in table.set_index("parameter")["value"]["max_depth"]


# --------------------------------------------------------------- hostile files


@pytest.fixture(scope="module")
def valid():
    X, y, _ = mixed_frame(60)
    model = RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0)
    return json.loads(model_to_json(model.fit(X.drop(columns="note"), y)))


def _tree(doc):
    return doc["fitted"]["estimators_"][0]["fitted"]["tree_"]


def _categorical_tree(doc):
    """The first member tree with a categorical split."""
    for member in doc["fitted"]["estimators_"]:
        tree = member["fitted"]["tree_"]
        if any(tree["category_count"]["data"]):
            return tree
    raise AssertionError("no member splits on a category")


def _set_count(doc, kind, count):
    """The category count of the first node of split ``kind`` set to ``count``."""
    tree = _categorical_tree(doc)
    tree["category_count"]["data"][tree["split_kind"]["data"].index(kind)] = count


def _tampered(valid, edit):
    doc = copy.deepcopy(valid)
    edit(doc)
    return json.dumps(doc)


TAMPERINGS = {
    "wrong format": lambda d: d.update(format="sklearn-model"),
    "newer version": lambda d: d.update(version=3),
    "version not a number": lambda d: d.update(version=True),
    "unknown estimator": lambda d: d.update(estimator="SVC"),
    "import attempt": lambda d: d.update(estimator="__import__"),
    "dotted class path": lambda d: d.update(estimator="os.system"),
    "estimator not a string": lambda d: d.update(estimator=["RandomForestClassifier"]),
    "missing fitted field": lambda d: d["fitted"].pop("classes_"),
    "unknown fitted field": lambda d: d["fitted"].update(__class__="x"),
    "missing param": lambda d: d["params"].pop("n_estimators"),
    "unknown param": lambda d: d["params"].update(command="rm -rf /"),
    "param is an object": lambda d: d["params"].update(max_depth={"__reduce__": "os.system"}),
    "string where a number goes": lambda d: _tree(d)["threshold"]["data"].__setitem__(0, "0.5"),
    "bool where a number goes": lambda d: _tree(d)["impurity"]["data"].__setitem__(0, True),
    "wrong shape": lambda d: _tree(d)["value"].update(shape=[1, 3]),
    "short array": lambda d: _tree(d)["impurity"]["data"].pop(),
    "child index out of range": lambda d: _tree(d)["children_left"]["data"].__setitem__(0, 999),
    "child pointing back to root": lambda d: _tree(d)["children_right"]["data"].__setitem__(0, 0),
    "feature out of range": lambda d: _tree(d)["feature"]["data"].__setitem__(0, 7),
    "classes do not match value": lambda d: d["fitted"]["classes_"].update(
        shape=[2], data=d["fitted"]["classes_"]["data"][:2]),
    "duplicate classes": lambda d: d["fitted"]["classes_"]["data"].__setitem__(1, d["fitted"]["classes_"]["data"][0]),
    "unknown dtype": lambda d: _tree(d)["threshold"].update(dtype="complex128"),
    "member of another kind": lambda d: d["fitted"]["estimators_"][0].update(estimator="GaussianNB"),
    "empty member list": lambda d: d["fitted"].update(estimators_=[]),
    "unfitted member": lambda d: d["fitted"]["estimators_"][0].update(fitted=None),
    "repeated column name": lambda d: d["fitted"]["encoder_"]["feature_names_in_"]["data"].__setitem__(
        1, d["fitted"]["encoder_"]["feature_names_in_"]["data"][0]),
    "category listed twice": lambda d: d["fitted"]["encoder_"]["categories_"][1]["data"].__setitem__(
        1, d["fitted"]["encoder_"]["categories_"][1]["data"][0]),
    "categories on a numeric column": lambda d: d["fitted"]["encoder_"]["categories_"].__setitem__(
        0, d["fitted"]["encoder_"]["categories_"][1]),
    "parent encoder at top": lambda d: d["fitted"].update(encoder_={"type": "parent_encoder"}),
    "a member's max_features not a count": lambda d: d["fitted"]["estimators_"][0]["params"]
    .update(max_features=[]),
    "no fitted model at the top": lambda d: d.update(fitted=None),
    "root weighs nothing": lambda d: _tree(d)["weighted_n_node_samples"]["data"].__setitem__(0, 0.0),
    "category child outside its node": lambda d: _categorical_tree(d)["category_children"]["data"]
    .__setitem__(0, 0),
    "category runs longer than counted": lambda d: _categorical_tree(d)["category_children"].update(
        shape=[len(_categorical_tree(d)["category_children"]["data"]) + 1],
        data=[*_categorical_tree(d)["category_children"]["data"], -1]),
    "category run at a leaf": lambda d: _set_count(d, 0, 1),
    "negative category count": lambda d: _set_count(d, 0, -1),
}


def _as_version_1(doc):
    """``doc`` as a version-1 file: every tree's category runs as a table of a row per
    node, as wide as the longest run, -1 past each run."""
    doc = copy.deepcopy(doc)
    doc["version"] = 1
    for member in doc["fitted"]["estimators_"]:
        tree = member["fitted"]["tree_"]
        count = tree.pop("category_count")["data"]
        runs = iter(tree.pop("category_children")["data"])
        width = max(count)
        grid = [[next(runs) for _ in range(k)] + [-1] * (width - k) for k in count]
        tree["category_child"] = {"type": "ndarray", "dtype": "int64",
                                  "shape": [len(count), width], "data": grid}
    return doc


def test_version_1_file_loads_and_predicts_the_same(valid):
    X, _, _ = mixed_frame(60)
    X = X.drop(columns="note")
    old = _as_version_1(valid)
    assert max(old["fitted"]["estimators_"][0]["fitted"]["tree_"]["category_child"]["shape"]) > 1
    now, then = model_from_json(json.dumps(valid)), model_from_json(json.dumps(old))
    np.testing.assert_array_equal(then.predict_proba(X), now.predict_proba(X))
    for a, b in zip(now.estimators_, then.estimators_, strict=True):
        np.testing.assert_array_equal(a.tree_.category_count, b.tree_.category_count)
        np.testing.assert_array_equal(a.tree_.category_children, b.tree_.category_children)
    grid = next(m["fitted"]["tree_"]["category_child"]["data"] for m in old["fitted"]["estimators_"]
                if m["fitted"]["tree_"]["category_child"]["shape"][1])
    next(row for row in grid if row[0] >= 0)[0] = 0  # a categorical split's child: the root
    with pytest.raises(ModelFileError, match="category_children.*out of range"):
        model_from_json(json.dumps(old))


def test_deeply_nested_junk_is_refused(valid):
    doc = copy.deepcopy(valid)
    doc["fitted"]["encoder_"] = "PLACEHOLDER"
    text = json.dumps(doc).replace('"PLACEHOLDER"', "[" * 5000 + "]" * 5000)
    with pytest.raises(ModelFileError, match="not valid JSON"):
        model_from_json(text)
    doc["fitted"]["encoder_"] = [[[[[[[[[["deep"]]]]]]]]]]
    with pytest.raises(ModelFileError, match="encoder_"):
        model_from_json(json.dumps(doc))


@pytest.mark.parametrize("case", sorted(TAMPERINGS))
def test_tampered_file_is_refused_with_a_clear_message(valid, case):
    with pytest.raises(ModelFileError, match="^This file is not a Glassbox model: "):
        model_from_json(_tampered(valid, TAMPERINGS[case]))


@pytest.mark.parametrize("text", [
    b"\xff\xfe\x00garbage", b"", "[]", "null", "42", '"glassbox-model"', "{",
    '{"format": "glassbox-model", "version": 1}',
    '{"format": "glassbox-model", "version": 1, "estimator": "GaussianNB", "params": NaN}',
    "[" * 100_000, pd.DataFrame({"a": [1]}).to_csv(),
])
def test_foreign_files_are_refused(text):
    with pytest.raises(ModelFileError):
        model_from_json(text)


def test_oversized_file_is_refused_before_parsing(monkeypatch):
    monkeypatch.setattr(persist, "MAX_BYTES", 100)
    with pytest.raises(ModelFileError, match="larger than"):
        model_from_json("{" + " " * 200 + "}")


def test_an_unfitted_or_foreign_model_cannot_be_saved():
    with pytest.raises(ValueError, match="not fitted"):
        model_to_json(GaussianNB())
    with pytest.raises(ValueError, match="cannot be saved"):
        model_to_json(object())


def test_no_code_execution_primitives_in_the_loader():
    for name in ("persist.py", "_persist_codec.py", "_persist_schema.py"):
        source = (REPO / "engine" / name).read_text()
        for word in ("import pickle", "pickle.", "eval(", "exec(", "importlib", "__import__(",
                     "globals(", "getattr(sys"):
            assert word not in source, (name, word)


def _paths(node, path=()):
    """Every (path, leaf value) of a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*path, i))
    yield path, node


# st.builds: a fresh object each time, so that two mutations never share (and loop) one list
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False),
                 st.text(max_size=5), st.builds(list), st.builds(dict),
                 st.builds(lambda: {"float": "nan"}), st.builds(lambda: {"type": "parent_encoder"}),
                 st.builds(lambda: [[1, 2], [3]]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_files_load_or_raise_model_file_error(valid, data):
    doc = copy.deepcopy(valid)
    paths = [p for p, _ in _paths(doc) if p]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = data.draw(JUNK)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    try:
        model = model_from_json(json.dumps(doc))
    except ModelFileError:
        return
    X, y, _ = mixed_frame(60)
    X = X.drop(columns="note")
    if len(model.feature_names_in_) == X.shape[1]:  # a mutation may rename the columns
        X.columns = [str(name) for name in model.feature_names_in_]
    assert model.predict(X).shape == (60,)
