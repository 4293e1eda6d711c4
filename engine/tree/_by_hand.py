"""A tree whose splits someone chose: the student's own tree, grown by hand.

The splits are given per node, the node named by its *path* from the root (the child
offsets taken: ``()`` the root, ``(0,)`` its first child, ``(1, 0)`` …); a node without a
split is a leaf. Everything else is the textbook grower's (:mod:`._reference`): class
counts and impurity per node, the missing values sent to the child where the split
scores best, the children grown the same way. The result is an ordinary :class:`Tree`,
numbered as the fast builder numbers (level by level, children contiguous), so it
predicts, draws and exports like any tree; given the splits of a grown tree
(:func:`splits_of`) it is that tree.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ._criteria import CLASSIFICATION_CRITERIA
from ._reference import Node, Rules, Split, route, send_missing
from ._tree import (
    CATEGORICAL_BINARY,
    CATEGORICAL_MULTIWAY,
    LEAF,
    NUMERIC,
    TREE_LEAF,
    TREE_UNDEFINED,
    Tree,
    category_runs,
)


@dataclass(frozen=True)
class HandSplit:
    """A chosen split: ``x <= threshold`` (numeric), the categories ``left`` (codes) to
    the first child and the rest to the second, or one branch per category
    (``multiway``). ``missing``: the child the node's rows without a value go to; None
    for where the split scores best."""

    feature: int
    threshold: float = np.nan
    left: tuple[int, ...] = ()
    multiway: bool = False
    missing: int | None = None


def grow_by_hand(X, codes, weight, n_classes: int, categories: list, criterion: str,
                 splits: dict[tuple[int, ...], HandSplit]) -> Tree:
    """The tree of encoded rows ``X`` and class codes with the splits ``splits``.

    Raises ValueError for a split at a node the other splits do not make (its path does
    not exist) or one that leaves a child without rows of a binary split.
    """
    keep = weight > 0  # rows of zero weight take no part, as in a grown tree
    rules = Rules(n_classes, categories, criterion)
    nodes, used = [], set()
    root = _grow(X[keep], codes[keep], weight[keep], rules, (), splits, used)
    unused = set(splits) - used
    if unused:
        raise ValueError(f"no node at path {sorted(unused)[0]}: a split above it is missing")
    _flatten(root, nodes)
    return _tree(nodes, max((len(c) for c in categories if c is not None), default=0))


@dataclass
class _HandNode(Node):
    seen: frozenset = field(default_factory=frozenset)  # category codes present (its split's)
    n_categories: int = 0                                # of its split's feature


def _grow(X, y, weight, rules: Rules, path: tuple, splits: dict, used: set) -> _HandNode:
    counts = np.bincount(y, weights=weight, minlength=rules.n_classes).astype(float)
    node = _HandNode(counts, len(y), float(CLASSIFICATION_CRITERIA[rules.criterion](counts)))
    chosen = splits.get(path)
    if chosen is None:
        return node
    used.add(path)
    if rules.categories[chosen.feature] is not None:
        x = X[:, chosen.feature]
        node.seen = frozenset(np.unique(x[~np.isnan(x)]).astype(int).tolist())
        node.n_categories = len(rules.categories[chosen.feature])
    split = _reference_split(chosen, X, rules)
    if chosen.missing is None or split.missing_only:
        split = send_missing(split, X, y, weight, rules, node.impurity)
    elif np.isnan(X[:, chosen.feature]).any():
        split = replace(split, missing=int(chosen.missing))
    branch = route(split, X)
    if split.kind != "multiway" and np.bincount(branch, minlength=2).min() == 0:
        raise ValueError(f"the split at path {path} sends every row of its node one way")
    node.split = split
    node.children = [_grow(X[branch == k], y[branch == k], weight[branch == k], rules,
                           path + (k,), splits, used) for k in range(split.n_children)]
    for child in node.children:
        if child.n_samples == 0:  # an empty ID3 branch predicts what its parent would
            child.counts, child.impurity = node.counts, node.impurity
    return node


def _reference_split(chosen: HandSplit, X, rules: Rules) -> Split:
    j = chosen.feature
    if rules.categories[j] is None:
        return Split(j, "threshold", float(chosen.threshold), (), 2,
                     missing_only=bool(np.isinf(chosen.threshold)))
    if chosen.multiway:
        return Split(j, "multiway", np.nan, (), len(rules.categories[j]))
    present = np.unique(X[~np.isnan(X[:, j]), j]).astype(int)
    right = [c for c in present if c not in chosen.left]
    return Split(j, "subset", np.nan, tuple(int(c) for c in chosen.left), 2,
                 missing_only=not right)


@dataclass
class _Flat:
    node: Node
    parent: int
    depth: int
    first_child: int = TREE_LEAF


def _flatten(root: Node, out: list) -> None:
    """Level by level, each node's children contiguous (the fast builder's numbering)."""
    out.append(_Flat(root, -1, 0))
    i = 0
    while i < len(out):
        flat = out[i]
        if flat.node.children:
            flat.first_child = len(out)
            out += [_Flat(child, i, flat.depth + 1) for child in flat.node.children]
        i += 1


def _tree(flat: list[_Flat], max_cat: int) -> Tree:
    n = len(flat)
    t = {"left": np.full(n, TREE_LEAF), "right": np.full(n, TREE_LEAF),
         "feature": np.full(n, TREE_UNDEFINED), "threshold": np.full(n, np.nan),
         "kind": np.full(n, LEAF, dtype=np.int8), "category": np.full((n, max_cat), -1),
         "missing": np.full(n, -1), "unseen": np.full(n, -1)}
    for i, f in enumerate(flat):
        split = f.node.split
        if split is None:
            continue
        first, k = f.first_child, split.n_children
        weights = [c.counts.sum() if c.n_samples else 0.0 for c in f.node.children]
        heaviest = int(np.argmax(weights)) if split.kind == "multiway" else int(weights[1] > weights[0])
        t["left"][i], t["right"][i], t["feature"][i] = first, first + k - 1, split.feature
        t["missing"][i] = first + (split.missing if split.missing >= 0 else heaviest)
        if split.kind == "threshold":
            t["kind"][i], t["threshold"][i] = NUMERIC, split.threshold
            continue
        t["unseen"][i] = first + heaviest
        n_cat = f.node.n_categories
        if split.kind == "multiway":
            t["kind"][i] = CATEGORICAL_MULTIWAY
            t["category"][i, :n_cat] = first + np.arange(n_cat)
        else:
            t["kind"][i] = CATEGORICAL_BINARY
            for code in range(n_cat):  # a category not at the node: to the heaviest child
                side = (0 if code in split.left else 1) if code in f.node.seen else heaviest
                t["category"][i, code] = first + side
    counts = np.array([f.node.counts for f in flat])
    category_count, category_children = category_runs(t["category"])
    return Tree(children_left=t["left"], children_right=t["right"], feature=t["feature"],
                threshold=t["threshold"], split_kind=t["kind"], category_count=category_count,
                category_children=category_children,
                missing_child=t["missing"], unseen_child=t["unseen"], value=counts,
                impurity=np.array([f.node.impurity for f in flat]) + 0.0,
                n_node_samples=np.array([f.node.n_samples for f in flat], dtype=np.intp),
                weighted_n_node_samples=np.array([f.node.counts.sum() if f.node.n_samples
                                                  else 0.0 for f in flat]),
                depth=np.array([f.depth for f in flat], dtype=np.intp),
                parent=np.array([f.parent for f in flat], dtype=np.intp))


def path_of(tree: Tree, node: int) -> tuple[int, ...]:
    """The child offsets from the root to ``node``."""
    path = []
    while tree.parent[node] >= 0:
        parent = int(tree.parent[node])
        path.append(int(node - tree.children_left[parent]))
        node = parent
    return tuple(reversed(path))


def splits_of(tree: Tree) -> dict[tuple[int, ...], HandSplit]:
    """The splits of a grown tree, by node path, each with the child its missing values
    go to: :func:`grow_by_hand` grows the tree again."""
    out = {}
    for node in np.flatnonzero(tree.children_left >= 0):
        kind, j = int(tree.split_kind[node]), int(tree.feature[node])
        missing = int(tree.missing_child[node] - tree.children_left[node])
        if kind == NUMERIC:
            split = HandSplit(j, float(tree.threshold[node]), missing=missing)
        elif kind == CATEGORICAL_MULTIWAY:
            split = HandSplit(j, multiway=True, missing=missing)
        else:
            left = np.flatnonzero(tree.children_by_code(node) == tree.children_left[node])
            split = HandSplit(j, left=tuple(int(c) for c in left), missing=missing)
        out[path_of(tree, int(node))] = split
    return out
