"""Every candidate split of every node of one level, scored at once.

A level is a set of nodes and the training rows in them. Each row carries a small
vector of *statistics* (weighted one-hot class counts and a row count for
classification; ``w, w·y, 1`` for regression), so the statistics of any group of rows
are a sum. The candidates of all nodes are then read off sums:

* numeric features (all at once): rows sorted by (feature, node, value) from a
  presorted order; a cumulative sum along that order gives, at every boundary between
  two distinct values, the left child's statistics; the right child is the node's
  total minus the left. For concave impurities only boundaries where the class
  changes are scored (no other cut can be optimal);
* few-valued numeric features while a level has few nodes: histograms, see
  :func:`._binning.histogram_candidates`;
* numeric features mostly of one value (class counts with whole-number weights: a
  tree's, a forest's bootstrap counts): the same sums over the rows off that value
  only, the value's own group counted as the node's rest, see
  :func:`sparse_numeric_candidates`;
* categorical features: one ``np.bincount`` over (node, category) codes gives a
  histogram per node. Binary splits order the categories (by class-1 proportion, by
  the proportion of the node's majority class for more than two classes, or by mean
  target) and take prefixes of that order; ID3 multiway splits use every category.

Missing values are tried on both sides of every binary candidate (on every branch of
a multiway one) and the better side is kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

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

    @property
    def n_nodes(self) -> int:
        return len(self.totals)


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
#: Evaluate only cuts where the class changes (plus min_samples_leaf limits); exact for
#: concave impurities (only splits between examples of different classes can be
#: optimal). Switched off only by tests that check this claim.
BOUNDARY_POINTS_ONLY = True
#: The class-change filter runs when more than this share of positions are cuts.
FILTER_SHARE = 0.3
#: Bound on the float elements of one feature chunk's cumulative-sum array.
CHUNK_ELEMENTS = 4_000_000


def numeric_candidates(crit, level, values, order, min_leaf) -> Candidates:
    """Candidates ``x <= t`` of all numeric features, a chunk of features at a time.

    ``values`` (n_numeric, n_samples) are the numeric columns; ``order``
    (n_numeric, r) the active rows of each feature sorted by value, missing last.
    Returned ``feature`` indexes the rows of ``values``.
    """
    node_of_row = np.empty(values.shape[1], dtype=np.intp)
    node_of_row[level.rows] = level.node
    step = max(1, CHUNK_ELEMENTS // max(1, order.shape[1] * crit.n_stats))
    parts = []
    for lo in range(0, len(values), step):
        chunk = values[lo:lo + step]
        runs = _runs(level, chunk, order[lo:lo + step], node_of_row)
        part = _numeric_chunk(crit, level, len(chunk), runs, min_leaf)
        part.feature += lo
        parts.append(part)
    return Candidates.concat(parts)


#: Bound on the (row, drawn column) entries a forest's level searches at once: each
#: entry costs about 80 bytes of sort keys, runs and running sums while it is searched,
#: so a level's search holds at most ≈ 20 MB however many trees grow in the stack.
DRAWN_CHUNK_ENTRIES = 250_000


def drawn_numeric_candidates(crit, level, values, rank, columns, allowed, min_leaf) -> Candidates:
    """Candidates ``x <= t`` of the numeric (node, feature) pairs a forest drew, a
    group of columns at a time (at most :data:`DRAWN_CHUNK_ENTRIES` entries a group,
    or one column). Returned ``feature`` indexes ``columns``."""
    entries = np.bincount(level.node, minlength=level.n_nodes) @ allowed
    if entries.sum() <= DRAWN_CHUNK_ENTRIES:
        return _drawn_chunk(crit, level, values, rank, columns, allowed, min_leaf)
    parts, lo = [], 0
    while lo < len(columns):
        hi = lo + max(1, int(np.searchsorted(np.cumsum(entries[lo:]), DRAWN_CHUNK_ENTRIES,
                                             side="right")))
        if entries[lo:hi].any():
            part = _drawn_chunk(crit, level, values, rank, columns[lo:hi], allowed[:, lo:hi],
                                min_leaf)
            part.feature += lo
            parts.append(part)
        lo = hi
    return Candidates.concat(parts)


def _drawn_chunk(crit, level, values, rank, columns, allowed, min_leaf) -> Candidates:
    """Candidates ``x <= t`` of the numeric (node, feature) pairs a forest drew.

    ``columns`` selects rows of ``values`` and ``rank`` (see
    :attr:`._binning.PreparedFeatures.rank`) of the preparation's ``source``, where the
    level's rows are ``level.data_rows``; ``allowed`` (m, len(columns)) says which
    of them each node drew. Only the rows of drawn pairs are touched: they are sorted
    by (draw slot, node, value rank) in one go (see :class:`DrawnEntries`), so no
    presorted order of every feature has to be carried from level to level. Returned
    ``feature`` indexes ``columns``.
    """
    m = level.n_nodes
    drawn = DrawnEntries.of(allowed, level)
    k = len(drawn.table)
    table_at = np.where(drawn.table >= 0, gather(columns, drawn.table) * values.shape[1], 0)
    at_value = gather(table_at.ravel(), drawn.group) + drawn.data_rows  # flat (column, row)
    by_run = order_by(drawn.group, gather(rank.ravel(), at_value))  # ties: row order
    count = np.bincount(drawn.group, minlength=k * m)
    group = np.repeat(np.arange(k * m), count)  # the runs in order: no gather needed
    # Values gathered in entry order (rows ascending within a column: cache-friendly),
    # then put in run order: one random gather from the entries, not from the table.
    v = gather(gather(values.ravel(), at_value), by_run)
    runs = _Runs(gather(drawn.rows, by_run), v, group, np.cumsum(count) - count, count)
    table = drawn.table
    del drawn, at_value, by_run  # the runs hold all the search reads from here on
    # A node's unused slots have empty runs, so they yield no candidate, missing-only
    # ones included.
    part = _numeric_chunk(crit, level, k, runs, min_leaf)
    part.feature = gather(table.ravel(), part.feature * m + part.node)  # slot -> column
    return part


def sparse_numeric_candidates(crit, level, mode, entries, allowed=None) -> Candidates:
    """Candidates ``x <= t`` of numeric features from the rows whose value is *not* the
    feature's most common one (class counts with unit or whole-number weights,
    ``min_samples_leaf`` 1).

    Many columns are mostly one value (a word that an e-mail does not contain: 0). The
    rows holding a feature's common value ``mode`` form one group of equal values in
    every node, so its class counts are the node's totals minus those of the other rows
    and the rows themselves never need to be touched. Only the others, ``entries``
    (row, column, value) of each, column after column and in value order (missing
    last), are sorted by (column, node) and summed as :func:`numeric_candidates` sums
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
    codes, cums, weight, start, count = runs.codes, runs.cums, runs.weight, runs.start, runs.count
    n_present, below, run_node, run_column = runs.n_present, runs.below, runs.run_node, runs.run_column
    n_runs = len(run_node)
    any_missing = bool((n_present < count).any())
    mode_of_run = gather(mode, run_column)
    # Class counts along the runs (the last class is the rest of the weight, ``cums``),
    # and the common value's group in each run: the node's totals minus the entries'.
    node_totals = np.take(level.totals, run_node, axis=0)
    common = node_totals.copy()
    for q, cum in enumerate(cums):
        common[:, q] -= cum[start + count] - cum[start]
    common[:, -1] -= count
    common_weight = (common[:, -1] if weight is None
                     else crit.weight(node_totals) - (weight[start + count] - weight[start]))
    common[:, -2] = common_weight - common[:, :-2].sum(axis=1)
    has_common = common[:, -1] > 0

    cut = runs.cut
    # The cut between the last entry below the common value and the first above it is
    # really two: one on each side of the common value's group (made below).
    split_by_common = np.flatnonzero(has_common & (below >= 1) & (below < n_present))
    cut[start[split_by_common] + below[split_by_common] - 1] = False
    if BOUNDARY_POINTS_ONLY and crit.concave and np.count_nonzero(cut) > FILTER_SHARE * cut.size:
        pos = _class_changes_at(codes, runs.group_end, cut)
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
    for q, cum in enumerate(cums):
        left[:, q] = gather(cum, first + n_left) - gather(cum, first)
        present_tot[:, q] = cum[start + n_present] - cum[start]
    if weight is None:  # unit weights: the weight is the row count
        left_weight, present_weight = left[:, -1], present_tot[:, -1]
    else:
        left_weight = gather(weight, first + n_left) - gather(weight, first)
        present_weight = weight[start + n_present] - weight[start]
    left[:, -2] = left_weight - left[:, :-2].sum(axis=1)
    present_tot[:, -2] = present_weight - present_tot[:, :-2].sum(axis=1)
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
    cums: list              # (E + 1,) running class sums, as :func:`_running_sums`
    weight: np.ndarray | None  # (E + 1,) running weight, as :func:`_running_sums`
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
        run_column, run_node = np.divmod(np.arange(n_runs), m)
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
    cums, weight = _running_sums(crit, row, codes)
    count = np.bincount(group, minlength=n_runs)
    start = np.cumsum(count) - count
    missing_v = np.isnan(v)
    n_present = count - np.bincount(group[missing_v], minlength=n_runs)
    below = np.bincount(group[v < gather(gather(mode, run_column), group)],  # NaN: not below
                        minlength=n_runs)
    same_run = group[:-1] == group[1:]
    new_value = v[1:] != v[:-1]
    return _SparseRuns(codes, cums, weight, start, count, n_present, below,
                       ~same_run | new_value, same_run & ~missing_v[1:] & new_value,
                       run_node, run_column, lambda pos: gather(group, pos),
                       lambda pos: gather(v, pos))


