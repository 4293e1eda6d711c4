"""The search of categorical features: one histogram of (node, category) per feature.

Binary splits order a node's categories (by class-1 proportion, by the proportion of
the node's majority class for more classes, or by mean target) and take prefixes of
that order (Breiman et al. 1984); ID3 multiway splits use every category.
"""
from __future__ import annotations

import numpy as np

from ._criteria import entropy, tie_floor
from ._splitter import Candidates, keep_valid, missing_only_candidates, score_binary


def category_histogram(crit, level, codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Statistics per (node, category), shape (m, n_categories + 1, n_stats).

    ``codes`` are the active rows' category codes with missing coded ``n_categories``
    (the last slot).
    """
    m, n_stats = level.totals.shape
    key = (level.node * (n_categories + 1) + codes)[:, None] * n_stats + np.arange(n_stats)
    hist = np.bincount(
        key.ravel(), weights=crit.stats[level.rows].ravel(),
        minlength=m * (n_categories + 1) * n_stats,
    )
    return hist.reshape(m, n_categories + 1, n_stats)


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
    base = [children[:, c] for c in range(children.shape[1])]
    # Option c: the missing rows join branch c (all options equal when there are none).
    options = np.stack(
        [crit.gain(base[:c] + [base[c] + nan] + base[c + 1:], parent, level.impurity)
         for c in range(len(base))], axis=1,
    )
    score = options
    if crit.ratio:
        w = crit.weight(children)[:, None, :] + np.eye(len(base))[None] * crit.weight(nan)[:, None, None]
        score = options / np.maximum(entropy(w), 1e-300)
    # An option is allowed when every branch holding rows (the missing ones included)
    # keeps min_samples_leaf of them and the gain is enough; empty ID3 branches are fine.
    n_rows = children[:, None, :, -1] + np.eye(len(base))[None] * nan[:, None, None, -1]
    allowed = np.all((n_rows == 0) | (n_rows >= min_leaf), axis=2)
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
