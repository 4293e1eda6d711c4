"""Loss functions of gradient boosting: value, negative gradient, start and leaf update.

Each loss works on the raw score ``S`` (shape (n_samples, K): K = 1 for regression and
binary classification, K classes otherwise) and knows

* ``init(y, w)``: the constant score :math:`S_0` minimising the loss;
* ``negative_gradient(y, S)``: :math:`-\\partial L(y, S) / \\partial S`, the
  pseudo-residuals the round's tree is fitted to;
* ``__call__(y, S, w)``: the weighted mean loss (what ``train_score_`` records);
* ``leaf_values(leaf, y, S, r, w, k)``: the line search, i.e. the step each leaf adds
  before shrinkage, for rows in leaves ``leaf``; returns (the leaves present, their
  steps). Squared error has none: the tree's leaf means are the step.

``y`` is the float target for regression and the class code (0..K-1) for
classification. Scales follow scikit-learn's ``train_score_``: squared error is the
mean squared error, log loss is the binomial deviance (twice the mean negative
log-likelihood) for two classes and the mean negative log-likelihood for more.
"""
from __future__ import annotations

import numpy as np


def weighted_quantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    """Smallest ``x`` whose cumulative weight reaches ``q`` of the total (lower quantile).

    Examples
    --------
    >>> weighted_quantile(np.array([3.0, 1.0, 2.0]), np.ones(3), 0.5)
    2.0
    """
    order = np.argsort(x, kind="stable")
    cum = np.cumsum(w[order])
    return float(x[order][np.searchsorted(cum, q * cum[-1], side="left")])


def weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """The median; with unequal weights the lower weighted median (scikit-learn's choice).

    Examples
    --------
    >>> weighted_median(np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4))
    2.5
    """
    if np.all(w == w[0]):
        return float(np.median(x))
    return weighted_quantile(x, w, 0.5)


def _mean(values: np.ndarray, w: np.ndarray) -> float:
    return float(np.sum(w * values) / np.sum(w))


class SquaredError:
    """:math:`L = (y - S)^2`; negative gradient :math:`y - S` (halved, as scikit-learn).

    Examples
    --------
    >>> SquaredError().negative_gradient(np.array([3.0]), np.array([[1.0]])).tolist()
    [[2.0]]
    """

    n_scores = 1

    def init(self, y, w):
        return np.array([_mean(y, w)])

    def negative_gradient(self, y, S):
        return (y - S[:, 0])[:, None]

    def __call__(self, y, S, w):
        return _mean((y - S[:, 0]) ** 2, w)


class _MedianLeaves:
    """Losses whose leaf step needs the leaf's rows together (a weighted median): the
    rows of one leaf at a time go to ``leaf_value(y, S, r, w, k)``."""

    def leaf_values(self, leaf, y, S, r, w, k):
        found = np.unique(leaf)
        steps = [self.leaf_value(y[at], S[at], r[at], w[at], k)
                 for at in (np.flatnonzero(leaf == j) for j in found)]
        return found, np.array(steps)


class AbsoluteError(_MedianLeaves):
    """:math:`L = |y - S|`; negative gradient :math:`\\mathrm{sign}(y - S)`; leaves take
    the weighted median of :math:`y - S` (Friedman 2001, LAD_TreeBoost).

    As in scikit-learn, :math:`S_0` is the ordinary median (middle pair averaged) when
    the weights are equal, and leaf medians are lower weighted medians.
    """

    n_scores = 1

    def init(self, y, w):
        return np.array([weighted_median(y, w)])

    def negative_gradient(self, y, S):
        return np.sign(y - S[:, 0])[:, None]

    def __call__(self, y, S, w):
        return _mean(np.abs(y - S[:, 0]), w)

    def leaf_value(self, y, S, r, w, k):
        return weighted_quantile(y - S[:, 0], w, 0.5)


