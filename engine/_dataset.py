"""The modelling view of a table: features, target, task and one train/test split."""
from __future__ import annotations

import copy
import hashlib
import json

import numpy as np
import pandas as pd

from engine._csv import DataError
from engine._schema import default_features, infer_schema, whole_number_classes
from engine.base import check_random_state

TASKS = ("classification", "regression")
FEATURE_KINDS = ("numeric", "categorical", "text")
#: A classification target with more classes than this is probably a number to regress.
MAX_CLASSES = 100


def train_test_split(X, y, *, test_size: float = 0.25, stratify=None, random_state=None):
    """Split rows at random into a training part and a test part.

    Parameters
    ----------
    X : DataFrame or array of shape (n_samples, ...)
    y : Series or array of shape (n_samples,)
    test_size : float in (0, 1)
        Share of rows in the test part; the count is rounded up.
    stratify : array of shape (n_samples,), optional
        Labels whose proportions both parts keep: each class sends the same share of
        its rows to the test part (largest-remainder rounding).
    random_state : int, Generator or None

    Returns
    -------
    X_train, X_test, y_train, y_test
        Same types as the inputs; DataFrames and Series keep their index. Rows keep
        their original order within each part.

    Examples
    --------
    >>> X_train, X_test, y_train, y_test = train_test_split(
    ...     np.arange(8).reshape(4, 2), np.array([0, 0, 1, 1]), test_size=0.5,
    ...     stratify=np.array([0, 0, 1, 1]), random_state=0)
    >>> sorted(y_test.tolist()), X_train.shape
    ([0, 1], (2, 2))
    """
    n_samples = len(y)
    if len(X) != n_samples:
        raise DataError(f"X has {len(X)} rows but y has {n_samples}; they must match.")
    if not 0 < test_size < 1:
        raise DataError(f"The test share must be between 0 and 1 (exclusive), got {test_size}.")
    n_test = int(np.ceil(round(test_size * n_samples, 9)))  # 0.7 * 10 is 7.000000000000001
    if n_test < 1 or n_test >= n_samples:
        raise DataError(
            f"A test share of {test_size} of {n_samples} rows leaves no rows for "
            "training or testing. Use more rows or another test share."
        )
    rng = check_random_state(random_state)
    if stratify is None:
        test = rng.permutation(n_samples)[:n_test]
    else:
        test = _stratified_test_rows(np.asarray(stratify), n_test, rng)
    is_test = np.zeros(n_samples, dtype=bool)
    is_test[test] = True
    return _take(X, ~is_test), _take(X, is_test), _take(y, ~is_test), _take(y, is_test)


def _stratified_test_rows(labels: np.ndarray, n_test: int, rng) -> np.ndarray:
    """Test rows with each class's share: n_c * n_test / n, rounded by largest remainder."""
    codes, classes = pd.factorize(labels, use_na_sentinel=False)
    counts = np.bincount(codes)
    if counts.min() < 2:
        rare = classes[counts.argmin()]
        raise DataError(
            f"Class {rare!r} has only one row, so it cannot be in both parts. "
            "Split without stratification."
        )
    quota = np.clip(_quota(counts, n_test), 0, counts - 1)  # every class keeps a training row
    return _draw(codes, quota, rng)


def _quota(counts: np.ndarray, n: int) -> np.ndarray:
    """Rows per class for a sample of ``n``: n_c * n / N, rounded by largest remainder."""
    exact = counts * n / counts.sum()
    quota = np.floor(exact).astype(int)
    extra = n - quota.sum()
    quota[np.argsort(-(exact - quota), kind="stable")[:extra]] += 1
    return quota


def _draw(codes: np.ndarray, quota: np.ndarray, rng) -> np.ndarray:
    rows = [rng.permutation(np.flatnonzero(codes == k))[:q] for k, q in enumerate(quota)]
    return np.concatenate(rows)


