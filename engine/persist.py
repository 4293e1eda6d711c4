"""Fitted models as JSON files: an open format that holds numbers, never code.

A model file is one JSON object::

    {"format": "glassbox-model", "version": 2,
     "estimator": "RandomForestClassifier",
     "params": {"n_estimators": 100, "max_depth": null, ...},
     "fitted": {"encoder_": {...}, "classes_": {...}, "estimators_": [...], ...}}

* ``estimator`` is a class name from :data:`ESTIMATORS`, looked up in that dict and
  nowhere else; ``params`` are exactly that class's ``get_params(deep=False)``.
* ``fitted`` holds the learned attributes, one JSON member per attribute (its name).
  Attributes that follow from others (``n_classes_``, ``feature_names_in_``,
  ``feature_importances_`` …) are recomputed on loading and not stored.
* An array is ``{"type": "ndarray", "dtype": "float64" | "int64" | "int8" | "uint8" |
  "bool" | "object", "shape": [n] or [n, m], "data": nested lists}``. Floats are written
  with the shortest decimal that reads back to the same double (17 significant digits
  at most), so a loaded model predicts *exactly* what the saved one did. JSON has no
  NaN or infinity: in a float64 array they are the strings ``"nan"``, ``"inf"``,
  ``"-inf"``; anywhere else (object arrays, scalars) ``{"float": "nan"}`` and so on.
  Object arrays (class labels, category values) hold strings, numbers, booleans.
* The column encoder (``encoder_``, ``_encoder``) is ``{"type": "encoder",
  "feature_names_in_", "is_categorical_", "categories_"}``: categories are listed in
  code order, ``null`` for a numeric column. A tree or forest member that shares the
  ensemble's encoder says ``{"type": "parent_encoder"}`` instead of repeating it.
* A tree (``tree_``) is ``{"type": "tree", ...}`` with the parallel node arrays of
  :class:`engine.tree.Tree`: ``children_left``, ``children_right``, ``feature``,
  ``threshold``, ``split_kind``, ``category_count``, ``missing_child``,
  ``unseen_child``, ``value``, ``impurity``, ``n_node_samples``,
  ``weighted_n_node_samples``, ``depth``, ``parent``; and ``category_children``, the
  runs of children by category code of the categorical splits, node after node
  (``category_count`` long each). Version 1 held those as ``category_child``, a row per
  node as wide as the most categories; such files still load.
* A member model (forest trees, AdaBoost stumps, Mixed NB parts) is ``{"type":
  "estimator", "estimator", "params", "fitted"}``; gradient boosting's (rounds × K)
  grid of trees is ``{"type": "grid", "shape": [T, K], "items": [[...], ...]}``.

Not saved: records of the *training rows* — bootstrap counts (``inbag_counts_``,
``estimators_samples_``), OOB predictions per row, AdaBoost's start weights and
per-round misses (from which its per-round weights are replayed), gradient boosting's
Huber δ of each round (``huber_deltas_``) and the quantile bins of
``binning="quantile"`` (``bins_``). They grow with the training set and are not needed
to predict (the thresholds are stored); views that draw them need the model fitted in
the app.

Loading checks everything: field names and types, shapes that agree (tree arrays of
one length, child indices inside the tree, ``value`` columns = classes, members with
the ensemble's columns and classes), then predicts two probe rows. Any failure raises
:class:`ModelFileError` saying what is wrong. No pickle, no eval, no imports by name.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from . import _persist_schema as schema
from ._persist_codec import ModelFileError, dump_scalar, fail, load_dict, load_scalar
from .base import BaseEstimator

__all__ = ["ESTIMATORS", "FORMAT", "MAX_BYTES", "VERSION", "ModelFileError",
           "model_from_json", "model_to_json"]

FORMAT = "glassbox-model"
VERSION = 2
#: The versions this app reads: version 1 differs only in how a tree keeps its category
#: children (see above).
READABLE_VERSIONS = (1, 2)
#: Files larger than this are refused before parsing.
MAX_BYTES = 50 * 2**20
#: Name → class: the only classes a file can name.
ESTIMATORS = schema.ESTIMATORS
#: How deep member models may nest (Bagging of MixedNB of CategoricalNB is 3).
MAX_NESTING = 4


def model_to_json(model: BaseEstimator) -> str:
    """The fitted ``model`` as a Glassbox model file (a JSON string).

    Examples
    --------
    >>> from engine.tree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier(max_depth=1).fit([[0.0], [1.0]], ["no", "yes"])
    >>> text = model_to_json(tree)
    >>> json.loads(text)["estimator"]
    'DecisionTreeClassifier'
    >>> model_from_json(text).predict([[0.2], [0.9]]).tolist()
    ['no', 'yes']
    """
    if type(model).__name__ not in ESTIMATORS or ESTIMATORS[type(model).__name__] is not type(model):
        raise ValueError(f"{type(model).__name__} cannot be saved as a Glassbox model file.")
    model._check_is_fitted()
    body = _dump_estimator(model, parent_encoder=None)
    return json.dumps({"format": FORMAT, "version": VERSION, **body}, allow_nan=False,
                      separators=(",", ":"))


def model_from_json(text: str | bytes) -> BaseEstimator:
    """The fitted estimator stored in a Glassbox model file.

    Raises
    ------
    ModelFileError
        The text is not a valid model file (too large, not JSON, not this format, a
        field of the wrong type or shape, inconsistent arrays, a model that fails on
        a probe row). The message is for an end user.
    """
    document = _parse(text)
    document = load_dict(document, "file")
    if document.get("format") != FORMAT:
        raise ModelFileError(f"its 'format' is not '{FORMAT}'.")
    version = document.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise ModelFileError(f"its 'version' is {document.get('version')!r}; this app reads "
                             f"{' and '.join(map(str, READABLE_VERSIONS))}.")
    body = {k: v for k, v in document.items() if k not in ("format", "version")}
    model = _load_estimator({"type": "estimator", **body}, "file", None, 0)
    if not _fitted_attributes(model):  # "fitted": null is for a member's unfitted template
        raise fail("file.fitted", "is empty: the file holds no fitted model")
    schema.probe(model)
    return model


def _parse(text: str | bytes):
    if not isinstance(text, (str, bytes, bytearray)):
        raise ModelFileError("expected the text of a JSON file.")
    if len(text) > MAX_BYTES:
        raise ModelFileError(f"it is larger than {MAX_BYTES // 2**20} MB.")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ModelFileError("it is not UTF-8 text (is it a JSON file?).") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(f"it is not valid JSON ({str(exc)[:120]}).") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON; write {{\"float\": \"nan\"}} and the like")


# ------------------------------------------------------------------- estimators


def _dump_estimator(model: BaseEstimator, parent_encoder) -> dict:
    context = schema.Context(parent_encoder, _dump_estimator, _load_estimator, 0)
    fitted = {}
    for name, field in schema.fields_of(model).items():
        if hasattr(model, name):
            fitted[name] = field.dump(getattr(model, name), context.within(model))
    return {"estimator": type(model).__name__, "params": _dump_params(model), "fitted": fitted}


def _dump_params(model: BaseEstimator) -> dict:
    out = {}
    for name, value in model.get_params(deep=False).items():
        if isinstance(value, BaseEstimator):
            out[name] = {"type": "estimator", "estimator": type(value).__name__,
                         "params": _dump_params(value), "fitted": None}
        elif isinstance(value, (list, tuple)):
            out[name] = [dump_scalar(v) for v in value]
        else:
            out[name] = dump_scalar(value)
    return out


def _load_estimator(node, where: str, parent_encoder, depth: int) -> BaseEstimator:
    if depth > MAX_NESTING:
        raise fail(where, "nests member models too deeply")
    node = load_dict(node, where, ("type", "estimator", "params", "fitted"))
    if node["type"] != "estimator":
        raise fail(where + ".type", "must be 'estimator'")
    cls = ESTIMATORS.get(node["estimator"]) if isinstance(node["estimator"], str) else None
    if cls is None:
        raise ModelFileError(f"it names an unknown model {str(node['estimator'])[:60]!r}; "
                             f"known models are {', '.join(ESTIMATORS)}.")
    model = cls(**_load_params(cls, node["params"], f"{where}.params", depth))
    if node["fitted"] is None:
        return model
    fitted = load_dict(node["fitted"], f"{where}.fitted")
    fields = schema.fields_of(model)
    _check_field_names(fitted, fields, f"{where}.fitted")
    context = schema.Context(parent_encoder, _dump_estimator, _load_estimator, depth)
    for name, field in fields.items():
        if name in fitted:
            setattr(model, name, field.load(fitted[name], f"{where}.fitted.{name}",
                                            context.within(model)))
    schema.derive(model, where)
    schema.check_consistent(model, f"{where}.fitted")
    schema.finish(model)
    return model


def _check_field_names(fitted: dict, fields: dict, where: str) -> None:
    required = {n for n, f in fields.items() if not f.optional}
    missing, extra = sorted(required - set(fitted)), sorted(set(fitted) - set(fields))
    if missing:
        raise fail(where, f"lacks the fields {missing}")
    if extra:
        raise fail(where, f"has unknown fields {[str(e)[:40] for e in extra][:5]}")


def _load_params(cls, node, where: str, depth: int) -> dict:
    names = cls._param_names()
    node = load_dict(node, where, names)
    params = {}
    for name in names:
        value = node[name]
        if name == "estimator" and isinstance(value, dict) and value.get("type") == "estimator":
            value = _load_estimator(value, f"{where}.estimator", None, depth + 1)
            if hasattr(value, "classes_") or _fitted_attributes(value):
                raise fail(f"{where}.estimator", "must be an unfitted template")
        elif isinstance(value, list):
            value = [load_scalar(v, f"{where}.{name}") for v in value]
        else:
            value = load_scalar(value, f"{where}.{name}")
        params[name] = value
    return params


def _fitted_attributes(model: BaseEstimator) -> list[str]:
    return [k for k in vars(model) if k.endswith("_")]


def describe(model: BaseEstimator) -> pd.DataFrame:
    """A loaded model's parameters as a two-column table (for showing a file's contents)."""
    rows = [(name, repr(value)) for name, value in model.get_params(deep=False).items()]
    return pd.DataFrame(rows, columns=["parameter", "value"])


def summary(model: BaseEstimator) -> dict:
    """What a student wants to know about a saved model: kind, columns, classes, size."""
    out = {"model": type(model).__name__,
           "columns": [str(c) for c in np.asarray(model.feature_names_in_)]}
    if hasattr(model, "classes_"):
        out["classes"] = [str(c) for c in model.classes_]
    members = getattr(model, "estimators_", None)
    if members is not None:
        out["members"] = int(np.size(members))
    return out
