"""Growing a tree level by level, then freezing it into a :class:`Tree`.

Each level handles all nodes of one depth at once: node statistics by ``np.bincount``,
every candidate split of every node by a :class:`Search` (a level in, candidates out:
:mod:`._search_exact` for trees and forests, :mod:`._search_binned` for boosting), each
node's best under the tie rule (:func:`._splitter.choose_splits`), then every row
routed to its child. Rows of finished nodes (leaves) are dropped, so the work of a level is
proportional to the rows still being split. ``max_leaf_nodes`` is honoured afterwards
by expanding the grown tree best-first (largest weighted impurity decrease first),
which gives the same tree as growing best-first because each node's best split does
not depend on the other nodes.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ._binning import PreparedFeatures
from ._criteria import FLOAT_NOISE, TIE_TOLERANCE, Criterion, whole_weights
from ._search_drawn import draw_features
from ._search_exact import ExactSearch
from ._sorting import order_by
from ._splitter import Candidates, Level, choose_splits, gather
from ._tree import (
    CATEGORICAL_BINARY,
    CATEGORICAL_MULTIWAY,
    LEAF,
    NODE_INT,
    NUMERIC,
    TREE_LEAF,
    Tree,
    category_runs,
    take_nodes,
)

#: Category-table mark for a category with no training rows at the node.
_UNSEEN_HERE = -3


@dataclass
class GrowParams:
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    max_features: int | None
    max_leaf_nodes: int | None
    multiway: bool
    rng: np.random.Generator | list[np.random.Generator]  # one per tree when stacked


def resolve_count(value, n_samples: int, name: str, minimum: int) -> int:
    """An int count, or a float fraction of n_samples rounded up (scikit-learn's convention)."""
    if isinstance(value, (float, np.floating)):
        if not 0 < value <= 1:
            raise ValueError(f"{name} as a fraction must be in (0, 1], got {value!r}.")
        return max(minimum, math.ceil(value * n_samples))
    if int(value) < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}.")
    return int(value)


def resolve_max_features(max_features, n_features: int) -> int:
    """Features drawn per node, m: all for None, ``"sqrt"`` ⌊√p⌋, ``"log2"`` ⌊log₂ p⌋, a
    fraction f ⌊f·p⌋, an int itself (at most p); at least 1.

    The fraction's product is floored with a 1e-9 guard, so that ``0.7`` of 90 is 63 and
    ``1/3`` of 57 is 19 (both are stored a hair below the decimal; scikit-learn floors
    the rounded product and gets 62 and 18).
    """
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, math.isqrt(n_features))
    if max_features == "log2":
        return max(1, int(math.log2(n_features)))
    if isinstance(max_features, (float, np.floating)) and 0 < max_features <= 1:
        return max(1, math.floor(max_features * n_features + 1e-9))
    if isinstance(max_features, (int, np.integer)) and max_features >= 1:
        return min(int(max_features), n_features)
    raise ValueError(
        "max_features must be None, 'sqrt', 'log2', a fraction in (0, 1] or an int >= 1; "
        f"got {max_features!r}."
    )


@dataclass
class _LevelRecord:
    """The nodes of one level; child references are offsets from ``first_child``."""

    value: np.ndarray
    impurity: np.ndarray
    n_samples: np.ndarray
    weight: np.ndarray
    parent: np.ndarray          # local index in the previous level
    feature: np.ndarray
    threshold: np.ndarray
    kind: np.ndarray
    first_child: np.ndarray     # local index in the next level; -1 at leaves
    n_children: np.ndarray
    category_child: np.ndarray  # (m, max_cat) child offset per code, -1 if none
    missing: np.ndarray         # child offset
    unseen: np.ndarray          # child offset
    improvement: np.ndarray     # weighted impurity decrease N_t/N * Δ