def stratified_sample(n_rows: int, n: int, labels=None, random_state=0) -> np.ndarray:
    """Sorted positions of ``n`` of ``n_rows`` rows (all of them if there are no more),
    each class of ``labels`` (length ``n_rows``) by its share, rounded by largest
    remainder; without ``labels`` a plain random sample. The same ``random_state``
    draws the same rows.

    >>> labels = np.array(["a"] * 90 + ["b"] * 10)
    >>> rows = stratified_sample(100, 20, labels)
    >>> np.unique(labels[rows], return_counts=True)[1].tolist()
    [18, 2]
    >>> stratified_sample(3, 20).tolist()
    [0, 1, 2]
    """
    if n_rows <= n:
        return np.arange(n_rows)
    rng = check_random_state(random_state)
    if labels is None:
        return np.sort(rng.permutation(n_rows)[:n])
    # a Series is factorized as it is (an object copy of its text costs several times more)
    labels = labels if isinstance(labels, pd.Series) else np.asarray(labels, dtype=object)
    codes, _ = pd.factorize(labels, use_na_sentinel=False)
    return np.sort(_draw(codes, _quota(np.bincount(codes), n), rng))


def _take(data, mask: np.ndarray):
    if isinstance(data, (pd.DataFrame, pd.Series)):
        return data.loc[mask] if data.index.is_unique else data.iloc[np.flatnonzero(mask)]
    return np.asarray(data)[mask]


