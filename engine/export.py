"""Results out, new rows in: spreadsheet-safe CSV and checking rows against a model.

* :func:`predictions_table` — a model's predictions (and class probabilities) as a frame.
* :func:`predictions_csv` — a frame as CSV bytes that a spreadsheet opens without
  running anything: a text cell (or header) that starts with ``= + - @``, a tab, a
  carriage return or another control character gets a leading ``'`` (OWASP's advice
  against CSV injection). Numbers are written as numbers, so ``-3.5`` stays ``-3.5``.
* :func:`align_new_rows` — new rows checked against the columns a model was trained on:
  missing columns refused, extra ones dropped, unseen categories and text in numeric
  columns reported in words a student understands.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._csv import DataError
from ._validation import is_categorical_dtype

__all__ = ["DANGEROUS_START", "align_new_rows", "escape_cell", "predictions_csv",
           "predictions_table"]

#: First characters that make a spreadsheet read a cell as a formula or command.
DANGEROUS_START = ("=", "+", "-", "@")
#: How many distinct unseen values a notice lists before "and N more".
_LIST_AT_MOST = 5


def escape_cell(text: str) -> str:
    """``text`` with a leading ``'`` if a spreadsheet could run it as a formula.

    Examples
    --------
    >>> escape_cell("=SUM(A1:A9)"), escape_cell("-2 days"), escape_cell("plain")
    ("'=SUM(A1:A9)", "'-2 days", 'plain')
    >>> escape_cell("\\tcmd")
    "'\\tcmd"
    """
    if text and (text.startswith(DANGEROUS_START) or ord(text[0]) < 32 or ord(text[0]) == 127):
        return "'" + text
    return text


def _escaped_column(column: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return column  # numbers are data, never formulas
    values = column.astype(object)
    return values.map(lambda v: escape_cell(v) if isinstance(v, str) else v)


def predictions_csv(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV bytes with every text cell and header made formula-safe.

    Parameters
    ----------
    frame : DataFrame, shape (n_rows, n_columns)
        Written without its index.

    Examples
    --------
    >>> table = pd.DataFrame({"=name": ["@home", "ok"], "score": [-1.5, 2.0]})
    >>> predictions_csv(table).decode().splitlines()
    ["'=name,score", "'@home,-1.5", 'ok,2.0']
    """
    safe = pd.DataFrame({j: _escaped_column(frame.iloc[:, j]) for j in range(frame.shape[1])})
    safe.columns = [escape_cell(str(c)) for c in frame.columns]
    # CRLF rows (RFC 4180): then a cell holding a bare \r or \n is quoted as well
    return safe.to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def predictions_table(model, X) -> pd.DataFrame:
    """One row per row of ``X``: ``prediction`` and, for a classifier, ``P(class)`` columns.

    Examples
    --------
    >>> from engine.tree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0]], ["no", "yes"])
    >>> predictions_table(tree, [[0.1]]).columns.tolist()
    ['prediction', 'P(no)', 'P(yes)']
    """
    index = X.index if isinstance(X, pd.DataFrame) else None
    table = pd.DataFrame({"prediction": model.predict(X)}, index=index)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        for q, label in enumerate(model.classes_):
            table[f"P({label})"] = proba[:, q]
    return table


# ------------------------------------------------------------------ new rows


def training_columns(model) -> dict[str, tuple[str, np.ndarray | None]]:
    """Column name → (kind, categories) as the model saw them in training.

    ``kind`` is ``"numeric"``, ``"categorical"`` or ``"text"``; categories are listed
    for categorical columns (None otherwise).
    """
    kinds = getattr(model, "feature_kinds_", None)
    if kinds is not None:  # MixedNB: its own kinds; categories live in its CategoricalNB
        part = model.categorical_
        categories = {} if part is None else dict(zip(part.feature_names_in_, part.categories_, strict=True))
        return {name: ("numeric", None) if kind in ("gaussian", "binned") else
                (kind, categories.get(name)) for name, kind in kinds.items()}
    encoder = getattr(model, "encoder_", None) or getattr(model, "_encoder", None)
    return {str(name): ("categorical", cats) if cat else ("numeric", None)
            for name, cat, cats in zip(encoder.feature_names_in_, encoder.is_categorical_,
                                       encoder.categories_, strict=True)}


