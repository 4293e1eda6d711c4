"""Which fitted attributes each estimator's model file holds, and how they are checked.

:data:`FIELDS` lists, per class, the stored attributes with their kind; :func:`derive`
recomputes the attributes that follow from them; :func:`check_consistent` checks that
shapes agree across fields; :func:`probe` predicts two rows as a last check.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ._persist_codec import (
    ModelFileError,
    dump_array,
    dump_encoder,
    dump_scalar,
    dump_tree,
    fail,
    load_array,
    load_bool,
    load_dict,
    load_encoder,
    load_float,
    load_int,
    load_labels,
    load_str,
    load_tree,
)
from .ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from .ensemble._bagged import BaseBagged
from .naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB
from .naive_bayes._mixed import KINDS
from .text import Vocabulary
from .tree import DecisionTreeClassifier, DecisionTreeRegressor
from .tree._builder import resolve_max_features

ESTIMATORS = {cls.__name__: cls for cls in (
    GaussianNB, CategoricalNB, MultinomialNB, BernoulliNB, MixedNB, DecisionTreeClassifier,
    DecisionTreeRegressor, BaggingClassifier, RandomForestClassifier, RandomForestRegressor,
    AdaBoostClassifier, GradientBoostingClassifier, GradientBoostingRegressor)}
CLASSIFIERS = tuple(n for n, c in ESTIMATORS.items() if getattr(c, "_estimator_type", "") == "classifier")
_TREES = (DecisionTreeClassifier, DecisionTreeRegressor)


@dataclass(frozen=True)
class Context:
    """What a field needs besides its JSON: the model being built, the ensemble's encoder."""

    parent_encoder: Any
    dump_estimator: Callable
    load_estimator: Callable
    depth: int
    model: Any = None

    def within(self, model) -> Context:
        return replace(self, model=model)


@dataclass(frozen=True)
class Field:
    dump: Callable
    load: Callable  # (node, where, context) -> value
    optional: bool = False


def _array(dtype: str, ndim: int) -> Field:
    return Field(lambda v, c: dump_array(v), lambda n, w, c: load_array(n, w, (dtype,), ndim))


def _list_of(field: Field) -> Field:
    def load(node, where, context):
        if not isinstance(node, list):
            raise fail(where, "must be a list")
        return [field.load(v, f"{where}[{i}]", context) for i, v in enumerate(node)]
    return Field(lambda v, c: [field.dump(x, c) for x in v], load)


def _optional(field: Field) -> Field:
    return Field(lambda v, c: None if v is None else field.dump(v, c),
                 lambda n, w, c: None if n is None else field.load(n, w, c), optional=True)


def _dump_encoder(encoder, context: Context):
    if encoder is context.parent_encoder:
        return {"type": "parent_encoder"}
    return dump_encoder(encoder)


def _load_encoder(node, where: str, context: Context):
    if node == {"type": "parent_encoder"}:
        if context.parent_encoder is None:
            raise fail(where, "refers to an ensemble's encoder outside an ensemble")
        return context.parent_encoder
    return load_encoder(node, where)


def _n_features(model) -> int:
    encoder = getattr(model, "encoder_", None) or getattr(model, "_encoder", None)
    if encoder is None:
        raise ModelFileError("its encoder must come before the fields that use it.")
    return len(encoder.feature_names_in_)


def _load_tree(node, where: str, context: Context):
    model = context.model
    if isinstance(model, DecisionTreeClassifier) and not hasattr(model, "classes_"):
        raise fail(where, "needs classes_ first")
    outputs = len(model.classes_) if isinstance(model, DecisionTreeClassifier) else 1
    return load_tree(node, where, _n_features(model), outputs)


def _member(names: tuple[str, ...]) -> Field:
    def dump(value, context: Context):
        encoder = getattr(context.model, "encoder_", None)
        return {"type": "estimator", **context.dump_estimator(value, encoder)}

    def load(node, where, context: Context):
        if not isinstance(node, dict) or node.get("estimator") not in names:
            raise fail(where, f"must be one of the models {list(names)}")
        encoder = getattr(context.model, "encoder_", None)
        return context.load_estimator(node, where, encoder, context.depth + 1)
    return Field(dump, load)


