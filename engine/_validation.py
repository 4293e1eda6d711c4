"""Turning user input (arrays or DataFrames, any labels) into what the algorithms use.

Every estimator calls :class:`FeatureEncoder` so that categorical columns, missing
values and column names are handled once, the same way, everywhere:

* A DataFrame column of dtype category, object, string or bool is **categorical**;
  every other column is **numeric**. A 2-D NumPy array of numbers is all numeric; an
  array of strings or objects is read as a DataFrame first.
* The encoded matrix is ``float64``: numeric columns keep their values (NaN for
  missing), categorical columns hold codes ``0 .. k-1`` into ``categories_[j]``,
  NaN for missing and :data:`UNSEEN` for a value not seen in training.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Code of a category seen at predict time but not in training.
UNSEEN = -1.0
#: Largest magnitude accepted where an algorithm squares or sums the values: its square,
#: 1e300, leaves float64 (max ≈ 1.8e308) room for sums over many rows and weights.
MAX_MAGNITUDE = 1e150


def is_categorical_dtype(series: pd.Series) -> bool:
    """True for columns Glassbox treats as categories (category, object, string, bool)."""
    return not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)


def as_frame(X) -> pd.DataFrame:
    """X as a DataFrame; arrays get columns ``x0, x1, ...``.

    Refused with a message: sparse matrices (every algorithm here reads dense columns),
    arrays that are not 2-D, and complex numbers.
    """
    if isinstance(X, pd.Series):
        X = X.to_frame()
    frame = X if isinstance(X, pd.DataFrame) else _frame_of_array(X)
    complex_columns = [c for c in frame.columns if pd.api.types.is_complex_dtype(frame[c])]
    if complex_columns:
        raise ValueError(f"Complex data not supported: column {complex_columns[0]!r} holds "
                         "complex numbers.")
    return frame


def _frame_of_array(X) -> pd.DataFrame:
    if _is_sparse(X):
        raise TypeError("Sparse input is not supported: pass a dense array (X.toarray()).")
    array = np.asarray(X)
    if array.ndim == 1:
        raise ValueError(
            "X must be 2-D (rows × features); got a 1-D array. Reshape your data: "
            "X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a single row."
        )
    if array.ndim != 2:
        raise ValueError(f"X must be 2-D (rows × features); got {array.ndim} dimensions.")
    frame = pd.DataFrame(array, columns=positional_names(array.shape[1]))
    return frame.infer_objects() if array.dtype == object else frame


def _is_sparse(X) -> bool:
    """A SciPy sparse matrix or array, recognised without importing SciPy."""
    return type(X).__module__.startswith("scipy.sparse")


def positional_names(n_features: int) -> list[str]:
    """The column names ``x0 .. x{n-1}`` an array's columns get."""
    return [f"x{j}" for j in range(n_features)]


def feature_count_error(n_features: int, expected: list[str]) -> ValueError:
    """The error for an array with another number of columns than the model was fitted on."""
    return ValueError(f"X has {n_features} features, but the model was fitted on "
                      f"{len(expected)}: {expected}.")


def check_has_features(frame: pd.DataFrame) -> None:
    """Refuse a table without columns: a model needs at least one feature."""
    if frame.shape[1] == 0:
        raise ValueError(f"X has 0 feature(s) (shape={frame.shape}) while a minimum of 1 is "
                         "required: give it at least one feature column.")


def _sorted_categories(values: pd.Series) -> np.ndarray:
    if isinstance(values.dtype, pd.CategoricalDtype):
        return np.asarray(values.cat.categories, dtype=object)
    try:
        unique = pd.unique(values.dropna())
    except TypeError as exc:  # dicts, lists: values that cannot be told apart as categories
        kind = next((type(v).__name__ for v in values if not isinstance(v, Hashable)), "object")
        raise TypeError(f"Column {values.name!r} holds values that are neither numbers nor "
                        f"categories (a {kind}).") from exc
    try:
        order = np.argsort(unique, kind="stable")
    except TypeError:  # mixed types: order by their text
        order = np.argsort(np.array([str(u) for u in unique]), kind="stable")
    return np.asarray(unique, dtype=object)[order]