class HuberLoss(_MedianLeaves):
    """Huber's loss with δ the ``alpha``-quantile of :math:`|y - S|`, re-set each round:
    :math:`\\tfrac12 d^2` for :math:`|d| \\le δ`, :math:`δ(|d| - δ/2)` beyond (d = y - S).

    Leaf step (Friedman 2001, M_TreeBoost): the median :math:`\\tilde d` of the leaf's
    :math:`d` plus the mean of :math:`\\mathrm{sign}(d - \\tilde d)\\min(δ, |d - \\tilde d|)`.
    """

    n_scores = 1

    def __init__(self, alpha: float = 0.9):
        self.alpha = alpha
        self.delta = np.inf

    def init(self, y, w):
        return np.array([weighted_median(y, w)])

    def set_delta(self, y, S, w) -> None:
        self.delta = weighted_quantile(np.abs(y - S[:, 0]), w, self.alpha)

    def negative_gradient(self, y, S):
        d = y - S[:, 0]
        return np.where(np.abs(d) <= self.delta, d, self.delta * np.sign(d))[:, None]

    def __call__(self, y, S, w):
        a = np.abs(y - S[:, 0])
        return _mean(np.where(a <= self.delta, 0.5 * a**2, self.delta * (a - self.delta / 2)), w)

    def leaf_value(self, y, S, r, w, k):
        d = y - S[:, 0]
        median = weighted_quantile(d, w, 0.5)
        shifted = d - median
        return median + _mean(np.sign(shifted) * np.minimum(np.abs(shifted), self.delta), w)


def _softmax(S: np.ndarray) -> np.ndarray:
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _newton(leaf: np.ndarray, num: np.ndarray, den: np.ndarray, w: np.ndarray):
    """One Newton step per leaf, Σ w·num / Σ w·den over its rows (0 where the denominator
    vanishes): (the leaves present in ``leaf``, their steps)."""
    found = np.flatnonzero(np.bincount(leaf))
    top = np.bincount(leaf, weights=w * num)[found]
    bottom = np.bincount(leaf, weights=w * den)[found]
    small = np.abs(bottom) < 1e-150
    return found, np.where(small, 0.0, top / np.where(small, 1.0, bottom))


class BinomialLogLoss:
    """Two classes, :math:`p = 1/(1 + e^{-S})`; deviance :math:`-2[y\\ln p + (1-y)\\ln(1-p)]`.

    Negative gradient (of the half deviance) :math:`y - p`; leaf step one Newton step
    :math:`\\sum r / \\sum p(1-p)`.
    """

    n_scores = 1

    def init(self, y, w):
        p = _mean(y, w)
        return np.array([np.log(p / (1 - p))])

    @staticmethod
    def _p1(S):
        return 0.5 * (1.0 + np.tanh(0.5 * S[:, 0]))  # the logistic function without overflow

    @classmethod
    def proba(cls, S):
        p1 = cls._p1(S)
        return np.column_stack([1.0 - p1, p1])

    def negative_gradient(self, y, S):
        return (y - self._p1(S))[:, None]

    def __call__(self, y, S, w):
        # ln(1 + e^S) - y S, with ln(1 + e^s) = max(s, 0) + ln(1 + e^-|s|): no overflow
        s = S[:, 0]
        softplus = np.maximum(s, 0.0) + np.log1p(np.exp(-np.abs(s)))
        return 2.0 * _mean(softplus - y * s, w)

    def leaf_values(self, leaf, y, S, r, w, k):
        p = self._p1(S)
        return _newton(leaf, r, p * (1 - p), w)


class MultinomialLogLoss:
    """K classes, :math:`p_k = e^{S_k} / \\sum_j e^{S_j}`; loss :math:`-\\ln p_y`.

    Negative gradient for score k: :math:`1[y = k] - p_k`; leaf step
    :math:`\\frac{K-1}{K} \\sum r / \\sum |r|(1 - |r|)` (Friedman 2001, Algorithm 6).
    """

    def __init__(self, n_classes: int):
        self.n_scores = n_classes

    def init(self, y, w):
        p = np.bincount(y, weights=w, minlength=self.n_scores) / np.sum(w)
        logp = np.log(p)
        return logp - logp.mean()  # symmetric: the scores sum to 0

    @staticmethod
    def proba(S):
        return _softmax(S)

    def negative_gradient(self, y, S):
        onehot = np.zeros_like(S)
        onehot[np.arange(len(y)), y] = 1.0
        return onehot - _softmax(S)

    def __call__(self, y, S, w):
        top = S.max(axis=1)
        log_norm = top + np.log(np.exp(S - top[:, None]).sum(axis=1))
        return _mean(log_norm - S[np.arange(len(y)), y], w)

    def leaf_values(self, leaf, y, S, r, w, k):
        a = np.abs(r)
        K = self.n_scores
        found, step = _newton(leaf, r, a * (1 - a), w)
        return found, (K - 1) / K * step


REGRESSION_LOSSES = {"squared_error": SquaredError, "absolute_error": AbsoluteError,
                     "huber": HuberLoss}
