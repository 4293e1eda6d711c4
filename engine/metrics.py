"""Scores for classifiers and regressors, with optional sample weights."""
from __future__ import annotations

import numpy as np
import pandas as pd


def _weights(sample_weight, n: int) -> np.ndarray:
    return np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)


def accuracy_score(y_true, y_pred, *, sample_weight=None) -> float:
    """Fraction of rows whose prediction equals the label.

    >>> accuracy_score(["a", "b", "b"], ["a", "b", "a"])
    0.6666666666666666
    """
    y_true, y_pred = np.asarray(y_true, dtype=object), np.asarray(y_pred, dtype=object)
    w = _weights(sample_weight, len(y_true))
    return float(np.sum(w * (y_true == y_pred)) / np.sum(w))


def confusion_matrix(y_true, y_pred, *, labels=None) -> np.ndarray:
    """Counts C[i, j] of rows with true label ``labels[i]`` predicted as ``labels[j]``.

    >>> confusion_matrix(["a", "b", "b"], ["a", "b", "a"]).tolist()
    [[1, 0], [1, 1]]
    """
    y_true, y_pred = np.asarray(y_true, dtype=object), np.asarray(y_pred, dtype=object)
    if labels is None:
        labels = pd.unique(np.concatenate([y_true, y_pred]))
        try:
            labels = np.sort(labels)
        except TypeError:
            labels = np.array(sorted(labels, key=str), dtype=object)
    index = pd.Index(np.asarray(labels, dtype=object))
    t, p = index.get_indexer(y_true), index.get_indexer(y_pred)
    keep = (t >= 0) & (p >= 0)
    k = len(index)
    return np.bincount(t[keep] * k + p[keep], minlength=k * k).reshape(k, k)


def log_loss(y_true, proba, *, labels=None, sample_weight=None, eps: float = 1e-15) -> float:
    """Mean negative log-likelihood of the true class, −(1/n) Σ log p̂(yᵢ | xᵢ).

    ``proba`` columns follow ``labels`` (default: the sorted unique labels).
    """
    proba = np.clip(np.asarray(proba, dtype=np.float64), eps, 1.0)
    if proba.ndim == 1:
        proba = np.column_stack([1 - proba, proba])
    y_true = np.asarray(y_true, dtype=object)
    labels = np.unique(y_true) if labels is None else np.asarray(labels, dtype=object)
    idx = pd.Index(labels).get_indexer(y_true)
    if (idx < 0).any():
        raise ValueError("y_true holds a label that is not among the probability columns.")
    w = _weights(sample_weight, len(y_true))
    return float(-np.sum(w * np.log(proba[np.arange(len(idx)), idx])) / np.sum(w))


def mean_squared_error(y_true, y_pred, *, sample_weight=None) -> float:
    """(1/n) Σ (yᵢ − ŷᵢ)²."""
    y_true, y_pred = np.asarray(y_true, dtype=np.float64), np.asarray(y_pred, dtype=np.float64)
    w = _weights(sample_weight, len(y_true))
    return float(np.sum(w * (y_true - y_pred) ** 2) / np.sum(w))


def r2_score(y_true, y_pred, *, sample_weight=None) -> float:
    """Coefficient of determination 1 − RSS / TSS (1.0 for a perfect fit)."""
    y_true, y_pred = np.asarray(y_true, dtype=np.float64), np.asarray(y_pred, dtype=np.float64)
    w = _weights(sample_weight, len(y_true))
    mean = np.sum(w * y_true) / np.sum(w)
    tss = np.sum(w * (y_true - mean) ** 2)
    rss = np.sum(w * (y_true - y_pred) ** 2)
    if tss == 0:
        return 1.0 if rss == 0 else 0.0
    return float(1 - rss / tss)


def _binary_target(y_true, pos_label) -> np.ndarray:
    """Boolean "is positive" per row; ``pos_label=None`` takes the larger of two labels."""
    y_true = np.asarray(y_true)
    if pos_label is None:
        labels = np.unique(y_true)
        if len(labels) > 2:
            raise ValueError(f"ROC needs two classes; y_true holds {len(labels)}.")
        pos_label = labels[-1]
    return y_true == pos_label


def roc_curve(y_true, score, pos_label=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Receiver operating characteristic: the (FPR, TPR) of every threshold on ``score``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels of a two-class problem.
    score : array-like of shape (n_samples,)
        Higher means "more likely positive", e.g. P(positive | x).
    pos_label : label, optional
        The positive class; by default the larger of the two labels.

    Returns
    -------
    fpr, tpr : ndarray of shape (n_thresholds,)
        False and true positive rates, from (0, 0) to (1, 1).
    thresholds : ndarray of shape (n_thresholds,)
        Row ``i`` predicts positive when ``score >= thresholds[i]``; the first is +inf
        (nothing predicted positive), then every distinct score in decreasing order.

    Notes
    -----
    With the rows sorted by decreasing score, the counts at threshold t are
    TP(t) = #{yᵢ = +, sᵢ ≥ t} and FP(t) = #{yᵢ = −, sᵢ ≥ t};
    TPR = TP / P (sensitivity, recall) and FPR = FP / N (1 − specificity).
    Rows with equal scores cross the threshold together, so ties make one diagonal step.

    Examples
    --------
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    >>> thresholds.tolist()
    [inf, 0.8, 0.4, 0.35, 0.1]
    """
    positive = _binary_target(y_true, pos_label)
    score = np.asarray(score, dtype=np.float64)
    n_positive = np.count_nonzero(positive)
    if n_positive == 0 or n_positive == len(positive):
        raise ValueError("ROC needs both classes among the rows: one of them is absent.")
    order = np.argsort(-score, kind="stable")
    sorted_score, hits = score[order], positive[order]
    # Last position of each run of equal scores: the threshold admits the whole run.
    ends = np.r_[np.flatnonzero(np.diff(sorted_score)), len(score) - 1]
    tp = np.r_[0, np.cumsum(hits)[ends]]
    fp = np.r_[0, ends + 1 - tp[1:]]
    return fp / fp[-1], tp / tp[-1], np.r_[np.inf, sorted_score[ends]]


def roc_auc_score(y_true, score, *, pos_label=None) -> float:
    """Area under the ROC curve, by the trapezoidal rule.

    Notes
    -----
    AUC = P(s₊ > s₋) + ½ P(s₊ = s₋) for a random positive and a random negative row
    (the Mann–Whitney statistic): 0.5 is guessing, 1 a perfect ranking.

    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    fpr, tpr, _ = roc_curve(y_true, score, pos_label)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
