"""The search of numeric features through presorted orders.

Rows sorted by (feature, node, value) from a presorted order; a cumulative sum along
that order gives, at every boundary between two distinct values, the left child's
statistics; the right child is the node's total minus the left. For concave
impurities only boundaries where the class changes are scored: no other cut can be
optimal (Fayyad & Irani 1992), and ``BOUNDARY_POINTS_ONLY`` switches the filter off for
the test that checks it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._splitter import (
    Candidates,
    NumericInput,
    cumsum0,
    gather,
    keep_valid,
    missing_only_candidates,
    near_best,
    score_binary,
    sum_columns,
    varies_in_runs,
)

#: Evaluate only cuts where the class changes (plus min_samples_leaf limits); exact for
#: concave impurities (only splits between examples of different classes can be
#: optimal). Switched off only by tests that check this claim.
BOUNDARY_POINTS_ONLY = True


#: The class-change filter runs when more than this share of positions are cuts.
FILTER_SHARE = 0.3


#: Bound on the float elements of one feature chunk's cumulative-sum array (rows ×
#: statistics × features): a few features at a time at 20,000 rows, so that a chunk's
#: arrays, some 50 bytes an entry, stay near a core's cache rather than streaming
#: through memory (see bench/README.md).
CHUNK_ELEMENTS = 400_000


def search(inp: NumericInput, features: np.ndarray, allowed=None) -> Candidates:
    """The :data:`._splitter.NumericSearch` along the orders the exact search keeps
    (every node searches every feature: ``allowed`` is None)."""
    prep = inp.prep
    every = len(features) == len(prep.numeric)  # then no copy of the values
    values = prep.numeric_values if every else prep.numeric_values[features]
    return numeric_candidates(inp.crit, inp.level, values, inp.order.of(features), inp.min_leaf,
                              prep.numeric_missing[features])


def numeric_candidates(crit, level, values, order, min_leaf, missing=None) -> Candidates:
    """Candidates ``x <= t`` of all numeric features, a chunk of features at a time.

    ``values`` (n_numeric, n_samples) are the numeric columns; ``order``
    (n_numeric, r) the active rows of each feature sorted by value, missing last;
    ``missing`` (n_numeric,), if given, whether each feature has missing values.
    Returned ``feature`` indexes the rows of ``values``.
    """
    node_of_row = np.empty(values.shape[1], dtype=np.intp)
    node_of_row[level.rows] = level.node
    step = max(1, CHUNK_ELEMENTS // max(1, order.shape[1] * crit.n_stats))
    parts = []
    for lo in range(0, len(values), step):
        chunk = values[lo:lo + step]
        runs = _runs(level, chunk, order[lo:lo + step], node_of_row)
        runs.missing = missing is None or bool(missing[lo:lo + step].any())
        part = numeric_chunk(crit, level, len(chunk), runs, min_leaf)
        part.feature += lo
        parts.append(part)
    return Candidates.concat(parts)


@dataclass
class Runs:
    """A chunk's rows laid out flat: one run per (feature, node), values ascending inside
    a run and missing values last. Position ``i`` holds row ``row[i]``, whose value of
    feature ``group[i] // m`` is ``v[i]``."""

    row: np.ndarray     # (L,)
    v: np.ndarray       # (L,)
    group: np.ndarray   # (L,) run id: feature * m + node
    start: np.ndarray   # (G,) first position of each run
    count: np.ndarray   # (G,) rows in each run
    missing: bool = True  # whether a value may be missing (False: none is)


def _runs(level, values, order, node_of_row) -> Runs:
    m, n_f = level.n_nodes, order.shape[0]
    # A stable sort by node keeps each node's rows in value order (radix sort for int16).
    # (flat indices below: a 1-D gather is faster than take_along_axis's 2-D one)
    if m == 1:
        sorted_rows = order
    else:
        key = node_of_row[order].astype(np.int16 if m < 2**15 else np.int32)
        by_node = np.argsort(key, axis=1, kind="stable")
        by_node += (np.arange(n_f) * order.shape[1])[:, None]
        sorted_rows = order.ravel()[by_node]
    # Every feature has the same runs: node counts, feature after feature.
    counts = np.bincount(level.node, minlength=m)
    group = ((np.arange(n_f) * m)[:, None] + np.repeat(np.arange(m), counts)[None]).ravel()
    count = np.tile(counts, n_f)
    v = values.ravel()[(sorted_rows + (np.arange(n_f) * values.shape[1])[:, None]).ravel()]
    return Runs(sorted_rows.ravel(), v, group, np.cumsum(count) - count, count)


