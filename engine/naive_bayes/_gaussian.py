"""Gaussian Naive Bayes: each numeric feature is normal within each class."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import FeatureEncoder, check_feature_magnitude
from ._base import BaseNB, feature_index, per_class_table, safe_log

LOG_2PI = np.log(2.0 * np.pi)


def encode_numeric(model, X, fit: bool) -> np.ndarray:
    """X as a float matrix (NaN = missing), refusing categorical columns by name."""
    X = _bools_as_numbers(X)
    if fit:
        model._encoder = FeatureEncoder().fit(X)
        model.feature_names_in_ = model._encoder.feature_names_in_
        model.n_features_in_ = model._encoder.n_features_in_
        if model._encoder.is_categorical_.any():
            name = model.feature_names_in_[np.argmax(model._encoder.is_categorical_)]
            raise ValueError(
                f"{type(model).__name__} needs numeric columns, but {name!r} is categorical; "
                "use CategoricalNB or MixedNB for categories."
            )
    return model._encoder.transform(X)


def _bools_as_numbers(X):
    """Boolean columns as 0 and 1: to a model of numbers, True is a count of one (a bit set)."""
    if isinstance(X, np.ndarray) and X.dtype == bool:
        return X.astype(np.float64)
    if isinstance(X, pd.DataFrame):
        bools = [c for c in X.columns if pd.api.types.is_bool_dtype(X[c])]
        return X.astype(dict.fromkeys(bools, np.float64)) if bools else X
    return X


class GaussianNB(BaseNB):
    """Naive Bayes with a normal class-conditional density per numeric feature.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), optional
        Fixed class priors ``P(c_q)`` in ``classes_`` order; by default the (weighted)
        class frequencies ``N_q / N``.
    var_smoothing : float, default 1e-9
        ``ε = var_smoothing × max_j Var(x_j)`` is added to every variance, so a feature
        that is constant within a class does not give a zero variance.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    class_count_ : ndarray, shape (n_classes,)
        ``N_q``: (weighted) number of training rows per class.
    class_prior_ : ndarray, shape (n_classes,)
    class_log_prior_ : ndarray, shape (n_classes,)
    theta_ : ndarray, shape (n_classes, n_features)
        ``μ_{j,q}``, the class means.
    var_ : ndarray, shape (n_classes, n_features)
        ``σ²_{j,q} + ε``, the class variances (divided by ``N_q``, not ``N_q − 1``).
    epsilon_ : float
    observed_count_ : ndarray, shape (n_classes, n_features)
        (Weighted) number of non-missing values of each feature in each class.
    feature_names_in_ : ndarray of str, shape (n_features,)
    n_features_in_ : int

    Notes
    -----
    Bayes' rule with the naive assumption (features independent given the class):

    ``P(c_q | x) ∝ P(c_q) ∏_j P(x_j | c_q)``, with
    ``P(x_j | c_q) = exp(−(x_j − μ_{j,q})² / (2σ²_{j,q})) / √(2π σ²_{j,q})``,
    ``μ_{j,q} = (1/N_q) Σ_{y_i = c_q} x_ij`` and
    ``σ²_{j,q} = (1/N_q) Σ_{y_i = c_q} (x_ij − μ_{j,q})²``.

    Everything is summed in log space. A missing value (NaN) is skipped: it is left
    out of ``μ`` and ``σ²`` in training and contributes ``log 1 = 0`` at prediction.
    A class with no observed value of a feature uses the mean and variance of all
    classes for it.

    References
    ----------
    Murphy, *Machine Learning: a Probabilistic Perspective*, §3.5.

    Examples
    --------
    >>> X = np.array([[1.0], [1.2], [0.8], [3.0], [3.2], [2.8]])
    >>> model = GaussianNB().fit(X, np.array(["a", "a", "a", "b", "b", "b"]))
    >>> model.theta_.round(2).tolist()
    [[1.0], [3.0]]
    >>> model.predict(np.array([[1.1], [2.9]])).tolist()
    ['a', 'b']
    >>> model.predict_proba(np.array([[2.0]])).round(3).tolist()
    [[0.5, 0.5]]
    """

    _input_tags = {"allow_nan": True}  # numbers only; NaN is a missing value

    def __init__(self, *, priors=None, var_smoothing: float = 1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _encode(self, X, fit: bool = False) -> np.ndarray:
        X = encode_numeric(self, X, fit)
        # σ² and the log-density both square deviations from μ: at fit and at predict
        check_feature_magnitude(X, self.feature_names_in_)
        return X

    def _fit_encoded(self, X: np.ndarray, Y: np.ndarray) -> None:
        if not np.isfinite(self.var_smoothing) or self.var_smoothing < 0:
            raise ValueError(f"var_smoothing must be >= 0; got {self.var_smoothing!r}.")
        self.epsilon_ = float(self.var_smoothing * np.max(_nanvar(X), initial=0.0))
        self.theta_, var, self.observed_count_ = class_moments(X, Y)
        self.var_ = var + self.epsilon_
        if not (self.var_ > 0).all():
            raise ValueError(
                "A feature has zero variance in a class and var_smoothing is 0; use "
                "var_smoothing > 0." if self.var_smoothing == 0 else
                "Every feature is constant (as with one sample), so var_smoothing × the "
                "largest variance is 0 too: a normal density needs some spread in the data."
            )
        self._set_priors()

    def _set_priors(self) -> None:
        if self.priors is None:
            return
        priors = np.asarray(self.priors, dtype=np.float64)
        if priors.shape != self.classes_.shape or (priors < 0).any():
            raise ValueError(f"priors must be {len(self.classes_)} non-negative numbers.")
        if not np.isclose(priors.sum(), 1.0):
            raise ValueError(f"priors must sum to 1; they sum to {priors.sum()}.")
        self.class_prior_ = priors
        self.class_log_prior_ = safe_log(priors)

    def _joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        missing = np.isnan(X)
        has_missing = missing.any()
        X_filled = np.where(missing, 0.0, X) if has_missing else X
        jll = np.empty((X.shape[0], len(self.classes_)))
        for q in range(len(self.classes_)):
            diff = X_filled - self.theta_[q]
            diff *= diff
            if has_missing:  # a skipped feature adds nothing, not even its normaliser
                diff[missing] = 0.0
            log_norm = LOG_2PI + np.log(self.var_[q])
            observed_norm = (~missing) @ log_norm if has_missing else np.sum(log_norm)
            jll[:, q] = -0.5 * (observed_norm + diff @ (1.0 / self.var_[q]))
        return jll + self.class_log_prior_

    def _contributions(self, X: np.ndarray) -> np.ndarray:
        diff = X[:, None, :] - self.theta_[None]
        out = -0.5 * (LOG_2PI + np.log(self.var_)[None] + diff**2 / self.var_[None])
        return np.where(np.isnan(out), 0.0, out)

    def gaussian_params(self, feature: int | str) -> pd.DataFrame:
        """Class-conditional mean and variance of one feature.

        Returns
        -------
        DataFrame indexed by class with columns ``mean``, ``var`` (σ² + ε), ``std``
        and ``count`` (observed values in that class).
        """
        self._check_is_fitted()
        j = feature_index(self.feature_names_in_, feature)
        return pd.DataFrame(
            {"mean": self.theta_[:, j], "var": self.var_[:, j],
             "std": np.sqrt(self.var_[:, j]), "count": self.observed_count_[:, j]},
            index=pd.Index(self.classes_, name="class"),
        )

    def gaussian_table(self) -> pd.DataFrame:
        """Means and variances of every feature: rows = features, columns (statistic, class)."""
        self._check_is_fitted()
        return per_class_table(self.classes_, {"mean": self.theta_, "var": self.var_},
                               index=pd.Index(self.feature_names_in_, name="feature"))


def _nanvar(X: np.ndarray) -> np.ndarray:
    """Per-column variance of the observed values (0 for a column with none)."""
    observed = ~np.isnan(X)
    if observed.all():
        return np.var(X, axis=0)
    n = observed.sum(axis=0)
    filled = np.where(observed, X, 0.0)
    mean = filled.sum(axis=0) / np.maximum(n, 1)
    return (np.where(observed, X - mean, 0.0) ** 2).sum(axis=0) / np.maximum(n, 1)


def class_moments(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted per-class means, variances (1/N_q) and counts of observed values.

    ``Y`` is the weighted one-hot class matrix (n_samples, n_classes).
    """
    n_classes, n_features = Y.shape[1], X.shape[1]
    theta, var = np.zeros((n_classes, n_features)), np.zeros((n_classes, n_features))
    observed = ~np.isnan(X)
    counts = Y.T @ observed
    for q in range(n_classes):
        rows = Y[:, q] > 0
        Xq, wq = X[rows], Y[rows, q]
        if observed[rows].all():  # the common case: plain weighted moments
            theta[q] = wq @ Xq / wq.sum() if len(wq) else 0.0
            var[q] = wq @ (Xq - theta[q]) ** 2 / wq.sum() if len(wq) else 0.0
            continue
        filled = np.where(observed[rows], Xq, 0.0)
        n = np.where(counts[q] > 0, counts[q], 1.0)
        theta[q] = wq @ filled / n
        var[q] = wq @ np.where(observed[rows], Xq - theta[q], 0.0) ** 2 / n
    return _pool_empty(X, theta, var, counts)


def _pool_empty(X, theta, var, counts):
    """A class with no observed value of a feature borrows the all-class estimate."""
    empty = counts == 0
    if empty.any():
        observed = ~np.isnan(X)
        n = np.maximum(observed.sum(axis=0), 1)
        overall = np.where(observed, X, 0.0).sum(axis=0) / n
        theta = np.where(empty, overall, theta)
        var = np.where(empty, _nanvar(X), var)
    return theta, var, counts