def drawn_runs(allowed: np.ndarray):
    """The runs of a draw ``allowed`` (m, n_cols), one per drawn (node, column) pair in
    (node, column) order: each run's node and column, and per pair (flat) its run (a
    drawn pair's place among them)."""
    run_node, run_column = np.divmod(np.flatnonzero(allowed), allowed.shape[1])
    return run_node, run_column, np.cumsum(allowed.ravel()) - 1


#: The widest key :meth:`SparseBits.level_runs` packs into an integer to sort (wider
#: ones, on huge data with huge whole-number weights, are sorted by :func:`order_by`).
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
    by_rank: np.ndarray    # (n_cols * n_data,) each column's values by rank

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
        key_bits = len(run_node).bit_length() + rank_bits + class_bits + weight_bits
        if key_bits <= PACKED_KEY_BITS:  # an int32 key where it fits: sorted twice as fast
            key = run.astype(np.int32 if key_bits <= 31 else np.int64) << rank_bits + class_bits
            key |= order
            del run, order
            if w is not None:
                key <<= weight_bits
                key |= w
            key.sort()
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
        cums, weight = _class_sums(codes, w, crit.n_classes, 1 << weight_bits)
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
        by_rank, n_data = self.by_rank, self.n_data

        def run_at(pos):
            return gather(run_rank, pos) >> rank_bits

        def value_at(pos):
            at = gather(run_rank, pos)
            return gather(by_rank, gather(run_column, at >> rank_bits) * n_data + (at & rank_mask))

        return _SparseRuns(codes, cums, weight, start, count, n_present, below, group_end, cut,
                           run_node, run_column, run_at, value_at)


