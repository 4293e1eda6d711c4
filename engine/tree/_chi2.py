"""The χ² test of a split (Quinlan 1986), with the χ² survival function written in NumPy.

scipy is not a runtime dependency, so the p-value comes from the regularised upper
incomplete gamma function, ``P(χ²_df ≥ x) = Q(df/2, x/2)``, computed by its power
series or its continued fraction (Numerical Recipes §6.2 describes both).

References
----------
Press, Teukolsky, Vetterling & Flannery, *Numerical Recipes*, 3rd ed., §6.2.
Russell & Norvig (2010), *Artificial Intelligence: A Modern Approach*, 3rd ed., §18.3:
testing the deviation from a zero-gain split.
"""

from __future__ import annotations

import math

import numpy as np

_EPS = np.finfo(np.float64).eps
_TINY = 1e-300
# Both expansions need O(√a) terms; this covers df in the millions.
_MAX_ITER = 20_000


def _log_gamma(a: np.ndarray) -> np.ndarray:
    return np.frompyfunc(math.lgamma, 1, 1)(a).astype(np.float64)


def _lower_gamma_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Regularised lower incomplete gamma P(a, x) by its power series (good for x < a + 1).

    P(a, x) = e^{-x} x^a / Γ(a) · Σ_{n≥0} x^n / (a (a+1) ... (a+n)).
    """
    term = 1.0 / a
    total = term.copy()
    live = np.arange(len(a))  # entries whose sum has not yet converged
    for n in range(1, _MAX_ITER):
        term[live] *= x[live] / (a[live] + n)
        total[live] += term[live]
        live = live[np.abs(term[live]) > np.abs(total[live]) * _EPS]
        if len(live) == 0:
            break
    return total * np.exp(-x + a * np.log(x) - _log_gamma(a))


def _upper_gamma_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Regularised upper incomplete gamma Q(a, x) by its continued fraction (x ≥ a + 1).

    Q(a, x) = e^{-x} x^a / Γ(a) · 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...))),
    evaluated with the modified Lentz method (denominators kept away from zero).
    """
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / _TINY)
    d = 1.0 / b
    h = d.copy()
    live = np.arange(len(a))  # entries whose fraction has not yet converged
    for i in range(1, _MAX_ITER):
        an = -i * (i - a[live])
        b[live] += 2.0
        d_live = an * d[live] + b[live]
        d_live = 1.0 / np.where(np.abs(d_live) < _TINY, _TINY, d_live)
        c_live = b[live] + an / c[live]
        c_live = np.where(np.abs(c_live) < _TINY, _TINY, c_live)
        delta = d_live * c_live
        d[live], c[live] = d_live, c_live
        h[live] *= delta
        live = live[np.abs(delta - 1.0) > _EPS]
        if len(live) == 0:
            break
    return h * np.exp(-x + a * np.log(x) - _log_gamma(a))


def chi2_sf(x, df) -> np.ndarray:
    """Survival function P(χ²_df ≥ x) of the chi-squared distribution.

    Parameters
    ----------
    x : array-like of float
        Statistic values (any shape; broadcast with ``df``).
    df : array-like of float
        Degrees of freedom, > 0 (``df = 0`` gives 1 for ``x = 0`` by convention).

    Returns
    -------
    ndarray of float
        ``Q(df/2, x/2)``, the regularised upper incomplete gamma function.

    Notes
    -----
    Power series of the lower function for ``x/2 < df/2 + 1`` (then ``Q = 1 - P``),
    continued fraction of the upper function otherwise, so small tail
    probabilities keep their relative precision.

    Examples
    --------
    >>> round(float(chi2_sf(3.841458820694124, 1)), 6)
    0.05
    """
    x, df = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(df, dtype=np.float64))
    a, z = df.ravel() / 2.0, x.ravel() / 2.0
    out = np.ones_like(z)
    live = (z > 0) & (a > 0)
    series = live & (z < a + 1.0)
    fraction = live & ~series
    # Terms and tail probabilities below the smallest double are zero, as they should be.
    with np.errstate(under="ignore"):
        if series.any():
            out[series] = 1.0 - _lower_gamma_series(a[series], z[series])
        if fraction.any():
            out[fraction] = _upper_gamma_fraction(a[fraction], z[fraction])
    return np.clip(out, 0.0, 1.0).reshape(x.shape)


def chi2_tables(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """χ² statistic, degrees of freedom and p-value of many contingency tables at once.

    Parameters
    ----------
    tables : ndarray of shape (..., n_children, n_classes)
        Weighted class counts of each child of each split.

    Returns
    -------
    statistic, dof, p_value : ndarrays of shape (...)

    Notes
    -----
    Children and classes with no weight carry no information (their expected counts
    are zero), so they are left out of both the sum and the degrees of freedom. A
    table with a single non-empty child or class has ``dof = 0``, statistic 0 and
    p-value 1: such a split cannot differ from a zero-gain one.
    """
    tables = np.asarray(tables, dtype=np.float64)
    child_totals = tables.sum(axis=-1, keepdims=True)
    class_totals = tables.sum(axis=-2, keepdims=True)
    n = child_totals.sum(axis=-2, keepdims=True)
    expected = child_totals * class_totals / np.where(n > 0, n, 1.0)
    safe = np.where(expected > 0, expected, 1.0)
    terms = np.where(expected > 0, (tables - expected) ** 2 / safe, 0.0)
    statistic = terms.sum(axis=(-2, -1))
    n_children = (child_totals[..., 0] > 0).sum(axis=-1)
    n_classes = (class_totals[..., 0, :] > 0).sum(axis=-1)
    dof = np.maximum(n_children - 1, 0) * np.maximum(n_classes - 1, 0)
    p_value = np.where(dof > 0, chi2_sf(statistic, np.maximum(dof, 1)), 1.0)
    statistic = np.where(dof > 0, statistic, 0.0)
    return statistic, dof, p_value


def chi2_statistic(counts_by_child) -> tuple[float, int, float]:
    """χ² test of one split against a zero-gain split.

    Parameters
    ----------
    counts_by_child : array-like of shape (n_children, n_classes)
        Class counts of each child.

    Returns
    -------
    statistic : float
        Σ_k Σ_q (n_kq − n̂_kq)² / n̂_kq with n̂_kq = n_q n_k / n.
    dof : int
        (n_children − 1)(n_classes − 1), over non-empty children and classes.
    p_value : float
        P(χ²_dof ≥ statistic).

    Examples
    --------
    A weak split, a 4/8 parent into 2/2 and 2/6:

    >>> stat, dof, p = chi2_statistic([[2, 2], [2, 6]])
    >>> round(stat, 4), dof, round(p, 4)
    (0.75, 1, 0.3865)
    """
    counts = np.asarray(counts_by_child, dtype=np.float64)
    if counts.ndim != 2:
        raise ValueError(
            f"counts_by_child must be 2-D (children × classes); got shape {counts.shape}."
        )
    statistic, dof, p_value = chi2_tables(counts)
    return float(statistic), int(dof), float(p_value)