def align_new_rows(frame: pd.DataFrame, model) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` with the model's training columns, in order, checked; plus notices.

    Parameters
    ----------
    frame : DataFrame, shape (n_rows, n_columns)
        New rows, e.g. from :func:`engine.data.load_csv`.
    model : fitted engine estimator

    Returns
    -------
    aligned : DataFrame, shape (n_rows, n_features_in_)
    notices : list of str
        Extra columns dropped; categories not seen in training and what the model does
        with them.

    Raises
    ------
    DataError
        No rows, a training column missing, or text in a column that was numeric.

    Examples
    --------
    >>> from engine.tree import DecisionTreeClassifier
    >>> X = pd.DataFrame({"colour": ["red", "blue"], "size": [1.0, 2.0]})
    >>> tree = DecisionTreeClassifier().fit(X, ["a", "b"])
    >>> rows, notes = align_new_rows(pd.DataFrame({"size": [3], "colour": ["green"], "id": [7]}), tree)
    >>> rows.columns.tolist()
    ['colour', 'size']
    >>> notes[0]
    "Column(s) 'id' not used by the model: left out."
    """
    columns = training_columns(model)
    frame = frame.rename(columns=str)
    if len(frame) == 0:
        raise DataError("The new rows are empty. Add at least one row below the header.")
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise DataError(f"The new rows lack the column(s) {_listed(missing)} that the model was "
                        "trained on. Add them (leave a cell empty if the value is unknown).")
    extra = [name for name in frame.columns if name not in columns]
    notices = [f"Column(s) {_listed(extra)} not used by the model: left out."] if extra else []
    aligned, unseen = {}, []
    for name, (kind, categories) in columns.items():
        column = frame[name]
        if kind == "numeric":
            aligned[name] = _numbers(column, name)
        elif kind == "categorical":
            aligned[name], note = _categories(column, name, categories)
            unseen += note
        else:
            aligned[name] = column.astype(object).where(column.notna(), None)
    notices += unseen + ([_unseen_rule(model)] if unseen else [])
    return pd.DataFrame(aligned, index=frame.index), notices


def _quoted(names: list) -> str:
    return ", ".join(repr(str(n)) for n in names)


def _listed(names: list) -> str:
    """The first few names quoted, then how many more."""
    more = len(names) - _LIST_AT_MOST
    return _quoted(names[:_LIST_AT_MOST]) + (f" and {more} more" if more > 0 else "")


def _numbers(column: pd.Series, name: str) -> pd.Series:
    values = pd.to_numeric(column, errors="coerce")
    text = column.notna() & values.isna()
    if text.any():
        examples = _quoted(pd.unique(column[text].astype(str))[:3].tolist())
        raise DataError(f"Column {name!r} held numbers in training but the new rows have text "
                        f"in it (e.g. {examples}). Fix those cells or leave them empty.")
    values = values.astype(np.float64)
    if np.isinf(values).any():
        raise DataError(f"Column {name!r} has infinite values; replace them or leave them empty.")
    return values


def _categories(column: pd.Series, name: str, categories) -> tuple[pd.Series, list[str]]:
    values = column.astype(object).where(column.notna(), None)
    known = pd.Index(categories if categories is not None else [])
    if len(known) and all(isinstance(c, str) for c in known) and not is_categorical_dtype(column):
        values = values.map(_as_text)  # "3" in training, read as the number 3 now
    unseen = values.notna() & (known.get_indexer(values) < 0)
    if not unseen.any():
        return values, []
    distinct = pd.unique(values[unseen].astype(str)).tolist()
    return values, [f"Column {name!r}: {_listed(distinct)} ({int(unseen.sum())} row(s)) did not "
                    "occur in training."]


def _as_text(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if value is None or isinstance(value, str) else str(value)


def _unseen_rule(model) -> str:
    if hasattr(model, "class_log_prior_"):
        return ("Naive Bayes still predicts these rows: a value not seen in training gets "
                "the smoothed probability of a value never counted, α / (N + α k), in every class.")
    return ("The model still predicts these rows: at a split on such a column, a value not "
            "seen in training goes down the branch that held the most training rows.")