@dataclass
class DrawnEntries:
    """Every (row, drawn column) pair of a level, laid out by draw *slot*.

    A node that drew columns c0 < c1 < ... pairs each of its rows with c0 in slot 0,
    c1 in slot 1, and so on; slot after slot, each holds the rows of every node with
    that many draws, in the level's row order. So a per-row array becomes a per-entry
    one by copies (slots every node fills) rather than by gathers, and a (slot, node)
    pair, one run, is a single (column, node) pair. When most entries fall in slots
    some node leaves empty, the entries are laid out row after row instead: the runs
    and the row order within each are the same, and one gather builds them.
    """

    node: np.ndarray       # (E,) local node
    rows: np.ndarray       # (E,) the row (``level.rows``)
    data_rows: np.ndarray  # (E,) the row in the preparation's source (``level.data_rows``)
    slot: np.ndarray       # (E,)
    group: np.ndarray      # (E,) slot * m + node
    table: np.ndarray      # (k, m) column of each node's j-th draw, -1 past its last

    @cached_property
    def column(self) -> np.ndarray:
        """(E,) the drawn column, an index into ``allowed``'s columns."""
        return gather(self.table.ravel(), self.group)

    @staticmethod
    def of(allowed: np.ndarray, level: Level) -> DrawnEntries:
        """``allowed`` (m, n_columns) is the nodes' draw."""
        m, p = allowed.shape
        pair_node, pair_column = np.divmod(np.flatnonzero(allowed), p)  # 1-D: fast
        per_node = np.bincount(pair_node, minlength=m)
        pair_slot = np.arange(len(pair_node)) - np.repeat(np.cumsum(per_node) - per_node, per_node)
        k, full = (int(per_node.max()), int(per_node.min())) if m else (0, 0)
        table = np.full((k, m), -1, dtype=np.intp)
        table[pair_slot, pair_node] = pair_column
        per_row = gather(per_node, level.node)
        r = len(per_row)
        if 2 * full * r >= int(per_row.sum()):  # most entries in full slots: slot-major
            partial = [np.flatnonzero(per_row > j) for j in range(full, k)]
            sizes = [r] * full + [len(at) for at in partial]
            ends = np.cumsum(sizes)

            def spread(a):  # a per-row array, one entry per (slot, row), written in place
                out = np.empty(sum(sizes), dtype=a.dtype)
                out[:full * r].reshape(full, r)[:] = a
                for at, stop, size in zip(partial, ends[full:], sizes[full:], strict=True):
                    a.take(at, out=out[stop - size:stop], mode="clip")  # gather() in place
                return out

            slot = np.repeat(np.arange(k), sizes)
        else:  # row-major: the same runs, each still in row order
            at = np.repeat(np.arange(r), per_row)
            slot = np.arange(len(at)) - np.repeat(np.cumsum(per_row) - per_row, per_row)

            def spread(a):
                return gather(a, at)

        node = spread(level.node)
        group = slot * m + node
        return DrawnEntries(node, spread(level.rows), spread(level.data_rows), slot, group, table)