def _grid(names: tuple[str, ...]) -> Field:
    member = _member(names)

    def dump(value, context):
        return {"type": "grid", "shape": list(value.shape),
                "items": [[member.dump(m, context) for m in row] for row in value]}

    def load(node, where, context):
        node = load_dict(node, where, ("type", "shape", "items"))
        shape, items = node["shape"], node["items"]
        if node["type"] != "grid" or not isinstance(shape, list) or len(shape) != 2:
            raise fail(where, "must be a grid with a two-number shape")
        rows, cols = load_int(shape[0], where + ".shape"), load_int(shape[1], where + ".shape", 1)
        if not isinstance(items, list) or len(items) != rows or any(
                not isinstance(r, list) or len(r) != cols for r in items):
            raise fail(where + ".items", f"must hold {rows} rows of {cols} models")
        grid = np.empty((rows, cols), dtype=object)
        for t, row in enumerate(items):
            for k, item in enumerate(row):
                grid[t, k] = member.load(item, f"{where}.items[{t}][{k}]", context)
        return grid
    return Field(dump, load)


def _mapping(value_field: Field) -> Field:
    def load(node, where, context):
        node = load_dict(node, where)
        return {key: value_field.load(v, f"{where}.{key}", context) for key, v in node.items()}
    return Field(lambda v, c: {str(k): value_field.dump(x, c) for k, x in v.items()}, load)


def _dump_text(pair, context):
    vocabulary, model = pair
    return {"words": dump_array(vocabulary.words_),
            "model": {"type": "estimator", **context.dump_estimator(model, None)}}


def _load_text(node, where, context):
    node = load_dict(node, where, ("words", "model"))
    words = load_array(node["words"], where + ".words", ("object",), 1)
    if any(not isinstance(w, str) for w in words) or len(set(words)) < len(words):
        raise fail(where + ".words", "must be distinct words")
    vocabulary = Vocabulary()
    vocabulary.words_ = words
    vocabulary._index = {w: i for i, w in enumerate(words)}
    model = _member(("MultinomialNB",)).load(node["model"], where + ".model",
                                               replace(context, model=None))
    return vocabulary, model


def _load_kind(node, where, context):
    if load_str(node, where) not in KINDS:
        raise fail(where, f"must be one of {list(KINDS)}")
    return node


INT = Field(lambda v, c: int(v), lambda n, w, c: load_int(n, w, 1))
FLOAT = Field(lambda v, c: dump_scalar(v), lambda n, w, c: load_float(n, w))
BOOL = Field(lambda v, c: bool(v), lambda n, w, c: load_bool(n, w))
LABELS = Field(lambda v, c: dump_array(v), lambda n, w, c: load_labels(n, w))
ENCODER = Field(_dump_encoder, _load_encoder)
TREE = Field(lambda v, c: dump_tree(v), _load_tree)
F64_1, F64_2 = _array("float64", 1), _array("float64", 2)
NAMES = _array("object", 1)

_NB = {"classes_": LABELS, "class_count_": F64_1, "class_prior_": F64_1, "class_log_prior_": F64_1}
_OOB = {"oob_score_": _optional(FLOAT), "oob_error_curve_": _optional(F64_1)}
_ALL_TREES = ("DecisionTreeClassifier", "DecisionTreeRegressor")
FIELDS = {
    "GaussianNB": {"_encoder": ENCODER, **_NB, "epsilon_": FLOAT, "theta_": F64_2,
                   "observed_count_": F64_2, "var_": F64_2},
    "MultinomialNB": {"_encoder": ENCODER, **_NB, "feature_count_": F64_2,
                      "feature_log_prob_": F64_2},
    "BernoulliNB": {"_encoder": ENCODER, **_NB, "feature_count_": F64_2, "observed_count_": F64_2,
                    "feature_log_prob_": F64_2, "neg_feature_log_prob_": F64_2},
    "CategoricalNB": {"_encoder": ENCODER, **_NB, "_integer_codes": BOOL,
                      "category_count_": _list_of(F64_2), "feature_log_prob_": _list_of(F64_2),
                      "unseen_log_prob_": _list_of(F64_1)},
    "MixedNB": {"feature_names_in_": NAMES, **_NB,
                "feature_kinds_": _mapping(Field(lambda v, c: v, _load_kind)),
                "bin_edges_": _mapping(F64_1),
                "categorical_": _optional(_member(("CategoricalNB",))),
                "gaussian_": _optional(_member(("GaussianNB",))),
                "text_": _mapping(Field(_dump_text, _load_text))},
    "DecisionTreeClassifier": {"encoder_": ENCODER, "classes_": LABELS, "tree_": TREE},
    "DecisionTreeRegressor": {"encoder_": ENCODER, "tree_": TREE},
    "BaggingClassifier": {"encoder_": ENCODER, "classes_": LABELS,
                          "estimators_": _list_of(_member(CLASSIFIERS)), **_OOB},
    "RandomForestClassifier": {"encoder_": ENCODER, "classes_": LABELS, "max_features_": INT,
                               "estimators_": _list_of(_member(_ALL_TREES[:1])), **_OOB},
    "RandomForestRegressor": {"encoder_": ENCODER, "max_features_": INT,
                              "estimators_": _list_of(_member(_ALL_TREES[1:])), **_OOB},
    "AdaBoostClassifier": {"encoder_": ENCODER, "classes_": LABELS,
                           "estimators_": _list_of(_member(CLASSIFIERS)),
                           "estimator_weights_": F64_1, "estimator_errors_": F64_1},
    "GradientBoostingClassifier": {"encoder_": ENCODER, "classes_": LABELS, "init_": F64_1,
                                   "estimators_": _grid(_ALL_TREES[1:]), "train_score_": F64_1,
                                   "oob_improvement_": _optional(F64_1)},
    "GradientBoostingRegressor": {"encoder_": ENCODER, "init_": F64_1,
                                  "estimators_": _grid(_ALL_TREES[1:]), "train_score_": F64_1,
                                  "oob_improvement_": _optional(F64_1)},
}

