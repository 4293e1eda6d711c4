"""JSON building blocks of the model file: scalars, arrays, encoders, trees.

Each ``dump_*`` turns a Python value into plain JSON data; each ``load_*`` reads it
back, checks its type and shape, and raises :class:`ModelFileError` for anything that
is not what the format allows. See :mod:`engine.persist` for the format itself.
"""
from __future__ import annotations

import math
from dataclasses import fields

import numpy as np
import pandas as pd

from ._validation import FeatureEncoder
from .tree._tree import (
    CATEGORY_RUNS,
    LEAF,
    NUMERIC,
    TREE_LEAF,
    TREE_UNDEFINED,
    Tree,
    category_runs,
)

#: dtype names allowed in a file, and the NumPy dtype each one loads as.
DTYPES = {"float64": np.float64, "int64": np.int64, "int8": np.int8, "uint8": np.uint8,
          "bool": np.bool_, "object": object}
#: The JSON spellings of the floats JSON has no number for.
NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
#: Scalar types an object array (categories, class labels) may hold.
_OBJECT_TYPES = (str, int, float, bool, type(None))


class ModelFileError(ValueError):
    """A model file that is not a valid Glassbox model; the message is for a student."""

    def __init__(self, reason: str):
        super().__init__(f"This file is not a Glassbox model: {reason}")
        self.reason = reason


def fail(where: str, what: str) -> ModelFileError:
    """The error for field ``where`` (a dotted path in the file)."""
    return ModelFileError(f"'{where}' {what}.")


# ------------------------------------------------------------------------ scalars


def dump_scalar(x):
    """A Python/NumPy scalar as JSON; NaN and ±inf as ``{"float": "nan"}`` etc."""
    if x is None or isinstance(x, (bool, str)):
        return str(x) if isinstance(x, str) else x
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else {"float": _nonfinite_name(x)}
    raise ValueError(f"Cannot save a value of type {type(x).__name__} in a model file.")