class Dataset:
    """Features, target, task and a reproducible train/test split of one table.

    Parameters
    ----------
    frame : DataFrame of shape (n_rows, n_columns)
    target : str
        The column to predict.
    features : list of str, optional
        Columns to learn from; by default the columns ``infer_schema`` includes,
        minus the target.
    kinds : dict of str -> {"numeric", "categorical", "text"}, optional
        Overrides of the inferred kind of a feature.
    task : {"classification", "regression"}, optional
        Inferred when None: a non-numeric or bool target, or a numeric one with at
        most 20 distinct integer values, is classification; else regression.
    test_size : float in (0, 1)
    stratify : bool
        Keep class shares in both parts; falls back to a plain random split (and
        ``stratified`` is False) when a class has a single row.
    random_state : int

    Attributes
    ----------
    X : DataFrame of shape (n_samples, n_features)
        Numeric features as float64, categorical ones as ``category``, text as ``str``.
    y : Series of shape (n_samples,)
    X_train, X_test, y_train, y_test : the split, indexes kept
    task : str
    class_names : list or None
        Sorted class labels; None for regression.
    feature_kinds : dict of str -> str
    stratified : bool
    n_dropped : int
        Rows dropped because their target is missing.
    content_hash : str
        SHA-256 (hex) of the table and every choice above; equal in every process.
    all_rows : bool
        True for the view :meth:`on_all_rows` returns.

    Examples
    --------
    >>> frame = pd.DataFrame({"Day": [f"D{i}" for i in range(1, 9)],
    ...                       "Wind": ["Weak", "Strong"] * 4,
    ...                       "Play": ["No", "No", "Yes", "Yes", "Yes", "No", "Yes", "Yes"]})
    >>> data = Dataset(frame, "Play")
    >>> data.features, data.task, data.class_names
    (['Wind'], 'classification', ['No', 'Yes'])
    >>> len(data.X_train), len(data.X_test), data.stratified
    (6, 2, True)
    """

    def __init__(self, frame: pd.DataFrame, target: str, *, features=None, kinds=None,
                 task: str | None = None, test_size: float = 0.25, stratify: bool = True,
                 random_state: int = 0):
        if not frame.columns.is_unique:
            twice = frame.columns[frame.columns.duplicated()].unique().tolist()
            raise DataError(f"Column names must be unique; repeated: {twice}. Rename them.")
        if target not in frame.columns:
            raise DataError(f"There is no column {target!r} to predict. Choose one of the columns.")
        self.frame, self.target = frame, target
        self.test_size, self.random_state = test_size, random_state
        schema = infer_schema(frame)
        self.features = _choose_features(schema, target, features)
        if not self.features:
            raise DataError(
                "No feature columns are left to learn from. Include at least one column "
                "besides the target (identifiers, codes, dates and constant columns start "
                "excluded: include one on the Data page)."
            )
        self.feature_kinds = _choose_kinds(schema, frame, self.features, kinds or {})
        keep = frame[target].notna().to_numpy()
        self.n_dropped = int((~keep).sum())
        if not keep.any():
            raise DataError(f"The target {target!r} is missing in every row. Choose another column.")
        self.task = _choose_task(frame.loc[keep, target], task)
        self.y = _target(frame.loc[keep, target], self.task)
        self.class_names = _sorted_labels(self.y) if self.task == "classification" else None
        self.X = pd.DataFrame(
            {c: _cast(frame.loc[keep, c], k) for c, k in self.feature_kinds.items()},
            index=self.y.index, columns=self.features,
        )
        self._split(stratify)
        self.content_hash = self._hash(stratify)
        self.all_rows = False

    def on_all_rows(self) -> Dataset:
        """This data with every row in both parts, for tables too small to hold rows out
        (a textbook's 14 days): a model fitted on it is scored on rows it has seen.

        The view shares the frames of ``self`` (nothing is copied) and has its own
        ``content_hash``, so a model cached for one is never served for the other.
        """
        view = copy.copy(self)
        view.X_train = view.X_test = self.X
        view.y_train = view.y_test = self.y
        view.all_rows = True
        view.content_hash = hashlib.sha256(f"{self.content_hash} all rows".encode()).hexdigest()
        return view

    def _split(self, stratify: bool) -> None:
        labels = None
        if stratify and self.task == "classification" and self.y.value_counts().min() >= 2:
            labels = self.y.to_numpy()
        self.stratified = labels is not None
        self.X_train, self.X_test, self.y_train, self.y_test = train_test_split(
            self.X, self.y, test_size=self.test_size, stratify=labels,
            random_state=self.random_state,
        )

    def _hash(self, stratify: bool) -> str:
        digest = hashlib.sha256()
        digest.update(pd.util.hash_pandas_object(self.frame, index=True).to_numpy().tobytes())
        choices = {
            "columns": [str(c) for c in self.frame.columns],
            "dtypes": [str(d) for d in self.frame.dtypes], "target": str(self.target),
            "features": [str(f) for f in self.features], "kinds": self.feature_kinds,
            "task": self.task, "test_size": self.test_size, "stratify": stratify,
            "random_state": self.random_state,
        }
        digest.update(json.dumps(choices, sort_keys=True, default=str).encode("utf-8"))
        return digest.hexdigest()

    def class_balance(self) -> pd.DataFrame:
        """Rows per class in the whole set and in each part.

        Returns
        -------
        balance : DataFrame with columns ``class``, ``split`` (all, train, test),
            ``count`` and ``share`` (of that split's rows), classes in sorted order.
        """
        if self.task != "classification":
            raise DataError("Class balance needs a classification target; this task is regression.")
        parts = []
        for split, y in (("all", self.y), ("train", self.y_train), ("test", self.y_test)):
            count = y.value_counts().reindex(self.class_names, fill_value=0)
            parts.append(pd.DataFrame({
                "class": self.class_names, "split": split,
                "count": count.to_numpy(dtype=np.int64),
                "share": count.to_numpy(dtype=float) / max(len(y), 1),
            }))
        return pd.concat(parts, ignore_index=True)

    def __repr__(self) -> str:
        return (f"Dataset(target={self.target!r}, task={self.task!r}, "
                f"n_samples={len(self.y)}, n_features={len(self.features)})")


