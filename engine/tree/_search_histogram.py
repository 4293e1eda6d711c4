"""The search of few-valued numeric features by histogram, while a level has few nodes.

A feature with at most ``max_bins`` distinct values is coded once per fit
(:attr:`._binning.PreparedFeatures.codes`); a level's statistics per (node, value) slot
are then one ``np.bincount``, and every cut between two values is a cumulative sum
along a node's slots — no sorting. :func:`._search_exact._numeric_parts` uses it while the
slots are few beside the rows being split.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ._binning import PreparedFeatures, smallest_int
from ._search_drawn import DRAWN_CHUNK_ENTRIES
from ._slot_histogram import larger_siblings
from ._splitter import (
    Candidates,
    NumericInput,
    gather,
    keep_valid,
    missing_only_candidates,
    score_binary,
)


def search(inp: NumericInput, features: np.ndarray, allowed=None) -> Candidates:
    """The :data:`._splitter.NumericSearch` by histogram; ``features`` must be coded
    (in ``prep.coded``)."""
    coded = np.searchsorted(inp.prep.coded, features)  # positions in prep.coded (ascending)
    return histogram_candidates(inp.crit, inp.level, inp.prep, coded, inp.min_leaf, allowed)


def histogram_candidates(crit, level, prep, coded, min_leaf, allowed=None) -> Candidates:
    """Candidates ``x <= t`` of few-valued numeric features from (node, value) histograms.

    ``coded`` selects entries of ``prep.coded``. Each (feature, node) pair searched is
    a *run* of ``n_bins + 1`` slots (the last for missing values); one ``np.bincount``
    per statistic fills all of them. Only occupied slots are kept (plus every run's
    missing slot, which closes the run); cumulative sums along them give every cut.
    ``allowed`` (m, len(coded)), if given, limits the runs to the (node, feature) pairs
    drawn for a forest. Returned ``feature`` indexes ``coded``.
    """
    m, n_stats = level.n_nodes, crit.n_stats
    runs = _histogram_runs(level, prep, coded, allowed)
    hist, slot_run, slot_bin, missing_slot = _slot_histogram(crit, level, prep, coded, runs)
    # rows of 2-D arrays by np.take, faster than indexing with []
    rows_of = lambda a, at: np.take(a, at, axis=0)  # noqa: E731
    run_end = np.flatnonzero(missing_slot)
    nan = rows_of(hist, run_end)                   # (n_runs, n_stats), one per run
    hist[run_end] = 0.0
    cum = np.cumsum(hist, axis=0)
    before = np.concatenate([np.zeros((1, n_stats)), rows_of(cum, run_end[:-1])])
    present_tot = rows_of(cum, run_end) - before
    cut = np.flatnonzero(~missing_slot[:-1] & ~missing_slot[1:])  # next slot: same run, a value
    run = slot_run[cut]
    node, f_pos = runs.node[run], runs.feature[run]
    left = rows_of(cum, cut) - rows_of(before, run)
    has_nan = bool((nan[:, -1] > 0).any())
    gain, score, missing, first = score_binary(
        crit, level, node, left, rows_of(present_tot, run) - left,
        rows_of(nan, run) if has_nan else None, min_leaf,
    )
    offset = prep.bin_start[coded][f_pos]
    lo, hi = prep.bin_values[offset + slot_bin[cut]], prep.bin_values[offset + slot_bin[cut + 1]]
    threshold = lo / 2.0 + hi / 2.0
    threshold = np.where(threshold >= hi, lo, threshold)
    cands = Candidates(node, f_pos, score, gain, slot_bin[cut], threshold, missing, first)
    if has_nan:
        shape = (len(coded), m, n_stats)
        full_present, full_nan = np.zeros(shape), np.zeros(shape)
        full_present[runs.feature, runs.node] = present_tot
        full_nan[runs.feature, runs.node] = nan
        extra = missing_only_candidates(crit, level, full_present, full_nan, min_leaf)
        cands = Candidates.concat([cands, extra])
    return keep_valid(cands)


@dataclass
class _HistogramRuns:
    """The (feature, node) pairs searched, feature-major, and where their slots start."""

    feature: np.ndarray   # (n_runs,) position in ``coded``
    node: np.ndarray      # (n_runs,)
    width: np.ndarray     # (n_runs,) n_bins + 1
    start: np.ndarray     # (n_runs,) first slot
    pair_start: np.ndarray  # (len(coded), m) first slot of each pair's run, -1 if not searched
    allowed: np.ndarray | None  # (m, len(coded)) the forest's draw, C order; None: all pairs

    @property
    def n_slots(self) -> int:
        return int(self.start[-1] + self.width[-1]) if len(self.start) else 0


def _histogram_runs(level, prep, coded, allowed) -> _HistogramRuns:
    m = level.n_nodes
    if allowed is None:
        feature, node = np.repeat(np.arange(len(coded)), m), np.tile(np.arange(m), len(coded))
    else:
        allowed = np.ascontiguousarray(allowed)
        feature, node = np.divmod(np.flatnonzero(allowed.T), m)  # 1-D nonzero: fast
    width = prep.n_bins[coded][feature] + 1
    start = np.cumsum(width) - width
    pair_start = np.full((len(coded), m), -1, dtype=np.intp)
    pair_start[feature, node] = start
    return _HistogramRuns(feature, node, width, start, pair_start, allowed)


def _coded_classes(crit, prep: PreparedFeatures) -> np.ndarray:
    """(rows, n_coded) ``code * n_classes + class`` of every training row, for
    :func:`_slot_histogram` with unit weights; made on first use in a fit (``crit``
    belongs to one fit) instead of being worked out again at every level."""
    made = crit.coded_classes
    if made is None or made[0] is not prep:
        codes = prep.source.codes
        if prep.source is not prep:
            codes = codes[prep.in_source(np.arange(len(crit.codes)))]
        made = crit.coded_classes = (prep, _with_classes(codes, crit.codes, prep.n_bins, crit.n_classes))
    return made[1]


def _data_coded_classes(crit, source: PreparedFeatures) -> np.ndarray | None:
    """(data rows, n_coded) ``code * n_classes + class`` of every data row of ``source``,
    where its rows' classes are known (:attr:`._binning.PreparedFeatures.classes`, a
    forest's: every stacked row is of its data row's class); made once and kept for
    every stack of trees. None for a regression or unknown classes."""
    if crit.codes is None or source.classes is None:
        return None
    key = ("coded classes", crit.n_classes)
    if key not in source.kept:
        source.kept[key] = _with_classes(source.codes, source.classes, source.n_bins, crit.n_classes)
    return source.kept[key]


def _with_classes(codes, classes, n_bins, k: int) -> np.ndarray:
    """``codes * k + classes`` (a class per row of ``codes``) in the smallest integer type."""
    table = codes.astype(smallest_int((int(n_bins.max(initial=0)) + 1) * k))
    table *= k
    table += classes[:, None].astype(table.dtype)
    return table


def _slot_histogram(crit, level, prep, coded, runs: _HistogramRuns):
    """Statistics of the occupied slots and of every run's missing slot.

    Returns the kept slots' statistics (k, n_stats) in slot order and, per kept slot,
    its run, value code and whether it is the run's missing slot.
    """
    n_slots = runs.n_slots
    every_pair = len(runs.start) == runs.pair_start.size
    if every_pair and crit.unit_weight:  # class counts: one bincount
        # each entry's (slot, class) bin: its run's first slot times k, plus its row's
        # code * k + class from a table made once per fit
        k = crit.n_classes
        derived = _derived(crit, level, prep, coded, runs)
        rows, node = level.rows, level.node
        if derived is not None:  # only the other nodes' rows are read
            read = ~np.isin(np.arange(level.n_nodes), derived[0])[node]
            rows, node = rows[read], node[read]
        coded_class = _coded_classes(crit, prep)[rows]
        if len(coded) < coded_class.shape[1]:
            coded_class = coded_class[:, coded]
        first = np.ascontiguousarray(runs.pair_start.T) * k
        key = (np.take(first, node, axis=0) + coded_class).ravel()
        sums = np.bincount(key, minlength=n_slots * k).reshape(n_slots, k)
        _subtract(crit, level, prep, coded, runs, sums, derived)
        return _kept_slots(runs, sums, sum(sums[:, q] for q in range(k)))  # no slow row sums
    forget(crit)
    if every_pair:
        codes = prep.source.codes[level.data_rows]
        if len(coded) < codes.shape[1]:
            codes = codes[:, coded]
        # each row's first slot per feature: rows of the (m, features) table, by take
        key = (np.take(np.ascontiguousarray(runs.pair_start.T), level.node, axis=0) + codes).ravel()

        def per_pair(a):  # a row statistic, repeated for each of the row's pairs
            return np.repeat(a[level.rows], len(coded))
    else:  # only the (row, feature) pairs whose node drew the feature, whole trees at a
        # time (at most DRAWN_CHUNK_ENTRIES entries, as the drawn search): a node's slots
        # are its own, so each slot's sum is made in one part, in the same order
        n_rows, sums = None, None
        table = _data_coded_classes(crit, prep.source)
        k = 1 if table is None else crit.n_classes  # with the table, a key holds the class
        for first, part in level.by_trees(runs.allowed.sum(axis=1), DRAWN_CHUNK_ENTRIES):
            key, at = _drawn_keys(prep, coded, runs, part, first, table, k)
            per_pair = partial(_spread, rows=part.rows, at=at)
            part_sums, part_rows = (_sums(crit, key, per_pair, n_slots) if table is None
                                    else _class_bin_sums(crit, key, per_pair, n_slots))
            n_rows = part_rows if n_rows is None else n_rows + part_rows
            sums = part_sums if sums is None else sums + part_sums
        return _kept_slots(runs, sums, n_rows)
    return _kept_slots(runs, *_sums(crit, key, per_pair, n_slots))


def _drawn_keys(prep, coded, runs: _HistogramRuns, part, first: int, table=None, k: int = 1):
    """The slot of every drawn (row, feature) pair of ``part``, a level of its own whose
    nodes are ``first`` on in ``runs``, row after row (a row's pairs in feature order),
    and the position in ``part.rows`` of each pair's row. With ``table``
    (:func:`_data_coded_classes`) and ``k`` classes, each pair's (slot, class) bin
    instead: slot · k + class.

    A row's pairs are its node's drawn pairs, which are consecutive in ``allowed``'s
    (node, feature) order: each entry's pair is its node's first pair plus its place
    in the row, so what a pair knows reaches its entries by one gather from a per-pair
    table, with no per-entry node or draw slot."""
    allowed = runs.allowed[first:first + part.n_nodes]
    pair_node, pair_feature = np.divmod(np.flatnonzero(allowed), allowed.shape[1])
    per_node = np.bincount(pair_node, minlength=part.n_nodes)
    per_row = gather(per_node, part.node)
    at = np.repeat(np.arange(len(per_row)), per_row)  # each entry's row
    # entry e of a row whose entries start at s is pair (its node's first pair) + e - s:
    # one gather of that per-row offset (owned_places' places would cost a second)
    node_first, row_first = np.cumsum(per_node) - per_node, np.cumsum(per_row) - per_row
    pair = gather(gather(node_first, part.node) - row_first, at)
    pair += np.arange(len(pair))
    codes = prep.source.codes if table is None else table
    key = gather(runs.pair_start[pair_feature, pair_node + first] * k, pair)
    code_at = gather(gather(coded, pair_feature), pair)  # the code's column, then its flat place
    code_at += gather(part.data_rows * codes.shape[1], at)
    key += gather(codes.ravel(), code_at)
    return key, at


def _spread(a: np.ndarray, rows: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A per-row statistic ``a``, for each pair of the rows ``rows[at]``."""
    return gather(gather(a, rows), at)


def _sums(crit, key, per_pair, n_slots: int):
    """Statistics (n_slots, n_stats - 1) and row counts (n_slots,) of every slot, from
    each entry's slot ``key``; ``per_pair`` turns a per-row statistic into a per-entry one.

    Sums over every slot, then the occupied ones taken: cheaper than renumbering each
    entry's slot among the occupied ones first (a gather per entry, a pass per slot)."""
    if crit.unit_weight:  # class counts: one unweighted bincount
        k = crit.n_classes
        sums = np.bincount(key * k + per_pair(crit.codes), minlength=n_slots * k).reshape(n_slots, k)
        return sums, sum(sums[:, q] for q in range(k))  # column by column: no slow row sums
    n_rows = np.bincount(key, minlength=n_slots)
    if crit.codes is not None:  # weighted class counts: one bincount by (slot, class)
        k = crit.n_classes
        sums = np.bincount(key * k + per_pair(crit.codes), weights=per_pair(crit.row_weight),
                           minlength=n_slots * k).reshape(n_slots, k)
    else:
        sums = np.column_stack([np.bincount(key, weights=per_pair(column), minlength=n_slots)
                                for column in crit.stats_t])
    return sums, n_rows


def _class_bin_sums(crit, key, per_pair, n_slots: int):
    """:func:`_sums` from keys that already hold each entry's class: ``slot · n_classes
    + class``."""
    k = crit.n_classes
    counts = np.bincount(key, minlength=n_slots * k).reshape(n_slots, k)
    n_rows = sum(counts[:, q] for q in range(k))  # column by column: no slow row sums
    if crit.unit_weight:
        return counts, n_rows
    return (np.bincount(key, weights=per_pair(crit.row_weight), minlength=n_slots * k)
            .reshape(n_slots, k), n_rows)


def forget(crit) -> None:
    """Drop the kept counts of a level (see :func:`_subtract`): a level derives its
    nodes' counts only from the level just above it."""
    if getattr(crit, "slot_counts", None) is not None:
        crit.slot_counts = None


def _blocks(prep, coded, runs: _HistogramRuns, sums: np.ndarray, m: int) -> dict:
    """Views of ``sums`` (every pair searched) by feature: feature ``coded[j]``'s slots
    as an (m, n_bins + 1, k) array, node by node (runs lie feature-major)."""
    width = prep.n_bins[coded] + 1
    return {int(f): sums[start:start + m * w].reshape(m, w, -1)
            for f, start, w in zip(coded, runs.pair_start[:, 0], width, strict=True)}


def _derived(crit, level, prep, coded, runs: _HistogramRuns):
    """(node, parent, sibling) of the nodes whose class counts are their parent's minus
    their sibling's (the method of LightGBM): of two children of one split searched here,
    the one with more rows (the second of equals), where the level above's counts are
    kept for every feature searched here and reading its rows costs more than the
    subtraction. None where no node is derived.

    The counts are whole numbers, so a derived node's are the same to the bit; the
    parent's class totals must be its two children's, or nothing is derived."""
    above = crit.slot_counts  # the level just above's (see forget)
    if above is None or level.parent is None or above[0] is not prep:
        return None
    _, totals_above, blocks_above = above
    if not all(int(f) in blocks_above for f in coded):
        return None
    parent, n_rows = level.parent, level.totals[:, -1]
    big, small = larger_siblings(parent, n_rows)
    # rows × features read against slots × classes subtracted, node by node
    worth = n_rows[big] * len(coded) > (prep.n_bins[coded] + 1).sum() * crit.n_classes
    big, small = big[worth], small[worth]
    if not len(big):
        return None
    k = crit.n_classes
    if not np.array_equal(totals_above[parent[big]], level.totals[big, :k] + level.totals[small, :k]):
        return None
    return big, parent[big], small


def _subtract(crit, level, prep, coded, runs: _HistogramRuns, sums: np.ndarray, derived) -> None:
    """Fill the derived nodes' slots of ``sums`` (see :func:`_derived`) and keep this
    level's counts for the level below."""
    blocks = _blocks(prep, coded, runs, sums, level.n_nodes)
    if derived is not None:
        node, parent, sibling = derived
        for f, block in blocks.items():
            block[node] = crit.slot_counts[2][f][parent] - block[sibling]
    crit.slot_counts = (prep, level.totals[:, :crit.n_classes], blocks)


def _kept_slots(runs: _HistogramRuns, sums: np.ndarray, n_rows: np.ndarray):
    """:func:`_slot_histogram`'s result from the sums (n_slots, n_stats - 1) and row
    counts of every slot."""
    keep = n_rows > 0
    missing_at = runs.start + runs.width - 1
    keep[missing_at] = True
    kept = np.flatnonzero(keep)
    hist = np.empty((len(kept), sums.shape[1] + 1))
    hist[:, -1] = n_rows[kept]  # the row count, every criterion's last statistic
    hist[:, :-1] = np.take(sums, kept, axis=0)
    slot_run = np.searchsorted(runs.start, kept, side="right") - 1
    slot_bin = kept - runs.start[slot_run]
    return hist, slot_run, slot_bin, slot_bin == runs.width[slot_run] - 1