def _nonfinite_name(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def load_scalar(node, where: str):
    """A JSON scalar, or a tagged non-finite float, back to Python."""
    if isinstance(node, dict):
        if set(node) == {"float"} and node["float"] in NONFINITE:
            return NONFINITE[node["float"]]
        raise fail(where, 'is an object; only {"float": "nan" | "inf" | "-inf"} is allowed here')
    if not isinstance(node, _OBJECT_TYPES):
        raise fail(where, "must be a number, a string, true/false or null")
    return node


def load_int(node, where: str, low: int = 0) -> int:
    if type(node) is not int or node < low:
        raise fail(where, f"must be a whole number >= {low}")
    return node


def load_float(node, where: str) -> float:
    value = load_scalar(node, where)
    if type(value) not in (int, float):
        raise fail(where, "must be a number")
    return float(value)


def load_bool(node, where: str) -> bool:
    if type(node) is not bool:
        raise fail(where, "must be true or false")
    return node


def load_str(node, where: str) -> str:
    if not isinstance(node, str):
        raise fail(where, "must be a string")
    return node


def load_dict(node, where: str, keys=None) -> dict:
    """A JSON object; with ``keys``, exactly those keys."""
    if not isinstance(node, dict):
        raise fail(where, "must be a JSON object")
    if keys is not None and set(node) != set(keys):
        missing, extra = sorted(set(keys) - set(node)), sorted(set(node) - set(keys))
        raise fail(where, f"has missing fields {missing} / unexpected fields {extra}")
    return node


# ------------------------------------------------------------------------- arrays


def dump_array(a) -> dict:
    """``{"type": "ndarray", "dtype", "shape", "data"}`` with ``data`` nested lists."""
    a = np.asarray(a)
    name = _dtype_name(a.dtype)
    if name == "float64" and not np.isfinite(a).all():
        data = a.astype(object)
        for text, value in (("nan", np.isnan(a)), ("inf", a == np.inf), ("-inf", a == -np.inf)):
            data[value] = text
        data = data.tolist()
    elif name == "object":
        data = np.frompyfunc(dump_scalar, 1, 1)(a).tolist() if a.size else a.tolist()
    else:
        data = a.tolist()
    return {"type": "ndarray", "dtype": name, "shape": list(a.shape), "data": data}


def _dtype_name(dtype: np.dtype) -> str:
    if dtype.kind == "f":
        return "float64"
    if dtype.kind in "iu" and dtype.itemsize >= 2:  # written as int64, read back as such
        return "int64"
    for name in ("int8", "uint8", "bool", "int64"):
        if dtype == DTYPES[name]:
            return name
    if dtype.kind in "OUS":
        return "object"
    raise ValueError(f"Cannot save an array of dtype {dtype} in a model file.")


def load_array(node, where: str, dtypes=None, ndim: int | None = None) -> np.ndarray:
    """An ndarray from its JSON form; ``dtypes``/``ndim`` restrict what is accepted."""
    node = load_dict(node, where, ("type", "dtype", "shape", "data"))
    if node["type"] != "ndarray" or not isinstance(node["dtype"], str) or node["dtype"] not in DTYPES:
        raise fail(where, f"must be an array with dtype one of {sorted(DTYPES)}")
    if dtypes is not None and node["dtype"] not in dtypes:
        raise fail(where, f"must have dtype {' or '.join(dtypes)}, not {node['dtype']}")
    shape = node["shape"]
    if (not isinstance(shape, list) or not 1 <= len(shape) <= 2
            or any(type(s) is not int or s < 0 for s in shape)):
        raise fail(where + ".shape", "must be a list of one or two sizes >= 0")
    if ndim is not None and len(shape) != ndim:
        raise fail(where, f"must be {ndim}-dimensional, not {len(shape)}-dimensional")
    flat = _flat_data(node["data"], tuple(shape), where)
    return _typed(flat, node["dtype"], where).reshape(shape)


def _flat_data(data, shape: tuple, where: str) -> list:
    """The elements of ``data`` in order, after checking its nesting matches ``shape``."""
    if not isinstance(data, list):
        raise fail(where + ".data", "must be a list")
    if len(data) != shape[0]:
        raise fail(where + ".data", f"has {len(data)} rows but the shape says {shape[0]}")
    if len(shape) == 1:
        if any(isinstance(v, list) for v in data):
            raise fail(where + ".data", "is nested deeper than its shape")
        return data
    if any(not isinstance(row, list) or len(row) != shape[1] for row in data):
        raise fail(where + ".data", f"must hold {shape[0]} rows of {shape[1]} values")
    flat = [v for row in data for v in row]
    if any(isinstance(v, list) for v in flat):
        raise fail(where + ".data", "is nested deeper than its shape")
    return flat


def _typed(flat: list, dtype: str, where: str) -> np.ndarray:
    types = {type(v) for v in flat}
    try:
        if dtype == "float64":
            if not types <= {int, float, str}:
                raise TypeError
            if str in types:
                flat = [NONFINITE[v] if type(v) is str else v for v in flat]
            return np.array(flat, dtype=np.float64)
        if dtype == "object":
            return _object_array([load_scalar(v, where) for v in flat])
        wanted = bool if dtype == "bool" else int
        if not types <= {wanted}:
            raise TypeError
        return np.array(flat, dtype=DTYPES[dtype])
    except (TypeError, KeyError, OverflowError, ValueError):
        raise fail(where + ".data", f"holds values that are not {dtype}") from None


def _object_array(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def load_labels(node, where: str) -> np.ndarray:
    """Class labels or category values: 1-D, distinct, no missing values."""
    array = load_array(node, where, ("object", "int64", "float64", "bool"), ndim=1)
    values = list(array)
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        raise fail(where, "holds a missing value")
    if not pd.Index(array).is_unique:
        raise fail(where, "holds the same value twice")
    return array


# ------------------------------------------------------------------------ encoder


def dump_encoder(encoder: FeatureEncoder) -> dict:
    return {
        "type": "encoder",
        "feature_names_in_": dump_array(encoder.feature_names_in_),
        "is_categorical_": dump_array(encoder.is_categorical_),
        "categories_": [None if c is None else dump_array(c) for c in encoder.categories_],
    }


def load_encoder(node, where: str) -> FeatureEncoder:
    node = load_dict(node, where, ("type", "feature_names_in_", "is_categorical_", "categories_"))
    if node["type"] != "encoder":
        raise fail(where + ".type", "must be 'encoder'")
    names = load_array(node["feature_names_in_"], where + ".feature_names_in_", ("object",), 1)
    if len(names) == 0 or any(not isinstance(n, str) for n in names) or len(set(names)) < len(names):
        raise fail(where + ".feature_names_in_", "must be distinct column names (strings)")
    is_cat = load_array(node["is_categorical_"], where + ".is_categorical_", ("bool",), 1)
    categories = node["categories_"]
    if len(is_cat) != len(names) or not isinstance(categories, list) or len(categories) != len(names):
        raise fail(where, "must give is_categorical_ and categories_ for every column")
    loaded = []
    for j, (cat, entry) in enumerate(zip(is_cat, categories, strict=True)):
        if cat != (entry is not None):
            raise fail(f"{where}.categories_[{j}]", "must be a list exactly for categorical columns")
        loaded.append(None if entry is None else load_labels(entry, f"{where}.categories_[{j}]"))
    return FeatureEncoder(feature_names_in_=names, is_categorical_=is_cat, categories_=loaded)


# --------------------------------------------------------------------------- tree

_TREE_DTYPES = {"threshold": "float64", "value": "float64", "impurity": "float64",
                "weighted_n_node_samples": "float64", "split_kind": "int8"}
_TREE_NDIM = {"value": 2}
#: What a version-1 file holds instead of the category runs: a row per node of the
#: child of each category code (-1: none), as wide as the most categories.
_V1_GRID = "category_child"


def dump_tree(tree: Tree) -> dict:
    return {"type": "tree", **{f.name: dump_array(getattr(tree, f.name)) for f in fields(Tree)}}


def load_tree(node, where: str, n_features: int, n_outputs: int | None) -> Tree:
    """A Tree whose arrays are consistent: see :func:`check_tree` for what is checked.
    A version-1 tree's table of a row per node becomes the category runs."""
    names = [f.name for f in fields(Tree)]
    if isinstance(node, dict) and _V1_GRID in node:
        names = [_V1_GRID if name == "category_count" else name for name in names
                 if name != CATEGORY_RUNS]
    node = load_dict(node, where, ["type", *names])
    if node["type"] != "tree":
        raise fail(where + ".type", "must be 'tree'")
    arrays = {}
    for name in names:
        dtype = _TREE_DTYPES.get(name, "int64")
        ndim = 2 if name == _V1_GRID else _TREE_NDIM.get(name, 1)
        array = load_array(node[name], f"{where}.{name}", (dtype,), ndim)
        arrays[name] = array.astype(np.intp) if dtype == "int64" else array
    if _V1_GRID in arrays:
        grid = arrays.pop(_V1_GRID)
        if len(grid) != len(arrays["children_left"]):
            raise fail(where, "must have arrays of one common, non-zero length (the node count)")
        arrays["category_count"], arrays[CATEGORY_RUNS] = category_runs(grid)
    tree = Tree(**arrays)
    check_tree(tree, where, n_features, n_outputs)
    return tree


def check_tree(tree: Tree, where: str, n_features: int, n_outputs: int | None) -> None:
    """Same length everywhere; children after their parent, each node in one sibling
    group; features in range; leaves marked alike in every array; a run of category
    children exactly at each categorical split, each child one of its node's."""
    n = len(tree.children_left)
    if n == 0 or any(len(getattr(tree, f.name)) != n for f in fields(Tree) if f.name != CATEGORY_RUNS):
        raise fail(where, "must have arrays of one common, non-zero length (the node count)")
    if n_outputs is not None and tree.value.shape[1] != n_outputs:
        raise fail(where + ".value", f"must have {n_outputs} columns (one per class/output)")
    _check_structure(tree, where)
    _check_splits(tree, where, n_features)


def _check_structure(tree: Tree, where: str) -> None:
    node = np.arange(len(tree.children_left))
    left, right = tree.children_left, tree.children_right
    leaf = left == TREE_LEAF
    if not np.array_equal(leaf, right == TREE_LEAF):
        raise fail(where, "marks a node as a leaf on one side only")
    inner = ~leaf
    if (left[inner] <= node[inner]).any() or (right[inner] < left[inner]).any() \
            or (right[inner] >= len(node)).any():
        raise fail(where + ".children_left", "has a child index out of range")
    coverage = np.zeros(len(node) + 1, dtype=np.intp)
    np.add.at(coverage, left[inner], 1)
    np.add.at(coverage, right[inner] + 1, -1)
    if not np.array_equal(np.cumsum(coverage)[:-1], (node > 0).astype(np.intp)):
        raise fail(where, "is not a tree: some node has no parent or two")
    owner = np.repeat(node[inner], right[inner] - left[inner] + 1)
    if tree.parent[0] != -1 or not np.array_equal(tree.parent[1:], owner):
        raise fail(where + ".parent", "does not match the children arrays")
    if tree.depth[0] != 0 or not np.array_equal(tree.depth[1:], tree.depth[owner] + 1):
        raise fail(where + ".depth", "does not match the parent array")


def _check_splits(tree: Tree, where: str, n_features: int) -> None:
    leaf = tree.children_left == TREE_LEAF
    kind, feature = tree.split_kind, tree.feature
    if ((kind == LEAF) != leaf).any() or (kind > 3).any() or (kind < 0).any():
        raise fail(where + ".split_kind", "must be 0 exactly at leaves and 1..3 elsewhere")
    if (feature[leaf] != TREE_UNDEFINED).any() or (feature[~leaf] < 0).any() \
            or (feature[~leaf] >= n_features).any():
        raise fail(where + ".feature", f"must name a column 0..{n_features - 1} at each split")
    numeric = kind == NUMERIC
    if (tree.children_right[numeric] != tree.children_left[numeric] + 1).any():
        raise fail(where, "has a numeric split without exactly two children")
    for name, allowed_at in (("missing_child", ~leaf), ("unseen_child", kind >= 2)):
        child = getattr(tree, name)
        _check_children(child, allowed_at, tree, f"{where}.{name}")
    count = tree.category_count
    if (count < 0).any() or ((count > 0) != (kind >= 2)).any() \
            or len(tree.category_children) != count.sum():
        raise fail(where + ".category_count", "must count the children of each categorical split")
    owner = np.repeat(np.arange(len(kind)), count)
    child = tree.category_children
    inside = (child >= tree.children_left[owner]) & (child <= tree.children_right[owner])
    if not ((child == TREE_LEAF) | inside).all():
        raise fail(where + ".category_children", "has a child index out of range")
    if not np.isfinite(tree.value).all() or (tree.n_node_samples < 0).any():
        raise fail(where + ".value", "must hold finite numbers")
    weights = tree.weighted_n_node_samples
    if not (np.isfinite(weights).all() and (weights >= 0).all() and weights[0] > 0):
        raise fail(where + ".weighted_n_node_samples",
                   "must be finite, not negative, and positive at the root")
    with np.errstate(over="ignore", invalid="ignore"):  # importances sum weight × impurity
        total = (weights * tree.impurity).sum()
    if not ((tree.impurity >= 0).all() and np.isfinite(total)):
        raise fail(where + ".impurity", "must be finite and not negative")


def _check_children(child: np.ndarray, allowed_at: np.ndarray, tree: Tree, where: str) -> None:
    inside = (child >= tree.children_left) & (child <= tree.children_right)
    if (allowed_at & ~inside).any() or (child[~allowed_at] != TREE_LEAF).any():
        raise fail(where, "has a child index out of range")