def _choose_features(schema: pd.DataFrame, target: str, features) -> list[str]:
    if features is None:
        return default_features(schema, target)
    features = list(features)
    unknown = [f for f in features if f not in schema.index]
    if unknown:
        raise DataError(f"These feature columns do not exist: {', '.join(map(str, unknown))}.")
    if target in features:
        raise DataError(
            f"The target {target!r} is also chosen as a feature. A model must not see the "
            "answer it predicts: remove it from the features."
        )
    if len(set(features)) != len(features):
        raise DataError("A feature column is chosen twice. Choose each column once.")
    return features


def _choose_kinds(schema, frame, features, kinds) -> dict[str, str]:
    for column, kind in kinds.items():
        if kind not in FEATURE_KINDS:
            raise DataError(
                f"Column {column!r}: kind {kind!r} is not one of {', '.join(FEATURE_KINDS)}."
            )
    chosen = {}
    for column in features:
        inferred = schema.loc[column, "kind"]
        if inferred not in FEATURE_KINDS:  # an id/constant/empty column the user kept
            numeric = pd.api.types.is_numeric_dtype(frame[column])
            is_bool = pd.api.types.is_bool_dtype(frame[column])
            inferred = "numeric" if numeric and not is_bool else "categorical"
        chosen[column] = kinds.get(column, inferred)
    return chosen


def _cast(column: pd.Series, kind: str) -> pd.Series:
    """A feature column in the dtype its kind needs; NaN stays missing."""
    if kind == "numeric":
        return _to_numbers(column, f"Column {column.name!r}").astype("float64")
    if kind == "text":
        return column.astype("str").where(column.notna())
    return pd.Series(_as_labels(column), index=column.index, name=column.name).astype("category")


def _as_labels(column: pd.Series) -> pd.Series:
    """Values as category text: integer-valued numbers print without '.0'."""
    if pd.api.types.is_bool_dtype(column):
        return column.astype("str")
    if pd.api.types.is_numeric_dtype(column):
        values = column.to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        if np.all(finite == np.round(finite)):
            return column.astype("Int64").astype("str").where(column.notna())
    return column.astype("str").where(column.notna())


def _to_numbers(column: pd.Series, what: str) -> pd.Series:
    if pd.api.types.is_bool_dtype(column):
        return column.astype("float64")
    if pd.api.types.is_numeric_dtype(column):
        return column
    numbers = pd.to_numeric(column, errors="coerce")
    failed = numbers.isna() & column.notna()
    if failed.sum() > 0.5 * column.notna().sum():
        example = column[failed].iloc[0]
        raise DataError(
            f"{what} is mostly not numbers (for example {example!r}), so it cannot be "
            "numeric. Treat it as categorical instead."
        )
    return numbers


def _choose_task(target: pd.Series, task: str | None) -> str:
    if task is not None:
        if task not in TASKS:
            raise DataError(f"The task must be classification or regression, not {task!r}.")
        return task
    if pd.api.types.is_bool_dtype(target) or not pd.api.types.is_numeric_dtype(target):
        return "classification"
    return "classification" if whole_number_classes(target, target.nunique()) else "regression"


def _target(target: pd.Series, task: str) -> pd.Series:
    """The target as labels (classification) or float64 (regression), checked."""
    name = target.name
    if task == "regression":
        return _to_numbers(target, f"The target {name!r}").astype("float64").dropna()
    if pd.api.types.is_float_dtype(target):
        values = target.to_numpy()
        if np.all(values == np.round(values)):
            target = target.astype("int64")
    n_classes = target.nunique()
    if n_classes < 2:
        raise DataError(
            f"The target {name!r} has only one class ({target.iloc[0]!r}); a classifier "
            "needs at least two. Choose another target column."
        )
    if n_classes > MAX_CLASSES:
        raise DataError(
            f"The target {name!r} has {n_classes} different values — too many classes "
            f"(at most {MAX_CLASSES}). If it is a quantity, choose the regression task; "
            "otherwise choose another target column."
        )
    return target


def _sorted_labels(y: pd.Series) -> list:
    labels = y.unique().tolist()
    try:
        return sorted(labels)
    except TypeError:  # mixed types: order by their text
        return sorted(labels, key=str)
