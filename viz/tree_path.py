"""The decision path of one row through a fitted tree, one sentence per node."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.tree._tree import CATEGORICAL_BINARY, NUMERIC

from .tree_dot import TreeNames, _is_classifier, _majority, _num, edge_text


def _raw(row, j: int):
    return row.iloc[j] if hasattr(row, "iloc") else row[j]


def _is_missing(value) -> bool:
    try:
        return bool(np.isnan(value))
    except TypeError:
        return value is None


def explain_path(model, row, *, tree=None, feature_names: Sequence[str] | None = None) -> list[str]:
    """One sentence per node on the path of ``row`` from the root to its leaf.

    Parameters
    ----------
    model : fitted tree estimator
    row : Series or DataFrame of one row (the model's columns), or a 1-D array
    tree : Tree, optional
        The tree to follow (default ``model.tree_``).

    Returns
    -------
    list of str
        Plain sentences, e.g. "Patrons is Full, so go to the branch 'Full'.", ending
        with the leaf's prediction.
    """
    tree = model.tree_ if tree is None else tree
    frame = row.to_frame().T if hasattr(row, "to_frame") else row
    encoded = model.encoder_.transform(frame if hasattr(frame, "columns") else np.atleast_2d(frame))
    nodes = np.flatnonzero(tree.decision_path(encoded)[0])
    nodes = nodes[np.argsort(tree.depth[nodes])]
    raw = frame.iloc[0] if hasattr(frame, "iloc") else np.ravel(frame)
    names = TreeNames(model, feature_names)
    sentences = [_step_sentence(tree, int(n), int(c), raw, names)
                 for n, c in zip(nodes[:-1], nodes[1:], strict=True)]
    return sentences + [_leaf_sentence(model, tree, int(nodes[-1]), names)]


def _step_sentence(tree, node: int, child: int, raw, names: TreeNames) -> str:
    j = int(tree.feature[node])
    name, value = names.features[j], _raw(raw, j)
    branch = edge_text(tree, node, child, names)
    if _is_missing(value):
        return f"{name} is missing, so go to the branch '{branch}' (where missing values went in training)."
    kind = int(tree.split_kind[node])
    if kind == NUMERIC:
        t = tree.threshold[node]
        sign = "≤" if child == tree.children_left[node] else ">"
        return f"{name} is {_num(float(value))} {sign} {_num(t)}, so go to the branch '{branch}'."
    shown = {str(v) for v in names.categories[j]}
    if str(value) not in shown:
        return f"{name} is {value}, a value not seen in training, so go to the branch '{branch}'."
    if kind == CATEGORICAL_BINARY:
        where = "in" if child == tree.children_left[node] else "not in"
        return f"{name} is {value}, {where} the set, so go to the branch '{branch}'."
    return f"{name} is {value}, so go to the branch '{branch}'."


def _leaf_sentence(model, tree, leaf: int, names: TreeNames) -> str:
    value, n = tree.value[leaf], int(tree.n_node_samples[leaf])
    if _is_classifier(model):
        best = _majority(value)
        total = value.sum()
        share = f"{value[best]:g} of {total:g}" if total > 0 else "none"
        return (f"Leaf reached: predict {names.classes[best]} "
                f"({share} training rows here are {names.classes[best]}).")
    return f"Leaf reached: predict {_num(value[0])}, the mean target of its {n} training rows."
