"""What each column of a table is: numeric, categorical, free text, date, identifier,
constant or empty.

The kind decides what a model does with the column by default: identifiers (row numbers,
ticket and order codes), dates, constants and empty columns carry no information a model
can generalise from to new rows, so they start excluded (the Data page lets the user
include them again). Free text starts excluded too unless the table has nothing else
(``engine.data.default_features``): only a text model reads it.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from engine.text import is_text_column

KINDS = ("numeric", "categorical", "text", "date", "id", "constant", "empty")
EXCLUDED_KINDS = ("date", "id", "constant", "empty")
#: A non-numeric column with more distinct values than this share of its present rows (and
#: at least CODE_MIN_ROWS of them, CODE_MIN_DISTINCT values) is a code, not a category:
#: ticket numbers (681 in 891 rows), cabins (147 in 204), e-mail addresses. Each value
#: names a row or two, so a split on it memorises rows and teaches nothing.
CODE_SHARE = 0.5
CODE_MIN_ROWS = 20
CODE_MIN_DISTINCT = 10
#: A few labels of several words are categories ("Adelie Penguin (Pygoscelis adeliae)",
#: "Yes, with conditions"); free text has more distinct values than this.
TEXT_MIN_DISTINCT = 20
#: Values that start like a calendar date: 2007-11-11, 2012/01/01, 11/11/2007, 1.5.2020.
DATE_PATTERN = re.compile(r"^\s*(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
                          r"([ T]\d{1,2}:\d{2}(:\d{2})?)?\s*$")
DATE_SHARE = 0.9


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
    4. calendar dates (90% of the values look like 2007-11-11 or 11/11/2007) -> date;
    5. free text (most values have three or more words, ``engine.text.is_text_column``,
       and more than ``TEXT_MIN_DISTINCT`` distinct values or one per row) -> text; a
       few long labels are categories;
    6. unique per row -> id (Day D1..D14 in PlayTennis, Example x1..x12 in the restaurant
       data); a code with more distinct values than half its present rows (in 20 rows or
       more) -> id (tickets, cabins, order numbers);
    7. otherwise categorical.

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
    for name, date, part in date_parts(schema):
        if schema.loc[name, "kind"] not in ("constant", "empty"):
            # a month runs 1..12 and starts again: a measurement, not a row counter
            schema.loc[name, "kind"] = "categorical" if part == "weekday" else "numeric"
            schema.loc[name, "include"] = False
            schema.loc[name, "reason"] = (f"the {part} of {date}: tick “use” to let a "
                                          "model use the date")
    return schema.astype({"n_distinct": "int64", "n_missing": "int64", "include": "bool"})


#: Whole numbers read as classes (a grade of 1 to 5, a count of stars) when they take at
#: most this many values...
MAX_INTEGER_CLASSES = 20
#: ... and the rows hold at least this many of each value on average: a column with a
#: value for nearly every row (20 athletes' jumps, 17 values) is a measurement.
ROWS_PER_INTEGER_CLASS = 2


def whole_number_classes(column: pd.Series, n_values: int | None = None) -> bool:
    """Whether a numeric column reads as classes rather than a quantity: its values are
    whole numbers, at most :data:`MAX_INTEGER_CLASSES` of them, with
    :data:`ROWS_PER_INTEGER_CLASS` rows or more a value on average. Missing values are
    left out. ``n_values``, the column's distinct values if known, spares counting
    them (and a column of many is refused before it is read).

    >>> whole_number_classes(pd.Series([0, 1, 1, 0, None]))
    True
    >>> whole_number_classes(pd.Series([60, 101, 101, 37, 58, 42, 38, 40, 62, 105]))
    False
    """
    if n_values is not None and n_values > MAX_INTEGER_CLASSES:
        return False
    values = column.dropna().to_numpy(dtype=float)
    if not len(values) or not (values == np.round(values)).all():
        return False
    n_values = len(np.unique(values)) if n_values is None else n_values
    return n_values <= MAX_INTEGER_CLASSES and len(values) >= ROWS_PER_INTEGER_CLASS * n_values


def date_parts(schema: pd.DataFrame) -> list[tuple[str, object, str]]:
    """``(name, date, part)`` of every column of ``schema`` named as
    :func:`with_date_parts` names the parts of its date columns ("signup year")."""
    return [(f"{date} {part}", date, part) for date in schema.index[schema["kind"] == "date"]
            for part in DATE_PARTS if f"{date} {part}" in schema.index]


#: What :func:`with_date_parts` derives from a date column, each as a column
#: "<column> <part>": the year and month as numbers, the weekday as Mon … Sun.
DATE_PARTS = ("year", "month", "weekday")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def with_date_parts(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with, right after each date column (see :func:`infer_schema`), its year,
    month and weekday. A day itself never comes back, but its season and its weekday
    do; :func:`infer_schema` lists the parts as excluded until the user ticks them, and
    says where they come from. A name the table already has is not overwritten.

    >>> df = pd.DataFrame({"date": ["2012-01-01", "2012-06-15", "2013-06-16"], "x": [1, 2, 3]})
    >>> with_date_parts(df).columns.tolist()
    ['date', 'date year', 'date month', 'date weekday', 'x']
    >>> with_date_parts(df)["date weekday"].tolist()
    ['Sun', 'Fri', 'Sun']
    """
    dates = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])
             and df[c].nunique() > 1 and _is_date(df[c])]
    if not dates:
        return df
    out = df.copy()
    for column in reversed(dates):
        when = _as_dates(df[column])
        at = out.columns.get_loc(column) + 1
        parts = {"year": when.dt.year, "month": when.dt.month,
                 "weekday": when.dt.day_of_week.map(dict(enumerate(WEEKDAYS)))}
        for part in reversed(DATE_PARTS):
            name = f"{column} {part}"
            if name not in out.columns:
                values = parts[part]
                out.insert(at, name, values.astype("Int64") if part != "weekday" else values)
    return out


