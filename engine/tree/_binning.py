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

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ._sorting import order_by
from ._splitter import gather


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
    order : ndarray of intp, shape (n_numeric, n_samples), or None
        For each numeric feature the rows sorted by value, missing values last (ties
        in row order); None once :meth:`release_order` let it go (:meth:`presorted`
        then makes a feature's again from :attr:`rank`).
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
    taken_from : (PreparedFeatures, ndarray of intp) or None
        The preparation and rows this one was taken from (:meth:`take`); None if made
        by :func:`prepare_features`.
    classes : ndarray of intp, shape (n_samples,), or None
        Each row's class code, where a classifier's forest set it: the tables a search
        derives from the data and the classes alone are then made once for all its
        stacks of trees and kept in ``kept``.
    kept : dict
        Such tables, by what they were made for.
    """

    values: np.ndarray
    numeric: np.ndarray
    categorical: np.ndarray
    n_categories: np.ndarray
    numeric_values: np.ndarray
    order: np.ndarray | None
    coded: np.ndarray
    codes: np.ndarray
    n_bins: np.ndarray
    bin_values: np.ndarray
    bin_start: np.ndarray
    taken_from: tuple[PreparedFeatures, np.ndarray] | None = None
    classes: np.ndarray | None = None
    kept: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def row_codes(self) -> np.ndarray:
        """(n_samples, n_features), row by row: a code per value, equal codes for equal
        values (missing is one more value) — the numeric rank, the category code.

        Which features vary in a node (a forest's random feature draw) is then a min and
        a max over the node's rows of small integers: int16 where the codes fit, a
        quarter of the floats' memory traffic. Built on first use.
        """
        codes = np.empty(self.values.shape[::-1], dtype=np.int32)
        if len(self.numeric):
            rank = self.rank
            n_values = np.where(np.isnan(self.numeric_values), -1, rank).max(axis=1) + 1
            codes[:, self.numeric] = np.minimum(rank, n_values[:, None]).T  # missing: one code
        for j, column in self.category_codes.items():
            codes[:, j] = column
        small = codes.size == 0 or codes.max() < 2**15
        return codes.astype(np.int16) if small else codes

    @cached_property
    def category_codes(self) -> dict[int, np.ndarray]:
        """Each categorical feature's code of every row, a missing value coded as the
        feature's number of categories (a histogram's last slot), in the narrowest
        integer type: a level's codes are then one gather of small integers."""
        return {int(j): np.where(np.isnan(self.values[j]), self.n_categories[j], self.values[j])
                .astype(smallest_int(int(self.n_categories[j]))) for j in self.categorical}

    @cached_property
    def distinct(self) -> np.ndarray:
        """(n_features,) bool: no two rows share a code of :attr:`row_codes` (no ties,
        at most one missing value). Such a feature varies in every node of two rows or
        more, so a forest's feature draw need not look at its values."""
        codes = np.sort(self.row_codes, axis=0)
        return (codes[1:] != codes[:-1]).all(axis=0)

    @cached_property
    def numeric_missing(self) -> np.ndarray:
        """(n_numeric,) bool: whether each numeric feature has a missing value. A search
        of features that have none skips looking for them."""
        return np.isnan(self.numeric_values).any(axis=1)

    @cached_property
    def off_common(self) -> tuple[np.ndarray, np.ndarray]:
        """Which rows hold something other than a feature's most common value, as bits.

        Returns ``bits`` (n_samples,) uint64 and ``features`` (n_bits,), at most 64 of
        them: bit ``b`` of a row is set where its value of ``features[b]`` is not that
        feature's most common present value (the smallest of equally common ones, as in
        :attr:`mode`), a missing value included. OR-ing a node's rows then says which of
        these features have a row off the common value, AND-ing which have every row off
        it: a feature varies in the node if some rows are off and some not, and is
        constant if none is, without reading a value; and the rows off a feature's common
        value are those a sparse search reads. The features whose common value the most
        rows hold are kept (a word that an e-mail does not contain: most rows 0); those
        with no value held twice tell nothing and are left out.
        """
        codes = self.row_codes
        common = np.zeros(codes.shape[1], dtype=np.intp)
        held = np.zeros(codes.shape[1], dtype=np.intp)
        for j, column in enumerate(codes.T):
            present = np.bincount(column[~np.isnan(self.values[j])])
            if len(present):
                common[j] = present.argmax()  # the first of equal counts: the smallest value
                held[j] = present[common[j]]
        features = np.argsort(-held, kind="stable")[:64]
        features = np.sort(features[held[features] >= 2])
        bits = np.zeros(len(codes), dtype=np.uint64)
        for b, j in enumerate(features):
            bits |= (codes[:, j] != common[j]).astype(np.uint64) << np.uint64(b)
        return bits, features

    @cached_property
    def rank(self) -> np.ndarray:
        """(n_numeric, n_samples) int32: rank of each row's value among the feature's
        distinct values (0 the smallest; missing values after every value).

        A forest's splitter sorts the rows of the (node, feature) pairs it drew by these
        ranks rather than keeping every feature's presorted order up to date.
        """
        rank = np.empty(self.order.shape, dtype=np.int32)
        for block in feature_blocks(*self.order.shape):
            order = self.order[block]
            ranked = np.take_along_axis(self.numeric_values[block], order, axis=1)
            np.put_along_axis(rank[block], order,
                              np.cumsum(_value_starts(ranked), axis=1, dtype=np.int32) - 1, axis=1)
        return rank

    def presorted(self, features: np.ndarray) -> np.ndarray:
        """The rows of :attr:`order` of the numeric features ``features`` (positions in
        :attr:`numeric`): kept, or made again from :attr:`rank` if they were let go
        (:meth:`release_order`) — a stable sort of a feature's ranks is its order, equal
        values in row order, every missing value a rank of its own above them all."""
        if self.order is not None:
            return self.order[features]
        return _order_of_ranks(self.rank[features])

    def release_order(self) -> None:
        """Let :attr:`order` go, :attr:`rank` made from it first: a forest that draws
        features sorts each node's rows by rank and needs no presorted orders, the
        preparation's largest table (8 bytes a value), held for the whole fit."""
        if self.order is not None:
            self.rank, self.mode  # noqa: B018 (cached properties, made while the orders are here)
            self.order = None

    @cached_property
    def mode(self) -> tuple[np.ndarray, np.ndarray]:
        """(n_numeric,) twice: each numeric feature's most common present value (the
        smallest of equally common ones; NaN if every value is missing) and the number
        of rows holding it. :func:`prepare_features` fills it in as it codes the
        columns; a taken preparation (:meth:`take`) works it out from its orders."""
        found = [_common_value(_present(column[order]))
                 for column, order in zip(self.numeric_values, self.order, strict=True)]
        return (np.array([f[0] for f in found], dtype=np.float64),
                np.array([f[1] for f in found], dtype=np.intp))

    @property
    def n_features(self) -> int:
        return self.values.shape[0]

    @cached_property
    def max_categories(self) -> int:
        """The most categories of any feature (0: every feature numeric)."""
        return int(self.n_categories.max(initial=0))

    @property
    def source(self) -> PreparedFeatures:
        """The preparation this one was taken from (see :meth:`take`), or itself.

        Both hold the same values, but a forest's stacked preparation repeats the data
        once per tree: gathers of scattered entries from the source's tables, the size of
        the data, stay in the processor's cache. :meth:`in_source` says where rows are in
        it.
        """
        taken = self.taken_from
        return self if taken is None else taken[0].source

    def in_source(self, rows: np.ndarray) -> np.ndarray:
        """Where the rows ``rows`` of this preparation are in :attr:`source`."""
        taken = self.taken_from  # (the rows are the builder's own: in range)
        return rows if taken is None else taken[0].in_source(gather(taken[1], rows))

    def take(self, rows: np.ndarray, with_order: bool = True) -> PreparedFeatures:
        """The preparation of the rows ``rows`` (repeats allowed), in that order.

        Several trees' in-bag rows one after the other make one problem for
        :func:`._builder.build_trees`. The presorted orders (``with_order``) are
        sorted again by rank, stably, so equal values keep the order of ``rows``.

        A forest that draws features needs no orders (``with_order`` False) and reads
        every value from :attr:`source`: then nothing is copied, and the result's
        own tables of rows are empty (a stack of trees would copy the data once a tree).
        """
        if not with_order:
            empty = lambda a: a[:, :0]  # noqa: E731
            out = PreparedFeatures(
                empty(self.values), self.numeric, self.categorical, self.n_categories,
                numeric_values=empty(self.numeric_values),
                order=None if self.order is None else empty(self.order),
                coded=self.coded, codes=self.codes[:0], n_bins=self.n_bins,
                bin_values=self.bin_values, bin_start=self.bin_start, taken_from=(self, rows),
            )
            return out
        values = np.take(self.values, rows, axis=1)  # C order, unlike values[:, rows]
        rank = np.take(self.rank, rows, axis=1)
        order = _order_of_ranks(rank)
        out = PreparedFeatures(
            values, self.numeric, self.categorical, self.n_categories,
            numeric_values=rows_of(values, self.numeric), order=order.astype(np.intp, copy=False),
            coded=self.coded, codes=self.codes[rows], n_bins=self.n_bins,
            bin_values=self.bin_values, bin_start=self.bin_start, taken_from=(self, rows),
        )
        out.rank = rank  # the cached property, taken with the rows rather than worked out
        return out


def prepare_features(
    X: np.ndarray, n_categories: np.ndarray, max_bins: int | None, bins=None
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
    bins : QuantileBins or None
        Quantile bins fitted on ``X``: its binned columns are prepared as
        ``bins.transform(X)`` has them, and presorted by their bin codes, a counting
        sort (the same order: the values ascend with the codes, ties keep row order).
    """
    codes = {} if bins is None else bins.codes(X)
    values = np.ascontiguousarray((X if bins is None else bins.transform(X, codes)).T)
    n_categories = np.asarray(n_categories, dtype=np.intp)
    numeric = np.flatnonzero(n_categories == 0)
    categorical = np.flatnonzero(n_categories > 0)
    numeric_values = rows_of(values, numeric)
    order = _presorted(numeric_values, [codes.get(int(j)) for j in numeric])
    coded, codes, distinct, common = [], [], [], []
    for i, column in enumerate(numeric_values):
        ranked = _present(column[order[i]])
        new_value = _value_starts(ranked)
        common.append(_common_value(ranked, new_value))
        found = _distinct_codes(ranked, new_value, order[i], max_bins)
        if found is not None:
            coded.append(i)
            codes.append(found[0])
            distinct.append(found[1])
    n_bins = np.array([len(d) for d in distinct], dtype=np.intp)
    prep = PreparedFeatures(
        values, numeric, categorical, n_categories, numeric_values, order,
        coded=np.array(coded, dtype=np.intp),
        codes=np.array(codes, dtype=smallest_int(n_bins.max(initial=0)))
        .reshape(len(coded), values.shape[1]).T.copy(),
        n_bins=n_bins,
        bin_values=np.concatenate(distinct) if distinct else np.zeros(0),
        bin_start=np.cumsum(n_bins) - n_bins,
    )
    prep.mode = (  # the cached property, from the values walked above
        np.array([c[0] for c in common], dtype=np.float64),
        np.array([c[1] for c in common], dtype=np.intp))
    return prep


def _presorted(numeric_values: np.ndarray, codes: list) -> np.ndarray:
    """Each numeric row's order by value, missing last (argsort puts NaN last, where
    the splitter expects missing values), ties in row order: rows with few ties by their
    ranks (:func:`_stable_by_rank`), the others by a stable sort of the floats; a row with
    ``codes`` (its bin codes, ascending with its values, missing after all) by a radix
    sort of them."""
    order = np.empty(numeric_values.shape, dtype=np.intp)
    by_rank = np.array([c is None and _few_ties(v) for c, v in zip(codes, numeric_values, strict=True)],
                       dtype=bool)
    ranked_rows = np.flatnonzero(by_rank)
    for block in feature_blocks(len(ranked_rows), numeric_values.shape[1]):
        rows = ranked_rows[block]
        order[rows] = _stable_by_rank(numeric_values[rows])
    for i in np.flatnonzero(~by_rank):
        code = codes[i]
        key = numeric_values[i] if code is None else code.astype(smallest_int(int(code.max(initial=0))))
        order[i] = np.argsort(key, kind="stable")
    return order


#: Values per block of features that the preparation sorts and ranks at once: numpy's
#: calls then serve many small features together, while a large table's temporaries
#: (half a dozen of them, up to 8 bytes a value) stay a few times this size instead of
#: several times the table's.
BLOCK_VALUES = 1 << 20


def feature_blocks(n_features: int, n_samples: int) -> list[slice]:
    """Consecutive features, as slices, in blocks of about :data:`BLOCK_VALUES` values
    (one feature at least)."""
    step = max(1, BLOCK_VALUES // max(1, n_samples))
    return [slice(a, min(a + step, n_features)) for a in range(0, n_features, step)]


#: Values of a column looked at to tell whether it has few ties (:func:`_few_ties`).
TIE_SAMPLE = 512


def _few_ties(column: np.ndarray) -> bool:
    """Whether most values of ``column`` are unlike the others, judged on
    :data:`TIE_SAMPLE` of them spread over it: then :func:`_stable_by_rank` sorts it in
    less time than a stable sort of the floats; on a column mostly of one value (a word
    count, 0 in most rows), numpy's unstable sort slows down and the stable one wins."""
    if len(column) <= 2 * TIE_SAMPLE:
        return False
    sample = np.sort(column[::len(column) // TIE_SAMPLE])
    return np.count_nonzero(sample[1:] != sample[:-1]) > 0.9 * len(sample)


def _stable_by_rank(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, axis=1, kind="stable")`` (NaN last, ties in row order) of a
    2-D float array, without a stable sort of the floats (a merge sort): an unstable sort
    (numpy's vectorised quicksort), each row's rank among the distinct values (every NaN
    one rank), then a stable sort of the ranks, integers: one radix pass where every rank
    fits 16 bits, else :func:`._sorting.order_by` a row at a time. Equal values keep their
    positions' order, as a stable sort leaves them."""
    order = np.argsort(values, axis=1)
    ranked = np.take_along_axis(values, order, axis=1)
    new_value = _value_starts(ranked)
    missing = np.isnan(ranked)
    new_value[:, 1:] &= ~(missing[:, 1:] & missing[:, :-1])
    rank = np.cumsum(new_value, axis=1, dtype=np.int32) - 1
    narrow = rank.shape[1] == 0 or rank[:, -1].max() < 2**16
    by_position = np.empty(values.shape, dtype=np.uint16 if narrow else np.int32)
    np.put_along_axis(by_position, order, rank.astype(by_position.dtype, copy=False), axis=1)
    if narrow:
        return np.argsort(by_position, axis=1, kind="stable")
    return np.stack([order_by(row) for row in by_position])


def _order_of_ranks(rank: np.ndarray) -> np.ndarray:
    """Each row's stable argsort of ranks ``rank`` (2-D, non-negative): equal ranks in
    position order; a radix sort where every rank fits 16 bits."""
    small = rank.shape[1] and rank.max(initial=0) < 2**16
    return np.argsort(rank.astype(np.uint16) if small else rank, axis=1, kind="stable")


def smallest_int(largest: int) -> type:
    """The narrowest integer type holding 0 .. ``largest``: a small table of codes
    stays in the processor's cache when scattered entries are gathered from it."""
    return next(t for t in (np.uint8, np.int16, np.int32, np.int64) if largest <= np.iinfo(t).max)


def rows_of(values: np.ndarray, numeric: np.ndarray) -> np.ndarray:
    """``values[numeric]``, without a copy when every feature is numeric."""
    if len(numeric) == len(values):  # numeric is sorted and unique: all rows, in order
        return values
    return values[numeric]


def _present(ranked: np.ndarray) -> np.ndarray:
    """A column's values in sorted order without the missing ones (sorted last)."""
    return ranked[:len(ranked) - np.count_nonzero(np.isnan(ranked))]


def _value_starts(ranked: np.ndarray) -> np.ndarray:
    """Where each value of sorted values starts (True at the first of each), along the
    last axis."""
    new_value = np.ones(ranked.shape, dtype=bool)
    new_value[..., 1:] = ranked[..., 1:] != ranked[..., :-1]
    return new_value


def _common_value(ranked: np.ndarray, new_value: np.ndarray | None = None) -> tuple[float, int]:
    """The most common of sorted present values (the smallest if several) and its count;
    ``new_value`` marks where each value starts (:func:`_value_starts`)."""
    if not len(ranked):
        return np.nan, 0
    if new_value is None:
        new_value = _value_starts(ranked)
    start = np.flatnonzero(new_value)
    length = np.diff(start, append=len(ranked))
    j = int(np.argmax(length))
    return float(ranked[start[j]]), int(length[j])


def _distinct_codes(ranked, new_value, order: np.ndarray, max_bins: int | None):
    """(codes, distinct values) of a column from its sorted present values ``ranked``
    (``new_value`` where each starts) and its presorted order, or None if too many."""
    if max_bins is None:
        return None
    n_values = int(np.count_nonzero(new_value))
    if n_values > max_bins:
        return None
    codes = np.full(len(order), n_values, dtype=np.intp)
    codes[order[:len(ranked)]] = np.cumsum(new_value) - 1
    return codes, ranked[new_value]
