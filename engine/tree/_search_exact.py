"""The exact search of trees and forests: every cut of every searched feature.

:class:`ExactSearch` is the :class:`._builder.Search` of a tree and of a forest's
stacked trees. At each level it counts each group of numeric features its cheapest way
(:func:`_numeric_plan`, the one place the choice is made; each search is a
:data:`._splitter.NumericSearch`) and every categorical feature
by category:

* features mostly of one value, through their other values (:mod:`._search_sparse`),
  when at most :data:`SPARSE_SHARE` of the rows are off that value; a forest reads those
  rows off bits (:data:`BITS_SPARSE_SHARE`, :data:`BITS_FEW_VALUED_SHARE`,
  :data:`BITS_DENSE_SHARE`);
* few-valued features by histogram (:mod:`._search_histogram`) while the level's
  (node, value) slots are at most :data:`HISTOGRAM_SLOTS_PER_ROW` per row;
* a forest's drawn features by sorting the drawn pairs' rows (:mod:`._search_drawn`);
* the others along presorted orders kept up to date level by level
  (:mod:`._search_sorted`);
* categorical features by category histogram (:mod:`._search_categorical`).

Each gives every cut between two adjacent distinct values, so the choice changes the
speed, never the tree.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import _search_drawn, _search_histogram, _search_sorted, _search_sparse
from ._binning import PreparedFeatures, rows_of
from ._criteria import Criterion, whole_weights
from ._search_categorical import (
    binary_category_candidates,
    category_histogram,
    level_statistics,
    multiway_candidates,
)
from ._search_sparse import SparseBits
from ._sorting import order_by
from ._splitter import Candidates, NumericInput, NumericSearch, gather, select_candidates

if TYPE_CHECKING:
    from ._builder import GrowParams


class ExactSearch:
    """Every cut of every feature, each group of features counted its cheapest way:
    features mostly of one value through their other values
    (:mod:`._search_sparse`), few-valued ones by histogram while a level's nodes are
    few (:mod:`._search_histogram`), a forest's drawn features by sorting the drawn
    pairs' rows (:mod:`._search_drawn`), the others along presorted orders
    (:mod:`._search_sorted`); categorical features by category (:mod:`._search_categorical`).
    """

    def __init__(self, prep: PreparedFeatures, crit: Criterion, params: GrowParams):
        self.prep, self.multiway = prep, params.multiway
        draws = params.max_features is not None and params.max_features < prep.n_features
        sparse = _sparse_features(prep, crit, params, draws)
        if draws:  # a forest's draws sort their own rows; only the sparse entries are kept
            self.order = _forest_entries(prep, crit, params, sparse)
        else:
            self.order = _Orders(prep, crit, sparse)

    def keep(self, rows: np.ndarray) -> None:
        if self.order is not None:
            self.order.keep(rows)

    def candidates(self, crit, level, min_leaf, allowed=None):
        return _all_candidates(self.prep, crit, level, self.order, min_leaf, self.multiway,
                               allowed)


#: A numeric feature is searched through the rows not holding its most common value
#: (:func:`._search_sparse.sparse_numeric_candidates`) when they are at most this share of
#: the rows; every numeric feature is, when they are at most this share of all the
#: numeric values (a dense search for a few features costs more than it saves).
SPARSE_SHARE = 0.5


def _sparse_features(prep: PreparedFeatures, crit, params: GrowParams,
                     draws: bool = False) -> np.ndarray:
    """Positions (in ``prep.numeric``) of the features searched sparsely: where the rows
    weigh whole numbers (class counts, exact in any order) and a leaf may hold a single
    row. The common values are those of the data (``prep.source``). With ``draws`` (a
    forest's), only features mostly of one value: the others' rows are cheaper to sort
    for the few nodes that draw them than to sift every level."""
    if not _counts_searchable(crit, params):
        return np.zeros(0, dtype=np.intp)
    others = _off_common_counts(prep)
    n = prep.source.values.shape[1]
    # (a forest searches only the drawn features: no dense search to spare)
    if not draws and others.sum() <= SPARSE_SHARE * others.size * n:
        return np.flatnonzero(others < n)
    return np.flatnonzero(others <= SPARSE_SHARE * n)


def _counts_searchable(crit, params: GrowParams) -> bool:
    """Whether the rows weigh whole numbers and a leaf may hold a single row: what
    :func:`._search_sparse.sparse_numeric_candidates` needs."""
    return whole_weights(crit) and params.min_samples_leaf == 1


def _off_common_counts(prep: PreparedFeatures) -> np.ndarray:
    """(n_numeric,) rows off each numeric feature's most common value (all of them for a
    feature with no value)."""
    mode, n_common = prep.source.mode
    n = prep.source.values.shape[1]
    return np.where(np.isnan(mode), n, n - n_common)


#: A forest reading its entries off the rows' bits (:class:`SparseBits`) searches that way
#: every feature with at most this share of its rows off its common value: an entry costs
#: a little more than in the search of every row, but there are fewer.
BITS_SPARSE_SHARE = 0.95
#: ... and its other numeric features too, every row an entry, when they are at most this
#: share of the numeric features: a level then runs one search, not two. Where most
#: features are such, their own search (rows laid out by draw slot) is the cheaper one.
BITS_DENSE_SHARE = 1 / 8
#: A few-valued feature (``prep.coded``) goes to the bits only with at most this share of
#: its rows off its common value: above it, a level counts its rows into (node, value)
#: histograms while the slots are few (:mod:`._search_histogram`), with no sort at all.
BITS_FEW_VALUED_SHARE = 0.5


def _forest_entries(prep: PreparedFeatures, crit, params: GrowParams, sparse: np.ndarray):
    """A forest's sparse search: read off the rows' bits where every feature ``sparse``
    (:func:`_sparse_features`) has one (then with more features, see
    :data:`BITS_SPARSE_SHARE`, :data:`BITS_FEW_VALUED_SHARE` and :data:`BITS_DENSE_SHARE`),
    else listed entries; None when no feature is searched sparsely."""
    if _counts_searchable(crit, params):
        source = prep.source
        has_bit = np.isin(source.numeric, source.off_common[1])
        if has_bit[sparse].all():
            share = np.full(len(source.numeric), BITS_SPARSE_SHARE)
            share[prep.coded] = min(BITS_SPARSE_SHARE, BITS_FEW_VALUED_SHARE)
            by_bits = np.flatnonzero(has_bit & (_off_common_counts(prep)
                                                <= share * source.values.shape[1]))
            rest = np.setdiff1d(np.arange(len(source.numeric)), by_bits)
            if len(rest) > BITS_DENSE_SHARE * len(source.numeric) or len(by_bits) + len(rest) > 64:
                rest = rest[:0]
            if len(by_bits) + len(rest):
                searched = np.union1d(by_bits, rest)
                return _SparseEntries(prep, crit, searched, _search_bits(prep, crit, by_bits, rest))
    return _SparseEntries(prep, crit, sparse) if len(sparse) else None


#: The sparse entries drop the rows that left once the active rows are fewer than this
#: share of those they were last cut down to; until then the search skips them: cutting
#: the entries down every level costs more than skipping the rows that left.
_SPARSE_KEEP = 0.8


def _off_common_entries(prep: PreparedFeatures, codes: np.ndarray, features: np.ndarray,
                        mode: np.ndarray):
    """(row, column, value) of each row whose value of ``features[column]`` is not
    ``mode[column]``, column after column, by value, then class, then row."""
    values = rows_of(prep.numeric_values, features)
    n_samples = values.shape[1]
    # Along a column's presorted order its common value's rows are one block, after the
    # rows of smaller values: every other place (missing values last) is an entry.
    below = np.count_nonzero(values < mode[:, None], axis=1)
    above = below + np.count_nonzero(values == mode[:, None], axis=1)  # (a NaN mode: none)
    places = np.arange(n_samples)
    at = np.flatnonzero((places < below[:, None]) | (places >= above[:, None]))
    column = at // n_samples
    row = gather(prep.presorted(features).ravel(), at)
    value = gather(values.ravel(), column * n_samples + row)
    new_value = np.ones(len(at), dtype=bool)
    new_value[1:] = (value[1:] != value[:-1]) | (column[1:] != column[:-1])
    by = order_by(np.cumsum(new_value), gather(codes, row))
    return gather(row, by), gather(column, by), gather(value, by)


class _SparseEntries:
    """Features mostly of one value (``sparse``, positions in ``prep.numeric``) keep only
    the rows of their other values, all in one list (:attr:`sparse_entries`), searched
    by :func:`._search_sparse.sparse_numeric_candidates`.

    A forest's stacked rows (:meth:`PreparedFeatures.take`) get the entries of their data
    rows: each data row's entries repeated for each of its stacked rows, still in
    value order. Given ``bits`` (see :func:`_forest_entries`), no entries are listed at
    all: each level reads those of its drawn pairs off the rows' bits.
    """

    def __init__(self, prep: PreparedFeatures, crit, sparse: np.ndarray,
                 bits: SparseBits | None = None):
        n_rows = len(crit.row_weight)
        source = prep.source
        self.sparse = sparse
        self.is_sparse = np.zeros(len(prep.numeric), dtype=bool)
        self.is_sparse[sparse] = True
        self.sparse_mode = source.mode[0][sparse]
        if bits is not None:
            self.sparse_entries, self._active = bits, None
            return
        #: Row, column (a position in ``sparse``) and value of every active row whose value
        #: is not its feature's common one, feature after feature, in value order (equal
        #: values in class order: the search's class-change filter relies on it); rows
        #: that left may linger (see :data:`_SPARSE_KEEP`).
        self.sparse_entries = ()
        if len(sparse) and source is prep:
            self.sparse_entries = _off_common_entries(prep, crit.codes, sparse, self.sparse_mode)
        elif len(sparse):
            self.sparse_entries = _stacked_entries(source, crit.codes, prep.in_source(np.arange(n_rows)),
                                                   sparse, self.sparse_mode)
        self._active = np.zeros(n_rows, dtype=bool)
        self._sparse_rows = n_rows  # active rows when the entries were last cut down

    def keep(self, rows: np.ndarray) -> None:
        """The level's rows are now ``rows``: the entries of the others may be dropped."""
        if self._active is None:  # read off the bits of the level's rows: nothing to drop
            return
        self._active[:] = False
        self._active[rows] = True
        if len(self.sparse) and len(rows) < _SPARSE_KEEP * self._sparse_rows:
            entries = self.sparse_entries  # the search skips rows that left; drop them now
            kept = np.flatnonzero(self._active[entries[0]])
            self.sparse_entries = tuple(gather(a, kept) for a in entries)
            self._sparse_rows = len(rows)


