"""Impurity functions on class-count arrays.

Every function takes ``counts`` of shape ``(..., n_classes)`` (weighted class counts
of one node, or of many nodes / candidate splits at once) and returns the impurity
along the last axis. An empty node has impurity 0.

Notes
-----
With class proportions :math:`\\pi_q = n_q / n`:

* Gini index (Breiman et al. 1984): :math:`G = \\sum_q \\pi_q (1 - \\pi_q) = 1 - \\sum_q \\pi_q^2`;
  for two classes :math:`2\\pi(1-\\pi)`.
* Entropy (Quinlan 1986): :math:`H = -\\sum_q \\pi_q \\log_2 \\pi_q`, in bits.
* Misclassification error: :math:`E = 1 - \\max_q \\pi_q`.

Hastie et al. (2009), §9.2.3 and Fig. 9.3, compare the three.

A split's quality is the parent's impurity minus the children's, each weighted by its
share of the parent's samples: :math:`\\Delta = I(t) - \\sum_k \\frac{n_k}{n} I(t_k)`.

:class:`ClassificationCriterion` and :class:`SquaredErrorCriterion` are the same
criteria as the tree builder uses them: every training row carries a small vector of
statistics (weighted one-hot class counts, or ``w, w·y``, and a row count), so the
statistics of any node or candidate child are sums, and gains follow from sums.
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import Protocol

import numpy as np


def _proportions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(total > 0, counts / np.where(total > 0, total, 1.0), 0.0)
    return p, total[..., 0]


def gini(counts: np.ndarray) -> np.ndarray:
    """Gini index 1 − Σ πq².

    >>> float(gini([5, 5]))
    0.5
    """
    p, total = _proportions(counts)
    return np.where(total > 0, 1.0 - np.sum(p * p, axis=-1), 0.0)


def entropy(counts: np.ndarray, base: float = 2.0) -> np.ndarray:
    """Entropy −Σ πq log πq (bits by default; ``base=np.e`` for nats).

    >>> round(float(entropy([9, 5])), 3)
    0.94
    """
    p, _ = _proportions(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return -np.sum(terms, axis=-1) / np.log(base)


def misclassification(counts: np.ndarray) -> np.ndarray:
    """Classification error 1 − max πq, the error of predicting the majority class.

    >>> round(float(misclassification([6, 3])), 4)
    0.3333
    """
    p, total = _proportions(counts)
    return np.where(total > 0, 1.0 - np.max(p, axis=-1, initial=0.0), 0.0)


def squared_error(w: np.ndarray, wy: np.ndarray, wyy: np.ndarray) -> np.ndarray:
    """Mean squared error around the node mean, from weighted sums Σw, Σwy, Σwy².

    ``(Σwy² − (Σwy)²/Σw) / Σw``: the node's RSS per unit weight.
    """
    w = np.asarray(w, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mse = np.where(w > 0, (wyy - wy * wy / np.where(w > 0, w, 1.0)) / np.where(w > 0, w, 1.0), 0.0)
    return np.maximum(mse, 0.0)


#: An impurity at most this is a pure node, and a decrease short of a limit by at most
#: this meets it: float noise on numbers of order 1.
FLOAT_NOISE = np.finfo(np.float64).eps
#: Two scores of one node's splits closer than this, relative to the larger of the best
#: score and the node's impurity, are equal: float noise, not a better split. Gains within
#: it of 0 are no gain.
TIE_TOLERANCE = 1e-12


def tie_floor(best, impurity):
    """The lowest score that still ties with ``best`` at a node of impurity ``impurity``.

    >>> float(tie_floor(0.5, 1.0)) == 0.5 - 1e-12
    True
    """
    return best - TIE_TOLERANCE * np.maximum(np.abs(best), impurity)


CLASSIFICATION_CRITERIA = {
    "gini": gini,
    "entropy": entropy,
    "misclassification": misclassification,
    # C4.5 ranks splits by gain ratio but measures impurity by entropy.
    "gain_ratio": entropy,
}


def impurity_decrease(parent: np.ndarray, children: list[np.ndarray], criterion: str) -> np.ndarray:
    """Δ = I(parent) − Σ_k (n_k / n) I(child_k) for class-count arrays.

    >>> round(float(impurity_decrease([10, 6], [[4, 0], [6, 6]], "entropy")), 4)
    0.2044
    """
    impurity = CLASSIFICATION_CRITERIA[criterion]
    parent = np.asarray(parent, dtype=np.float64)
    n = parent.sum(axis=-1)
    weighted = sum(
        np.asarray(c, dtype=np.float64).sum(axis=-1) / n * impurity(c) for c in children
    )
    return impurity(parent) - weighted


def split_information(child_weights: list[np.ndarray]) -> np.ndarray:
    """C4.5's split information −Σ_k (n_k/n) log₂(n_k/n), the gain ratio's denominator."""
    sizes = np.stack([np.asarray(w, dtype=np.float64) for w in child_weights], axis=-1)
    return entropy(sizes)


# Criteria as the tree builder uses them: per-row statistics whose sums describe a node.


def _xlog2x(x: np.ndarray) -> np.ndarray:
    return x * np.log2(np.where(x > 0, x, 1.0))


class Criterion(Protocol):
    """What the tree builder asks of a criterion: per-row statistics, and gains from sums.

    Every attribute is always present; the builder reads them, never tests for them.
    """

    n_stats: int                   # statistics per row; the last one is the row count
    codes: np.ndarray | None       # each row's class code (classification), else None
    unit_weight: bool              # every row weighs 1: class sums are row counts
    int_weight: np.ndarray | None  # whole-number weights in a narrow int type, else None
    row_weight: np.ndarray         # each row's weight as a float
    ratio: bool                    # ranks splits by gain / split information (C4.5)
    concave: bool                  # only cuts where the class changes can be best
    split_at_zero_gain: bool       # an impure node takes its best split even at gain 0

    def measure(self, rows: np.ndarray, node: np.ndarray, n_nodes: int): ...
    def of_totals(self, totals: np.ndarray): ...
    def weight(self, stats: np.ndarray) -> np.ndarray: ...
    def gain(self, children: Iterable[np.ndarray], parent: np.ndarray, parent_imp) -> np.ndarray: ...
    def order_key(self, hist: np.ndarray, totals: np.ndarray) -> np.ndarray: ...


def whole_weights(crit: Criterion) -> bool:
    """Whether the rows weigh whole numbers: class counts then add up exactly in any order."""
    return crit.unit_weight or crit.int_weight is not None


class ClassificationCriterion:
    """Weighted class counts as statistics; impurity gini / entropy / misclassification.

    Notes
    -----
    Gain of a split of node ``t`` into children ``t_k``:
    :math:`\\Delta = I(t) - \\sum_k \\frac{n_k}{n} I(t_k)`. For ``gain_ratio`` (C4.5) the
    score is :math:`\\Delta / \\mathrm{SplitInfo}` with
    :math:`\\mathrm{SplitInfo} = -\\sum_k \\frac{n_k}{n}\\log_2 \\frac{n_k}{n}`.

    Examples
    --------
    A 10/6 parent split into 4/0 and 6/6 gains 0.2044 bits.

    >>> crit = ClassificationCriterion("entropy", 2, np.array([0, 1]), np.ones(2))
    >>> left, right = np.array([4.0, 0.0, 4.0]), np.array([6.0, 6.0, 12.0])
    >>> round(float(crit.gain([left, right], left + right, entropy([10, 6]))), 4)
    0.2044
    """

    def __init__(self, name: str, n_classes: int, y: np.ndarray, sample_weight: np.ndarray):
        self.name = name
        self.n_classes = n_classes
        self.impurity_of = CLASSIFICATION_CRITERIA[name]
        self.ratio = name == "gain_ratio"
        self.concave = not self.ratio  # impurities concave in the counts: boundary cuts suffice
        self.split_at_zero_gain = name != "misclassification"
        self.unit_weight = bool(np.all(sample_weight == 1.0))  # lets counts be integers
        # Whole-number weights (a forest's bootstrap counts): running sums in integers,
        # which numpy accumulates faster than floats, and exactly the same numbers.
        # Stored in the narrowest type (uint8 for bootstrap counts): the splitter gathers
        # them in run order, and the narrower the table, the more of it stays in cache.
        whole = (not self.unit_weight and bool(np.all(sample_weight == np.floor(sample_weight)))
                 and 0 <= sample_weight.min() and sample_weight.sum() < 2**53)
        top = int(sample_weight.max(initial=0)) if whole else 0
        self.int_weight = (sample_weight.astype(np.min_scalar_type(top) if top < 2**32 else np.int64)
                           if whole else None)
        self.weight_top = top  # the largest whole-number weight: it bounds the running sums
        self.codes = y.astype(np.int16 if n_classes < 2**15 else np.intp)
        #: (prepared features, ``code * n_classes + class`` per row): made by the histogram
        #: search on first use in this fit (:func:`._search_histogram._coded_classes`).
        self.coded_classes: tuple | None = None
        #: (prepared features, class counts per node, slot counts by feature) of the last
        #: level counted by histogram with unit weights, for the level below
        #: (:func:`._search_histogram._derived`).
        self.slot_counts: tuple | None = None
        self.row_weight = np.asarray(sample_weight, dtype=np.float64)  # the row's one statistic
        self.n_stats = n_classes + 1

    @cached_property
    def stats(self) -> np.ndarray:
        """(n_rows, n_classes + 1): each row's weight in its class's column, and 1 (the
        row count). Made on first use: a forest of whole-number weights reads its rows'
        classes and weights instead, and a stack of trees' rows would make it large."""
        stats = np.zeros((len(self.codes), self.n_classes + 1))
        stats[np.arange(len(self.codes)), self.codes] = self.row_weight
        stats[:, -1] = 1.0
        return stats

    @cached_property
    def stats_t(self) -> np.ndarray:
        """The class columns of :attr:`stats`, one row each: summed along sorted rows."""
        return np.ascontiguousarray(self.stats[:, :-1].T)

    def measure(self, rows: np.ndarray, node: np.ndarray, n_nodes: int):
        """Statistics totals (m, n_stats), value (m, n_classes) and impurity (m,) per node."""
        # Rows to (node, class) bins: one bincount of the rows' weights, and one of the
        # rows for the counts: each node's sums taken row by row.
        k = self.n_classes
        key = node * k + self.codes[rows]
        totals = np.empty((n_nodes, k + 1))
        weights = None if self.unit_weight else self.row_weight[rows]  # counts: the same sums
        totals[:, :-1] = np.bincount(key, weights=weights, minlength=n_nodes * k).reshape(n_nodes, k)
        totals[:, -1] = np.bincount(node, minlength=n_nodes)
        return (totals, *self.of_totals(totals))

    def of_totals(self, totals: np.ndarray):
        """Value (m, n_classes) and impurity (m,) of nodes with statistics ``totals``."""
        return totals[:, :-1].copy(), self.impurity_of(totals[:, :-1])

    def _cost(self, stats: np.ndarray) -> np.ndarray:
        """Weighted impurity n·I(t) straight from counts (fast on many candidates)."""
        columns = [stats[..., q] for q in range(self.n_classes)]
        w = self.weight(stats)
        if self.name == "gini":  # n - Σ n_q² / n
            return w - sum(c * c for c in columns) / np.where(w > 0, w, 1.0)
        if self.name == "misclassification":  # n - max n_q
            return w - np.maximum.reduce(columns)
        return _xlog2x(w) - sum(_xlog2x(c) for c in columns)  # n·H = n log n - Σ n_q log n_q

    def weight(self, stats: np.ndarray) -> np.ndarray:
        if self.unit_weight:  # every row weighs 1: the row count, the same integer
            return stats[..., -1]
        return sum(stats[..., q] for q in range(self.n_classes))

    def gain(self, children: Iterable[np.ndarray], parent: np.ndarray, parent_imp) -> np.ndarray:
        """Δ for children statistics (each (..., n_stats), read once, in order) of a
        parent (..., n_stats)."""
        cost = sum(self._cost(c) for c in children)
        return parent_imp - cost / self.weight(parent)

    def order_key(self, hist: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """Key that orders the categories of each node for the optimal binary split."""
        w = self.weight(hist)
        safe = np.where(w > 0, w, 1.0)
        if self.n_classes == 2:
            return hist[..., 1] / safe
        majority = np.argmax(totals[:, :-1], axis=1)
        return np.take_along_axis(hist, majority[:, None, None], axis=2)[..., 0] / safe


class SquaredErrorCriterion:
    """Statistics ``w, w·y, 1``; impurity the weighted mean squared error (RSS / n).

    Notes
    -----
    The decrease of RSS per unit weight from splitting node ``t`` (mean
    :math:`\\bar y_t`) is :math:`\\frac{1}{n_t}\\sum_k n_k (\\bar y_k - \\bar y_t)^2`,
    computed from the children's centred sums to keep it accurate.
    """

    ratio = False
    concave = False  # scores every cut: a cut inside a run of equal y can still be best
    split_at_zero_gain = True
    n_stats = 3
    codes = None
    unit_weight = False
    int_weight = None

    def __init__(self, y: np.ndarray, sample_weight: np.ndarray):
        self.y = y
        self.sample_weight = sample_weight
        self.row_weight = np.asarray(sample_weight, dtype=np.float64)  # as the stats hold it
        # One table, a statistic per row of it: stats_t (w and w·y, each contiguous, for
        # running sums) and stats (a row's three statistics) are views of it, so the
        # re-centring of measure writes once.
        self._table = np.stack([self.row_weight, self.row_weight * y, np.ones(len(y))])
        self.stats_t = self._table[:2]
        self._unit = bool(np.all(self.row_weight == 1.0))

    @property
    def stats(self) -> np.ndarray:
        """(n_rows, 3): each row's ``w, w·y, 1`` (``w·y`` centred by :meth:`measure`)."""
        return self._table.T

    def measure(self, rows: np.ndarray, node: np.ndarray, n_nodes: int):
        """Totals, mean and MSE per node; re-centres the rows' ``w·y`` on their node mean.

        Centring keeps the running sums of the splitter small, so a deep node's sums
        are not the difference of two large numbers.
        """
        y = self.y[rows]
        count = np.bincount(node, minlength=n_nodes).astype(np.float64)
        if self._unit:  # every weight 1: the weighted sums are these sums, to the bit
            weight, safe = count, np.where(count > 0, count, 1.0)
            mean = np.bincount(node, weights=y, minlength=n_nodes) / safe
            w_centred = centred = y - mean[node]
            rss = np.bincount(node, weights=centred * centred, minlength=n_nodes)
        else:
            w = self.sample_weight[rows]
            weight = np.bincount(node, weights=w, minlength=n_nodes)
            safe = np.where(weight > 0, weight, 1.0)
            mean = np.bincount(node, weights=w * y, minlength=n_nodes) / safe
            centred = y - mean[node]
            w_centred = w * centred
            rss = np.bincount(node, weights=w * centred**2, minlength=n_nodes)
        self._table[1, rows] = w_centred
        # the statistics (w, w·(y - node mean), 1) summed per node, row by row
        totals = np.empty((n_nodes, 3))
        totals[:, 0] = weight
        totals[:, 1] = np.bincount(node, weights=w_centred, minlength=n_nodes)
        totals[:, 2] = count
        return totals, mean[:, None], np.where(weight > 0, rss / safe, 0.0)

    def weight(self, stats: np.ndarray) -> np.ndarray:
        return stats[..., 0]

    def gain(self, children: Iterable[np.ndarray], parent: np.ndarray, parent_imp) -> np.ndarray:
        w_parent = parent[..., 0]
        mean = parent[..., 1] / w_parent
        explained = 0.0
        for c in children:
            w = c[..., 0]
            centred = c[..., 1] - w * mean
            explained = explained + np.where(w > 0, centred**2 / np.where(w > 0, w, 1.0), 0.0)
        return explained / w_parent

    def order_key(self, hist: np.ndarray, totals: np.ndarray) -> np.ndarray:
        w = hist[..., 0]
        return hist[..., 1] / np.where(w > 0, w, 1.0)