def build_tree(prep: PreparedFeatures, crit: Criterion, params: GrowParams, rows=None,
               search: Search | None = None, with_leaves: bool = False):
    """Grow a tree on prepared features with the statistics held by ``crit``.

    ``rows``: the rows grown on, ascending (all by default); ``search``: the split search (by
    default :func:`choose_search`'s). ``with_leaves``: also return each row's leaf (-1
    for rows not grown on), read off the growth; not with ``max_leaf_nodes``.
    """
    n = prep.values.shape[1]
    rows = np.arange(n) if rows is None else np.asarray(rows, dtype=np.intp)
    leaves = np.full(n, -1, dtype=np.intp) if with_leaves else None
    active = ActiveRows(rows, np.zeros(len(rows), np.intp))
    tree = _grow(prep, crit, params, active, 1, search, leaves)[0]
    return (tree, leaves) if with_leaves else tree


def build_trees(prep: PreparedFeatures, crit: Criterion, params: GrowParams, tree_of_row,
                search: Search | None = None, leaves: np.ndarray | None = None) -> list[Tree]:
    """Grow several trees at once, level by level: row ``i`` belongs to tree
    ``tree_of_row[i]`` (-1: to none).

    A forest stacks the in-bag rows of many trees (see :meth:`PreparedFeatures.take`):
    each level of all the trees is then one set of numpy calls, so the per-call cost is
    paid once per level, not once per tree and level. Nothing mixes the trees: nodes
    hold rows of one tree only, every statistic is per node, and each tree draws its
    features from its own generator (``params.rng`` a list, one per tree). Each tree
    is the same, bit for bit, as when grown alone.

    ``leaves`` (one tree, no ``max_leaf_nodes``): filled with each row's leaf.
    """
    rows = np.flatnonzero(tree_of_row >= 0)
    node = tree_of_row if len(rows) == len(tree_of_row) else tree_of_row[rows]  # (only read)
    active = ActiveRows(rows, node.astype(np.intp))  # (a copy: the builder's own, dropped as it goes)
    del rows, node
    return _grow(prep, crit, params, active, int(active.node.max(initial=-1)) + 1, search, leaves)


@dataclass
class ActiveRows:
    """The rows still being split (ascending) and each one's node at the current level.

    The builder replaces both as it narrows them, here, rather than passing them from
    level to level: one object holds them, so a level keeps one generation of these
    per-row arrays, not also the level above's (a forest's stack of trees has a few
    hundred thousand rows, megabytes an array). ``node`` is None while a level routes
    its rows (its nodes are let go before the next level's are made)."""

    rows: np.ndarray
    node: np.ndarray | None


def _grow(prep, crit, params, active: ActiveRows, n_trees, search, leaves) -> list[Tree]:
    """:func:`build_trees` on the rows ``active.rows`` (ascending), row ``rows[i]`` in
    tree ``active.node[i]``."""
    rngs = params.rng if isinstance(params.rng, list) else [params.rng]
    # The improvement of a split is relative to the weight of its own tree's rows.
    tree_weight = np.bincount(active.node, weights=gather(crit.row_weight, active.rows),
                              minlength=n_trees)
    used = np.zeros((n_trees, prep.n_features), dtype=bool)
    draws = params.max_features is not None and params.max_features < prep.n_features
    if search is None:
        search = choose_search(prep, crit, params)
    # A node's weight as measured (summed by class) is the sum of its rows' weights, bit
    # for bit, where the weights are whole numbers or summed alone (regression).
    whole = whole_weights(crit)
    weights_exact = crit.codes is None or whole
    parent, previous, tree_of_node = np.full(n_trees, -1), None, np.arange(n_trees)
    records: list[_LevelRecord] = []
    children = None  # the next level's statistics, when the splits gave them
    searched = None  # the last level's nodes' places among those it searched (-1: a leaf)
    first_id = 0  # the id of the level's first node
    while len(parent):
        record, totals = _measure_level(crit, active.rows, active.node, parent, previous, prep,
                                        children)
        if previous is not None:  # the children's weights are now measured
            _fill_default_children(previous, record.weight if weights_exact else np.bincount(
                active.node, weights=gather(crit.row_weight, active.rows), minlength=len(parent)))
        if leaves is not None:  # a deeper level overwrites: the last one is the leaf
            leaves[active.rows] = first_id + active.node
            first_id += len(parent)
        records.append(record)
        open_ = _splittable(record, len(records) - 1, params)
        if not open_.any():
            break
        grow = _LevelGrowth(params, rngs, tree_of_node, tree_weight[tree_of_node], draws,
                            crit.codes is not None and whole)
        used, children, searched = _split_level(
            prep, crit, record, totals, open_, active, search, used, grow, searched
        )
        parent = np.repeat(np.arange(len(record.value)), record.n_children)
        tree_of_node = tree_of_node[parent]
        previous = record
    stacked, improvement, tree_of_node = _freeze(records, n_trees)
    trees = _unstack(stacked, improvement, tree_of_node, n_trees)
    if params.max_leaf_nodes is not None:
        if leaves is not None:
            raise ValueError("Leaves are read off the growth only without max_leaf_nodes.")
        trees = [(_best_first(t, imp, params.max_leaf_nodes), imp) for t, imp in trees]
    return [t for t, _ in trees]


