"""Every candidate split of every node of one level, scored at once: what the searches share.

A level is a set of nodes and the training rows in them. Each row carries a small
vector of *statistics* (weighted one-hot class counts and a row count for
classification; ``w, w·y, 1`` for regression), so the statistics of any group of rows
are a sum, and every candidate's children follow from sums. A *search* turns a level
into :class:`Candidates` (node, feature, score, gain, rank, threshold, missing side);
:class:`._search_exact.ExactSearch` picks the search for each feature:

* :mod:`._search_sorted`: numeric features through presorted orders and cumulative
  sums, every boundary between two distinct values a cut (for concave impurities only
  those where the class changes);
* :mod:`._search_histogram` (few-valued numeric features while a level has few nodes):
  one ``np.bincount`` over (node, value) slots;
* :mod:`._search_sparse`: numeric features mostly of one value, summed over the rows
  off that value only;
* :mod:`._search_drawn`: a forest's features drawn per node, only those searched;
* :mod:`._search_categorical`: category histograms; the best prefix of the ordered
  categories (binary) or one branch per category (ID3 multiway);

and boosting's :mod:`._search_binned` searches every feature of rows binned once per
ensemble fit.

Every numeric search has one interface, :data:`NumericSearch`: a level in
(:class:`NumericInput`) and a group of features, candidates out.

This module holds what they share: the candidates, the scoring of binary splits with
missing values tried on both sides, the choice of each node's split under the tie
rule, and the array helpers. The textbook version of all this, one node at a time, is
:mod:`._reference`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._criteria import entropy, tie_floor


@dataclass
class Candidates:
    """A flat table of scored candidate splits (one row per candidate)."""

    node: np.ndarray       # local node index
    feature: np.ndarray    # column index
    score: np.ndarray      # what is maximised: gain, or gain ratio
    gain: np.ndarray       # impurity decrease within the node, Δ
    rank: np.ndarray       # tie order inside a feature: lower threshold / shorter prefix first
    threshold: np.ndarray  # numeric threshold; NaN for categorical
    missing: np.ndarray    # child offset the node's missing rows go to; -1 if it had none
    first: np.ndarray      # (n, n_stats) the statistics of the first child (offset 0) of a
                           # binary split, missing rows in it if they go there; NaN otherwise

    @staticmethod
    def concat(parts: list[Candidates]) -> Candidates:
        names = Candidates.__dataclass_fields__
        if not parts:  # no feature could be scored at this level
            empty = np.zeros(0, dtype=np.intp)
            return Candidates(empty, empty, np.zeros(0), np.zeros(0), empty, np.zeros(0), empty,
                              np.zeros((0, 0)))
        return Candidates(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in names})


@dataclass
class Level:
    """The nodes searched at one level and the rows in them."""

    rows: np.ndarray       # (r,) active training rows
    node: np.ndarray       # (r,) local node of each row
    totals: np.ndarray     # (m, n_stats)
    impurity: np.ndarray   # (m,)
    min_gain: np.ndarray   # (m,) a split must beat this Δ (float noise guard)
    used: np.ndarray       # (m, n_features) attributes used up by multiway splits (and, in
                           # a forest's draw, found constant in an ancestor)
    data_rows: np.ndarray  # (r,) the same rows in the preparation's ``source`` (in_source)
    value: np.ndarray | None = None   # (m, k) each node's value: class weights, or its mean
    parent: np.ndarray | None = None  # (m,) each node's parent among the nodes searched at
                                      # the level above (-1: it was not); None at the roots
    tree: np.ndarray | None = None    # (m,) in a stack of trees grown together, each node's
                                      # tree, ascending; the rows then come tree after tree

    @property
    def n_nodes(self) -> int:
        return len(self.totals)

    def by_trees(self, per_row: np.ndarray, limit: float) -> list[tuple[int, Level]]:
        """The level cut into parts of whole trees, each part the first trees left whose
        load is at most ``limit`` (or one tree, if its own load is more), a node's load
        being its rows times ``per_row`` (m,). Each part as (its first node, a level of
        its own, nodes counted from that one). One part when all fit, or when the trees
        are not known (``tree`` None).

        A part's rows are a slice of the level's: the builder keeps the rows tree after
        tree and numbers the nodes tree after tree."""
        m = self.n_nodes
        if self.tree is None or not m or self.tree[0] == self.tree[-1]:
            return [(0, self)]
        count = np.bincount(self.node, minlength=m)
        load = np.cumsum(count * per_row)
        if load[-1] <= limit:
            return [(0, self)]
        tree_end = np.append(np.flatnonzero(self.tree[1:] != self.tree[:-1]) + 1, m)  # nodes
        end_load = load[tree_end - 1]
        ends, at = [], 0  # the parts' ends, in trees
        while at < len(tree_end):
            base = end_load[at - 1] if at else 0
            at = max(at + 1, int(np.searchsorted(end_load, base + limit, side="right")))
            ends.append(at)
        node_end = tree_end[np.array(ends) - 1]
        row_end = np.cumsum(count)[node_end - 1]
        parts, n0, r0 = [], 0, 0
        for n1, r1 in zip(node_end.tolist(), row_end.tolist(), strict=True):
            nodes = slice(n0, n1)
            parts.append((n0, Level(
                rows=self.rows[r0:r1], node=self.node[r0:r1] - n0, totals=self.totals[nodes],
                impurity=self.impurity[nodes], min_gain=self.min_gain[nodes],
                used=self.used[nodes], data_rows=self.data_rows[r0:r1],
                value=None if self.value is None else self.value[nodes],
                parent=None if self.parent is None else self.parent[nodes],
                tree=self.tree[nodes])))
            n0, r0 = n1, r1
        return parts


@dataclass(frozen=True)
class NumericInput:
    """What a numeric search reads at one level."""

    prep: Any       # the fit's PreparedFeatures (its ``source`` for a forest's stacked rows)
    crit: Any       # the Criterion, measured on the level
    level: Level
    order: Any      # what the exact search keeps level to level: orders, sparse entries
    min_leaf: int   # min_samples_leaf


#: ``search(inp, features, allowed) -> Candidates``: the candidates ``x <= t`` of the
#: numeric features ``features`` (positions in ``inp.prep.numeric``) at the level;
#: ``allowed`` (m, len(features)) the (node, feature) pairs a forest drew, or None for
#: all. The result's ``feature`` indexes ``features``.
NumericSearch = Callable[[NumericInput, np.ndarray, np.ndarray | None], Candidates]


def _score(crit, left, right, parent, parent_imp, min_leaf, min_gain):
    """Gain and score of binary candidates; invalid ones get score -inf."""
    gain = crit.gain([left, right], parent, parent_imp)
    ok = gain > min_gain
    if min_leaf > 1:  # with 1, every candidate already has a row on each side
        ok &= (left[:, -1] >= min_leaf) & (right[:, -1] >= min_leaf)
    score = gain
    if crit.ratio:
        split_info = entropy(np.stack([crit.weight(left), crit.weight(right)], axis=-1))
        score = gain / np.where(split_info > 0, split_info, 1.0)
    return gain, np.where(ok, score, -np.inf)


def score_binary(crit, level, node, left, right, nan, min_leaf):
    """Try the node's missing rows on each side; keep the better (ties, as
    :func:`._criteria.tie_floor` has them: right).

    Returns gain, score, the missing rows' side (see :class:`Candidates`) and the
    statistics of the left child with them if they go there."""
    parent = np.take(level.totals, node, axis=0)  # rows of a 2-D array: faster than []
    imp, min_gain = level.impurity[node], level.min_gain[node]
    if nan is None:
        gain, score = _score(crit, left, right, parent, imp, min_leaf, min_gain)
        return gain, score, np.full(len(node), -1, dtype=np.intp), left
    gain_r, score_r = _score(crit, left, right + nan, parent, imp, min_leaf, min_gain)
    has_nan = nan[:, -1] > 0
    with_nan = left + nan
    gain_l, score_l = _score(crit, with_nan, right, parent, imp, min_leaf, min_gain)
    go_left = has_nan & (score_r < tie_floor(score_l, imp))  # tied: right
    missing = np.where(has_nan, np.where(go_left, 0, 1), -1)
    first = np.where(go_left[:, None], with_nan, left)
    return np.where(go_left, gain_l, gain_r), np.where(go_left, score_l, score_r), missing, first


#: Rank of the 'missing vs present' candidate: after every threshold of its feature.
_LAST_RANK = np.iinfo(np.intp).max


def gather(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``values[at]`` for integer positions ``at`` known to be in range (1-D ``values``).

    numpy's ``take`` with ``mode="clip"`` skips the bounds check that ``[]`` makes and
    gathers faster; an index out of range would be clipped, not reported, so it is kept
    to positions the caller built itself.
    """
    return values.take(at, mode="clip")