@dataclass
class _Runs:
    """A chunk's rows laid out flat: one run per (feature, node), values ascending inside
    a run and missing values last. Position ``i`` holds row ``row[i]``, whose value of
    feature ``group[i] // m`` is ``v[i]``."""

    row: np.ndarray     # (L,)
    v: np.ndarray       # (L,)
    group: np.ndarray   # (L,) run id: feature * m + node
    start: np.ndarray   # (G,) first position of each run
    count: np.ndarray   # (G,) rows in each run


def _runs(level, values, order, node_of_row) -> _Runs:
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
    return _Runs(sorted_rows.ravel(), v, group, np.cumsum(count) - count, count)


def _numeric_chunk(crit, level, n_f, runs: _Runs, min_leaf) -> Candidates:
    """Candidates of ``n_f`` features' runs (``runs.group`` is feature * m + node)."""
    m = level.n_nodes
    v = runs.v
    codes = None if crit.codes is None else gather(crit.codes, runs.row)
    missing_v = np.isnan(v)
    any_missing = bool(missing_v.any())
    n_present = runs.count
    if any_missing:
        n_present = n_present - np.bincount(runs.group[missing_v], minlength=len(runs.count))
    same_run = runs.group[:-1] == runs.group[1:]
    cut = same_run & ~missing_v[1:] & (v[1:] != v[:-1])
    # Filtering pays where most positions are cuts (few ties); with many ties it costs
    # more than scoring the few cuts there are.
    if BOUNDARY_POINTS_ONLY and crit.concave and np.count_nonzero(cut) > FILTER_SHARE * cut.size:
        limits = _leaf_limits(cut, runs.start, n_present, runs.count - n_present, min_leaf)
        cut &= _class_changes(codes, v, same_run, cut) | limits
    pos = np.flatnonzero(cut)
    group = runs.group[pos]
    node, f_idx = group % m, group // m
    # Sums of each statistic along the runs; the row count is the position itself.
    n_stats = crit.n_stats
    left = np.empty((len(pos), n_stats))
    present_tot = np.empty((len(runs.count), n_stats))
    left[:, -1] = pos - runs.start[group] + 1
    present_tot[:, -1] = n_present
    def along(cum):  # cum[i]: sum over the first i positions -> (each cut, each run)
        before = cum[runs.start]
        return gather(cum, pos + 1) - gather(before, group), cum[runs.start + n_present] - before

    sums, weight = _running_sums(crit, runs.row, codes)
    for s, cum in enumerate(sums):
        left[:, s], present_tot[:, s] = along(cum)
    if len(sums) < n_stats - 1:  # whole-number weights: the last class is the rest
        if weight is None:  # unit weights: the row count
            left_w, present_w = left[:, -1], present_tot[:, -1]
        else:
            left_w, present_w = along(weight)
        left[:, -2] = left_w - left[:, :-2].sum(axis=1)
        present_tot[:, -2] = present_w - present_tot[:, :-2].sum(axis=-1)
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
    cands = Candidates(node[k], f_idx[k], score[k], gain[k], pos - runs.start[group], threshold,
                       missing[k], np.take(first, k, axis=0))
    if any_missing:
        extra = missing_only_candidates(crit, level, present_tot.reshape(n_f, m, n_stats),
                                        nan_tot.reshape(n_f, m, n_stats), min_leaf)
        cands = Candidates.concat([cands, keep_valid(extra)])
    return cands