class Search(Protocol):
    """A split search: a level in, candidates out. :func:`choose_search` picks the
    exact search of a tree or a forest; boosting brings
    :class:`._search_binned.BinnedSearch`, which lasts for all its trees."""

    def keep(self, rows: np.ndarray) -> None:
        """The level's rows are now ``rows`` (the others have reached leaves)."""

    def candidates(self, crit: Criterion, level: Level, min_leaf: int,
                   allowed: np.ndarray | None = None) -> tuple[Candidates, dict]:
        """The candidates of ``level``'s nodes (at least each node's best, see
        :func:`._splitter.near_best`); with ``allowed`` (m, n_features) only those
        (node, feature) pairs. And the category orders of binary categorical splits."""


def choose_search(prep: PreparedFeatures, crit: Criterion, params: GrowParams) -> Search:
    """The exact search of one tree, or of a forest's stacked trees
    (:mod:`._search_exact`)."""
    return ExactSearch(prep, crit, params)


@dataclass
class _LevelGrowth:
    """What a level's split search needs to know about the trees its nodes belong to."""

    params: GrowParams
    rngs: list[np.random.Generator]
    tree_of_node: np.ndarray   # (m,) tree of each node of the level
    tree_weight: np.ndarray    # (m,) total weight of that tree's rows
    draws: bool                # a forest's random feature draw
    # Class counts of whole-number weights: a binary split's children's statistics, its
    # first child's and the rest of its node's, are what measuring them would give, to
    # the bit (sums of whole numbers, exact in any order).
    children_from_splits: bool

    def priority(self, open_ids: np.ndarray, n_features: int) -> np.ndarray:
        """(len(open_ids), n_features) uniform priorities, each tree's rows from its own
        generator (the open nodes of a tree are contiguous, in the tree's own order)."""
        if len(self.rngs) == 1:
            return self.rngs[0].random((len(open_ids), n_features))
        per_tree = np.bincount(self.tree_of_node[open_ids], minlength=len(self.rngs))
        return np.concatenate([self.rngs[b].random((c, n_features))
                               for b, c in enumerate(per_tree) if c])


def _measure_level(crit, rows, node, parent, previous, prep, totals=None):
    """The level's record and statistics, measured from its rows unless ``totals`` (the
    splits above gave them)."""
    m = len(parent)
    if totals is None:
        totals, value, impurity = crit.measure(rows, node, m)
    else:
        value, impurity = crit.of_totals(totals)
    impurity = impurity + 0.0  # no "-0.0" in displays
    n_rows = np.rint(totals[:, -1]).astype(np.intp)
    if previous is not None:  # empty multiway branches predict like their parent
        empty = n_rows == 0
        value[empty] = previous.value[parent[empty]]
        impurity[empty] = previous.impurity[parent[empty]]
    # one block for the node references a level starts without: -1 ("none") each
    refs = np.full((3 + prep.max_categories, m), -1, np.intp)
    record = _LevelRecord(
        value=value, impurity=impurity, n_samples=n_rows, weight=crit.weight(totals),
        parent=parent, feature=np.full(m, -2, np.intp), threshold=np.full(m, np.nan),
        kind=np.full(m, LEAF, np.int8), first_child=refs[0], n_children=np.zeros(m, np.intp),
        category_child=refs[3:].T, missing=refs[1], unseen=refs[2], improvement=np.zeros(m),
    )
    return record, totals