@dataclass
class FeatureEncoder:
    """Learns column kinds and category lists from training data; encodes any X alike.

    Attributes
    ----------
    feature_names_in_ : ndarray of str, shape (n_features,)
    is_categorical_ : ndarray of bool, shape (n_features,)
    categories_ : list of ndarray or None
        For categorical column ``j`` the values whose codes are ``0 .. k-1``; None for
        numeric columns.

    Examples
    --------
    >>> X = pd.DataFrame({"size": [1.0, 2.5, None], "colour": ["red", "blue", "red"]})
    >>> enc = FeatureEncoder().fit(X)
    >>> enc.transform(X).tolist()
    [[1.0, 1.0], [2.5, 0.0], [nan, 1.0]]
    >>> enc.transform(pd.DataFrame({"size": [3.0], "colour": ["green"]})).tolist()
    [[3.0, -1.0]]
    """

    feature_names_in_: np.ndarray = field(default=None)
    is_categorical_: np.ndarray = field(default=None)
    categories_: list = field(default=None)

    @property
    def n_features_in_(self) -> int:
        return len(self.feature_names_in_)

    @property
    def n_categories_(self) -> np.ndarray:
        """Number of categories per column (0 for numeric columns)."""
        return np.array([0 if c is None else len(c) for c in self.categories_], dtype=np.intp)

    def encodes_as(self, other: FeatureEncoder) -> bool:
        """Whether ``other`` encodes every X as this one does: the same columns, kinds
        and categories. An ensemble's members share its encoder, so one encoding of X
        serves them all; a model sent back from a worker process holds copies of it
        (pickling an array of members does not keep them one object), which still do."""
        if other is self:
            return True
        return (len(self.categories_) == len(other.categories_)
                and np.array_equal(self.feature_names_in_, other.feature_names_in_)
                and np.array_equal(self.is_categorical_, other.is_categorical_)
                and all((a is None) == (b is None) and (a is None or np.array_equal(a, b))
                        for a, b in zip(self.categories_, other.categories_, strict=True)))

    def fit(self, X) -> FeatureEncoder:
        if isinstance(X, np.ndarray) and X.dtype.kind in "fiu" and X.ndim == 2 and X.shape[1]:
            # a numeric array: every column numeric, no column to look at one by one
            self.feature_names_in_ = np.array(positional_names(X.shape[1]), dtype=object)
            self.is_categorical_ = np.zeros(X.shape[1], dtype=bool)
            self.categories_ = [None] * X.shape[1]
            return self
        frame = as_frame(X)
        check_has_features(frame)
        self.feature_names_in_ = np.array([str(c) for c in frame.columns], dtype=object)
        self.is_categorical_ = np.array([is_categorical_dtype(frame[c]) for c in frame.columns])
        self.categories_ = [
            _sorted_categories(frame.iloc[:, j]) if cat else None
            for j, cat in enumerate(self.is_categorical_)
        ]
        return self

    def transform(self, X, order: str = "K", copy: bool = True) -> np.ndarray:
        """A new float array of X's codes and numbers; ``order`` as numpy's, for a plain
        numeric array (any other X comes back in C order). ``copy=False`` lets a plain
        float64 array in that order come back itself, for callers that only read it."""
        if self._is_plain_numeric(X):  # fast path: nothing to encode, only to check
            out = np.array(X, dtype=np.float64, order=order, copy=copy or None)
            if np.isinf(out).any():
                self._numbers(pd.Series(out[:, np.isinf(out).any(axis=0)][:, 0]),
                              self.feature_names_in_[np.isinf(out).any(axis=0)][0])
            return out
        frame = self._aligned(as_frame(X))
        out = np.empty(frame.shape, dtype=np.float64)
        for j in range(frame.shape[1]):
            column = frame.iloc[:, j]
            if self.is_categorical_[j]:
                out[:, j] = self._codes(column, self.categories_[j])
            else:
                out[:, j] = self._numbers(column, self.feature_names_in_[j])
        return out

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)

    def _is_plain_numeric(self, X) -> bool:
        return (
            isinstance(X, np.ndarray) and X.dtype.kind in "fiu" and X.ndim == 2
            and X.shape[1] == len(self.feature_names_in_) and not self.is_categorical_.any()
        )

    def _aligned(self, frame: pd.DataFrame) -> pd.DataFrame:
        names = [str(c) for c in frame.columns]
        expected = list(self.feature_names_in_)
        if names == expected:
            return frame
        missing = [c for c in expected if c not in names]
        if missing or len(names) != len(expected):
            positional = names == positional_names(len(names))
            if positional and len(names) == len(expected):
                return frame  # a plain array for a model fitted on a frame: by position
            if positional:
                raise feature_count_error(len(names), expected)
            raise ValueError(
                f"X has columns {names}, but the model was fitted on {expected}"
                + (f" (missing: {missing})." if missing else ".")
            )
        frame = frame.copy()
        frame.columns = names
        return frame[expected]

    @staticmethod
    def _codes(column: pd.Series, categories: np.ndarray) -> np.ndarray:
        index = pd.Index(categories)
        codes = index.get_indexer(column.astype(object).where(column.notna(), None))
        codes = codes.astype(np.float64)
        codes[codes < 0] = UNSEEN
        codes[column.isna().to_numpy()] = np.nan
        return codes

    @staticmethod
    def _numbers(column: pd.Series, name: str) -> np.ndarray:
        try:
            values = pd.to_numeric(column, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Column {name!r} was numeric in training but holds text now.") from exc
        if np.isinf(values).any():
            raise ValueError(
                f"Column {name!r} contains infinite values; replace them or drop the rows."
            )
        return values


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Weights as a float array of length ``n_samples`` (ones when None), validated."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {weight.shape}; expected ({n_samples},)."
        )
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    if weight.sum() <= 0:
        raise ValueError("sample_weight sums to zero: at least one row needs weight.")
    return weight


