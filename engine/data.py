"""Data in: CSV files, column kinds, the target, the train/test split, the bundled samples.

Everything a user can get wrong here raises :class:`DataError`, a ``ValueError`` whose
message says what is wrong and what to do; pages show it with ``st.error``.

Missing values: the cells ``?``, ``NA``, ``N/A``, ``NaN``, ``nan``, ``null``, ``NULL``,
``#N/A``, ``<NA>`` and empty cells are missing (``NA_VALUES``). ``None`` is **not**:
in the AIMA restaurant data it is a real value (Patrons = None). Pass ``na_values`` to
:func:`load_csv` to change the list; an empty cell is always missing.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from engine._csv import (
    NA_VALUES,
    DataError,
    check_not_binary,
    choose_delimiter,
    decode,
    is_number,
    numbers_for_names,
    parse,
    read_source,
    sample_records,
)
from engine._dataset import Dataset, stratified_sample, train_test_split
from engine._schema import DATE_PARTS, KINDS, default_features, infer_schema, with_date_parts
from engine._target import FEW_VALUES, guess_target, leaky_features, rank_features

__all__ = [
    "NA_VALUES", "KINDS", "DataError", "load_csv", "infer_schema", "default_features",
    "with_date_parts", "DATE_PARTS",
    "guess_target", "leaky_features", "rank_features", "FEW_VALUES", "Dataset",
    "train_test_split", "stratified_sample", "list_samples", "load_sample",
]

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
_SAMPLE_CACHE: dict[str, pd.DataFrame] = {}


def load_csv(source, *, sep: str | None = None, encoding: str | None = None,
             na_values=None, skip: int = 0, header: bool = True) -> pd.DataFrame:
    """Read a CSV file into a DataFrame, or explain why it cannot be read.

    Parameters
    ----------
    source : str, Path, bytes or binary file object
        A path, the file's bytes, or an object with ``getvalue()``/``read()`` such as
        the one ``st.file_uploader`` returns.
    sep : str, optional
        The delimiter; by default sniffed among ``, ; \\t |`` on the first records.
    encoding : str, optional
        By default UTF-8 (with or without BOM), then UTF-16, then cp1252.
    na_values : list of str, optional
        Cell values read as missing, replacing ``NA_VALUES``; ``[]`` keeps ``?`` as a
        value. Empty cells are always missing.
    skip : int, default 0
        Lines to skip before the table (a title or a count line).
    header : bool, default True
        Whether the first line read holds the column names; without one the columns
        are named ``column 1``, ``column 2``, ...

    Returns
    -------
    frame : DataFrame of shape (n_rows, n_columns)
        Numeric columns as int64/float64, the others as strings with NaN for missing.
        ``frame.attrs`` holds ``encoding``, ``sep``, ``notes`` (renamed columns) and
        ``numbered``: whether a first line of numbers was read as data (see
        :func:`engine._csv.numbers_for_names`), the columns then called ``column 1``, ...

    Raises
    ------
    DataError
        For binary, empty, header-only or ragged files, with a message for the user.

    Notes
    -----
    Decimal commas: in semicolon-separated files a column whose values all look like
    ``3,14`` or ``1.234,5`` is read as numbers (dot as thousands separator). A column
    whose values all look like ``1.234`` is read as 1.234: nothing tells it from a
    thousands separator. Tab and pipe files (Excel's "Unicode text") get the same
    reading only when some value cannot be US thousands grouping (``1,234`` stays text);
    comma files never.

    Excel's ``sep=;`` first line sets the delimiter. A one-field first line above
    rows with several fields (a title line) is refused with advice. Rows with more
    fields than the header are refused (naming the line); shorter rows are padded with
    missing values. Cells are stripped of surrounding spaces; ``True``/``yes`` stay
    text (categories), never booleans.

    Examples
    --------
    >>> df = load_csv(b"x;y;label\\n1,5;2;yes\\n2,25;NA;no\\n")
    >>> df["x"].tolist(), df["y"].isna().tolist(), df["label"].tolist()
    ([1.5, 2.25], [False, True], ['yes', 'no'])
    """
    data = read_source(source)
    check_not_binary(data)
    text, used_encoding = decode(data, encoding)
    if not text.strip():
        raise DataError("The file is empty. Upload a CSV file with a header row and data rows.")
    if skip:
        text = _skip_lines(text, skip)
    sep, text = choose_delimiter(text, sep)
    records = sample_records(text, sep)
    numbered = header and numbers_for_names(records)
    if numbered or not header:
        width = len(records[0])
        text = sep.join(f"column {i}" for i in range(1, width + 1)) + "\n" + text
    frame = parse(text, sep, na_values)
    frame.attrs["encoding"] = used_encoding
    frame.attrs["numbered"] = numbered
    if numbered:
        frame.attrs["notes"] = [*frame.attrs.get("notes", []), (
            f"Line 1 holds numbers, not column names, so it is read as the first row and "
            f"the columns are called column 1 to column {frame.shape[1]}. Put a line of "
            "names above the rows to see them here.")]
    return frame


def _skip_lines(text: str, skip: int) -> str:
    lines = text.splitlines(keepends=True)
    if skip >= len(lines):
        raise DataError(f"The file has {len(lines)} lines: nothing is left after skipping {skip}.")
    return "".join(lines[skip:])


#: Readings offered when a file does not read as it is: (what the user is told, skip, header).
READINGS = (
    ("Skip line 1; line 2 is the header", 1, True),
    ("Skip line 1 (a title or a count); the file has no header row", 1, False),
    ("The file has no header row: line 1 is data", 0, False),
)


def other_readings(source) -> list[tuple[str, int, bool]]:
    """The :data:`READINGS` that make a table of a file that does not read as it is (a
    count line above the rows, as scikit-learn's CSVs have, or no header row). A header
    of numbers only is data, not names, and is not offered.

    >>> other_readings(b"3,2,no,yes\\n1.5,2.0,0\\n2.5,1.0,1\\n0.5,3.0,0\\n")[0][0]
    'Skip line 1 (a title or a count); the file has no header row'
    """
    found = []
    for label, skip, header in READINGS:
        try:
            frame = load_csv(source, skip=skip, header=header)
        except DataError:
            continue
        if header and (frame.attrs["numbered"] or all(is_number(name) for name in frame.columns)):
            continue
        found.append((label, skip, header))
    return found


# ---------------------------------------------------------------- samples
def list_samples() -> list[dict]:
    """The bundled datasets: the entries of ``sample_data/catalog.json``.

    Each entry has ``name``, ``file``, ``title``, ``description``, ``target``,
    ``exclude``, ``task``, ``source``, ``licence``, ``pages`` and optionally
    ``na_values``, ``class_names`` (what the target's values mean, shown in their place)
    and ``preset`` (a textbook example's settings: ``note``, ``pages``,
    ``values`` by control key). An empty list when the catalog is missing.
    """
    path = SAMPLE_DIR / "catalog.json"
    if not path.is_file():
        return []
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DataError(f"The sample catalog {path} cannot be read: {err}.") from None
    return [dict(entry) for entry in entries]


def load_sample(name: str) -> pd.DataFrame:
    """The bundled dataset ``name`` as a DataFrame (a fresh copy on every call).

    Examples
    --------
    >>> load_sample("playtennis").shape
    (14, 6)
    """
    if name not in _SAMPLE_CACHE:
        entries = {entry["name"]: entry for entry in list_samples()}
        if name not in entries:
            valid = ", ".join(sorted(entries)) or "none (sample_data/catalog.json is missing)"
            raise DataError(f"There is no sample called {name!r}. Samples: {valid}.")
        entry = entries[name]
        _SAMPLE_CACHE[name] = load_csv(SAMPLE_DIR / entry["file"], na_values=entry.get("na_values"))
    return _SAMPLE_CACHE[name].copy()

