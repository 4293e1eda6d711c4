"""The fitted tree: flat parallel arrays that prediction, pruning and pictures read.

Node 0 is the root. The children of an internal node ``i`` are the contiguous ids
``children_left[i] .. children_right[i]``: two for a binary split, ``k`` for an ID3
multiway split on a ``k``-valued attribute (in category-code order).

A categorical split sends each category code to a child. Those children are kept only
for the nodes that split on a category, one run of ``category_count[i]`` ids per node in
``category_children``, the runs in node order: a node's run starts where the runs of the
nodes before it end (:attr:`Tree.category_first`). A table of a row per node, as wide as
the most categories, would be most of a forest's memory once a column has hundreds of
values.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

TREE_LEAF = -1
TREE_UNDEFINED = -2
#: The integer type of node ids, features, row counts and depths: 4 bytes a field, as
#: scikit-learn's node records hold them, so a forest's trees take about 80 bytes a node.
NODE_INT = np.int32
#: The ``Tree`` fields stored as :data:`NODE_INT`.
NODE_INTEGERS = ("children_left", "children_right", "feature", "category_count",
                 "category_children", "missing_child", "unseen_child", "n_node_samples",
                 "depth", "parent")

#: Values of ``Tree.split_kind``.
LEAF, NUMERIC, CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY = 0, 1, 2, 3
#: The ``Tree`` fields that hold node ids (-1: none), renumbered whenever nodes move.
NODE_REFERENCES = ("children_left", "children_right", "parent", "missing_child",
                   "unseen_child", "category_children")
#: The one ``Tree`` field without an entry per node: the runs of categorical splits.
CATEGORY_RUNS = "category_children"


@dataclass
class Tree:
    """A fitted decision tree as flat arrays, one entry per node.

    Attributes
    ----------
    children_left, children_right : ndarray of int32, shape (node_count,)
        First and last child id; ``TREE_LEAF`` (-1) at leaves.
    feature : ndarray of int32, shape (node_count,)
        Column split on; ``TREE_UNDEFINED`` (-2) at leaves.
    threshold : ndarray of float64, shape (node_count,)
        Numeric split ``x <= threshold`` goes left; NaN for categorical splits and leaves.
    split_kind : ndarray of int8, shape (node_count,)
        0 leaf, 1 numeric, 2 categorical binary, 3 categorical multiway.
    category_count : ndarray of int32, shape (node_count,)
        For a categorical split, how many category codes its run of children holds (its
        column's categories); 0 elsewhere.
    category_children : ndarray of int32, shape (category_count.sum(),)
        The runs, node after node: the child of each code 0, 1, … of the node's column
        (-1: none, as for an unseen category). Read one with :meth:`children_by_code`.
    missing_child : ndarray of int32, shape (node_count,)
        Child a missing value goes to; -1 at leaves.
    unseen_child : ndarray of int32, shape (node_count,)
        For categorical splits, the child of a category unseen at the node; -1 elsewhere.
    value : ndarray of float64, shape (node_count, n_outputs)
        Weighted class counts (classifier) or the node mean (regressor, one column).
    impurity : ndarray of float64, shape (node_count,)
    n_node_samples : ndarray of int32, shape (node_count,)
        Training rows with positive weight that reached the node.
    weighted_n_node_samples : ndarray of float64, shape (node_count,)
    depth : ndarray of int32, shape (node_count,)
        Root 0.
    parent : ndarray of int32, shape (node_count,)
        -1 at the root.

    Examples
    --------
    A stump on one numeric feature, written by hand:

    >>> stump = Tree(
    ...     children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
    ...     feature=np.array([0, -2, -2]), threshold=np.array([0.5, np.nan, np.nan]),
    ...     split_kind=np.array([1, 0, 0], dtype=np.int8),
    ...     category_count=np.zeros(3), category_children=np.zeros(0),
    ...     missing_child=np.array([2, -1, -1]),
    ...     unseen_child=np.full(3, -1), value=np.array([[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]]),
    ...     impurity=np.array([0.5, 0.0, 0.0]), n_node_samples=np.array([4, 2, 2]),
    ...     weighted_n_node_samples=np.array([4.0, 2.0, 2.0]), depth=np.array([0, 1, 1]),
    ...     parent=np.array([-1, 0, 0]))
    >>> stump.apply(np.array([[0.0], [1.0], [np.nan]])).tolist()
    [1, 2, 2]
    >>> stump.n_leaves, stump.max_depth
    (2, 1)
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    split_kind: np.ndarray
    category_count: np.ndarray
    category_children: np.ndarray
    missing_child: np.ndarray
    unseen_child: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    depth: np.ndarray
    parent: np.ndarray

    def __post_init__(self):
        for name in NODE_INTEGERS:  # whoever built the tree, its integers take 4 bytes
            column = np.asarray(getattr(self, name))
            if column.dtype != NODE_INT:
                setattr(self, name, column.astype(NODE_INT))

    @cached_property
    def category_first(self) -> np.ndarray:
        """Where each node's run starts in ``category_children`` (the runs before it end
        there). Computed once: a tree's arrays are not changed after it is made."""
        return (np.cumsum(self.category_count) - self.category_count).astype(NODE_INT)

    def children_by_code(self, node_id: int) -> np.ndarray:
        """The child of each category code at ``node_id`` (empty unless a categorical
        split)."""
        first = int(self.category_first[node_id])
        return self.category_children[first:first + int(self.category_count[node_id])]

    @property
    def node_count(self) -> int:
        return len(self.children_left)

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.node_count else 0

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.children_left == TREE_LEAF))

    def is_leaf(self, node_id: int) -> bool:
        return bool(self.children_left[node_id] == TREE_LEAF)

    def children(self, node_id: int) -> range:
        """Ids of the children of ``node_id`` (empty at a leaf)."""
        if self.is_leaf(node_id):
            return range(0)
        return range(int(self.children_left[node_id]), int(self.children_right[node_id]) + 1)

    def step(self, at: np.ndarray, x: np.ndarray, missing: bool, categorical: bool):
        """One step down: the children of internal nodes ``at`` for rows whose values of
        the nodes' split features are ``x``. ``missing`` / ``categorical`` say whether
        ``x`` may hold NaN and whether the tree has categorical splits (their work is
        skipped when not). Forests and inspection walk many trees with it."""
        # A numeric split's right child is left + 1; NaN compares False, fixed below.
        child = self.children_left.take(at) + (x > self.threshold.take(at))
        nan = np.isnan(x) if missing or categorical else None
        if categorical:  # (positions, then gathers: cheaper than boolean masks)
            cat = np.flatnonzero((self.split_kind.take(at) != NUMERIC) & ~nan)
            cat_at, code = at.take(cat), x.take(cat).astype(np.intp)
            known = (code >= 0) & (code < self.category_count.take(cat_at))
            by_code = self.category_children.take(self.category_first.take(cat_at)
                                                  + np.where(known, code, 0), mode="clip")
            child[cat] = np.where(known & (by_code >= 0), by_code, self.unseen_child.take(cat_at))
        if missing:
            gone = np.flatnonzero(nan)
            child[gone] = self.missing_child.take(at.take(gone))
        return child

    def _descend(self, X: np.ndarray):
        """Yield (rows, nodes) level by level: the rows that just moved and where to."""
        X = np.asarray(X, dtype=np.float64)
        missing = bool(np.isnan(X).any())
        categorical = bool((self.split_kind >= CATEGORICAL_BINARY).any())
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.flatnonzero(self.children_left[node] != TREE_LEAF)
        while len(rows):  # only rows not yet at a leaf are touched
            at = node[rows]
            child = self.step(at, X[rows, self.feature[at]], missing, categorical)
            node[rows] = child
            yield rows, child
            rows = rows[self.children_left[child] != TREE_LEAF]

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of each row of the encoded matrix ``X`` (n_samples, n_features).

        Loops over depth; each step is vectorized over the rows not yet at a leaf.
        """
        node = np.zeros(np.shape(X)[0], dtype=np.intp)
        for rows, nodes in self._descend(X):
            node[rows] = nodes
        return node

    def decision_path(self, X: np.ndarray) -> np.ndarray:
        """Boolean matrix (n_samples, node_count): True where the row passes the node."""
        path = np.zeros((np.shape(X)[0], self.node_count), dtype=bool)
        path[:, 0] = True
        for rows, nodes in self._descend(X):
            path[rows, nodes] = True
        return path

    def add_up(self, amounts: np.ndarray) -> np.ndarray:
        """``amounts`` (node_count, ...), each leaf's, with every node's set to the total
        of the leaves below it (in place; returned): the children's totals are added
        into their parents, deepest level first. Zero at every inner node on entry."""
        for d in range(self.max_depth, 0, -1):
            at = np.flatnonzero(self.depth == d)
            np.add.at(amounts, self.parent[at], amounts[at])
        return amounts

    def feature_importances(self, n_features: int) -> np.ndarray:
        """Total weighted impurity decrease per feature, normalised to sum 1.

        For each internal node :math:`t` with children :math:`t_k`:
        :math:`\\frac{N_t}{N} I(t) - \\sum_k \\frac{N_{t_k}}{N} I(t_k)`, summed per split
        feature. All zeros when the tree is a single leaf.
        """
        weighted = self.weighted_n_node_samples * self.impurity
        internal = np.flatnonzero(self.children_left != TREE_LEAF)
        child_sum = np.bincount(
            self.parent[1:], weights=weighted[1:], minlength=self.node_count
        ) if self.node_count > 1 else np.zeros(self.node_count)
        decrease = weighted[internal] - child_sum[internal]
        importances = np.bincount(self.feature[internal], weights=decrease, minlength=n_features)
        importances = importances / self.weighted_n_node_samples[0]
        total = importances.sum()
        return importances / total if total > 0 else np.zeros(n_features)

    def collapse(self, nodes) -> Tree:
        """A new Tree where ``nodes`` become leaves and all their descendants are removed.

        The kept nodes keep their relative order and are renumbered 0..k-1, so sibling
        groups stay contiguous (whole subtrees are removed, never part of a group).
        """
        nodes = np.asarray(nodes, dtype=np.intp).ravel()
        cut = np.zeros(self.node_count, dtype=bool)
        cut[nodes] = True
        removed = np.zeros(self.node_count, dtype=bool)
        for d in range(1, self.max_depth + 1):
            at = np.flatnonzero(self.depth == d)
            parent = self.parent[at]
            removed[at] = removed[parent] | cut[parent]
        keep = np.flatnonzero(~removed)
        new_id = np.full(self.node_count + 1, TREE_LEAF, dtype=NODE_INT)  # ids stay 4 bytes
        new_id[keep] = np.arange(len(keep))
        return take_nodes(self, keep, new_id, leaves=cut[keep])


def take_nodes(tree: Tree, nodes: np.ndarray, new_id: np.ndarray,
               leaves: np.ndarray | None = None) -> Tree:
    """The tree of ``nodes`` in that order, every node id ``i`` now ``new_id[i]``
    (``new_id`` one longer than the node count, its last entry -1, so "none" stays -1).
    ``leaves``: which of the nodes become leaves (their splits dropped).

    The category runs of the nodes still split on a category are copied in the new
    order, so the runs stay in node order."""
    count = tree.category_count[nodes]
    if leaves is not None:
        count = np.where(leaves, 0, count)
    starts = np.cumsum(count) - count
    run = np.repeat(tree.category_first[nodes] - starts, count) + np.arange(count.sum())
    columns = {f.name: getattr(tree, f.name)[nodes] for f in fields(Tree) if f.name != CATEGORY_RUNS}
    columns["category_count"] = count
    columns[CATEGORY_RUNS] = tree.category_children[run]
    for name in NODE_REFERENCES:
        columns[name] = new_id[columns[name]]
    if leaves is not None:
        for name, none in (("children_left", TREE_LEAF), ("children_right", TREE_LEAF),
                           ("feature", TREE_UNDEFINED), ("threshold", np.nan), ("split_kind", LEAF),
                           ("missing_child", TREE_LEAF), ("unseen_child", TREE_LEAF)):
            columns[name] = np.where(leaves, none, columns[name]).astype(columns[name].dtype)
    return Tree(**columns)


def category_runs(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(category_count, category_children)`` of a table with a row per node holding
    the child of each category code (-1: none): each row's run ends at its last child.

    >>> count, children = category_runs(np.array([[-1, -1, -1], [3, 4, 3], [5, -1, -1]]))
    >>> count.tolist(), children.tolist()
    ([0, 3, 1], [3, 4, 3, 5])
    """
    grid = np.asarray(grid)
    has = grid >= 0
    width = grid.shape[1]
    if not width:
        return np.zeros(len(grid), dtype=NODE_INT), np.zeros(0, dtype=NODE_INT)
    count = np.where(has.any(axis=1), width - np.argmax(has[:, ::-1], axis=1), 0)
    return count, grid[np.arange(width) < count[:, None]]


def plurality(value: np.ndarray) -> np.ndarray:
    """Index of the plurality class in each row (along the last axis) of class counts or
    shares.

    A tie goes to the class listed last (for a no/yes target, "yes"): AIMA Fig. 18.6
    needs a fixed rule, since its empty French branch inherits a 2–2 tie and shows Yes.

    >>> plurality(np.array([[2.0, 2.0], [3.0, 1.0]])).tolist()
    [1, 0]
    """
    if value.shape[-1] == 2:  # one comparison: an argmax along an axis of two is slow
        return (value[..., 1] >= value[..., 0]).astype(np.intp)
    return value.shape[-1] - 1 - np.argmax(value[..., ::-1], axis=-1)
