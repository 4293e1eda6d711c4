"""Feature preparation done once per fit (presorted orders, value codes) and the
histogram counting that the codes allow.

Numeric features are split exactly, at midpoints between adjacent distinct observed
values. Two exact counting strategies share that result:

* a feature with at most ``max_bins`` distinct values gets integer codes (one code per
  distinct value), so at a level with few nodes its counts are one ``np.bincount``
  over (node, code) slots, a histogram;
* every numeric feature also gets its rows presorted by value (missing last), so at
  any level its counts are cumulative sums along that order, whatever the number of
  values.

Both give every cut between two adjacent distinct values, so ``max_bins`` only chooses
how counts are gathered, never which thresholds exist: the tree is the same for any
``max_bins``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._splitter import Candidates, keep_valid, missing_only_candidates, score_binary


@dataclass
class PreparedFeatures:
    """Training matrix laid out for the splitter.

    Attributes
    ----------
    values : ndarray of float64, shape (n_features, n_samples)
        The encoded matrix transposed, so one feature's column is contiguous.
    numeric : ndarray of intp, shape (n_numeric,)
        Indices of numeric features.
    categorical : ndarray of intp, shape (n_categorical,)
        Indices of categorical features.
    n_categories : ndarray of intp, shape (n_features,)
        Number of categories per feature (0 for numeric).
    numeric_values : ndarray of float64, shape (n_numeric, n_samples)
        The rows of ``values`` for numeric features.
    order : ndarray of intp, shape (n_numeric, n_samples)
        For each numeric feature the rows sorted by value, missing values last.
    coded : ndarray of intp, shape (n_coded,)
        Positions (in ``numeric``) of the features with at most ``max_bins`` values.
    codes : ndarray of int32, shape (n_samples, n_coded)
        Rank of each row's value among the feature's distinct values; ``n_bins`` if
        missing. Row-major, so the rows of a level are one contiguous gather.
    n_bins : ndarray of intp, shape (n_coded,)
        Number of distinct values of each coded feature.
    bin_values : ndarray of float64, shape (sum(n_bins),)
        The distinct values, feature after feature (``bin_start`` gives each start).
    bin_start : ndarray of intp, shape (n_coded,)
    """

    values: np.ndarray
    numeric: np.ndarray
    categorical: np.ndarray
    n_categories: np.ndarray
    numeric_values: np.ndarray
    order: np.ndarray
    coded: np.ndarray
    codes: np.ndarray
    n_bins: np.ndarray
    bin_values: np.ndarray
    bin_start: np.ndarray

    @property
    def n_features(self) -> int:
        return self.values.shape[0]


def prepare_features(
    X: np.ndarray, n_categories: np.ndarray, max_bins: int | None
) -> PreparedFeatures:
    """Transpose, presort numeric columns and code the ones with few distinct values.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Encoded matrix (categorical columns hold codes, NaN is missing).
    n_categories : ndarray of intp, shape (n_features,)
        0 for numeric columns.
    max_bins : int or None
        Numeric columns with at most this many distinct values are also coded
        (None: none are).
    """
    values = np.ascontiguousarray(X.T)
    n_categories = np.asarray(n_categories, dtype=np.intp)
    numeric = np.flatnonzero(n_categories == 0)
    categorical = np.flatnonzero(n_categories > 0)
    numeric_values = values[numeric]
    # argsort puts NaN last, which is where the splitter expects missing values.
    order = np.argsort(numeric_values, axis=1, kind="stable").astype(np.intp)
    coded, codes, distinct = [], [], []
    for i, column in enumerate(numeric_values):
        found = _distinct_codes(column, order[i], max_bins)
        if found is not None:
            coded.append(i)
            codes.append(found[0])
            distinct.append(found[1])
    n_bins = np.array([len(d) for d in distinct], dtype=np.intp)
    return PreparedFeatures(
        values, numeric, categorical, n_categories, numeric_values, order,
        coded=np.array(coded, dtype=np.intp),
        codes=np.array(codes, dtype=np.int32).reshape(len(coded), values.shape[1]).T.copy(),
        n_bins=n_bins,
        bin_values=np.concatenate(distinct) if distinct else np.zeros(0),
        bin_start=np.cumsum(n_bins) - n_bins,
    )


def _distinct_codes(column: np.ndarray, order: np.ndarray, max_bins: int | None):
    """(codes, distinct values) from the presorted order, or None if too many values."""
    if max_bins is None:
        return None
    ranked = column[order]
    present = ~np.isnan(ranked)
    ranked = ranked[present]
    new_value = np.ones(len(ranked), dtype=bool)
    new_value[1:] = ranked[1:] != ranked[:-1]
    n_values = int(new_value.sum())
    if n_values > max_bins:
        return None
    codes = np.full(len(column), n_values, dtype=np.intp)
    codes[order[present]] = np.cumsum(new_value) - 1
    return codes, ranked[new_value]


def histogram_candidates(crit, level, prep, coded, min_leaf) -> Candidates:
    """Candidates ``x <= t`` of few-valued numeric features from (node, value) histograms.

    ``coded`` selects entries of ``prep.coded``. Each (feature, node) owns a run of
    ``n_bins + 1`` slots (the last for missing values); one ``np.bincount`` per
    statistic fills all of them. Only occupied slots are kept (plus every run's
    missing slot, which closes the run); cumulative sums along them give every cut.
    Returned ``feature`` indexes ``prep.numeric``.
    """
    m, n_stats = level.n_nodes, crit.stats.shape[1]
    hist, f_idx, slot_node, slot_bin, missing_slot = _slot_histogram(crit, level, prep, coded)
    nan = hist[missing_slot]                       # (n_coded * m, n_stats), feature-major
    hist[missing_slot] = 0.0
    cum = np.cumsum(hist, axis=0)
    run_end = np.flatnonzero(missing_slot)         # one per (feature, node) run
    before = np.concatenate([np.zeros((1, n_stats)), cum[run_end[:-1]]])
    present_tot = cum[run_end] - before
    cut = np.flatnonzero(~missing_slot[:-1] & ~missing_slot[1:])  # next slot: same run, a value
    segment = f_idx[cut] * m + slot_node[cut]
    node = slot_node[cut]
    left = cum[cut] - before[segment]
    has_nan = bool((nan[:, -1] > 0).any())
    gain, score, missing = score_binary(
        crit, level, node, left, present_tot[segment] - left,
        nan[segment] if has_nan else None, min_leaf,
    )
    offset = prep.bin_start[coded][f_idx[cut]]
    lo, hi = prep.bin_values[offset + slot_bin[cut]], prep.bin_values[offset + slot_bin[cut + 1]]
    threshold = lo / 2.0 + hi / 2.0
    threshold = np.where(threshold >= hi, lo, threshold)
    feature = prep.coded[coded][f_idx[cut]]
    cands = Candidates(node, feature, score, gain, slot_bin[cut], threshold, missing)
    if has_nan:
        shape = (len(coded), m, n_stats)
        extra = missing_only_candidates(crit, level, present_tot.reshape(shape), nan.reshape(shape), min_leaf)
        extra.feature = prep.coded[coded][extra.feature]
        cands = Candidates.concat([cands, extra])
    return keep_valid(cands)


def _slot_histogram(crit, level, prep, coded):
    """Statistics of the occupied (feature, node, value) slots and of every missing slot.

    Returns the kept slots' statistics (k, n_stats) in slot order and, per kept slot,
    its feature position, node, value code and whether it is the missing slot.
    """
    width = prep.n_bins[coded] + 1
    size = level.n_nodes * width
    feature_start = np.cumsum(size) - size
    codes = prep.codes[level.rows]
    if len(coded) < codes.shape[1]:
        codes = codes[:, coded]
    key = (feature_start[None, :] + width[None, :] * level.node[:, None]) + codes
    key = key.ravel()  # row-major: (row, feature)
    keep = np.bincount(key, minlength=int(size.sum())) > 0
    run_start = (feature_start[:, None] + width[:, None] * np.arange(level.n_nodes)).ravel()
    missing_at = run_start + np.repeat(width - 1, level.n_nodes)
    keep[missing_at] = True
    kept = np.flatnonzero(keep)
    compact = np.cumsum(keep) - 1               # slot -> position among the kept slots
    kept_key = compact[key]
    hist = np.empty((len(kept), crit.stats.shape[1]))
    if getattr(crit, "unit_weight", False):  # class counts: one unweighted bincount
        k = crit.n_classes
        key = kept_key * k + np.repeat(crit.codes[level.rows], len(coded))
        hist[:, :-1] = np.bincount(key, minlength=len(kept) * k).reshape(len(kept), k)
        hist[:, -1] = hist[:, :-1].sum(axis=1)
    else:
        for s, column in enumerate(crit.stats_t):
            weights = np.repeat(column[level.rows], len(coded))
            hist[:, s] = np.bincount(kept_key, weights=weights, minlength=len(kept))
        hist[:, -1] = np.bincount(kept_key, minlength=len(kept))
    f_idx = np.searchsorted(feature_start, kept, side="right") - 1
    local = kept - feature_start[f_idx]
    slot_bin = local % width[f_idx]
    return hist, f_idx, local // width[f_idx], slot_bin, slot_bin == width[f_idx] - 1