#: Fitted attributes deliberately left out of the file (records of the training rows).
NOT_SAVED = ("inbag_counts_", "estimators_samples_", "oob_decision_function_",
             "oob_prediction_", "initial_sample_weight_", "training_misses_", "final_sample_weight_",
             "huber_deltas_", "bins_")


def fields_of(model) -> dict[str, Field]:
    return FIELDS[type(model).__name__]


# --------------------------------------------------------------------- derived


def derive(model, where: str = "file") -> None:
    """Set the attributes that follow from the stored ones, as ``fit`` would."""
    if hasattr(model, "classes_"):
        model.n_classes_ = len(model.classes_)
    encoder = getattr(model, "encoder_", None) or getattr(model, "_encoder", None)
    if encoder is not None:
        model.feature_names_in_ = encoder.feature_names_in_
        model.n_features_in_ = len(encoder.feature_names_in_)
    else:
        model.n_features_in_ = len(model.feature_names_in_)
    if isinstance(model, _TREES):
        model.is_categorical_ = encoder.is_categorical_
        model.categories_ = encoder.categories_
        try:
            model.max_features_ = resolve_max_features(model.max_features, model.n_features_in_)
        except (TypeError, ValueError) as error:
            raise fail(f"{where}.params.max_features", str(error)) from None
        model.feature_importances_ = model.tree_.feature_importances(model.n_features_in_)
    elif isinstance(model, CategoricalNB):
        model.categories_ = list(encoder.categories_)
        model.n_categories_ = encoder.n_categories_


def finish(model) -> None:
    """Derived attributes that need consistent members (after :func:`check_consistent`)."""
    if isinstance(model, BaseBagged):
        model._stacked_cache = None
        model.feature_importances_ = model._mean_importances()
    elif isinstance(model, (GradientBoostingClassifier, GradientBoostingRegressor)):
        model.loss_ = model._make_loss()


# ----------------------------------------------------------------- consistency


def _shape(model, name: str, shape: tuple, where: str) -> None:
    actual = np.shape(getattr(model, name))
    if actual != shape:
        raise fail(f"{where}.{name}", f"has shape {list(actual)}, expected {list(shape)}")


def check_consistent(model, where: str) -> None:
    """Shapes that must agree across fields (K classes, F features, T members)."""
    if hasattr(model, "class_count_"):
        _check_nb(model, where)
    if isinstance(model, BaseBagged) or isinstance(model, AdaBoostClassifier):
        _check_members(model, model.estimators_, where)
    if isinstance(model, AdaBoostClassifier):
        T = len(model.estimators_)
        for name in ("estimator_weights_", "estimator_errors_"):
            _shape(model, name, (T,), where)
    if isinstance(model, (GradientBoostingClassifier, GradientBoostingRegressor)):
        _check_boosting(model, where)


def _check_nb(model, where: str) -> None:
    K, F = len(model.classes_), model.n_features_in_
    for name in ("class_count_", "class_prior_", "class_log_prior_"):
        _shape(model, name, (K,), where)
    for name in ("theta_", "var_", "observed_count_", "feature_count_", "feature_log_prob_",
                 "neg_feature_log_prob_"):
        if isinstance(getattr(model, name, None), np.ndarray):
            _shape(model, name, (K, F), where)
    if isinstance(model, CategoricalNB):
        for name in ("category_count_", "feature_log_prob_", "unseen_log_prob_"):
            tables = getattr(model, name)
            if len(tables) != F:
                raise fail(f"{where}.{name}", f"must hold one table per column ({F})")
            for i, (table, k) in enumerate(zip(tables, model.n_categories_, strict=True)):
                expected = (K,) if name == "unseen_log_prob_" else (K, k)
                if table.shape != expected:
                    raise fail(f"{where}.{name}[{i}]", f"must have shape {list(expected)}")
    if isinstance(model, MixedNB):
        _check_mixed(model, where)