def numeric_chunk(crit, level, n_f, runs: Runs, min_leaf) -> Candidates:
    """Candidates of ``n_f`` features' runs (``runs.group`` is feature * m + node)."""
    m = level.n_nodes
    v = runs.v
    codes = None if crit.codes is None else gather(crit.codes, runs.row)
    missing_v = np.isnan(v) if runs.missing else None
    any_missing = missing_v is not None and bool(missing_v.any())
    n_present = runs.count
    if any_missing:
        n_present = n_present - np.bincount(runs.group[missing_v], minlength=len(runs.count))
    same_run = runs.group[:-1] == runs.group[1:]
    new_value = v[1:] != v[:-1]  # (NaN != NaN: missing values apart, then dropped)
    cut = same_run & new_value
    if any_missing:
        cut &= ~missing_v[1:]
    # Filtering pays where most positions are cuts (few ties); with many ties it costs
    # more than scoring the few cuts there are.
    if BOUNDARY_POINTS_ONLY and crit.concave and np.count_nonzero(cut) > FILTER_SHARE * cut.size:
        keep = _class_changes(codes, new_value, same_run)
        if min_leaf > 1:
            keep |= _leaf_limits(cut, runs.start, n_present, runs.count - n_present, min_leaf)
        cut &= keep
    pos = np.flatnonzero(cut)
    group = runs.group[pos]
    node = gather(np.tile(np.arange(m), len(runs.count) // m), group)  # group % m, faster
    # Sums of each statistic along the runs; the row count is the position itself.
    n_stats = crit.n_stats
    left = np.empty((len(pos), n_stats))
    present_tot = np.empty((len(runs.count), n_stats))
    begin = gather(runs.start, group)  # each cut's run's first position
    left[:, -1] = pos - begin + 1
    present_tot[:, -1] = n_present
    sums = running_sums(crit, runs.row, codes)
    sums.between(begin, pos + 1, left)
    sums.between(runs.start, runs.start + n_present, present_tot)
    # per run (feature * m + node), as the cuts' ``group`` counts them
    nan_tot = np.tile(level.totals, (n_f, 1)) - present_tot
    right = np.take(present_tot, group, axis=0) - left  # 2-D rows: take is faster than []
    nan = np.take(nan_tot, group, axis=0) if any_missing else None
    gain, score, missing, first = score_binary(crit, level, node, left, right, nan, min_leaf)
    k = near_best(node, score, level)  # the only ones that can be chosen: see near_best()
    pos, group = pos[k], group[k]
    lo, hi = gather(v, pos), gather(v, pos + 1)
    threshold = lo / 2.0 + hi / 2.0
    threshold = np.where(threshold >= hi, lo, threshold)  # rounding must not swallow hi
    cands = Candidates(node[k], group // m, score[k], gain[k], pos - gather(begin, k), threshold,
                       missing[k], np.take(first, k, axis=0))
    if any_missing:
        extra = missing_only_candidates(crit, level, present_tot.reshape(n_f, m, n_stats),
                                        nan_tot.reshape(n_f, m, n_stats), min_leaf)
        cands = Candidates.concat([cands, keep_valid(extra)])
    return cands


def running_sums(crit, rows, codes) -> RunningSums:
    """The :class:`RunningSums` of the statistics along the runs' rows (``codes`` their
    classes, None for a regression)."""
    if crit.unit_weight:
        return class_sums(codes, None, crit.n_classes, 1)
    if crit.int_weight is None:
        return RunningSums([cumsum0(gather(column, rows)) for column in crit.stats_t])
    return class_sums(codes, gather(crit.int_weight, rows), crit.n_classes, crit.weight_top)


def class_sums(codes, w, n_classes, top) -> RunningSums:
    """:class:`RunningSums` of whole-number weights ``w`` (None: 1 each), each at most
    ``top``, of classes ``codes``.

    Two classes: one running sum of the first class's weight, and of the weight unless
    it is the row count (unit weights); the second class is the rest. More: every
    class's sums side by side in one int64 where they fit, class ``q`` in bits ``q·b``
    and up, ``b`` the bits of the largest possible sum (``len(codes) · top``), so that no
    field carries into the next: one running sum for all, read back by shifts and
    masks; else one a class but the last, which is the weight minus the others."""
    field = (len(codes) * top).bit_length()
    if n_classes > 2 and n_classes * field <= 63:
        unit = np.int64(1) << np.arange(n_classes, dtype=np.int64) * field
        packed = gather(unit, codes)
        if w is not None:
            packed *= w
        return RunningSums(cumsum0(packed), n_classes, field)
    dtype = np.int32 if len(codes) * top < 2**31 else np.int64
    if w is None:
        return RunningSums([cumsum0(codes == q, dtype) for q in range(n_classes - 1)])
    return RunningSums([cumsum0(w * (codes == q), dtype) for q in range(n_classes - 1)],
                       weight=cumsum0(w, dtype))


class RunningSums:
    """Sums of the entries' statistics, all but the row count (the last statistic), over
    any range of entries: differences of running sums along them (with a leading 0).

    Whole-number class weights (:func:`class_sums`) sum exactly in integers: packed, every
    class in one integer (``n_packed`` classes of ``field`` bits each), or one running
    sum per class but the last, which is then the ``weight`` (None: unit weights, the
    row count) minus the others. Other statistics (a regression's, fractional weights)
    are one float running sum each, every statistic but the count.
    """

    def __init__(self, sums, n_packed: int = 0, field: int = 0, weight=None):
        self.sums, self.n_packed, self.field, self.weight = sums, n_packed, field, weight

    def between(self, lo: np.ndarray, hi: np.ndarray, out: np.ndarray) -> None:
        """``out[:, :-1]`` (n, n_stats): the sums over the entries ``lo[i]:hi[i]``, and
        ``out[:, -1]`` already the row count ``hi - lo``."""
        if self.n_packed:
            d = gather(self.sums, hi)
            d -= gather(self.sums, lo)
            mask = (1 << self.field) - 1
            for q in range(self.n_packed - 1):
                out[:, q] = d & mask
                d >>= self.field
            out[:, self.n_packed - 1] = d
            return
        for q, cum in enumerate(self.sums):
            out[:, q] = gather(cum, hi) - gather(cum, lo)
        if len(self.sums) < out.shape[1] - 1:  # whole-number weights: the last class is the rest
            if self.weight is None:  # unit weights: the row count
                rest = out[:, -1]
            else:
                rest = (gather(self.weight, hi) - gather(self.weight, lo)).astype(np.float64)
            out[:, -2] = rest - sum_columns(out[:, :-2])


def _class_changes(codes, new_value, same_run) -> np.ndarray:
    """Cuts (L - 1,) between value groups that are not both of one same class;
    ``new_value`` (L - 1,) says where the next entry's value differs."""
    tied = same_run & ~new_value
    if not tied.any():  # every value group is one row
        return codes[1:] != codes[:-1]
    new_group = np.ones(len(codes), dtype=bool)
    new_group[1:] = ~tied
    group_start = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    group_end = np.append(group_start[1:], len(codes))
    mixed = varies_in_runs(codes, group_start, group_end)
    group_class = np.where(mixed, -1, codes[group_start])
    before, after = group_class[group[:-1]], group_class[group[1:]]
    return (before < 0) | (before != after)


def class_changes_at(codes, group_end, cut) -> np.ndarray:
    """Positions of the cuts (L - 1,) between value groups that are not both of one same
    class, where each group's classes are in ascending order: a group is then of one
    class if its first and last classes agree. ``group_end`` (L - 1,) marks the last
    entry of each group but the final one (the cuts among them)."""
    end = np.flatnonzero(group_end)
    last, first = gather(codes, end), gather(codes, end + 1)  # of the groups beside each end
    # A group is of one class if its first and last agree: groups after the first start
    # at an end + 1, groups before the last stop at an end.
    pure = np.empty(len(end) + 1, dtype=bool)
    np.equal(np.append(codes[:1], first), np.append(last, codes[-1:]), out=pure)
    same = (last == first) & pure[:-1] & pure[1:]
    return end[cut[end] & ~same]


def _leaf_limits(cut, starts, n_present, n_missing, min_leaf) -> np.ndarray:
    """The first and last cuts allowed by ``min_samples_leaf`` in each run.

    Where the leaf-size limit falls inside a run of one class, the best cut of that run
    may be the limit itself, so it stays a candidate.
    """
    limits = np.zeros(cut.shape, dtype=bool)
    if min_leaf <= 1 or cut.size == 0:
        return limits
    size = cut.size
    index = np.arange(size)
    next_cut = np.minimum.accumulate(np.where(cut, index, size)[::-1])[::-1]
    prev_cut = np.maximum.accumulate(np.where(cut, index, -1))
    first_ok, last_ok = starts, starts + n_present - 2
    for need in (min_leaf, np.maximum(min_leaf - n_missing, 1)):
        lo = np.clip(starts + need - 1, 0, size - 1)
        hi = np.clip(starts + n_present - need - 1, 0, size - 1)
        for q, ok in ((next_cut[lo], next_cut[lo] <= last_ok), (prev_cut[hi], prev_cut[hi] >= first_ok)):
            ok &= (q >= 0) & (q < size) & (n_present > 0)
            limits[q[ok]] = True
    return limits