def _stacked_entries(source: PreparedFeatures, codes: np.ndarray, data_row: np.ndarray,
                     sparse: np.ndarray, mode: np.ndarray):
    """:func:`_off_common_entries` of stacked rows (row ``i`` holds data row
    ``data_row[i]``, of class ``codes[i]``): the data's entries, each repeated for the
    stacked rows of its data row, in their order."""
    n_data = source.values.shape[1]
    data_codes = np.zeros(n_data, dtype=codes.dtype)  # rows in no stacked tree: any class
    data_codes[data_row] = codes
    d_row, column, value = _off_common_entries(source, data_codes, sparse, mode)
    by_data = order_by(data_row)  # stacked rows, data row after data row
    per_data = np.bincount(data_row, minlength=n_data)
    first = np.cumsum(per_data) - per_data
    repeats = gather(per_data, d_row)
    # entry j's copies: positions first[d_row[j]] + 0, 1, ... of by_data
    offset = np.repeat(gather(first, d_row) - (np.cumsum(repeats) - repeats), repeats)
    at = offset + np.arange(len(offset))
    return gather(by_data, at), np.repeat(column, repeats), np.repeat(value, repeats)


def _search_bits(prep: PreparedFeatures, crit, sparse: np.ndarray, every_row: np.ndarray) -> SparseBits:
    """:class:`SparseBits` for the numeric features ``sparse`` and ``every_row``
    (positions in ``prep.numeric``; every ``sparse`` one has a bit in
    :attr:`PreparedFeatures.off_common`), the ``i``-th of them in order bit ``i``: its
    off-common bit, or set in every row.

    They depend on the data alone where the data rows' classes are known
    (:attr:`PreparedFeatures.classes`, a forest's): then they are made once and kept for
    every stack of trees (:attr:`PreparedFeatures.kept`). Otherwise a data row's class is
    that of its rows here (any for rows in none).
    """
    source = prep.source
    searched = np.union1d(sparse, every_row)
    if source.classes is None:
        data_codes = np.zeros(source.values.shape[1], dtype=np.intp)
        data_codes[prep.in_source(np.arange(len(crit.row_weight)))] = crit.codes
        return _make_bits(source, searched, every_row, data_codes, crit.n_classes)
    key = ("sparse bits", searched.tobytes(), every_row.tobytes(), crit.n_classes)
    if key not in source.kept:
        source.kept[key] = _make_bits(source, searched, every_row, source.classes, crit.n_classes)
    return source.kept[key]


