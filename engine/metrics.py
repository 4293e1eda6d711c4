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
