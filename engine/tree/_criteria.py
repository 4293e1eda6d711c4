"""Impurity functions on class-count arrays.

Every function takes ``counts`` of shape ``(..., n_classes)`` (weighted class counts
of one node, or of many nodes / candidate splits at once) and returns the impurity
along the last axis. An empty node has impurity 0.

Notes
-----
With class proportions :math:`\\pi_q = n_q / n`:

* Gini index (seed 003): :math:`G = \\sum_q \\pi_q (1 - \\pi_q) = 1 - \\sum_q \\pi_q^2`;
  for two classes :math:`2\\pi(1-\\pi)` (seed 004).
* Entropy (seed 002): :math:`H = -\\sum_q \\pi_q \\log_2 \\pi_q`, in bits.
* Misclassification error (seed 000): :math:`E = 1 - \\max_q \\pi_q`.

A split's quality is the parent's impurity minus the children's, each weighted by its
share of the parent's samples: :math:`\\Delta = I(t) - \\sum_k \\frac{n_k}{n} I(t_k)`.
"""
from __future__ import annotations

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
    """Entropy −Σ πq log πq (bits by default; ``base=np.e`` for nats, as seed 003).

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

    ``(Σwy² − (Σwy)²/Σw) / Σw``: the node's RSS per unit weight (seed 004).
    """
    w = np.asarray(w, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mse = np.where(w > 0, (wyy - wy * wy / np.where(w > 0, w, 1.0)) / np.where(w > 0, w, 1.0), 0.0)
    return np.maximum(mse, 0.0)


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