def _make_bits(source: PreparedFeatures, searched: np.ndarray, every_row: np.ndarray,
               data_codes: np.ndarray, n_classes: int) -> SparseBits:
    """:func:`_search_bits` of the data ``source``, each data row of class
    ``data_codes``; column by column, so that its temporaries are a column's size."""
    off, with_bit = source.off_common
    bit_of = np.full(source.n_features, -1, dtype=np.intp)
    bit_of[with_bit] = np.arange(len(with_bit))
    n_data, n_cols = source.values.shape[1], len(searched)
    bits = np.zeros(n_data, dtype=np.uint64)
    one = np.uint64(1)
    for i, j in enumerate(searched):
        b = bit_of[source.numeric[j]]
        bits |= (one if j in every_row else off >> np.uint64(b) & one) << np.uint64(i)
    values = source.numeric_values
    missing = [np.isnan(values[j]) for j in searched]
    # Each value's rank, every missing value one rank above them all, with the class.
    missing_rank = 1 + max((int(source.rank[j][~gone].max(initial=-1))
                            for j, gone in zip(searched, missing, strict=True)), default=-1)
    class_bits = max(1, (n_classes - 1).bit_length())
    rank_bits = max(1, missing_rank.bit_length())
    narrow = next(t for t in (np.int16, np.int32, np.int64) if rank_bits + class_bits < np.iinfo(t).bits)
    order = np.empty((n_data, n_cols), dtype=narrow)  # row after row
    by_rank = []  # each column's distinct values, in rank order
    mode_rank = np.zeros(n_cols, dtype=np.intp)
    codes = data_codes.astype(narrow)
    for i, (j, gone) in enumerate(zip(searched, missing, strict=True)):
        rank = source.rank[j].astype(narrow)
        rank[gone] = missing_rank
        order[:, i] = rank << class_bits | codes
        present = rank[~gone]
        distinct = np.empty(int(present.max(initial=-1)) + 1)
        distinct[present] = values[j][~gone]
        by_rank.append(distinct)
        # (a column with no value, searched whole, has no common value: rank 0)
        common = np.flatnonzero(values[j] == source.mode[0][j])
        mode_rank[i] = rank[common].min() if len(common) else 0
    sizes = np.array([len(d) for d in by_rank], dtype=np.intp)
    return SparseBits(bits, order.ravel(), class_bits, rank_bits, missing_rank,
                      any(gone.any() for gone in missing), mode_rank,
                      np.concatenate(by_rank), np.cumsum(sizes) - sizes)


