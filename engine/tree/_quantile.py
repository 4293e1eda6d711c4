"""Quantile bins: the binned threshold search that large data switches to.

The exact search tries a threshold between every two adjacent distinct values of a
feature; on 150,000 rows of measurements that is up to 150,000 candidates per feature
and node. With ``binning="quantile"`` a numeric feature with more than ``max_bins``
distinct training values is cut at quantiles of those values into at most ``max_bins``
bins of about equal counts, and only the cuts between bins are tried: at most
``max_bins - 1`` thresholds per feature (the method of LightGBM, Ke et al. 2017, and of
scikit-learn's HistGradientBoosting).

How it runs on the exact search, unchanged: every training value is replaced by the
largest value of its bin, so a binned feature has at most ``max_bins`` distinct values
and the exact search only finds cuts between bins. Each threshold it chooses lies
between the largest value of one bin and the largest of a later one; it is then moved to
the midpoint between that bin's largest value and the next bin's smallest (both observed
values), so that every training row goes to the side the search sent it to, and new
rows are split between observed values as in the exact search.

Examples
--------
>>> x = np.arange(1000.0)[:, None]
>>> bins = QuantileBins.fit(x, np.array([0]), max_bins=4)
>>> bins.high[0], bins.low[0]
(array([250., 500., 750., 999.]), array([  0., 251., 501., 751.]))
>>> bins.transform(x)[[0, 250, 251, 999], 0]
array([250., 250., 500., 999.])
>>> bins.exact_thresholds(np.array([0]), np.array([375.0]))  # found between 250 and 500
array([250.5])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._tree import NUMERIC, Tree

BINNINGS = ("exact", "quantile")
#: Bins per feature of the quantile search where a model has no ``max_bins`` of its own.
DEFAULT_MAX_BINS = 255


@dataclass(frozen=True)
class QuantileBins:
    """The bins of the features that have more than ``max_bins`` distinct values.

    Attributes
    ----------
    high, low : dict of int to ndarray of float64
        For each binned column (encoded column index) the largest and the smallest
        training value of each bin, ascending; ``low[j][k + 1] > high[j][k]``.
    """

    high: dict[int, np.ndarray]
    low: dict[int, np.ndarray]

    @classmethod
    def fit(cls, X_enc: np.ndarray, numeric: np.ndarray, max_bins: int) -> QuantileBins:
        """Bins of the ``numeric`` columns of ``X_enc`` that have more than ``max_bins``
        distinct present values (the others stay exact)."""
        high, low = {}, {}
        for j in numeric:
            values = np.sort(X_enc[:, j])
            values = values[:len(values) - np.count_nonzero(np.isnan(values))]  # NaN sort last
            n = len(values)
            if n == 0 or np.count_nonzero(values[1:] != values[:-1]) < max_bins:
                continue
            # a value goes to the first bin whose upper edge it does not exceed, so equal
            # values share a bin and there are at most len(edges) + 1 <= max_bins bins
            edges = np.unique(values[(np.arange(1, max_bins) * n) // max_bins])
            bin_of = np.searchsorted(edges, values, side="left")
            starts = np.flatnonzero(np.diff(bin_of, prepend=-1))
            ends = np.append(starts[1:], n) - 1
            high[int(j)], low[int(j)] = values[ends], values[starts]
        return cls(high, low)

    def __bool__(self) -> bool:
        return bool(self.high)

    def codes(self, X_enc: np.ndarray) -> dict[int, np.ndarray]:
        """Each binned column's bin of every row, 0 .. bins − 1, ascending with the
        values (beyond the last bin: the last bin); a missing value gets the number of
        bins, after every bin, as NaN sorts after every value."""
        out = {}
        for j, high in self.high.items():
            column = X_enc[:, j]
            code = np.minimum(np.searchsorted(high, column, side="left"), len(high) - 1)
            code[np.isnan(column)] = len(high)
            out[j] = code
        return out

    def transform(self, X_enc: np.ndarray, codes: dict[int, np.ndarray] | None = None) -> np.ndarray:
        """A copy of ``X_enc`` with each binned value replaced by its bin's largest value
        (values beyond the last bin go to the last bin; missing stays missing).
        ``codes``: :meth:`codes` of ``X_enc``, if made already."""
        out = np.array(X_enc, dtype=np.float64, copy=True)
        for j, code in (self.codes(X_enc) if codes is None else codes).items():
            high = np.append(self.high[j], np.nan)  # the missing rows' code picks NaN
            out[:, j] = high[code]
        return out

    def exact_thresholds(self, feature: np.ndarray, threshold: np.ndarray) -> np.ndarray:
        """Thresholds found on :meth:`transform`'s values, moved to the midpoint between
        the largest value of the bin below and the smallest of the bin above.

        Thresholds of columns that are not binned, ``+inf`` ("value present") and NaN
        are returned as they are.
        """
        out = np.array(threshold, dtype=np.float64, copy=True)
        feature = np.asarray(feature)
        for j, high in self.high.items():
            at = np.flatnonzero((feature == j) & np.isfinite(out))
            if not len(at):
                continue
            above = np.minimum(np.searchsorted(high, out[at], side="left"), len(high) - 1)
            # the threshold lies above high[below] (or on it, where two floats are adjacent)
            below = np.clip(np.where(high[above] == out[at], above, above - 1), 0, len(high) - 2)
            lo, hi = high[below], self.low[j][below + 1]
            mid = lo / 2.0 + hi / 2.0
            out[at] = np.where(mid >= hi, lo, mid)  # adjacent floats: the lower one
        return out

    def move_thresholds(self, tree: Tree) -> Tree:
        """``tree`` (grown on transformed values) with exact thresholds, in place."""
        numeric = np.flatnonzero(tree.split_kind == NUMERIC)
        tree.threshold[numeric] = self.exact_thresholds(tree.feature[numeric],
                                                        tree.threshold[numeric])
        return tree


def resolve_bins(binning: str, X_enc: np.ndarray, n_categories: np.ndarray,
                 max_bins: int | None) -> QuantileBins | None:
    """The bins a fit with ``binning`` uses on ``X_enc``, or None for the exact search
    (``"exact"``, or no numeric column with more than ``max_bins`` values)."""
    if binning not in BINNINGS:
        raise ValueError(f"binning must be one of {BINNINGS}, got {binning!r}.")
    if binning == "exact":
        return None
    if max_bins is None or max_bins < 2:
        raise ValueError(f"binning='quantile' needs max_bins >= 2, got {max_bins!r}.")
    bins = QuantileBins.fit(X_enc, np.flatnonzero(np.asarray(n_categories) == 0), int(max_bins))
    return bins or None