def _splittable(record: _LevelRecord, depth: int, params: GrowParams) -> np.ndarray:
    n = record.n_samples
    return (
        (record.impurity > FLOAT_NOISE)
        & (n >= params.min_samples_split)
        & (n >= 2 * params.min_samples_leaf)
        & (depth < params.max_depth)
    )


def _split_level(prep, crit, record, totals, open_, active: ActiveRows, search: Search, used,
                 grow: _LevelGrowth, searched_above=None):
    """Search the open nodes, apply the chosen splits, route rows to the next level.

    ``active`` holds the level's rows and nodes; on return, the next level's.
    ``searched_above``: the level above's nodes' places among those searched there (None
    at the roots). Returns the used features, the children's statistics (or None) and
    this level's nodes' places among those searched.
    """
    params = grow.params
    open_ids = np.flatnonzero(open_)
    local = np.full(len(open_), -1, dtype=np.intp)
    local[open_ids] = np.arange(len(open_ids))
    rows, node = active.rows, gather(local, active.node)
    at = np.flatnonzero(node >= 0)  # the rows of open nodes (positions, then gathers: faster)
    if len(at) < len(node):
        rows, node = gather(rows, at), gather(node, at)
    active.rows, active.node = rows, node  # the level's own: the ones above are let go
    del at
    search.keep(rows)
    level = Level(
        rows=rows, node=node, totals=totals[open_ids], impurity=record.impurity[open_ids],
        min_gain=_min_gain(crit, record.impurity[open_ids]), used=used[open_ids],
        data_rows=prep.in_source(rows), value=record.value[open_ids],
        parent=None if searched_above is None else searched_above[record.parent[open_ids]],
        tree=grow.tree_of_node[open_ids],
    )
    allowed, skipped = None, level.used
    if grow.draws:
        priority = grow.priority(open_ids, prep.n_features)
        source = prep.source
        allowed, constant = draw_features(source.row_codes, level, params.max_features, priority,
                                          source.distinct, source.off_common)
        skipped = skipped | constant  # constant in a node: in its children too
    cands, orders = search.candidates(crit, level, params.min_samples_leaf, allowed)
    chosen = choose_splits(cands, level)
    gain = np.where(chosen >= 0, np.append(cands.gain, 0.0)[chosen], 0.0)
    improvement = crit.weight(level.totals) / grow.tree_weight[open_ids] * gain
    chosen[improvement + FLOAT_NOISE < params.min_impurity_decrease] = -1
    split = np.flatnonzero(chosen >= 0)
    at = open_ids[split]
    record.improvement[at] = improvement[split]
    _describe_splits(record, at, cands, chosen[split], split, orders, prep)
    child = _route(prep, record, level, open_ids)
    level_totals = level.totals
    del level, node
    active.node = None  # the level's nodes and source rows: no longer read (its rows are)
    moving = np.flatnonzero(child >= 0)
    next_used = skipped[np.repeat(split, record.n_children[at])]
    multi = np.flatnonzero(record.kind == CATEGORICAL_MULTIWAY)
    for i in multi:  # ID3: the attribute is used up below a multiway split
        next_used[record.first_child[i]:record.first_child[i] + record.n_children[i],
                  record.feature[i]] = True
    children = None
    if grow.children_from_splits and not len(multi):  # every split binary: two children each
        children = np.empty((2 * len(split), crit.n_stats))
        if len(split):
            first = np.take(cands.first, chosen[split], axis=0)
            children[0::2] = first
            children[1::2] = np.take(level_totals, split, axis=0) - first
    active.rows, active.node = gather(rows, moving), gather(child, moving)
    return next_used, children, local