class _Orders(_SparseEntries):
    """Each numeric feature's active rows sorted by value (missing last), kept up to date
    from level to level by dropping the rows that left.

    Few-valued features (``coded``) are mostly counted by histogram, which needs no order:
    theirs are brought up to date only at a level that sorts one of them (a stale order
    holds every current row, in value order, among rows that have left). Features mostly
    of one value (``sparse``) keep only the rows of their other values, all in one list
    (:attr:`sparse_entries`), and have no full order.
    """

    def __init__(self, prep: PreparedFeatures, crit, sparse: np.ndarray):
        super().__init__(prep, crit, sparse)
        order = prep.order
        lazy = np.zeros(len(order), dtype=bool)
        lazy[prep.coded] = True
        self._groups = [np.flatnonzero(~lazy & ~self.is_sparse),
                        np.flatnonzero(lazy & ~self.is_sparse)]
        self._orders = [order[g] for g in self._groups]
        self._where = np.empty(len(order), dtype=np.intp)  # a feature's row in its group
        for g in self._groups:
            self._where[g] = np.arange(len(g))
        self._lazy = lazy
        self._n_rows = len(crit.row_weight)

    def keep(self, rows: np.ndarray) -> None:
        """The level's rows are now ``rows``: the eager orders drop the others."""
        super().keep(rows)
        self._n_rows = len(rows)
        self._bring_up(0)

    def _bring_up(self, group: int) -> None:
        order = self._orders[group]
        if order.shape[1] != self._n_rows:
            self._orders[group] = order[self._active[order]].reshape(len(order), self._n_rows)

    def of(self, features: np.ndarray) -> np.ndarray:
        """(len(features), rows) orders of the numeric features ``features``."""
        lazy = self._lazy[features]
        if lazy.any():
            self._bring_up(1)
        if not lazy.any() and len(features) == len(self._groups[0]):
            return self._orders[0]  # every eager feature, in order: no copy
        out = np.empty((len(features), self._n_rows), dtype=np.intp)
        for group, in_group in ((0, ~lazy), (1, lazy)):
            if in_group.any():
                out[in_group] = self._orders[group][self._where[features[in_group]]]
        return out


