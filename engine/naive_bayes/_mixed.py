"""Mixed Naive Bayes: each column by its kind, all in one product of likelihoods."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import (
    as_frame,
    check_has_features,
    encode_labels,
    feature_count_error,
    is_categorical_dtype,
    positional_names,
)
from ..text import Vocabulary, is_text_column, tokenize
from ._base import BaseNB, feature_index
from ._categorical import CategoricalNB
from ._discrete import MultinomialNB, masked_dot
from ._gaussian import GaussianNB

KINDS = ("categorical", "binned", "gaussian", "text")


class MixedNB(BaseNB):
    """Naive Bayes over a DataFrame whose columns have different kinds.

    Parameters
    ----------
    alpha : float, default 1.0
        Smoothing of the categorical, binned and word probabilities (0 = none).
    var_smoothing : float, default 1e-9
        Added variance of the Gaussian columns, as in :class:`GaussianNB`.
    numeric : {"gaussian", "binned"}, default "gaussian"
        Numeric columns as class-conditional normals, or cut into ``n_bins``
        quantile bins (fitted on the training rows) and counted like categories.
    n_bins : int, default 5
    text_columns : list of str, optional
        Columns of free text. By default detected with :func:`engine.text.is_text_column`.

    Attributes
    ----------
    classes_, class_count_, class_prior_, class_log_prior_ : ndarray, shape (n_classes,)
    feature_kinds_ : dict
        Column name → ``"categorical"``, ``"binned"``, ``"gaussian"`` or ``"text"``.
    categorical_ : CategoricalNB or None
        Fitted on the categorical and binned columns.
    gaussian_ : GaussianNB or None
        Fitted on the Gaussian columns.
    text_ : dict
        Text column → (Vocabulary, MultinomialNB over its word counts).
    bin_edges_ : dict
        Binned column → inner bin edges (bin b is ``edges[b-1] < x <= edges[b]``).
    feature_names_in_ : ndarray of str, shape (n_features,)
    n_features_in_ : int

    Notes
    -----
    The naive assumption lets every column bring its own likelihood:
    ``P(c_q | x) ∝ P(c_q) ∏_j P(x_j | c_q)`` with ``P(x_j | c_q)`` a smoothed count
    fraction ``(count + α) / (N_q + α k)`` for a category (or a bin), a normal density
    ``N(x_j; μ_{j,q}, σ²_{j,q})`` for a number, and ``∏_w θ_{wq}^{n_w}`` over the words
    of a text. A text column is one feature of the evidence ledger: its contribution
    is the sum over its words (see :meth:`word_contributions`). Missing values are
    skipped as in the single-kind models; so are words not seen in training.

    References
    ----------
    Murphy, *Machine Learning: a Probabilistic Perspective*, §3.5.

    Examples
    --------
    >>> X = pd.DataFrame({"colour": ["red", "red", "blue", "blue"],
    ...                   "size": [1.0, 1.2, 3.0, 3.2],
    ...                   "review": ["tasty and sweet", "sweet and ripe",
    ...                              "sour and hard", "hard and bitter"]})
    >>> model = MixedNB().fit(X, ["apple", "apple", "lemon", "lemon"])
    >>> model.feature_kinds_
    {'colour': 'categorical', 'size': 'gaussian', 'review': 'text'}
    >>> model.predict(X).tolist()
    ['apple', 'apple', 'lemon', 'lemon']
    """

    def __init__(self, *, alpha: float = 1.0, var_smoothing: float = 1e-9,
                 numeric: str = "gaussian", n_bins: int = 5, text_columns=None):
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.numeric = numeric
        self.n_bins = n_bins
        self.text_columns = text_columns

    def fit(self, X, y, sample_weight=None) -> MixedNB:
        # Weight-0 rows leave no trace in Y, so the labels for the per-kind models come from here.
        self._codes = encode_labels(y)[1]
        try:
            return super().fit(X, y, sample_weight)
        finally:
            del self._codes

    def _encode(self, X, fit: bool = False) -> pd.DataFrame:
        frame = as_frame(X)
        frame = frame.rename(columns=str)
        if fit:
            check_has_features(frame)
            self.feature_names_in_ = np.array(list(frame.columns), dtype=object)
            self.n_features_in_ = len(self.feature_names_in_)
            self.feature_kinds_ = self._column_kinds(frame)
            self._fit_bins(frame)
        return self._binned(self._aligned(frame))

    def _column_kinds(self, frame: pd.DataFrame) -> dict:
        if self.numeric not in ("gaussian", "binned"):
            raise ValueError(f"numeric must be 'gaussian' or 'binned'; got {self.numeric!r}.")
        text = set(map(str, self.text_columns)) if self.text_columns is not None else None
        if text is not None and not text <= set(frame.columns):
            raise ValueError(f"text_columns {sorted(text - set(frame.columns))} are not in X.")
        kinds = {}
        for name in frame.columns:
            column = frame[name]
            if (name in text) if text is not None else is_text_column(column):
                kinds[name] = "text"
            elif is_categorical_dtype(column):
                kinds[name] = "categorical"
            else:
                kinds[name] = self.numeric
        return kinds

    def _aligned(self, frame: pd.DataFrame) -> pd.DataFrame:
        expected = list(self.feature_names_in_)
        if list(frame.columns) == expected:
            return frame
        if list(frame.columns) == positional_names(frame.shape[1]):  # a plain array: by position
            if frame.shape[1] != len(expected):
                raise feature_count_error(frame.shape[1], expected)
            return frame.set_axis(expected, axis=1)
        missing = [c for c in expected if c not in frame.columns]
        if missing:
            raise ValueError(f"X lacks the columns {missing} the model was fitted on.")
        return frame[expected]

    def _fit_bins(self, frame: pd.DataFrame) -> None:
        self.bin_edges_ = {}
        for name, kind in self.feature_kinds_.items():
            if kind == "binned":
                values = pd.to_numeric(frame[name]).to_numpy(dtype=np.float64, na_value=np.nan)
                self.bin_edges_[name] = quantile_edges(values, self.n_bins)

    def _binned(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not self.bin_edges_:
            return frame
        frame = frame.copy()
        for name, edges in self.bin_edges_.items():
            values = pd.to_numeric(frame[name]).to_numpy(dtype=np.float64, na_value=np.nan)
            frame[name] = bin_labels_of(values, edges)
        return frame

    def _columns(self, *kinds: str) -> list[str]:
        return [name for name, kind in self.feature_kinds_.items() if kind in kinds]

    def _fit_encoded(self, frame: pd.DataFrame, Y: np.ndarray) -> None:
        y, weight = self.classes_[self._codes], Y.sum(axis=1)
        counted, normal = self._columns("categorical", "binned"), self._columns("gaussian")
        self.categorical_ = (CategoricalNB(alpha=self.alpha).fit(frame[counted], y, weight)
                             if counted else None)
        self.gaussian_ = (GaussianNB(var_smoothing=self.var_smoothing).fit(frame[normal], y, weight)
                          if normal else None)
        self.text_ = {}
        for name in self._columns("text"):
            vocabulary = Vocabulary().fit(frame[name])
            counts = vocabulary.transform(frame[name])
            self.text_[name] = (vocabulary, MultinomialNB(alpha=self.alpha).fit(counts, y, weight))

    def _contributions(self, frame: pd.DataFrame) -> np.ndarray:
        out = np.zeros((len(frame), len(self.classes_), self.n_features_in_))
        position = {name: j for j, name in enumerate(self.feature_names_in_)}
        for model, names in ((self.categorical_, self._columns("categorical", "binned")),
                             (self.gaussian_, self._columns("gaussian"))):
            if model is not None:
                out[:, :, [position[n] for n in names]] = model._contributions(
                    model._encode(frame[names]))
        for name, (vocabulary, model) in self.text_.items():
            counts = vocabulary.transform(frame[name]).astype(np.float64)
            out[:, :, position[name]] = masked_dot(counts, model.feature_log_prob_)
        return out

    def _joint_log_likelihood(self, frame: pd.DataFrame) -> np.ndarray:
        return self._contributions(frame).sum(axis=2) + self.class_log_prior_

    def _submodel(self, column: int | str) -> tuple[str, str]:
        self._check_is_fitted()
        name = self.feature_names_in_[feature_index(self.feature_names_in_, column)]
        return name, self.feature_kinds_[name]

    def likelihood_table(self, column: int | str) -> pd.DataFrame:
        """Counts and smoothed probabilities of a categorical or binned column.

        Same layout as :meth:`CategoricalNB.likelihood_table`; bins are labelled by
        their intervals.
        """
        name, kind = self._submodel(column)
        if kind not in ("categorical", "binned"):
            raise ValueError(f"Column {name!r} is {kind}, not categorical or binned.")
        return self.categorical_.likelihood_table(name)

    def gaussian_params(self, column: int | str) -> pd.DataFrame:
        """Class-conditional mean and variance of a Gaussian column (see GaussianNB)."""
        name, kind = self._submodel(column)
        if kind != "gaussian":
            raise ValueError(f"Column {name!r} is {kind}, not gaussian.")
        return self.gaussian_.gaussian_params(name)

    def word_contributions(self, text: str, column: str | None = None) -> pd.DataFrame:
        """What each word of ``text`` adds to ``log P(text | c_q)``.

        Returns
        -------
        DataFrame with one row per word occurrence (in order), columns ``classes_``:
        ``log θ_{wq}`` for a word seen in training, 0 for a word that is not (it is
        skipped). The column sums equal the text column's entry in
        :meth:`log_likelihood_contributions`.
        """
        self._check_is_fitted()
        if not self.text_:
            raise ValueError("This model has no text column.")
        name = next(iter(self.text_)) if column is None else self._submodel(column)[0]
        if name not in self.text_:
            raise ValueError(f"Column {name!r} is not a text column.")
        vocabulary, model = self.text_[name]
        words = tokenize(text)
        index = pd.Index(vocabulary.words_).get_indexer(words)
        table = np.column_stack([model.feature_log_prob_, np.zeros(len(self.classes_))])
        return pd.DataFrame(table[:, index].T, index=pd.Index(words, name="word"),
                            columns=pd.Index(self.classes_, name="class"))


def quantile_edges(values: np.ndarray, n_bins: int) -> np.ndarray:
    """Inner edges of ``n_bins`` equal-frequency bins of the observed values (ties merged)."""
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer; got {n_bins!r}.")
    observed = values[~np.isnan(values)]
    if observed.size == 0:
        return np.array([])
    return np.unique(np.quantile(observed, np.linspace(0, 1, n_bins + 1)[1:-1]))


def bin_names(edges: np.ndarray) -> list[str]:
    """Interval labels ``≤ a``, ``(a, b]``, …, ``> z`` with enough digits to tell edges apart."""
    for digits in range(4, 18):
        text = [f"{e:.{digits}g}" for e in edges]
        if len(set(text)) == len(text):
            break
    if not text:
        return ["all"]
    inner = [f"({a}, {b}]" for a, b in zip(text[:-1], text[1:], strict=True)]
    return [f"≤ {text[0]}"] + inner + [f"> {text[-1]}"]


def bin_labels_of(values: np.ndarray, edges: np.ndarray) -> pd.Categorical:
    """Each value's bin as a categorical of interval labels (NaN stays missing)."""
    names = bin_names(edges)
    codes = np.searchsorted(edges, values, side="left")
    codes = np.where(np.isnan(values), -1, codes)
    return pd.Categorical.from_codes(codes, categories=names)
