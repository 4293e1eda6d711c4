"""The search of categorical features: one histogram of (node, category) per feature.

Binary splits order a node's categories (by class-1 proportion, by the proportion of
the node's majority class for more classes, or by mean target) and take prefixes of
that order (Breiman et al. 1984); ID3 multiway splits use every category.
"""
from __future__ import annotations

import numpy as np

from ._criteria import entropy, tie_floor
from ._splitter import Candidates, keep_valid, missing_only_candidates, score_binary


def level_statistics(crit, level) -> np.ndarray:
    """(n_stats, rows) the statistics of the level's rows, one contiguous row each:
    gathered once a level for all its categorical features."""
    return np.ascontiguousarray(crit.stats[level.rows].T)


def category_histogram(level, codes: np.ndarray, n_categories: int, stats: np.ndarray) -> np.ndarray:
    """Statistics per (node, category), shape (m, n_categories + 1, n_stats).

    ``codes`` are the active rows' category codes with missing coded ``n_categories``
    (the last slot); ``stats`` is :func:`level_statistics`. One ``np.bincount`` of the
    rows' (node, category) slots a statistic, each summing its rows in row order.
    """
    m = level.n_nodes
    size = m * (n_categories + 1)
    slot = codes if m == 1 else level.node * (n_categories + 1) + codes
    hist = np.empty((len(stats), size))
    for out, weights in zip(hist, stats, strict=True):
        out[:] = np.bincount(slot, weights=weights, minlength=size)
    return hist.T.reshape(m, n_categories + 1, len(stats))


def binary_category_candidates(crit, level, hist, min_leaf):
    """Best-prefix splits of the ordered categories; returns candidates and the orders."""
    present_hist, nan = hist[:, :-1], hist[:, -1]
    present = present_hist[..., -1] > 0
    key = np.where(present, crit.order_key(present_hist, level.totals), np.inf)
    order = np.argsort(key, axis=1, kind="stable")
    cum = np.cumsum(np.take_along_axis(present_hist, order[..., None], axis=1), axis=1)
    n_present = present.sum(axis=1)
    prefix = np.arange(1, hist.shape[1] - 1)
    node, k = np.nonzero(prefix[None, :] < n_present[:, None])
    left = cum[node, k]
    right = cum[node, n_present[node] - 1] - left
    node_nan = nan[node] if (nan[:, -1] > 0).any() else None
    gain, score, missing, first = score_binary(crit, level, node, left, right, node_nan, min_leaf)
    n = len(node)
    cands = Candidates(node, np.zeros(n, np.intp), score, gain, k + 1, np.full(n, np.nan), missing,
                       first)
    # "Any category" (left, the whole order as prefix) vs "missing" (right).
    present_tot = np.where((n_present > 0)[:, None], cum[np.arange(len(cum)), n_present - 1], 0.0)
    extra = missing_only_candidates(crit, level, present_tot[None], nan[None], min_leaf)
    extra.rank = n_present[extra.node]
    return keep_valid(Candidates.concat([cands, extra])), (order, n_present)


def multiway_candidates(crit, level, hist, min_leaf) -> Candidates:
    """ID3: one branch per category; missing rows tried on every non-empty branch (ties:
    the first)."""
    children, nan = hist[:, :-1], hist[:, -1]
    present = children[..., -1] > 0
    parent = level.totals
    n_branches = children.shape[1]
    base = [children[:, c] for c in range(n_branches)]
    any_missing = bool((nan[:, -1] > 0).any())
    if any_missing:
        # Option c (axis 1): the missing rows join branch c. The gain takes the branches
        # one at a time, each under every option at once, and adds them up in branch
        # order, as it would for each option alone.
        joins = np.eye(n_branches, dtype=bool)[None, :, :, None]  # (1, option, branch, 1)
        branches = (np.where(joins[:, :, b], (base[b] + nan)[:, None], base[b][:, None])
                    for b in range(n_branches))
        options = crit.gain(branches, parent[:, None], level.impurity[:, None])
    else:  # no missing rows: every option is the same split
        options = np.repeat(crit.gain(base, parent, level.impurity)[:, None], n_branches, axis=1)
    score = options
    if crit.ratio:  # each option's split information (one for all, with no missing rows)
        w = crit.weight(children)[:, None, :]
        if any_missing:
            w = w + np.eye(n_branches)[None] * crit.weight(nan)[:, None, None]
        score = options / np.maximum(entropy(w), 1e-300)
    # An option is allowed when every branch holding rows (the missing ones included)
    # keeps min_samples_leaf of them and the gain is enough; empty ID3 branches are fine:
    # the other branches as they are, branch c with the missing rows.
    n_rows = children[..., -1]
    short = (n_rows > 0) & (n_rows < min_leaf)
    joined = n_rows + nan[:, -1:]
    allowed = (short.sum(axis=1)[:, None] == short) & ((joined == 0) | (joined >= min_leaf))
    allowed &= (present.sum(axis=1) >= 2)[:, None] & (options > level.min_gain[:, None])
    score = np.where(present & allowed, score, -np.inf)
    tied = score >= tie_floor(score.max(axis=1), level.impurity)[:, None]
    best = np.argmax(tied & (score > -np.inf), axis=1)  # the first branch tied with the best
    rows = np.arange(len(parent))
    gain, score = options[rows, best], score[rows, best]
    missing = np.where(nan[:, -1] > 0, best, -1)
    m = len(parent)
    cands = Candidates(rows, np.zeros(m, np.intp), score, gain,
                       np.zeros(m, np.intp), np.full(m, np.nan), missing,
                       np.full(parent.shape, np.nan))  # not binary
    return keep_valid(cands)