def _all_candidates(prep, crit, level, order, min_leaf, multiway, allowed=None):
    """Every candidate of the level; with ``allowed`` (m, n_features) only those pairs."""
    parts, orders = [], {}
    if len(prep.numeric):
        parts += _numeric_parts(prep, crit, level, order, min_leaf, allowed)
    stats = None
    for j in prep.categorical:
        if allowed is not None and not allowed[:, j].any():
            continue
        if stats is None:
            stats = level_statistics(crit, level)
        n_cat = int(prep.n_categories[j])
        codes = gather(prep.source.category_codes[int(j)], level.data_rows)
        hist = category_histogram(level, codes, n_cat, stats)
        if multiway:
            part = multiway_candidates(crit, level, hist, min_leaf)
            part = select_candidates(part, ~level.used[part.node, j])
        else:
            part, orders[j] = binary_category_candidates(crit, level, hist, min_leaf)
        part.feature = np.full(len(part.node), j, dtype=np.intp)
        if allowed is not None:  # the nodes that drew it (the numeric parts search only those)
            part = select_candidates(part, allowed[part.node, j])
        parts.append(part)
    return Candidates.concat(parts), orders


#: A few-valued feature is counted by histogram while its (node, value) slots number at
#: most this many times the rows being split; beyond that sorting is cheaper. Where every
#: feature is searched, the other way is the presorted orders, cheaper than sorting a
#: forest's drawn pairs anew, so histograms give way sooner
#: (:data:`HISTOGRAM_SLOTS_PER_ROW_PRESORTED`).
HISTOGRAM_SLOTS_PER_ROW = 4.0
HISTOGRAM_SLOTS_PER_ROW_PRESORTED = 1.0


def _numeric_parts(prep, crit, level, order, min_leaf, allowed=None) -> list[Candidates]:
    """Numeric candidates, each group of features through its search."""
    inp = NumericInput(prep, crit, level, order, min_leaf)
    numeric_allowed = None if allowed is None else allowed[:, prep.numeric]
    parts, plan = [], _numeric_plan(prep, level, order, drawn=allowed is not None)
    if all(search is not _search_histogram.search for search, _ in plan):
        _search_histogram.forget(crit)  # the next level's counts are not derived from these
    for search, features in plan:
        part = search(inp, features, None if allowed is None else numeric_allowed[:, features])
        part.feature = prep.numeric[features[part.feature]]
        parts.append(part)
    return parts


def _numeric_plan(prep, level, order, drawn: bool) -> list[tuple[NumericSearch, np.ndarray]]:
    """The one place a numeric feature's search is chosen, level by level: sparse
    features through their other values; few-valued ones by histogram while the slots
    are few; the rest by sorting the drawn pairs (a forest) or along presorted orders.
    Each group of features (positions in ``prep.numeric``) with its search."""
    slots = level.n_nodes * (prep.n_bins + 1)
    per_row = HISTOGRAM_SLOTS_PER_ROW if drawn else HISTOGRAM_SLOTS_PER_ROW_PRESORTED
    by_histogram = slots <= per_row * len(level.rows)
    by_sorting = np.ones(len(prep.numeric), dtype=bool)
    plan = []
    if order is not None and len(order.sparse):
        by_histogram &= ~order.is_sparse[prep.coded]
        by_sorting[order.sparse] = False
        plan.append((_search_sparse.search, order.sparse))
    by_sorting[prep.coded[by_histogram]] = False
    if by_histogram.any():
        plan.append((_search_histogram.search, prep.coded[by_histogram]))
    if by_sorting.any():
        plan.append((_search_drawn.search if drawn else _search_sorted.search,
                     np.flatnonzero(by_sorting)))
    return plan