def encode_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """Class labels → (``classes_`` sorted, integer codes into them).

    Any hashable labels work (strings, numbers, booleans); missing and infinite labels are
    refused, and so is a y that is not one column.
    """
    check_target_shape(y)
    values = y.to_numpy() if isinstance(y, pd.Series) and isinstance(y.dtype, np.dtype) else y
    if isinstance(values, np.ndarray) and values.ndim == 1 and _plain_numbers(values):
        # the same classes and codes as below, without a Python object per label
        if values.dtype.kind == "f" and np.isinf(values).any():
            raise ValueError("The target contains infinite values; drop those rows first.")
        classes, codes = np.unique(values, return_inverse=True)
        return classes.astype(np.float64 if values.dtype.kind == "f" else np.int64), codes.astype(np.intp)
    series = pd.Series(np.asarray(y, dtype=object) if not isinstance(y, pd.Series) else y)
    if series.isna().any():
        raise ValueError(
            f"The target has {int(series.isna().sum())} missing values; drop those rows first."
        )
    classes = _sorted_categories(series)
    codes = pd.Index(classes).get_indexer(series.astype(object))
    if len(classes) and all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in classes):
        classes = classes.astype(np.int64)
    elif len(classes) and all(isinstance(c, (float, np.floating)) for c in classes):
        classes = classes.astype(np.float64)
    return classes, codes.astype(np.intp)


def _plain_numbers(values: np.ndarray) -> bool:
    """Integers that fit int64, or floats without NaN."""
    kind = values.dtype.kind
    if kind == "f":
        return not np.isnan(values).any()
    return kind == "i" or (kind == "u" and values.dtype.itemsize < 8)


def check_magnitude(values: np.ndarray, what: str) -> None:
    """Refuse ``values`` beyond :data:`MAX_MAGNITUDE`, saying how to rescale them.

    Squared deviations of such values overflow to inf. The values are refused rather
    than rescaled silently, so a model never shows numbers the user did not give it.

    Parameters
    ----------
    values : ndarray of float (NaN is ignored)
    what : str
        What holds the values, to start the message: "The target", "Column 'x'".

    Examples
    --------
    >>> check_magnitude(np.array([1.0, -2e149, np.nan]), "The target")
    >>> check_magnitude(np.array([3e300]), "The target")
    Traceback (most recent call last):
    ...
    ValueError: The target has values as large as 3e+300 in magnitude, too large to compute with (the limit is 1e+150: squares of larger values overflow). Rescale it (e.g. divide by 1e+295) and try again.
    """
    largest = float(np.fmax.reduce(np.abs(values), axis=None, initial=0.0))
    if largest > MAX_MAGNITUDE:
        divisor = 10.0 ** (np.floor(np.log10(largest)) - 5)  # leaves values near 1e5
        raise ValueError(
            f"{what} has values as large as {largest:.3g} in magnitude, too large to compute "
            f"with (the limit is {MAX_MAGNITUDE:.0e}: squares of larger values overflow). "
            f"Rescale it (e.g. divide by {divisor:.0e}) and try again."
        )


def check_feature_magnitude(X: np.ndarray, feature_names) -> None:
    """:func:`check_magnitude` of every column of the encoded ``X``, named in the message.

    One pass over ``X`` finds each column's largest magnitude (predictions call this too);
    only an offending column is looked at again, for the message.
    """
    largest = np.fmax.reduce(np.abs(X), axis=0, initial=0.0) if X.size else np.zeros(0)
    for j in np.flatnonzero(largest > MAX_MAGNITUDE)[:1]:
        check_magnitude(X[:, j], f"Column {list(feature_names)[j]!r}")


def check_target_shape(y) -> None:
    """Refuse a missing y, and a y that is not one value per row."""
    if y is None:
        raise ValueError("This model requires y to be passed, but the target y is None.")
    shape = y.shape if hasattr(y, "shape") else np.asarray(y, dtype=object).shape
    if len(shape) != 1:
        raise ValueError(f"y must be one-dimensional (one label per row); got shape {shape}.")


def check_regression_target(y) -> np.ndarray:
    """A numeric, finite target for regression, small enough to square."""
    check_target_shape(y)
    dtype = getattr(y, "dtype", None)
    if (dtype if dtype is not None else np.asarray(y).dtype).kind == "c":
        raise ValueError("Complex data not supported: the target holds complex numbers.")
    try:
        values = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("A regression target must be numeric.") from exc
    if not np.isfinite(values).all():
        raise ValueError("The target contains missing or infinite values; drop those rows first.")
    check_magnitude(values, "The target")
    return values


def check_consistent_length(X, y) -> None:
    """A y of one label per row of X, and at least one row."""
    check_target_shape(y)
    n_x, n_y = _n_rows(X), _n_rows(y)
    if n_x != n_y:
        raise ValueError(f"X has {n_x} rows but y has {n_y}.")
    if n_x == 0:
        raise ValueError("No rows to fit on.")


def _n_rows(values) -> int:
    """Rows of an array-like: its first axis (``len`` of a sparse matrix is not its rows)."""
    if hasattr(values, "shape") and len(values.shape):
        return values.shape[0]
    return len(values) if hasattr(values, "__len__") else np.asarray(values).shape[0]