#: Formats tried in turn; the first that reads nearly every value (``DATE_SHARE``) is the
#: column's. A day above 12 settles 31/01/2020 against 01/31/2020; when no value settles
#: it, day first is assumed, as most of the world writes dates.
DATE_FORMATS = ("ISO8601", "%Y/%m/%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y", "%d/%m/%y",
                "%m/%d/%y")


def _as_dates(column: pd.Series) -> pd.Series:
    """Dates from text, in the column's one format (``DATE_FORMATS``), otherwise each
    value its own way. A time after the date is read and dropped."""
    text = column.astype("string").str.strip().str.split(r"[ T]", n=1).str[0]
    present = text.notna()
    for fmt in DATE_FORMATS:
        when = pd.to_datetime(text, errors="coerce", format=fmt)
        if when[present].notna().mean() >= DATE_SHARE:
            return when
    return pd.to_datetime(text, errors="coerce", format="mixed", dayfirst=True)


def default_features(schema: pd.DataFrame, target) -> list:
    """The columns a model uses unless the user says otherwise: every included column but
    the target, free text only when nothing else is left (only a text model reads it,
    and names or comments beside real features would drown them), and the parts of the
    dates (:func:`with_date_parts`) only when not even text is: a log of a date and a
    temperature learns the temperature from the season and the weekday.

    >>> df = pd.DataFrame({"name": ["Braund, Mr. Owen Harris", "Cumings, Mrs. John Bradley",
    ...                             "Heikkinen, Miss. Laina"], "fare": [7.25, 71.3, 7.9],
    ...                    "survived": ["no", "yes", "yes"]})
    >>> default_features(infer_schema(df), "survived")
    ['fare']
    >>> log = with_date_parts(pd.DataFrame({"day": ["2012-01-01", "2012-06-15", "2013-06-16"],
    ...                                     "temp": [3.1, 21.0, 19.5]}))
    >>> default_features(infer_schema(log), "temp")
    ['day year', 'day month', 'day weekday']
    """
    chosen = [c for c in schema.index[schema["include"]] if c != target]
    other = [c for c in chosen if schema.loc[c, "kind"] != "text"]
    return other or chosen or [name for name, _, _ in date_parts(schema) if name != target
                               and schema.loc[name, "kind"] not in ("constant", "empty")]


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
        if _is_group_counter(column, n_rows):
            return "id", ("counts 1, 2, 3, ... and starts again — a row number within "
                          "groups, not a measurement")
        return "numeric", f"numbers ({n_distinct} distinct values)"
    n_present = n_rows - n_missing
    if _is_date(column):
        return "date", "calendar dates: a model cannot generalise from the day itself"
    if is_text_column(column) and (n_distinct > TEXT_MIN_DISTINCT or n_distinct == n_present):
        return "text", "free text (most values have several words); only a text model reads it"
    if n_distinct == n_rows:
        return "id", "unique per row — looks like an identifier"
    if (n_present >= CODE_MIN_ROWS and n_distinct >= CODE_MIN_DISTINCT
            and n_distinct > CODE_SHARE * n_present):
        return "id", (f"{n_distinct:,} different values in {n_present:,} rows — a code that "
                      "names rows, not a category")
    return "categorical", f"categories ({n_distinct} distinct values)"


def _is_date(column: pd.Series) -> bool:
    values = column.dropna().astype(str)
    sample = values.iloc[:: max(1, len(values) // 200)]
    return bool(len(sample)) and bool(sample.str.match(DATE_PATTERN).mean() >= DATE_SHARE)


#: A whole-number column that starts at 0 or 1 and steps by +1 from one row to the next
#: this often (in at least COUNTER_MIN_ROWS rows) numbers the rows of groups: the raw
#: penguin table's "Sample Number" runs 1..152, 1..68, 1..124, one run per study. A year
#: column of yearly rows steps by +1 too, but does not start at 0 or 1.
COUNTER_STEP_SHARE = 0.9
COUNTER_MIN_ROWS = 20


def _is_group_counter(column: pd.Series, n_rows: int) -> bool:
    values = column.to_numpy(dtype=float)
    if n_rows < COUNTER_MIN_ROWS or not np.all(np.isfinite(values)):
        return False
    if not np.all(values == np.round(values)) or values.min() not in (0.0, 1.0):
        return False
    return bool((np.diff(values) == 1).mean() >= COUNTER_STEP_SHARE)


def _is_counter(column: pd.Series, n_rows: int, n_distinct: int) -> bool:
    """Integers unique per row that form one consecutive run (1..n, 0..n-1, 1001..1000+n)."""
    if n_distinct != n_rows or n_rows < 3:
        return False
    values = column.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or not np.all(values == np.round(values)):
        return False
    return bool(values.max() - values.min() == n_rows - 1)
