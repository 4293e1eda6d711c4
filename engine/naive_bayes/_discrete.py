"""Naive Bayes for counts (multinomial) and for presence/absence (Bernoulli)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_feature_magnitude
from ._base import BaseNB, check_alpha, log_smoothed, per_class_table
from ._gaussian import encode_numeric


def masked_dot(X: np.ndarray, log_prob: np.ndarray) -> np.ndarray:
    """``X @ log_prob.T`` where ``0 × (−inf)`` counts as 0 (a zero count is no evidence).

    X (n, p) is non-negative without NaN; log_prob (K, p) may hold ``-inf``.
    """
    impossible = np.isneginf(log_prob)
    out = X @ np.where(impossible, 0.0, log_prob).T
    if impossible.any():
        out[(X > 0) @ impossible.T.astype(np.float64) > 0] = -np.inf
    return out


def masked_product(X: np.ndarray, log_prob: np.ndarray) -> np.ndarray:
    """Per-feature terms ``x_j log θ_{jq}`` of shape (n, K, p); 0 where ``x_j`` is 0 or NaN."""
    out = np.zeros((X.shape[0],) + log_prob.shape)
    np.multiply(X[:, None, :], log_prob[None], out=out, where=X[:, None, :] > 0)
    return out


class _CountTable:
    """``likelihood_table()`` for the count-based models: one row per feature."""

    def likelihood_table(self) -> pd.DataFrame:
        """Per feature and class: the (weighted) count and the smoothed ``θ_{jq}``.

        Returns
        -------
        DataFrame indexed by feature name, columns (statistic, class) with statistics
        ``count`` (``feature_count_``) and ``probability`` (``exp(feature_log_prob_)``).
        """
        self._check_is_fitted()
        return per_class_table(
            self.classes_,
            {"count": self.feature_count_, "probability": np.exp(self.feature_log_prob_)},
            index=pd.Index(self.feature_names_in_, name="feature"),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Counts and bits keep only part of a continuous feature's signal: scikit-learn's
        # accuracy bar for dense numeric data (0.83 on blobs) is not theirs to meet.
        tags.classifier_tags.poor_score = True
        return tags


class MultinomialNB(_CountTable, BaseNB):
    """Naive Bayes for counts, such as how often each word occurs in a document.

    Parameters
    ----------
    alpha : float, default 1.0
        Additive (Laplace/Lidstone) smoothing; 0 means none (maximum likelihood).

    Attributes
    ----------
    classes_, class_count_, class_prior_, class_log_prior_ : ndarray, shape (n_classes,)
    feature_count_ : ndarray, shape (n_classes, n_features)
        (Weighted) sum of each feature's counts over the rows of each class.
    feature_log_prob_ : ndarray, shape (n_classes, n_features)
        ``log θ_{jq}``, the smoothed probability of feature (word) j in class q.
    feature_names_in_ : ndarray of str, shape (n_features,)
    n_features_in_ : int

    Notes
    -----
    ``P(c_q | x) ∝ P(c_q) ∏_j θ_{jq}^{x_j}`` with the MAP estimate under a Dirichlet
    prior, ``θ_{jq} = (count_{jq} + α) / (Σ_j count_{jq} + α p)``. With ``α = 0`` a
    feature never seen in class q has ``θ = 0`` and a row that has it gets joint
    probability 0 (log ``-inf``) for q, without warnings. NaN counts are read as 0.

    References
    ----------
    Murphy, *Machine Learning: a Probabilistic Perspective*, §3.5 (MAP estimates with
    Dirichlet priors).

    Examples
    --------
    >>> X = np.array([[2, 0, 1], [3, 1, 0], [0, 2, 3], [1, 3, 2]])
    >>> model = MultinomialNB(alpha=1.0).fit(X, np.array([0, 0, 1, 1]))
    >>> np.exp(model.feature_log_prob_).round(3).tolist()
    [[0.6, 0.2, 0.2], [0.143, 0.429, 0.429]]
    >>> model.predict(np.array([[4, 0, 0]])).tolist()
    [0]
    """

    _input_tags = {"allow_nan": True, "positive_only": True}  # counts; NaN counts as 0

    def __init__(self, *, alpha: float = 1.0):
        self.alpha = alpha

    def _encode(self, X, fit: bool = False) -> np.ndarray:
        X = encode_numeric(self, X, fit)
        if (X < 0).any():
            name = self.feature_names_in_[np.argmax((X < 0).any(axis=0))]
            raise ValueError(f"Negative values in data: {type(self).__name__} needs "
                             f"non-negative counts in X, and column {name!r} has some.")
        if fit:  # the per-class sums of counts must stay finite
            check_feature_magnitude(X, self.feature_names_in_)
        return np.where(np.isnan(X), 0.0, X)

    def _fit_encoded(self, X: np.ndarray, Y: np.ndarray) -> None:
        alpha = check_alpha(self.alpha)
        self.feature_count_ = Y.T @ X
        total = self.feature_count_.sum(axis=1, keepdims=True)
        self.feature_log_prob_ = log_smoothed(self.feature_count_, total, alpha, X.shape[1])

    def _joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        return masked_dot(X, self.feature_log_prob_) + self.class_log_prior_

    def _contributions(self, X: np.ndarray) -> np.ndarray:
        return masked_product(X, self.feature_log_prob_)


class BernoulliNB(_CountTable, BaseNB):
    """Naive Bayes for binary features: is the word (or feature) present or not.

    Parameters
    ----------
    alpha : float, default 1.0
        Additive smoothing; 0 means none (maximum likelihood).
    binarize : float or None, default 0.0
        A value ``> binarize`` counts as present. None: X is already 0/1.

    Attributes
    ----------
    classes_, class_count_, class_prior_, class_log_prior_ : ndarray, shape (n_classes,)
    feature_count_ : ndarray, shape (n_classes, n_features)
        (Weighted) number of rows of class q where feature j is present.
    observed_count_ : ndarray, shape (n_classes, n_features)
        (Weighted) number of rows of class q where feature j is not missing.
    feature_log_prob_ : ndarray, shape (n_classes, n_features)
        ``log θ_{jq} = log P(x_j = 1 | c_q)``.
    neg_feature_log_prob_ : ndarray, shape (n_classes, n_features)
        ``log(1 − θ_{jq})``, computed from the counts (not as ``1 − exp``).
    feature_names_in_ : ndarray of str, shape (n_features,)
    n_features_in_ : int

    Notes
    -----
    ``P(c_q | x) ∝ P(c_q) ∏_j θ_{jq}^{x_j} (1 − θ_{jq})^{1 − x_j}``: unlike the
    multinomial model, an absent feature is evidence too. MAP estimate under a
    Beta(α+1, α+1) prior: ``θ_{jq} = (count_{jq} + α) / (N_{q} + 2α)``, where ``N_q``
    counts the rows of class q in which feature j is not missing. Missing values
    contribute 0.

    References
    ----------
    Murphy, *Machine Learning: a Probabilistic Perspective*, §3.5 (``X_i`` = whether
    word i appears; MAP estimates).

    Examples
    --------
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> model = BernoulliNB(alpha=1.0).fit(X, np.array(["spam", "spam", "ham", "ham"]))
    >>> np.exp(model.feature_log_prob_).round(2).tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    >>> model.predict(np.array([[1, 0]])).tolist()
    ['spam']
    """

    _input_tags = {"allow_nan": True}  # numbers only; NaN is a missing value

    def __init__(self, *, alpha: float = 1.0, binarize: float | None = 0.0):
        self.alpha = alpha
        self.binarize = binarize

    def _encode(self, X, fit: bool = False) -> np.ndarray:
        X = encode_numeric(self, X, fit)
        if self.binarize is None:
            if not np.isin(X[~np.isnan(X)], (0.0, 1.0)).all():
                raise ValueError("With binarize=None, X must hold only 0 and 1 (or NaN).")
            return X
        return np.where(np.isnan(X), np.nan, (X > self.binarize).astype(np.float64))

    def _fit_encoded(self, X: np.ndarray, Y: np.ndarray) -> None:
        alpha = check_alpha(self.alpha)
        present, absent = self._split(X)
        self.feature_count_ = Y.T @ present
        absent_count = Y.T @ absent
        self.observed_count_ = self.feature_count_ + absent_count
        self.feature_log_prob_ = log_smoothed(self.feature_count_, self.observed_count_, alpha, 2)
        self.neg_feature_log_prob_ = log_smoothed(absent_count, self.observed_count_, alpha, 2)

    @staticmethod
    def _split(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(present, observed-but-absent) indicator matrices; both 0 where X is NaN."""
        observed = ~np.isnan(X)
        present = np.where(observed, X, 0.0)
        return present, observed - present

    def _joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        present, absent = self._split(X)
        return (masked_dot(present, self.feature_log_prob_)
                + masked_dot(absent, self.neg_feature_log_prob_) + self.class_log_prior_)

    def _contributions(self, X: np.ndarray) -> np.ndarray:
        present, absent = self._split(X)
        return (masked_product(present, self.feature_log_prob_)
                + masked_product(absent, self.neg_feature_log_prob_))