def _min_gain(crit, impurity: np.ndarray) -> np.ndarray:
    """Smallest gain a split needs: none for strictly concave impurities, > 0 otherwise.

    Like scikit-learn, gini / entropy / gain ratio / squared error make the best split
    of an impure node even if it gains nothing (XOR needs it, and a zero gain there means
    the children repeat the parent's mix). The misclassification error is flat almost
    everywhere, so a zero gain there is "no progress" and ends the node.
    """
    if crit.split_at_zero_gain:
        return np.full(len(impurity), -np.inf)
    return TIE_TOLERANCE * impurity


def _describe_splits(record, at, cands, chosen, split_local, orders, prep):
    """Write feature, kind, threshold, children and category table of the split nodes."""
    feature = cands.feature[chosen]
    record.feature[at] = feature
    record.missing[at] = cands.missing[chosen]
    categorical = prep.n_categories[feature] > 0
    record.threshold[at] = np.where(categorical, np.nan, cands.threshold[chosen])
    multiway = categorical & ~np.isin(feature, list(orders)) if categorical.any() else categorical
    record.kind[at] = np.where(multiway, CATEGORICAL_MULTIWAY,
                               np.where(categorical, CATEGORICAL_BINARY, NUMERIC))
    record.n_children[at] = np.where(multiway, prep.n_categories[feature], 2)
    first = np.cumsum(record.n_children) - record.n_children
    record.first_child[:] = np.where(record.n_children > 0, first, -1)
    if not categorical.any():
        return
    for j in np.unique(feature[categorical]):
        sel = np.flatnonzero(feature == j)
        n_cat = int(prep.n_categories[j])
        if j in orders:  # binary: the first `prefix` categories of the node's order go left
            order, n_present = (a[split_local[sel]] for a in orders[j])
            position = np.arange(n_cat)[None, :]
            side = (position >= cands.rank[chosen[sel]][:, None]).astype(np.intp)
            side[position >= n_present[:, None]] = _UNSEEN_HERE
            offsets = np.empty_like(side)
            np.put_along_axis(offsets, order, side, axis=1)
        else:
            offsets = np.broadcast_to(np.arange(n_cat), (len(sel), n_cat))
        record.category_child[at[sel], :n_cat] = offsets


def _route(prep, record, level, open_ids) -> np.ndarray:
    """Next-level local node of every row of ``level`` (-1 for rows of nodes that stay
    leaves)."""
    # What a row needs of its node, per open node first: then one small gather a row.
    feature = record.feature[open_ids]
    split = feature >= 0
    values = prep.source.values
    # A node that stays a leaf reads feature 0 against +inf: offset 0, and child -1 + 0.
    column = gather(np.where(split, feature, 0) * values.shape[1], level.node)
    column += level.data_rows
    x = gather(values.ravel(), column)
    threshold = np.where(split, record.threshold[open_ids], np.inf)
    offset = (x > gather(threshold, level.node)).astype(np.intp)  # missing: set below
    if len(prep.categorical) and np.any(record.kind[open_ids] >= CATEGORICAL_BINARY):
        at = gather(open_ids, level.node)
        cat = (gather(record.kind, at) >= CATEGORICAL_BINARY) & ~np.isnan(x)
        offset[cat] = record.category_child[at[cat], x[cat].astype(np.intp)]
    missing = np.isnan(x)
    if missing.any():
        missing &= gather(split, level.node)
        offset[missing] = record.missing[open_ids[level.node[missing]]]
    offset += gather(np.where(split, record.first_child[open_ids], -1), level.node)
    return offset


def _fill_default_children(record, child_weight):
    """Missing values (if none in training) and unseen categories go to the heaviest child
    (``child_weight``: the weight of each node of the next level)."""
    at = np.flatnonzero(record.n_children > 0)
    first = record.first_child[at]
    heaviest = (child_weight[first + 1] > child_weight[first]).astype(np.intp)
    for k in np.flatnonzero(record.kind[at] == CATEGORICAL_MULTIWAY):  # all branches
        i = at[k]
        heaviest[k] = np.argmax(child_weight[first[k]:first[k] + record.n_children[i]])
    record.missing[at] = np.where(record.missing[at] < 0, heaviest, record.missing[at])
    categorical = record.kind[at] != NUMERIC
    if not categorical.any():  # no category table to fill
        return
    record.unseen[at[categorical]] = heaviest[categorical]
    table = record.category_child[at]
    record.category_child[at] = np.where(table == _UNSEEN_HERE, heaviest[:, None], table)