def _check_mixed(model, where: str) -> None:
    names = list(model.feature_names_in_)
    if any(not isinstance(n, str) for n in names) or list(model.feature_kinds_) != names:
        raise fail(f"{where}.feature_kinds_", "must give a kind for each column, in order")
    parts = {"categorical_": model._columns("categorical", "binned"),
             "gaussian_": model._columns("gaussian")}
    for name, columns in parts.items():
        part = getattr(model, name)
        if (part is None) != (not columns) or (part is not None and (
                list(part.feature_names_in_) != columns
                or not np.array_equal(part.classes_, model.classes_))):
            raise fail(f"{where}.{name}", f"must be fitted on the columns {columns}")
    if list(model.bin_edges_) != model._columns("binned") or list(model.text_) != model._columns("text"):
        raise fail(where, "must give bin edges for each binned column and a model per text column")
    for name, (vocabulary, part) in model.text_.items():
        if part.feature_count_.shape != (len(model.classes_), len(vocabulary.words_)):
            raise fail(f"{where}.text_.{name}", "must have one count per class and word")


def _check_members(model, members, where: str) -> None:
    if len(members) == 0:
        raise fail(f"{where}.estimators_", "must hold at least one model")
    for i, member in enumerate(members):
        if not hasattr(member, "feature_names_in_"):  # stored with "fitted": null
            raise fail(f"{where}.estimators_[{i}]", "must be a fitted model")
        if list(member.feature_names_in_) != list(model.feature_names_in_):
            raise fail(f"{where}.estimators_[{i}]", "must use the ensemble's columns")
        if hasattr(model, "classes_") and hasattr(member, "classes_") and (
                pd.Index(model.classes_).get_indexer(member.classes_) < 0).any():
            raise fail(f"{where}.estimators_[{i}]", "predicts classes the ensemble does not know")


def _check_boosting(model, where: str) -> None:
    K = getattr(model, "n_classes_", 0)
    columns = K if K > 2 else 1
    T = model.estimators_.shape[0]
    if model.estimators_.shape[1] != columns or (K == 1 and T):
        raise fail(f"{where}.estimators_", f"must have {columns} tree(s) per round")
    _shape(model, "init_", (columns,), where)
    _shape(model, "train_score_", (T,), where)
    if model.oob_improvement_ is not None:
        _shape(model, "oob_improvement_", (T,), where)
    if T:
        _check_members(model, model.estimators_.ravel(), where)


# ------------------------------------------------------------------------ probe

_PROBE_ERRORS = (ValueError, TypeError, IndexError, KeyError, AttributeError, ArithmeticError)


def probe(model) -> None:
    """Predict two rows (known values, then unseen/missing ones) as a last check."""
    frame = probe_frame(model)
    try:
        with np.errstate(all="ignore"):
            output = (model.predict_proba(frame) if hasattr(model, "predict_proba")
                      else model.predict(frame))
            model.predict(frame)
    except _PROBE_ERRORS as exc:
        raise ModelFileError(f"the model fails on a test row ({str(exc)[:120]}).") from None
    expected = (2, len(model.classes_)) if hasattr(model, "classes_") else (2,)
    if np.shape(output) != expected:
        raise ModelFileError("the model's output has the wrong shape.")


def probe_frame(model) -> pd.DataFrame:
    """Two rows with the model's columns: a known value each, then unseen or missing."""
    kinds = getattr(model, "feature_kinds_", None)
    encoder = getattr(model, "encoder_", None) or getattr(model, "_encoder", None)
    columns = {}
    for j, name in enumerate(model.feature_names_in_):
        if kinds is not None:
            kind = kinds[name]
            columns[name] = (["word", None] if kind == "text" else
                             ["?", None] if kind == "categorical" else [0.0, np.nan])
        elif encoder.is_categorical_[j]:
            known = encoder.categories_[j][0] if len(encoder.categories_[j]) else "?"
            columns[name] = pd.Series([known, "?"], dtype=object)
        else:
            columns[name] = [0.0, np.nan]
    frame = pd.DataFrame(columns)
    if kinds is None and encoder.feature_names_in_[0] == "x0" and not encoder.is_categorical_.any():
        return frame.to_numpy(dtype=np.float64)
    return frame