def sum_columns(a: np.ndarray) -> np.ndarray:
    """Each row's sum over the few columns of ``a`` (n, k), added one whole column at a
    time, left to right as a reduction along a short row adds them: numpy's reduction
    over a few strided columns costs several times as much."""
    if not a.shape[1]:
        return np.zeros(len(a))
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        out += a[:, j]
    return out


def cumsum0(x: np.ndarray, dtype=None) -> np.ndarray:
    """Cumulative sum with a leading 0: ``out[i]`` is the sum of ``x[:i]`` (float64 or
    int64 unless ``dtype`` says otherwise)."""
    out = np.zeros(len(x) + 1, dtype=dtype or (np.float64 if x.dtype.kind == "f" else np.int64))
    np.cumsum(x, out=out[1:])
    return out


def varies_in_runs(x: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Whether each run ``x[..., starts[i]:ends[i]]`` (back to back along the last axis)
    holds two different values: two of its neighbours differ. The changes from each
    value to the next are counted along the axis and read at each run's ends, a
    cumulative sum where ``reduceat`` (a max and a min) is slow on small runs."""
    change = np.empty(x.shape, dtype=bool)
    change[..., 0] = False
    np.not_equal(x[..., 1:], x[..., :-1], out=change[..., 1:])
    seen = np.cumsum(change, axis=-1, dtype=np.int32 if x.shape[-1] < 2**31 else np.int64)
    return seen[..., ends - 1] > seen[..., starts]


def missing_only_candidates(crit, level, present_tot, nan_tot, min_leaf, runs=None) -> Candidates:
    """The split 'value present' (left) vs 'value missing' (right), threshold +inf.

    The statistics are (n_features, m, n_stats), or (n_runs, n_stats) with ``runs`` the
    (node, feature) of each run."""
    if runs is None:
        f_idx, node = np.nonzero((present_tot[..., -1] > 0) & (nan_tot[..., -1] > 0))
        left, right = present_tot[f_idx, node], nan_tot[f_idx, node]
    else:
        at = np.flatnonzero((present_tot[:, -1] > 0) & (nan_tot[:, -1] > 0))
        node, f_idx, left, right = runs[0][at], runs[1][at], present_tot[at], nan_tot[at]
    gain, score = _score(
        crit, left, right, level.totals[node], level.impurity[node], min_leaf,
        level.min_gain[node],
    )
    n = len(node)
    rank = np.full(n, _LAST_RANK)
    return Candidates(node, f_idx, score, gain, rank, np.full(n, np.inf), np.ones(n, np.intp),
                      left)


def keep_valid(cands: Candidates) -> Candidates:
    return select_candidates(cands, np.isfinite(cands.score))


def select_candidates(cands: Candidates, mask: np.ndarray) -> Candidates:
    """The candidates where ``mask`` holds (positions first: numpy's boolean indexing
    mispredicts a branch per element when both kinds are many, and there are 7 arrays)."""
    at = np.flatnonzero(mask)
    if len(at) == len(mask):
        return cands
    return Candidates(**{k: getattr(cands, k)[at] for k in Candidates.__dataclass_fields__})


def choose_splits(cands: Candidates, level: Level):
    """Index into ``cands`` of the split chosen for each node (-1: none).

    Tie rule: among candidates tied with the node's best (:func:`._criteria.tie_floor`),
    the lowest feature index wins, then the lowest rank (threshold / prefix).
    """
    m = level.n_nodes
    chosen = np.full(m, -1, dtype=np.intp)
    node = cands.node
    if len(node) <= m and bool(np.all(node[1:] > node[:-1])):  # at most one a node: itself
        valid = np.flatnonzero(cands.score > -np.inf)
        chosen[node[valid]] = valid
        return chosen
    near = near_best(cands.node, cands.score, level)
    node = cands.node[near]
    chosen[node] = near  # right where a node has one candidate near its best (most do)
    tied = np.bincount(node, minlength=m)[node] > 1
    if tied.any():
        near, node = near[tied], node[tied]
        near = near[np.lexsort((cands.rank[near], cands.feature[near], node))]
        node = cands.node[near]
        first = np.ones(len(near), dtype=bool)
        first[1:] = node[1:] != node[:-1]
        chosen[node[first]] = near[first]
    return chosen


def near_best(node: np.ndarray, score: np.ndarray, level: Level) -> np.ndarray:
    """Positions of the candidates (their ``node`` and ``score``) tied with their node's
    best among them (:func:`._criteria.tie_floor`), and valid: those :func:`choose_splits`
    looks at.

    A search may keep only these of its own candidates: among more candidates a node's
    best is no lower, and the bar it sets is no lower either (best - tol grows with the
    best), so no candidate it could choose is lost."""
    best = np.full(level.n_nodes, -np.inf)
    np.maximum.at(best, node, score)
    return np.flatnonzero((score >= gather(tie_floor(best, level.impurity), node))
                          & (score > -np.inf))