def _freeze(records: list[_LevelRecord], n_trees: int = 1):
    """Concatenate the levels into one Tree with global node ids (breadth-first).

    With several trees the result has ``n_trees`` roots (ids 0..n_trees-1); returns the
    Tree, the improvement of every node and the tree each node belongs to.
    """
    sizes = [len(r.value) for r in records]
    offsets = np.cumsum([0, *sizes])  # each level's first id, then the node count
    cat = lambda name: np.concatenate([getattr(r, name) for r in records])  # noqa: E731
    n_children, kind = cat("n_children"), cat("kind")
    split = n_children > 0
    # a node's children are numbered from the next level's first id, its parent from
    # the previous level's (the roots' parent, -1, stays)
    left = np.where(split, np.repeat(offsets[1:], sizes) + cat("first_child"), TREE_LEAF)
    parent = cat("parent")
    parent[n_trees:] += np.repeat(offsets[:-2], sizes[1:])
    count, runs = (np.concatenate(part) for part in
                   zip(*(category_runs(r.category_child) for r in records), strict=True))
    tree = Tree(
        children_left=left, children_right=np.where(split, left + n_children - 1, TREE_LEAF),
        feature=cat("feature"), threshold=cat("threshold"), split_kind=kind,
        category_count=count,
        category_children=np.where(runs >= 0, np.repeat(left, count) + runs, TREE_LEAF),
        missing_child=np.where(split, left + cat("missing"), -1),
        unseen_child=np.where(split & (kind != NUMERIC), left + cat("unseen"), -1),
        value=cat("value"), impurity=cat("impurity"), n_node_samples=cat("n_samples"),
        weighted_n_node_samples=cat("weight"),
        depth=np.repeat(np.arange(len(records)), sizes), parent=parent,
    )
    tree_of_level = [np.arange(n_trees)]
    for r in records[1:]:  # every node belongs to its parent's tree
        tree_of_level.append(tree_of_level[-1][r.parent])
    return tree, cat("improvement"), np.concatenate(tree_of_level)


def _unstack(tree: Tree, improvement, tree_of_node, n_trees: int) -> list[tuple[Tree, np.ndarray]]:
    """Take a Tree with ``n_trees`` roots apart: (tree, improvement) per root.

    Each tree keeps its nodes in breadth-first order, renumbered from 0, which is the
    order it would have had grown alone.
    """
    if n_trees == 1:
        return [(tree, improvement)]
    by_tree = order_by(tree_of_node)
    counts = np.bincount(tree_of_node, minlength=n_trees)
    starts = np.cumsum(counts) - counts
    new_id = np.full(tree.node_count + 1, TREE_LEAF, dtype=NODE_INT)  # [-1] stays -1
    new_id[by_tree] = np.arange(tree.node_count) - np.repeat(starts, counts)
    return [(take_nodes(tree, by_tree[lo:hi], new_id), improvement[by_tree[lo:hi]])
            for lo, hi in zip(starts, starts + counts, strict=True)]


def _best_first(tree: Tree, improvement: np.ndarray, max_leaf_nodes: int) -> Tree:
    """Keep the expansions a best-first builder would make with ``max_leaf_nodes`` leaves.

    Starting from the root, repeatedly expand the frontier node with the largest
    weighted impurity decrease (ties: lower node id) while the leaf count stays within
    ``max_leaf_nodes``.
    """
    expanded = np.zeros(tree.node_count, dtype=bool)
    heap = [(-improvement[0], 0)]
    n_leaves = 1
    while heap:
        _, i = heapq.heappop(heap)
        children = tree.children(i)
        if not len(children) or n_leaves + len(children) - 1 > max_leaf_nodes:
            continue
        expanded[i] = True
        n_leaves += len(children) - 1
        for c in children:
            heapq.heappush(heap, (-improvement[c], c))
    internal = np.flatnonzero(tree.children_left != TREE_LEAF)
    return tree.collapse(internal[~expanded[internal]])
