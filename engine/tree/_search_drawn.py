"""A forest's search: the features each node draws (``max_features``), and only those.

:func:`draw_features` draws per node before anything is scored, skipping features
constant in the node; :func:`drawn_numeric_candidates` then sorts only the drawn
(node, feature) pairs' rows by rank and scores them as :mod:`._search_sorted` does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._search_sorted import Runs, numeric_chunk
from ._sorting import order_by
from ._splitter import Candidates, Level, NumericInput, gather, varies_in_runs

#: Bound on the (row, drawn column) entries a forest's level searches at once: each
#: entry costs about 80 bytes of sort keys, runs and running sums while it is searched,
#: so a level's search holds at most ≈ 6.4 MB however many trees grow in the stack, a
#: working set a core's caches keep better than larger chunks (see bench/README.md).
DRAWN_CHUNK_ENTRIES = 80_000


def search(inp: NumericInput, features: np.ndarray, allowed: np.ndarray) -> Candidates:
    """The :data:`._splitter.NumericSearch` of a forest's drawn pairs, on the stacked
    rows' source."""
    source = inp.prep.source
    return drawn_numeric_candidates(inp.crit, inp.level, source.numeric_values, source.rank,
                                    features, allowed, inp.min_leaf, source.numeric_missing)


def drawn_numeric_candidates(crit, level, values, rank, columns, allowed, min_leaf,
                             missing=None) -> Candidates:
    """Candidates ``x <= t`` of the numeric (node, feature) pairs a forest drew, at most
    :data:`DRAWN_CHUNK_ENTRIES` entries at a time: a part of the stack's trees at a time
    (:meth:`._splitter.Level.by_trees`), and in a tree that alone holds more, a group of
    columns at a time (or one column). ``missing`` (one per row of ``values``), if given,
    says which have missing values. Returned ``feature`` indexes ``columns``.

    Whole trees come first: a part's nodes all draw as many columns (but for the few
    with fewer that vary), which :class:`DrawnEntries` lays out by copies, where a group
    of columns leaves most slots partly empty and needs a gather an entry."""
    parts = []
    for first, part in level.by_trees(allowed.sum(axis=1), DRAWN_CHUNK_ENTRIES):
        found = _column_groups(crit, part, values, rank, columns,
                               allowed[first:first + part.n_nodes], min_leaf, missing)
        found.node += first
        parts.append(found)
    return parts[0] if len(parts) == 1 else Candidates.concat(parts)


def _column_groups(crit, level, values, rank, columns, allowed, min_leaf, missing) -> Candidates:
    """:func:`drawn_numeric_candidates` of one part, a group of columns at a time (at most
    :data:`DRAWN_CHUNK_ENTRIES` entries a group, or one column)."""
    entries = np.bincount(level.node, minlength=level.n_nodes) @ allowed
    if entries.sum() <= DRAWN_CHUNK_ENTRIES:
        return _drawn_chunk(crit, level, values, rank, columns, allowed, min_leaf, missing)
    parts, lo = [], 0
    while lo < len(columns):
        hi = lo + max(1, int(np.searchsorted(np.cumsum(entries[lo:]), DRAWN_CHUNK_ENTRIES,
                                             side="right")))
        if entries[lo:hi].any():
            part = _drawn_chunk(crit, level, values, rank, columns[lo:hi], allowed[:, lo:hi],
                                min_leaf, missing)
            part.feature += lo
            parts.append(part)
        lo = hi
    return Candidates.concat(parts)


def _drawn_chunk(crit, level, values, rank, columns, allowed, min_leaf, missing=None) -> Candidates:
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
    runs = Runs(gather(drawn.rows, by_run), v, group, np.cumsum(count) - count, count,
                missing is None or bool(missing[columns].any()))
    table = drawn.table
    del drawn, at_value, by_run  # the runs hold all the search reads from here on
    # A node's unused slots have empty runs, so they yield no candidate, missing-only
    # ones included.
    part = numeric_chunk(crit, level, k, runs, min_leaf)
    part.feature = gather(table.ravel(), part.feature * m + part.node)  # slot -> column
    return part


def drawn_runs(allowed: np.ndarray):
    """The runs of a draw ``allowed`` (m, n_cols), one per drawn (node, column) pair in
    (node, column) order: each run's node and column, and per pair (flat) its run (a
    drawn pair's place among them)."""
    run_node, run_column = np.divmod(np.flatnonzero(allowed), allowed.shape[1])
    return run_node, run_column, np.cumsum(allowed.ravel()) - 1


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

    @staticmethod
    def of(allowed: np.ndarray, level: Level) -> DrawnEntries:
        """``allowed`` (m, n_columns) is the nodes' draw."""
        m, p = allowed.shape
        pair_node, pair_column = np.divmod(np.flatnonzero(allowed), p)  # 1-D: fast
        per_node = np.bincount(pair_node, minlength=m)
        pair_slot = owned_places(per_node)[1]
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
            at, slot = owned_places(per_row)

            def spread(a):
                return gather(a, at)

        node = spread(level.node)
        group = slot * m + node
        return DrawnEntries(node, spread(level.rows), spread(level.data_rows), slot, group, table)


def owned_places(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items laid out owner after owner, ``counts[i]`` of owner ``i``: each item's owner
    and its place among its owner's items (0, 1, ...). One ``np.repeat`` (which costs
    several gathers an element), the places by a gather."""
    owner = np.repeat(np.arange(len(counts)), counts)
    return owner, np.arange(len(owner)) - gather(np.cumsum(counts) - counts, owner)


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
