"""What every Naive Bayes variant shares: log-space arithmetic and the posterior.

Each variant supplies one ``_joint_log_likelihood`` (log prior plus the sum of the
per-feature log-likelihoods) and one ``_contributions`` (the same terms, one per
feature); this base class turns them into posteriors with :func:`logsumexp`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_consistent_length, check_sample_weight, encode_labels
from ..base import BaseEstimator, ClassifierMixin


def safe_log(x: np.ndarray) -> np.ndarray:
    """Natural log with ``log 0 = -inf`` and no warning (a zero count is a real answer)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, -np.inf)
    np.log(x, out=out, where=x > 0)
    return out


def logsumexp(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """``log Σ exp(a)`` along ``axis`` without overflow or underflow.

    The largest term is factored out, ``log Σ exp(a) = m + log Σ exp(a − m)``; a slice
    that is all ``-inf`` gives ``-inf`` (not NaN), because ``m`` is then taken as 0.

    >>> float(logsumexp(np.array([-1000.0, -1000.0])))
    -999.3068528194401
    >>> float(logsumexp(np.array([-np.inf, -np.inf])))
    -inf
    """
    a = np.asarray(a, dtype=np.float64)
    peak = np.max(a, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    total = np.sum(np.exp(a - peak), axis=axis, keepdims=True)
    return np.squeeze(safe_log(total) + peak, axis=axis)


def log_smoothed(count, total, alpha: float, k) -> np.ndarray:
    """``log θ = log((count + α) / (total + α k))``, the MAP estimate under a Dirichlet(α+1) prior.

    With ``α = 0`` it is the maximum-likelihood ratio and a zero count gives ``-inf``.
    Where the denominator is 0 (no observation at all and ``α = 0``) the estimate is
    undefined; the uniform ``1/k`` is returned there.
    """
    count = np.asarray(count, dtype=np.float64)
    den = np.broadcast_to(np.asarray(total, dtype=np.float64) + alpha * np.asarray(k), count.shape)
    num = count + alpha
    k_full = np.broadcast_to(np.asarray(k, dtype=np.float64), count.shape)
    defined = den > 0
    # A feature never observed in training (k = 0) says nothing: θ = 1 rather than 1/0.
    num = np.where(defined, num, 1.0 / np.maximum(k_full, 1.0))
    return safe_log(num) - np.log(np.where(defined, den, 1.0))


def check_alpha(alpha: float) -> float:
    if not np.isscalar(alpha) or not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a number >= 0 (0 = no smoothing); got {alpha!r}.")
    return float(alpha)


def feature_index(names: np.ndarray, feature: int | str) -> int:
    """Position of ``feature`` given by name or by index."""
    if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
        if not -len(names) <= feature < len(names):
            raise ValueError(f"Feature index {feature} is out of range (0..{len(names) - 1}).")
        return int(feature) % len(names)
    matches = np.flatnonzero(names == str(feature))
    if matches.size == 0:
        raise ValueError(f"No feature named {feature!r}; features are {list(names)}.")
    return int(matches[0])


class BaseNB(ClassifierMixin, BaseEstimator):
    """Posterior from a joint log-likelihood: ``log P(c_q | x) = jll_q − logsumexp_q jll_q``.

    Subclasses implement ``_encode(X)`` (validated float matrix), ``_fit_encoded(X, Y)``,
    ``_joint_log_likelihood(X)`` of shape (n_samples, n_classes) and
    ``_contributions(X)`` of shape (n_samples, n_classes, n_features).

    Notes
    -----
    When every class has joint log-likelihood ``-inf`` for a row (possible with
    ``alpha=0``: each class has a zero-count value somewhere in the row) Bayes' rule is
    0/0. Such a row gets the prior ``P(c_q)`` as its posterior: no class is supported by
    the evidence more than another, so the model falls back to what it knew before.
    """

    def fit(self, X, y, sample_weight=None) -> BaseNB:
        """Estimate the priors and the per-feature likelihoods from (X, y).

        Parameters
        ----------
        X : array-like or DataFrame, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
        sample_weight : array-like, shape (n_samples,), optional
            A row of weight ``w`` counts as ``w`` rows in every count, mean and variance.
        """
        check_consistent_length(X, y)
        X_encoded = self._encode(X, fit=True)
        Y = self._fit_targets(y, sample_weight, len(X_encoded))
        self._fit_encoded(X_encoded, Y)
        return self

    def _fit_targets(self, y, sample_weight, n_samples: int) -> np.ndarray:
        """Labels → ``classes_``, ``class_count_`` and the weighted one-hot matrix Y (n, K)."""
        self.classes_, codes = encode_labels(y)
        self.n_classes_ = len(self.classes_)
        weight = check_sample_weight(sample_weight, n_samples)
        Y = np.zeros((n_samples, len(self.classes_)))
        Y[np.arange(n_samples), codes] = weight
        self.class_count_ = np.bincount(codes, weights=weight, minlength=len(self.classes_))
        self.class_prior_ = self.class_count_ / self.class_count_.sum()
        self.class_log_prior_ = safe_log(self.class_prior_)
        return Y

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior ``log P(c_q | x)``, shape (n_samples, n_classes), columns in ``classes_`` order."""
        self._check_is_fitted()
        return self._log_posterior(self._joint_log_likelihood(self._encode(X)))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``P(c_q | x)``, shape (n_samples, n_classes); rows sum to 1."""
        proba = np.exp(self.predict_log_proba(X))
        # Renormalised: when log-likelihoods are huge (|x| ~ 1e300), m + log Σ exp(a − m)
        # rounds, and exp of the difference alone left rows summing to 1 ± 1e-6.
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """The class of largest posterior (the MAP decision rule), shape (n_samples,)."""
        self._check_is_fitted()
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]

    def log_likelihood_contributions(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The evidence ledger: ``log P(x_j | c_q)`` for every row, class and feature.

        Returns
        -------
        contributions : ndarray, shape (n_samples, n_classes, n_features)
            0 where the feature is missing in that row (it is skipped).
        log_prior : ndarray, shape (n_classes,)
            ``log P(c_q)``. ``contributions.sum(-1) + log_prior`` is the joint
            log-likelihood; subtracting its :func:`logsumexp` over classes gives
            ``predict_log_proba(X)`` (except for rows where every class is ``-inf``).
        """
        self._check_is_fitted()
        return self._contributions(self._encode(X)), self.class_log_prior_.copy()

    def evidence_ledger(self, X, row: int = 0) -> pd.DataFrame:
        """Bayes' rule for one row of X, term by term, one column per class.

        Rows, indexed by (part, term): ``("prior", "log P(c_q)")``; one
        ``("feature", name)`` per feature with ``log P(x_j | c_q)``; then
        ``("total", ...)`` with the log joint ``log P(c_q) + Σ_j log P(x_j | c_q)``, the
        log evidence ``log P(x) = logsumexp_q`` of the joint (the same in every
        column), the log posterior and the posterior ``P(c_q | x)``.
        """
        contributions, log_prior = self.log_likelihood_contributions(X)
        terms = contributions[row]
        joint = terms.sum(axis=1) + log_prior
        log_posterior = self._log_posterior(joint[None])[0]
        evidence = np.full_like(joint, logsumexp(joint))
        values = np.vstack([log_prior, terms.T, joint, evidence, log_posterior,
                            np.exp(log_posterior)])
        index = ([("prior", "log P(c_q)")] + [("feature", n) for n in self.feature_names_in_]
                 + [("total", t) for t in ("log joint", "log evidence", "log posterior",
                                            "posterior")])
        return pd.DataFrame(values, index=pd.MultiIndex.from_tuples(index, names=["part", "term"]),
                            columns=pd.Index(self.classes_, name="class"))

    def _log_posterior(self, jll: np.ndarray) -> np.ndarray:
        log_evidence = logsumexp(jll, axis=1)
        impossible = np.isneginf(log_evidence)
        if impossible.any():  # 0/0 in Bayes' rule: fall back to the prior (see Notes)
            jll = jll.copy()
            jll[impossible] = self.class_log_prior_
            log_evidence[impossible] = logsumexp(self.class_log_prior_)
        return jll - log_evidence[:, None]


def per_class_table(classes: np.ndarray, columns: dict[str, np.ndarray], index) -> pd.DataFrame:
    """A DataFrame with a (statistic, class) column MultiIndex, e.g. ``table["count"]["Yes"]``."""
    blocks = {
        (stat, cls): values[q] for stat, values in columns.items() for q, cls in enumerate(classes)
    }
    frame = pd.DataFrame(blocks, index=index)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["statistic", "class"])
    return frame