def _running_sums(crit, rows, codes) -> tuple[list[np.ndarray], np.ndarray | None]:
    """Cumulative sums of the statistics along the runs' rows (1-D, all runs in a row,
    with a leading 0), and the cumulative weight when the caller needs it.

    With whole-number weights these are integer sums of the class weights, one class
    short: the caller gets the last class as the total weight minus the others (the
    total is the row count itself with unit weights, so then no weight is returned).
    """
    if crit.unit_weight:
        return _class_sums(codes, None, crit.n_classes)
    if crit.int_weight is None:
        return [cumsum0(gather(column, rows)) for column in crit.stats_t], None
    return _class_sums(codes, gather(crit.int_weight, rows), crit.n_classes)


def _class_sums(codes, w, n_classes, top=None) -> tuple[list[np.ndarray], np.ndarray | None]:
    """:func:`_running_sums` of whole-number weights ``w`` (None: 1 each) and classes
    ``codes`` along the runs; in int32 when ``top`` bounds every weight and no sum can
    reach 2**31 (half the bytes of int64 to write and read)."""
    dtype = np.int32 if top is not None and len(codes) * top < 2**31 else np.int64
    if w is None:
        return [cumsum0(codes == q, dtype) for q in range(n_classes - 1)], None
    return [cumsum0(w * (codes == q), dtype) for q in range(n_classes - 1)], cumsum0(w, dtype)


