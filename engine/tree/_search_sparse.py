"""The search of numeric features that are mostly one value (a word absent from most
e-mails): the sorted search over the rows off that value only, the value's own rows
counted as the node's rest.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _search_sorted
from ._search_drawn import drawn_runs
from ._search_sorted import (
    RunningSums,
    class_changes_at,
    class_sums,
    running_sums,
)
from ._sorting import order_by, sort_keys
from ._splitter import (
    Candidates,
    NumericInput,
    gather,
    keep_valid,
    missing_only_candidates,
    near_best,
    score_binary,
)


def search(inp: NumericInput, features: np.ndarray, allowed=None) -> Candidates:
    """The :data:`._splitter.NumericSearch` through the entries off each feature's
    common value that the exact search keeps; ``features`` must be its sparse ones
    (``inp.order.sparse``, whose entries those are)."""
    order = inp.order
    return sparse_numeric_candidates(inp.crit, inp.level, order.sparse_mode,
                                     order.sparse_entries, allowed)


def sparse_numeric_candidates(crit, level, mode, entries, allowed=None) -> Candidates:
    """Candidates ``x <= t`` of numeric features from the rows whose value is *not* the
    feature's most common one (class counts with unit or whole-number weights,
    ``min_samples_leaf`` 1).

    Many columns are mostly one value (a word that an e-mail does not contain: 0). The
    rows holding a feature's common value ``mode`` form one group of equal values in
    every node, so its class counts are the node's totals minus those of the other rows
    and the rows themselves never need to be touched. Only the others, ``entries``
    (row, column, value) of each, column after column and in value order (missing
    last), are sorted by (column, node) and summed as :func:`._search_sorted.numeric_candidates` sums
    them; the common value's group sits between the entries below it and the ones above,
    so it adds its counts to every cut above it and brings two cuts of its own.
    ``mode`` (n_columns,) holds the columns' common values. Entries of rows no longer
    in ``level.rows`` are skipped. ``allowed`` (m, n_columns), a forest's draw, keeps
    only the entries of the (node, column) pairs drawn, and only those pairs are runs
    (a spambase node draws 7 of its 57 columns, about 6 of the 50 sparse ones, so the
    per-run sums cover an eighth of the pairs). Returned ``feature`` indexes the columns.
    """
    n_stats = crit.n_stats
    if isinstance(entries, SparseBits):  # the drawn pairs' entries read off the rows' bits
        runs = entries.level_runs(crit, level, allowed)
    else:
        runs = _listed_runs(crit, level, mode, entries, allowed)
    codes, sums, start, count = runs.codes, runs.sums, runs.start, runs.count
    n_present, below, run_node, run_column = runs.n_present, runs.below, runs.run_node, runs.run_column
    n_runs = len(run_node)
    any_missing = bool((n_present < count).any())
    mode_of_run = gather(mode, run_column)
    # The common value's group in each run: the node's totals minus the entries'.
    node_totals = np.take(level.totals, run_node, axis=0)
    entries = np.empty_like(node_totals)
    entries[:, -1] = count
    sums.between(start, start + count, entries)
    common = node_totals - entries
    has_common = common[:, -1] > 0

    cut = runs.cut
    # The cut between the last entry below the common value and the first above it is
    # really two: one on each side of the common value's group (made below).
    split_by_common = np.flatnonzero(has_common & (below >= 1) & (below < n_present))
    cut[start[split_by_common] + below[split_by_common] - 1] = False
    if _search_sorted.BOUNDARY_POINTS_ONLY and crit.concave and np.count_nonzero(cut) > _search_sorted.FILTER_SHARE * cut.size:
        pos = class_changes_at(codes, runs.group_end, cut)
    else:
        pos = np.flatnonzero(cut)
    g_real = runs.run_at(pos)
    n_left_real = pos - start[g_real] + 1
    # Cuts with the common value's group on the right (lo an entry, hi the common value)
    # and on the left (lo the common value, hi an entry).
    g_right = np.flatnonzero(has_common & (below >= 1))
    g_left = np.flatnonzero(has_common & (below < n_present))
    group_c = np.concatenate([g_real, g_right, g_left])
    n_left = np.concatenate([n_left_real, below[g_right], below[g_left]])
    with_common = np.concatenate([n_left_real > below[g_real],  # the cut lies above it
                                  np.zeros(len(g_right), bool), np.ones(len(g_left), bool)])
    rank = n_left - 1 + with_common  # a cut's place among the run's values with the group

    left = np.empty((len(group_c), n_stats))
    present_tot = np.empty((n_runs, n_stats))
    left[:, -1] = n_left
    present_tot[:, -1] = n_present
    first = start[group_c]
    sums.between(first, first + n_left, left)
    sums.between(start, start + n_present, present_tot)
    left += np.take(common, group_c, axis=0) * with_common[:, None]
    present_tot += common
    nan_tot = node_totals - present_tot
    right = np.take(present_tot, group_c, axis=0) - left
    nan = np.take(nan_tot, group_c, axis=0) if any_missing else None
    node = gather(run_node, group_c)
    gain, score, missing, first = score_binary(crit, level, node, left, right, nan, 1)
    # Only the cuts near their node's best can be chosen: the others are dropped before
    # their values are looked up (a spambase forest keeps one in several hundred).
    k = near_best(node, score, level)
    n_real, n_right = len(pos), len(g_right)
    lo, hi = np.empty(len(k)), np.empty(len(k))
    real, left_of_common = k < n_real, k >= n_real + n_right
    right_of_common = ~real & ~left_of_common
    at = pos[k[real]]  # lo and hi two entries
    lo[real], hi[real] = runs.value_at(at), runs.value_at(at + 1)
    g = g_right[k[right_of_common] - n_real]  # hi the common value
    lo[right_of_common], hi[right_of_common] = runs.value_at(start[g] + below[g] - 1), mode_of_run[g]
    g = g_left[k[left_of_common] - n_real - n_right]  # lo the common value
    lo[left_of_common], hi[left_of_common] = mode_of_run[g], runs.value_at(start[g] + below[g])
    threshold = lo / 2.0 + hi / 2.0
    threshold = np.where(threshold >= hi, lo, threshold)  # rounding must not swallow hi
    cands = Candidates(node[k], gather(run_column, group_c[k]), score[k], gain[k], rank[k],
                       threshold, missing[k], np.take(first, k, axis=0))
    if any_missing:
        extra = missing_only_candidates(crit, level, present_tot, nan_tot, 1, (run_node, run_column))
        cands = Candidates.concat([cands, keep_valid(extra)])
    return cands


@dataclass
class _SparseRuns:
    """A sparse search's entries in runs, one run per searched (node, column) pair, each
    in value order (equal values by class, missing values last), with what the search
    reads of them."""

    codes: np.ndarray       # (E,) each entry's class
    sums: RunningSums       # the statistics' sums over any range of entries
    start: np.ndarray       # (R,) each run's first entry
    count: np.ndarray       # (R,) its entries
    n_present: np.ndarray   # (R,) those with a value
    below: np.ndarray       # (R,) those whose value is below the column's common one
    group_end: np.ndarray   # (E - 1,) whether entry i ends a group of equal values
    cut: np.ndarray         # (E - 1,) ... and the next is another value of the same run
    run_node: np.ndarray    # (R,)
    run_column: np.ndarray  # (R,)
    run_at: object          # positions -> their runs
    value_at: object        # positions -> their values


def _listed_runs(crit, level, mode, entries, allowed) -> _SparseRuns:
    """The runs of listed entries (row, column, value), column after column in value order;
    entries of rows no longer in ``level.rows`` are skipped. A run for every (column,
    node) pair, or with ``allowed`` for the drawn ones only."""
    e_row, e_col, e_v = entries
    m, n_cols = level.n_nodes, len(mode)
    if allowed is None:  # a run for every (column, node) pair
        n_runs = n_cols * m
        run_column, run_node = np.repeat(np.arange(n_cols), m), np.tile(np.arange(m), n_cols)
        node_of_row = np.full(len(crit.codes), n_runs)  # rows that left: sorted last, cut off
        node_of_row[level.rows] = level.node
        # Runs (column, node), each still in value order; `group` the run of each entry.
        by_run, group = order_by(e_col * m + gather(node_of_row, e_row), keys=True)
        live = int(np.searchsorted(group, n_runs))
        if live < len(group):
            by_run, group = by_run[:live], group[:live]
        row, v = gather(e_row, by_run), gather(e_v, by_run)
    else:  # only the drawn pairs' entries: a lookup per entry, then a sort of the few kept
        # Each entry's (node, column) pair as its place in ``drawn``, from a per-row table
        # of node · n_cols: one gather and one add an entry.
        pair_of_row = np.full(len(crit.codes), m * n_cols)  # rows that left: a node that drew nothing
        pair_of_row[level.rows] = level.node * n_cols
        pair = gather(pair_of_row, e_row)
        pair += e_col
        drawn = np.zeros((m + 1, n_cols), dtype=bool)
        drawn[:m] = allowed
        kept = np.flatnonzero(gather(drawn.ravel(), pair))
        # A run for each drawn pair only: a node draws a few of the columns, so the per-run
        # sums below cover those, not every (node, column) pair.
        run_node, run_column, run_of_pair = drawn_runs(allowed)
        n_runs = len(run_node)
        by_run, group = order_by(gather(run_of_pair, gather(pair, kept)), keys=True)
        # the kept entries first (in order: a streaming read), then their few in run order
        row, v = gather(gather(e_row, kept), by_run), gather(gather(e_v, kept), by_run)
    codes = gather(crit.codes, row)
    sums = running_sums(crit, row, codes)
    bounds = np.searchsorted(group, np.arange(n_runs + 1))  # group ascends: no pass over it
    start, count = bounds[:-1], np.diff(bounds)
    missing_v = np.isnan(v)
    n_present = count - np.bincount(group[missing_v], minlength=n_runs)
    below = np.bincount(group[v < gather(gather(mode, run_column), group)],  # NaN: not below
                        minlength=n_runs)
    same_run = group[:-1] == group[1:]
    new_value = v[1:] != v[:-1]
    return _SparseRuns(codes, sums, start, count, n_present, below,
                       ~same_run | new_value, same_run & ~missing_v[1:] & new_value,
                       run_node, run_column, lambda pos: gather(group, pos),
                       lambda pos: gather(v, pos))


#: The widest key :meth:`SparseBits.level_runs` packs into an integer to sort (wider
#: ones, on huge data with huge whole-number weights, are sorted by :func:`._sorting.order_by`).
PACKED_KEY_BITS = 63


@dataclass
class SparseBits:
    """A forest's sparse entries read off the rows' bits instead of listed in advance.

    Bit ``c`` of ``bits[d]`` is set where data row ``d`` holds something other than
    column ``c``'s common value (from :attr:`._binning.PreparedFeatures.off_common`), or
    for every row of a column searched whole: the rows a sparse search reads. A level's
    entries of the (node, column) pairs drawn are then each row's bits AND its node's
    drawn columns' bits, one set bit an entry, with no list of every entry to sift (a
    spambase node draws 6 of the 50 sparse columns).

    An entry sorts by its value's rank and its class, both held in ``order``, then its
    weight: the search reads all three back from the sorted key and looks a value up
    (``by_rank``) only at the cuts.
    """

    bits: np.ndarray       # (n_data,) uint64, bit c for column c
    order: np.ndarray      # (n_data * n_cols,) rank << class_bits | class: the sort key,
                           # row after row (a level's rows come in order: the reads stream)
    class_bits: int        # low bits of ``order`` that hold the class
    rank_bits: int         # the bits above them, that hold the rank
    missing_rank: int      # the rank of every missing value, above every value's
    any_missing: bool      # whether any entry is missing
    mode_rank: np.ndarray  # (n_cols,) the rank of each column's common value
    by_rank: np.ndarray    # each column's distinct values by rank, column after column
    rank_start: np.ndarray  # (n_cols,) where each column's are in ``by_rank``

    @property
    def n_data(self) -> int:
        return len(self.bits)

    def level_runs(self, crit, level, allowed) -> _SparseRuns:
        """The entries of the (node, column) pairs drawn (``allowed``), one run each."""
        m, n_cols = allowed.shape
        drawn_bits = (allowed.astype(np.uint64) << np.arange(n_cols, dtype=np.uint64)).sum(
            axis=1, dtype=np.uint64)
        x = gather(self.bits, level.data_rows) & gather(drawn_bits, level.node)
        at = np.flatnonzero(x != 0)  # of a bool: numpy's fast path (not a uint64's)
        x = x[at]
        where, column = [], []
        while len(at):  # the lowest set bit of each row at a time
            low = x & (~x + np.uint64(1))
            where.append(at)
            column.append(np.frexp(low.astype(np.float64))[1] - 1)  # a power of two: exact
            x ^= low
            more = np.flatnonzero(x != 0)
            at, x = at[more], x[more]
        where = np.concatenate(where) if where else np.zeros(0, dtype=np.intp)
        column = np.concatenate(column).astype(np.intp) if column else where  # frexp: int32
        # (``where`` ascends within each bit's round: these gathers stream)
        run_node, run_column, run_of_pair = drawn_runs(allowed)
        run = gather(run_of_pair, gather(level.node, where) * n_cols + column)
        order = gather(self.order, gather(level.data_rows, where) * len(self.mode_rank) + column)
        w = None if crit.unit_weight else gather(crit.int_weight, gather(level.rows, where))
        del where, column  # (a stack's top levels hold half a million entries: free them)
        # One sort of the packed key (run, rank, class, weight): entries with equal keys
        # are alike, so the sort need not be stable, and everything the search reads of an
        # entry comes back from the key's bits.
        class_bits, rank_bits = self.class_bits, self.rank_bits
        weight_bits = 0 if w is None else int(w.max(initial=0)).bit_length()
        entry_bits = rank_bits + class_bits + weight_bits  # the key's bits below the run
        key_bits = len(run_node).bit_length() + entry_bits
        if key_bits <= PACKED_KEY_BITS:  # an int32 key where it fits: sorted twice as fast
            key = run.astype(np.int32 if key_bits <= 31 else np.int64) << rank_bits + class_bits
            key |= order
            del run, order
            if w is not None:
                key <<= weight_bits
                key |= w
            key = sort_keys(key, len(run_node) << entry_bits)
            if w is not None:
                w = key & (1 << weight_bits) - 1
                key >>= weight_bits
            codes = key & (1 << class_bits) - 1
            key >>= class_bits
            run_rank = key  # run << rank_bits | rank
        else:
            by_run, run = order_by(run, order.astype(np.int64), keys=True)
            order = gather(order, by_run)
            w = None if w is None else gather(w, by_run)
            codes = order & (1 << class_bits) - 1
            run_rank = run << rank_bits | order >> class_bits
        sums = class_sums(codes, w, crit.n_classes, 1 << weight_bits)
        # The runs' bounds from the sorted (run, rank): where each run starts, where its
        # missing values start, and where its common value would stand.
        first = np.arange(len(run_node), dtype=run_rank.dtype) << rank_bits
        start = np.searchsorted(run_rank, first)
        count = np.empty_like(start)
        count[:-1] = start[1:] - start[:-1]
        count[-1:] = len(run_rank) - start[-1:]
        n_present = (np.searchsorted(run_rank, first | self.missing_rank) - start
                     if self.any_missing else count)
        below = np.zeros_like(start)  # none below a common value that is the smallest
        mode_rank = gather(self.mode_rank, run_column)
        above_least = np.flatnonzero(mode_rank > 0)
        if len(above_least):
            needle = first[above_least] | mode_rank[above_least]
            below[above_least] = np.searchsorted(run_rank, needle) - start[above_least]
        group_end = run_rank[1:] != run_rank[:-1]
        cut = group_end.copy()
        cut[start[start > 0] - 1] = False  # no cut across two runs
        cut[(start + n_present - 1)[(n_present > 0) & (n_present < count)]] = False  # nor to missing
        rank_mask = (1 << rank_bits) - 1
        by_rank, rank_start = self.by_rank, self.rank_start

        def run_at(pos):
            return gather(run_rank, pos) >> rank_bits

        def value_at(pos):
            at = gather(run_rank, pos)
            return gather(by_rank, gather(rank_start, gather(run_column, at >> rank_bits)) + (at & rank_mask))

        return _SparseRuns(codes, sums, start, count, n_present, below, group_end, cut,
                           run_node, run_column, run_at, value_at)
