"""What each column of a table is: numeric, categorical, free text, identifier, constant or empty.

The kind decides what a model does with the column by default: identifiers, constants
and empty columns carry no information a model can generalise from, so they start
excluded (the Data page lets the user include them again).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.text import is_text_column

KINDS = ("numeric", "categorical", "text", "id", "constant", "empty")
EXCLUDED_KINDS = ("id", "constant", "empty")
#: A non-numeric column with this share of distinct values (and at least
#: NEAR_UNIQUE_MIN_ROWS rows) is an identifier even with a few repeats ("frog" twice in zoo).
NEAR_UNIQUE_SHARE = 0.95
NEAR_UNIQUE_MIN_ROWS = 50


def infer_schema(df: pd.DataFrame) -> pd.DataFrame:
    """Classify every column of ``df`` and say whether a model should use it by default.

    Parameters
    ----------
    df : DataFrame of shape (n_samples, n_columns)

    Returns
    -------
    schema : DataFrame indexed by column name, with columns ``kind`` (one of
        numeric, categorical, text, id, constant, empty), ``dtype``, ``n_distinct``
        (non-missing distinct values), ``n_missing``, ``include`` (False for id,
        constant and empty) and ``reason`` (a short explanation for the user).

    Notes
    -----
    The rules, first match wins:

    1. every value missing -> empty;
    2. one distinct value -> constant;
    3. numeric dtype: integers unique per row that run 1, 2, ..., n (or any
       consecutive run) -> id; otherwise numeric, however few its distinct values;
       a bool dtype is categorical;
    4. free text (most values have three or more words, ``engine.text.is_text_column``)
       -> text;
    5. unique per row (or nearly, in large tables) -> id (Day D1..D14 in PlayTennis,
       Example x1..x12 in the restaurant data);
    6. otherwise categorical.

    Examples
    --------
    >>> df = pd.DataFrame({"Day": ["D1", "D2", "D3"], "Wind": ["Weak", "Strong", "Weak"],
    ...                    "Temp": [21.5, 19.0, 23.0], "Site": ["A", "A", "A"]})
    >>> infer_schema(df)[["kind", "include"]]
                 kind  include
    Day            id    False
    Wind  categorical     True
    Temp      numeric     True
    Site     constant    False
    """
    rows = [_describe(df.iloc[:, i], len(df)) for i in range(df.shape[1])]
    schema = pd.DataFrame(
        rows, columns=["kind", "dtype", "n_distinct", "n_missing", "include", "reason"],
        index=pd.Index(df.columns),
    )
    return schema.astype({"n_distinct": "int64", "n_missing": "int64", "include": "bool"})


def _describe(column: pd.Series, n_rows: int) -> tuple:
    n_missing = int(column.isna().sum())
    n_distinct = int(column.nunique(dropna=True))
    kind, reason = _kind(column, n_rows, n_distinct, n_missing)
    return kind, str(column.dtype), n_distinct, n_missing, kind not in EXCLUDED_KINDS, reason


def _kind(column: pd.Series, n_rows: int, n_distinct: int, n_missing: int) -> tuple[str, str]:
    if n_distinct == 0:
        return "empty", "all missing"
    if n_distinct == 1:
        return "constant", f"one value only ({column.dropna().iloc[0]})"
    if pd.api.types.is_bool_dtype(column):
        return "categorical", "true/false values"
    if pd.api.types.is_numeric_dtype(column):
        if _is_counter(column, n_rows, n_distinct):
            return "id", "numbers 1, 2, 3, ... one per row — looks like a row number"
        return "numeric", f"numbers ({n_distinct} distinct values)"
    if is_text_column(column):
        return "text", "free text (most values have several words)"
    if n_distinct == n_rows:
        return "id", "unique per row — looks like an identifier"
    n_present = n_rows - n_missing
    if n_present >= NEAR_UNIQUE_MIN_ROWS and n_distinct >= NEAR_UNIQUE_SHARE * n_present:
        return "id", f"{n_distinct} different values in {n_present} rows — looks like an identifier"
    return "categorical", f"categories ({n_distinct} distinct values)"


def _is_counter(column: pd.Series, n_rows: int, n_distinct: int) -> bool:
    """Integers unique per row that form one consecutive run (1..n, 0..n-1, 1001..1000+n)."""
    if n_distinct != n_rows or n_rows < 3:
        return False
    values = column.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or not np.all(values == np.round(values)):
        return False
    return bool(values.max() - values.min() == n_rows - 1)