def gather(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``values[at]`` for integer positions ``at`` known to be in range (1-D ``values``).

    numpy's ``take`` with ``mode="clip"`` skips the bounds check that ``[]`` makes and
    gathers faster; an index out of range would be clipped, not reported, so it is kept
    to positions the caller built itself.
    """
    return values.take(at, mode="clip")


def order_by(major: np.ndarray, minor: np.ndarray | None = None, keys: bool = False):
    """Positions that sort by ``major``, then ``minor`` (non-negative integers), equal
    pairs in position order: a stable argsort on two keys (on one without ``minor``).
    With ``keys``, also ``major`` in that order.

    Both keys and the position are packed into one integer, so no two keys are equal and
    numpy's plain sort of integers (vectorised on processors with AVX2 or AVX-512)
    gives the stable order; the position is read back from the low bits. One such sort is
    faster than sorting by each key in turn with 16-bit radix argsorts, and an int32 key,
    where it fits, sorts faster than a 16-bit radix argsort of a single key; a single key
    under 2**8 takes one radix pass, under 2**16 two when the packed key would need 64
    bits. Keys too wide to pack fall back to ``np.lexsort``.
    """
    n = len(major)
    if not n:
        at = np.zeros(0, dtype=np.intp)
        return (at, major[at]) if keys else at
    top = int(major.max())
    at_bits = (n - 1).bit_length()
    minor_bits = 0 if minor is None else int(minor.max()).bit_length()
    bits = at_bits + minor_bits + top.bit_length()
    if minor is None and (top < 2**8 or top < 2**16 and bits > 31):  # numpy's radix sort
        at = np.argsort(major.astype(np.uint8 if top < 2**8 else np.uint16), kind="stable")
        return (at, gather(major, at)) if keys else at
    if bits > 63:
        at = np.lexsort((major,) if minor is None else (minor, major))
        return (at, major[at]) if keys else at
    key = major.astype(np.int32 if bits <= 31 else np.int64) << minor_bits
    if minor is not None:
        key |= minor
    key <<= at_bits
    key |= np.arange(n, dtype=key.dtype)
    key.sort()
    at = (key & (1 << at_bits) - 1).astype(np.intp)
    return (at, (key >> (at_bits + minor_bits)).astype(np.intp)) if keys else at


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


def _class_changes(codes, v, same_run, cut) -> np.ndarray:
    """Cuts (L - 1,) between value groups that are not both of one same class."""
    tied = same_run & (v[1:] == v[:-1])
    if not tied.any():  # every value group is one row
        return codes[1:] != codes[:-1]
    new_group = np.ones(len(v), dtype=bool)
    new_group[1:] = ~tied
    group_start = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    group_end = np.append(group_start[1:], len(v))
    mixed = varies_in_runs(codes, group_start, group_end)
    group_class = np.where(mixed, -1, codes[group_start])
    before, after = group_class[group[:-1]], group_class[group[1:]]
    return (before < 0) | (before != after)


def _class_changes_at(codes, group_end, cut) -> np.ndarray:
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


def choose_splits(cands: Candidates, level: Level):
    """Index into ``cands`` of the split chosen for each node (-1: none).

    Tie rule: among candidates tied with the node's best (:func:`._criteria.tie_floor`),
    the lowest feature index wins, then the lowest rank (threshold / prefix).
    """
    m = level.n_nodes
    near = near_best(cands.node, cands.score, level)
    chosen = np.full(m, -1, dtype=np.intp)
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


def draw_features(row_codes: np.ndarray, level: Level, k: int, priority: np.ndarray,
                  distinct: np.ndarray | None = None,
                  off_common: tuple[np.ndarray, np.ndarray] | None = None,
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per node, ``k`` features drawn at random among those not constant in the node.

    ``row_codes`` (n_samples, n_features) codes every value, equal values alike (see
    :attr:`._binning.PreparedFeatures.row_codes`), the level's rows at ``level.data_rows``.
    Returns two booleans (m, n_features): the features drawn, and those found constant
    in the node on the way. Like scikit-learn, a feature constant in the node (or used
    up by a multiway split above: ``level.used``) does not use up the draw, and, as
    scikit-learn's splitter does, the caller can pass the constant ones down in
    ``level.used``: constant in a node, constant in its children, so they are not
    looked at again. Drawing happens before any split is scored, so only the drawn
    features' candidates are computed at all.

    ``priority`` (m, n_features) holds uniform random numbers, one row per node (it is
    overwritten). Each node ranks its features by it and takes the first ``k`` that
    vary in it: the same set as "the ``k`` of lowest priority among the varying ones",
    but only the features looked at are checked, a block at a time (``k`` features,
    then twice as many, ...). Most checks read no value:

    * ``distinct`` (n_features,), if given, marks features whose rows all differ
      (:attr:`._binning.PreparedFeatures.distinct`): in a node of two rows or more they
      vary (a tree's rows are distinct data rows);
    * ``off_common``, if given, is :attr:`._binning.PreparedFeatures.off_common`: one
      OR and one AND of the node's rows' bits tell, for up to 64 features, whether the
      node has rows off the feature's most common value and rows on it (it varies) or
      none off it (it is constant);
    * the rest, where every row is off the common value, read a few of the node's
      values spread over its rows (:data:`DRAW_SAMPLE`), then all of them only if
      those few are all equal.
    """
    m, p = level.n_nodes, row_codes.shape[1]
    np.putmask(priority, level.used, np.inf)  # (faster than a boolean index)
    # Used-up features come last, in any order (only the first n_usable are read), and
    # the others' priorities all differ (ties of 53-bit uniforms: ~1e-13 a node), so an
    # unstable sort, the faster one, gives the stable one's order.
    ranked = np.argsort(priority, axis=1)
    n_usable = p - level.used.sum(axis=1)
    counts = level.totals[:, -1].astype(np.intp)  # the rows' count is the last statistic
    allowed = np.zeros((m, p), dtype=bool)
    constant = np.zeros((m, p), dtype=bool)
    todo = np.flatnonzero(counts > 0)
    if distinct is not None:
        known = (counts >= 2) & (n_usable >= k) & distinct[ranked[:, :k]].all(axis=1)
        at = np.flatnonzero(known)
        allowed[at[:, None], ranked[at, :k]] = True
        todo = np.flatnonzero((counts > 0) & ~known)
    if not len(todo):
        return allowed, constant
    by_node = order_by(level.node)
    rows = gather(level.data_rows, by_node)  # rows grouped by node
    start = np.cumsum(counts) - counts
    vary_bits, constant_bits, bit_of = _common_value_bits(off_common, rows, start, counts, p)
    found = np.zeros(m, dtype=np.intp)
    flat = row_codes.ravel()  # flat indices gather faster than (row, column) pairs
    lo, width = 0, k
    while len(todo) and lo < p:
        hi = min(p, lo + width)
        columns = ranked[todo, lo:hi]
        usable = np.arange(lo, hi)[None, :] < n_usable[todo, None]
        bit = gather(bit_of, columns.ravel()).reshape(columns.shape)
        has_bit = bit >= 0
        shift = np.where(has_bit, bit, 0).astype(np.uint64)
        one = np.uint64(1)
        varies = has_bit & (gather(vary_bits, todo)[:, None] >> shift & one).astype(bool)
        known = varies | has_bit & (gather(constant_bits, todo)[:, None] >> shift & one).astype(bool)
        unknown = np.nonzero(usable & ~known)
        if len(unknown[0]):
            varies[unknown] = _pairs_vary(flat, p, rows, start, counts, todo[unknown[0]],
                                          columns[unknown])
        varies &= usable
        constant[todo[:, None], columns] = usable & ~varies
        take = varies & (found[todo, None] + np.cumsum(varies, axis=1) <= k)
        allowed[todo[:, None], columns] = take
        found[todo] += take.sum(axis=1)
        todo = todo[found[todo] < k]
        lo, width = hi, 2 * width
    return allowed, constant


#: A feature whose common-value bits leave it open is first read at this many of the
#: node's rows, spread over them; only if those are all equal are all its rows read.
DRAW_SAMPLE = 8


def _common_value_bits(off_common, rows, start, counts, p):
    """What the rows' bits (see :func:`draw_features`) tell of each node: (m,) uint64
    twice, bit ``b`` set where feature ``b`` varies in the node (rows off its common
    value and rows on it) and where it is constant (no row off it), and the bit of
    each of the ``p`` features (-1 for none)."""
    m = len(counts)
    bit_of = np.full(p, -1, dtype=np.intp)
    vary_bits = np.zeros(m, dtype=np.uint64)
    constant_bits = np.zeros(m, dtype=np.uint64)
    if off_common is None or not len(off_common[1]):
        return vary_bits, constant_bits, bit_of
    bits, features = off_common
    bit_of[features] = np.arange(len(features))
    row_bits = gather(bits, rows)
    filled = np.flatnonzero(counts)
    some_off = np.bitwise_or.reduceat(row_bits, start[filled])
    vary_bits[filled] = some_off & ~np.bitwise_and.reduceat(row_bits, start[filled])
    constant_bits[filled] = ~some_off
    return vary_bits, constant_bits, bit_of


def _pairs_vary(flat, p, rows, start, counts, node, feature) -> np.ndarray:
    """Whether each (node, feature) pair holds two different codes: a few rows spread
    over the node first (:data:`DRAW_SAMPLE`), then every row of the pairs still open.

    The sample is row ``j · count // DRAW_SAMPLE`` of the node for each ``j`` below
    :data:`DRAW_SAMPLE`: every row of a node of at most that many (some twice), so
    one fixed-width gather settles those and most others."""
    c = gather(counts, node)
    at = gather(start, node)[:, None] + np.arange(DRAW_SAMPLE) * c[:, None] // DRAW_SAMPLE
    at = gather(rows, at.ravel()).reshape(at.shape) * p
    at += feature[:, None]
    x = gather(flat, at.ravel()).reshape(at.shape)
    varies = (x[:, 1:] != x[:, :1]).any(axis=1)
    rest = np.flatnonzero(~varies & (c > DRAW_SAMPLE))
    if len(rest):
        varies[rest] = _rows_vary(flat, p, rows, gather(start, gather(node, rest)),
                                  gather(c, rest), gather(feature, rest), gather(c, rest))
    return varies


def _rows_vary(flat, p, rows, first, count, feature, n) -> np.ndarray:
    """Whether ``n[i]`` rows evenly spread over ``rows[first[i]:first[i] + count[i]]``
    hold two different codes of ``feature[i]`` (all of them when ``n[i]`` is the count)."""
    ends = np.cumsum(n)
    j = np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - n, n)
    pos = np.repeat(first, n) + j * np.repeat(count, n) // np.repeat(n, n)
    x = gather(flat, gather(rows, pos) * p + np.repeat(feature, n))
    return varies_in_runs(x, ends - n, ends)
