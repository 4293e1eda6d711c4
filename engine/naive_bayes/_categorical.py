"""Categorical Naive Bayes: a table of θ_ijk = P(X_i = x_ij | Y = y_k) per feature."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import UNSEEN, FeatureEncoder, as_frame, is_categorical_dtype
from ._base import BaseNB, check_alpha, feature_index, log_smoothed, per_class_table

#: Largest integer code read as "categories 0 .. max"; above it (an identifier, a year in
#: seconds) the categories are the distinct values seen, so memory follows the data.
MAX_INTEGER_CODE = 65_535


def as_categories(X) -> pd.DataFrame:
    """Every column of X as a categorical column.

    Text, category and bool columns keep their values. A numeric column becomes a
    category per value; non-negative integers get the categories ``0 .. max`` (as
    scikit-learn's CategoricalNB reads integer codes), so values in between that never
    occur still count in the smoothing denominator ``α k``. Integers above
    ``MAX_INTEGER_CODE`` (and ±inf) are plain values: one category per distinct value.
    """
    frame = as_frame(X)
    columns = {}
    for name in frame.columns:
        column = frame[name]
        if is_categorical_dtype(column):
            columns[name] = column
            continue
        values = column.dropna().to_numpy()
        integral = (values.size and np.all(values == np.round(values)) and values.min() >= 0
                    and values.max() <= MAX_INTEGER_CODE)
        levels = np.arange(int(values.max()) + 1) if integral else np.unique(values)
        levels = levels.astype(np.int64) if integral else levels
        columns[name] = pd.Categorical(column.to_numpy(), categories=levels)
    return pd.DataFrame(columns, index=frame.index)


class CategoricalNB(BaseNB):
    """Naive Bayes over categorical features, by counting (the textbook tables).

    Parameters
    ----------
    alpha : float, default 1.0
        Laplace (1) or Lidstone smoothing; 0 gives the maximum-likelihood fractions.

    Attributes
    ----------
    classes_, class_count_, class_prior_, class_log_prior_ : ndarray, shape (n_classes,)
        ``π_k`` and its counts.
    categories_ : list of ndarray
        ``categories_[i]`` holds the values of feature i whose codes are ``0 .. k_i − 1``.
    n_categories_ : ndarray of int, shape (n_features,)
    category_count_ : list of ndarray, each shape (n_classes, k_i)
        ``#D{X_i = x_ij ∧ Y = y_k}`` (weighted), missing values left out.
    feature_log_prob_ : list of ndarray, each shape (n_classes, k_i)
        ``log θ_ijk``.
    unseen_log_prob_ : list of ndarray, each shape (n_classes,)
        ``log(α / (N_ik + α k_i))``: what a value not seen in training contributes.
    feature_names_in_ : ndarray of str, shape (n_features,)
    n_features_in_ : int

    Notes
    -----
    Bayes' rule and the naive assumption give
    ``Y_new = argmax_k π_k ∏_i θ_ijk``, computed as a sum of logs. The MAP estimate
    with a Dirichlet prior is ``θ_ijk = (#D{X_i = x_ij ∧ Y = y_k} + α) / (N_ik + α k_i)``
    where ``N_ik`` counts the rows of class k whose feature i is not missing and
    ``k_i`` is the number of categories; ``α = 0`` is the maximum-likelihood estimate (plain frequency tables).

    * A missing value is skipped (contributes ``log 1 = 0``).
    * A value never seen in training gets the zero-count estimate ``α / (N_ik + α k_i)``:
      with ``α = 0`` that is probability 0 for every class, and such a row falls back
      to the prior (see :class:`BaseNB`).
    * With ``α = 0`` a class where feature i was never observed gets ``1 / k_i``.

    References
    ----------
    Murphy, *Machine Learning: a Probabilistic Perspective*, §3.5 (Naive Bayes for
    discrete X_i, MLE and MAP estimates); Mitchell (1997), Table 3.2.

    Examples
    --------
    >>> X = pd.DataFrame({"Outlook": ["Sunny", "Sunny", "Rain", "Overcast"],
    ...                   "Wind": ["Weak", "Strong", "Weak", "Weak"]})
    >>> model = CategoricalNB(alpha=0).fit(X, ["No", "No", "Yes", "Yes"])
    >>> model.likelihood_table("Outlook")["probability"]
    class      No  Yes
    Overcast  0.0  0.5
    Rain      0.0  0.5
    Sunny     1.0  0.0
    >>> model.predict_proba(pd.DataFrame({"Outlook": ["Sunny"], "Wind": ["Weak"]})).tolist()
    [[1.0, 0.0]]
    """

    def __init__(self, *, alpha: float = 1.0):
        self.alpha = alpha

    def _encode(self, X, fit: bool = False) -> np.ndarray:
        if fit:
            integer = integer_encoder(X)
            self._integer_codes = integer is not None
            self._encoder = integer or FeatureEncoder().fit(as_categories(X))
            self.feature_names_in_ = self._encoder.feature_names_in_
            self.n_features_in_ = self._encoder.n_features_in_
            self.categories_ = list(self._encoder.categories_)
            self.n_categories_ = self._encoder.n_categories_
        if (self._integer_codes and _is_integer_matrix(X)
                and X.shape[1] == self.n_features_in_):
            # Fast path: the integers are the codes; out-of-range ones are unseen.
            unseen = (X < 0) | (X >= self.n_categories_)
            return np.where(unseen, UNSEEN, X).astype(np.float64)
        return self._encoder.transform(X)

    def _fit_encoded(self, X: np.ndarray, Y: np.ndarray) -> None:
        alpha = check_alpha(self.alpha)
        self.category_count_, self.feature_log_prob_, self.unseen_log_prob_ = [], [], []
        for i, k in enumerate(self.n_categories_):
            counts = category_counts(X[:, i], Y, k)
            total = counts.sum(axis=1, keepdims=True)
            self.category_count_.append(counts)
            self.feature_log_prob_.append(log_smoothed(counts, total, alpha, k))
            self.unseen_log_prob_.append(log_smoothed(np.zeros_like(total), total, alpha, k)[:, 0])

    def _joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        jll = np.zeros((X.shape[0], len(self.classes_)))
        for i in range(X.shape[1]):
            jll += self._feature_terms(X[:, i], i)
        return jll + self.class_log_prior_

    def _contributions(self, X: np.ndarray) -> np.ndarray:
        return np.stack([self._feature_terms(X[:, i], i) for i in range(X.shape[1])], axis=2)

    def _feature_terms(self, codes: np.ndarray, i: int) -> np.ndarray:
        """``log θ_ijk`` of each row's value of feature i, shape (n_samples, n_classes)."""
        # Code -1 (unseen) picks the last column, which holds the zero-count estimate.
        table = np.column_stack([self.feature_log_prob_[i], self.unseen_log_prob_[i]]).T
        missing = np.isnan(codes)
        terms = table[np.where(missing, 0, codes).astype(np.intp)]
        if missing.any():
            terms[missing] = 0.0
        return terms

    def likelihood_table(self, feature: int | str) -> pd.DataFrame:
        """Counts and smoothed probabilities of one feature, side by side.

        Returns
        -------
        DataFrame indexed by category, columns (statistic, class) with statistics
        ``count`` (``#D{X_i = x_ij ∧ Y = y_k}``) and ``probability`` (``θ_ijk``).
        """
        self._check_is_fitted()
        i = feature_index(self.feature_names_in_, feature)
        return per_class_table(
            self.classes_,
            {"count": self.category_count_[i], "probability": np.exp(self.feature_log_prob_[i])},
            index=pd.Index(self.categories_[i]),
        )


def _is_integer_matrix(X) -> bool:
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "iu"


def integer_encoder(X) -> FeatureEncoder | None:
    """For a non-negative integer array: an encoder whose categories are ``0 .. max``."""
    if not _is_integer_matrix(X) or X.size == 0 or X.min() < 0 or X.max() > MAX_INTEGER_CODE:
        return None
    return FeatureEncoder(
        feature_names_in_=np.array([f"x{j}" for j in range(X.shape[1])], dtype=object),
        is_categorical_=np.ones(X.shape[1], dtype=bool),
        categories_=[np.arange(m + 1, dtype=np.int64).astype(object) for m in X.max(axis=0)],
    )


def category_counts(codes: np.ndarray, Y: np.ndarray, k: int) -> np.ndarray:
    """(Weighted) counts of each category per class, shape (n_classes, k); NaN/-1 ignored."""
    valid = codes >= 0  # False for NaN too
    # bincount per class: memory n_classes × k, never n_samples × k (an ID-like column
    # with 100,000 distinct values must not allocate a 100,000² one-hot matrix).
    codes, Y = codes[valid].astype(np.intp), Y[valid]
    return np.array([np.bincount(codes, weights=Y[:, c], minlength=k) for c in range(Y.shape[1])],
                    dtype=np.float64).reshape(Y.shape[1], k)
