"""The decision path of one row through a fitted tree, one sentence per node."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def explain_path(model, row, *, tree=None, feature_names: Sequence[str] | None = None,
                 missing_features: Iterable[int] | None = None) -> list[str]:
    """One sentence per node on the path of ``row`` from the root to its leaf.

    Parameters
    ----------
    model : fitted tree estimator
    row : Series or DataFrame of one row (the model's columns), or a 1-D array
    tree : Tree, optional
        The tree to follow (default ``model.tree_``).
    missing_features : iterable of int, optional
        Features with missing values in the training rows. A missing value of any
        other feature went to the heaviest child (no training row taught the tree
        a side), and the sentence can say so; default: not known.

    Returns
    -------
    list of str
        Plain sentences, e.g. "Patrons is Full, so go to the branch 'Full'.", ending
        with the leaf's prediction.
    """
    tree = model.tree_ if tree is None else tree
    frame = row.to_frame().T if hasattr(row, "to_frame") else row
    if hasattr(frame, "columns"):  # the model's column order, whatever the row's
        frame = frame[list(model.feature_names_in_)]
    encoded = model.encoder_.transform(frame if hasattr(frame, "columns") else np.atleast_2d(frame))
    nodes = np.flatnonzero(tree.decision_path(encoded)[0])
    nodes = nodes[np.argsort(tree.depth[nodes])]
    raw = frame.iloc[0] if hasattr(frame, "iloc") else np.ravel(frame)
    names = TreeNames(model, feature_names)
    learned = None if missing_features is None else {int(j) for j in missing_features}
    sentences = [_step_sentence(tree, int(n), int(c), raw, names, learned)
                 for n, c in zip(nodes[:-1], nodes[1:], strict=True)]
    return sentences + [_leaf_sentence(model, tree, int(nodes[-1]), names)]


def _step_sentence(tree, node: int, child: int, raw, names: TreeNames,
                   learned: set | None) -> str:
    j = int(tree.feature[node])
    name, value = names.features[j], _raw(raw, j)
    branch = edge_text(tree, node, child, names)
    if _is_missing(value):
        return (f"{name} is missing, so go to the branch '{branch}': {_missing_reason(tree, node, child, learned, j)}.")
    kind = int(tree.split_kind[node])
    if kind == NUMERIC:
        t = tree.threshold[node]
        sign = "≤" if child == tree.children_left[node] else ">"
        return f"{name} is {_num(float(value))} {sign} {_num(t)}, so go to the branch '{branch}'."
    shown = {str(v) for v in names.categories[j]}
    if str(value) not in shown:
        return (f"{name} is {value}, a category not seen in training, so go to the branch "
                f"'{branch}': unseen categories follow the most training rows "
                f"({_share(tree, node, child)}).")
    if kind == CATEGORICAL_BINARY:
        where = "in" if child == tree.children_left[node] else "not in"
        return f"{name} is {value}, {where} the set, so go to the branch '{branch}'."
    return f"{name} is {value}, so go to the branch '{branch}'."


def _share(tree, node: int, child: int) -> str:
    n_child, n_node = int(tree.n_node_samples[child]), int(tree.n_node_samples[node])
    return f"{n_child:,} of the {n_node:,} training rows here went there"


def _heaviest(tree, node: int) -> int:
    children = np.array(list(tree.children(node)))
    return int(children[np.argmax(tree.weighted_n_node_samples[children])])


def _missing_reason(tree, node: int, child: int, learned: set | None, j: int) -> str:
    """Why a missing value goes to ``child``: the learned side or the heavier one."""
    if learned is not None and j not in learned:
        return ("no training row lacked this value, so missing values follow the most "
                f"training rows ({_share(tree, node, child)})")
    if child != _heaviest(tree, node):
        return ("in training, the rows with this value missing fitted best on that side, "
                "so the tree sends missing values there")
    return ("the side the tree learned for missing values, or, if no training row here "
            f"lacked this value, the side with the most training rows ({_share(tree, node, child)})")


def _leaf_sentence(model, tree, leaf: int, names: TreeNames) -> str:
    value, n = tree.value[leaf], int(tree.n_node_samples[leaf])
    if _is_classifier(model):
        best = _majority(value)
        total = value.sum()
        share = f"{value[best]:g} of {total:g}" if total > 0 else "none"
        return (f"Leaf reached: predict {names.classes[best]} "
                f"({share} training rows here are {names.classes[best]}).")
    return f"Leaf reached: predict {_num(value[0])}, the mean target of its {n} training rows."
