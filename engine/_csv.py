"""Reading a CSV file that a student uploaded: bytes -> text -> table.

Three stages, each of which can refuse the file with a :class:`DataError` that says
what is wrong and what to do:

1. **Bytes.** Spot files that are not text at all (pictures, Excel workbooks, zip
   archives, PDFs) by their first bytes, and empty files.
2. **Text.** Decode in a fixed order: UTF-8 (with or without a byte-order mark), then
   UTF-16 when a byte-order mark or many NUL bytes say so (Excel's "Unicode text"),
   then cp1252 (older Excel on Windows). A result that still holds control characters
   is refused rather than shown garbled.
3. **Table.** Sniff the delimiter among ``, ; \\t |`` on the first records (quotes
   respected; a table of numbers separated by runs of spaces is read as tabs), parse
   everything once with pandas' C parser, then tidy: strip whitespace, unique column
   names, decimal commas in semicolon files, numbers stored as text.
"""
from __future__ import annotations

import csv
import io
import re
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd


class DataError(ValueError):
    """A problem with the user's data, worded so that a student can fix it."""


#: Cell values read as missing. "None" is deliberately absent: it is a real value in
#: the restaurant data of AIMA (Patrons = None means nobody is there).
NA_VALUES = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "#N/A", "<NA>")

DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

#: First bytes of file formats that people upload by mistake.
MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive or an Excel workbook (.xlsx)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls)"),
    (b"\x1f\x8b", "a gzip archive"),
)
SAVE_AS_CSV = (
    "Open it in Excel or LibreOffice and use File > Save As > "
    "'CSV (comma delimited)', then upload the .csv file."
)
SNIFF_CHARS = 64_000
#: C0 control characters other than tab, newline, carriage return: binary data.
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_DECIMAL_COMMA = r"^[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?$"
#: A comma cannot be thousands grouping when it is not followed by exactly three digits.
_NOT_THOUSANDS = r",(?:\d{1,2}|\d{4,})$"
#: How decimal commas are read per delimiter: in semicolon files always (with dots as
#: thousands separators); in tab and pipe files (Excel's "Unicode text") only when some
#: value cannot be US thousands grouping ("3,14", "1.234,5"); never in comma files.
DECIMAL_COMMA = {";": "always", "\t": "unambiguous", "|": "unambiguous"}
_EXCEL_SEP_LINE = re.compile(r"\Asep=(.)\r?\n")
_LINE_IN_ERROR = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


# ---------------------------------------------------------------- bytes
def read_source(source) -> bytes:
    """The raw bytes of a path, a bytes object or a binary file object."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            return path.read_bytes()
        except OSError:
            raise DataError(f"There is no readable file at '{path}'. Check the name.") from None
    if hasattr(source, "getvalue"):
        data = source.getvalue()
    elif hasattr(source, "read"):
        if hasattr(source, "seek"):
            source.seek(0)
        data = source.read()
    else:
        raise DataError(
            f"Cannot read data from a {type(source).__name__}; give a file, a path or bytes."
        )
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def check_not_binary(data: bytes) -> None:
    """Refuse empty files and files whose first bytes name a non-text format."""
    if not data.strip():
        raise DataError("The file is empty. Upload a CSV file with a header row and data rows.")
    for magic, what in MAGIC:
        if data.startswith(magic):
            hint = SAVE_AS_CSV if "Excel" in what else "Upload a CSV (comma-separated text) file."
            raise DataError(f"This file is {what}, not a CSV text file. {hint}")


# ---------------------------------------------------------------- text
def decode(data: bytes, encoding: str | None = None) -> tuple[str, str]:
    """Text of ``data`` and the name of the encoding that produced it."""
    if encoding is not None:
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as err:
            raise DataError(
                f"The file cannot be read as {encoding}: {err}. "
                "Leave the encoding empty to let Glassbox detect it."
            ) from None
        return _check_control(text), encoding
    utf16 = _utf16_codec(data)
    if utf16 is not None:
        return _decode_utf16(data, utf16), utf16
    if _CONTROL_BYTES.search(data):
        raise DataError(_binary_message())
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        raise DataError(
            "The file's characters are in an encoding Glassbox cannot recognise "
            "(not UTF-8, UTF-16 or Windows-1252). Save it again as 'CSV UTF-8'."
        ) from None


def _utf16_codec(data: bytes) -> str | None:
    """'utf-16' when a byte-order mark or a NUL in every other byte says so."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    head = data[:2000]
    if len(head) >= 4 and head.count(0) >= 0.3 * len(head):
        # ASCII text in UTF-16 has its NULs on the high byte: odd positions for LE.
        odd, even = head[1::2].count(0), head[0::2].count(0)
        if odd > 0.8 * len(head[1::2]):
            return "utf-16-le"
        if even > 0.8 * len(head[0::2]):
            return "utf-16-be"
    return None


def _decode_utf16(data: bytes, codec: str) -> str:
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        raise DataError(
            "The file looks like UTF-16 text (Excel's 'Unicode text') but is damaged. "
            "Save it again from Excel as 'CSV UTF-8'."
        ) from None
    return _check_control(text)


def _check_control(text: str) -> str:
    if _CONTROL_CHARS.search(text.rstrip("\x1a")):
        raise DataError(_binary_message())
    return text.rstrip("\x1a")


def _binary_message() -> str:
    return (
        "This file contains binary data (control characters), so it is not a CSV text file. "
        "If it is a spreadsheet, " + SAVE_AS_CSV[0].lower() + SAVE_AS_CSV[1:]
    )


# ---------------------------------------------------------------- delimiter
def sample_records(text: str, sep: str) -> list[list[str]]:
    """The first records of ``text`` split on ``sep`` (quotes respected, blank lines skipped)."""
    sample = text[:SNIFF_CHARS]
    truncated = len(text) > SNIFF_CHARS
    try:
        reader = csv.reader(io.StringIO(sample, newline=""), delimiter=sep, skipinitialspace=True)
        records = [r for r in reader if r]
    except csv.Error:
        return []
    if truncated and len(records) > 1:
        records = records[:-1]  # the last record may be cut in half
    return records


def sniff_delimiter(text: str) -> str:
    """The delimiter among ``, ; \\t |`` that splits the first records most consistently.

    A delimiter qualifies when it splits the header, and at least half of the other
    records, into two or more fields. Among those, the one whose records most often
    have as many fields as the header wins; ties go to more fields, then to the order
    above. No qualifier: the file has one column (see :func:`_one_column_delimiter`).
    """
    best, best_score = None, None
    samples = {sep: sample_records(text, sep) for sep in DELIMITERS}
    for sep, records in samples.items():
        if not records or len(records[0]) < 2 or not _splits_most_rows(records):
            continue
        width = len(records[0])
        consistency = sum(len(r) == width for r in records) / len(records)
        score = (consistency, width)
        if best_score is None or score > best_score:
            best, best_score = sep, score
    return best or _one_column_delimiter(samples)


def _splits_most_rows(records: list[list[str]]) -> bool:
    rows = records[1:]
    return sum(len(r) >= 2 for r in rows) >= 0.5 * len(rows)


def _one_column_delimiter(samples: dict[str, list[list[str]]]) -> str:
    """A delimiter for a file whose header is one field: the first that splits no record.

    When the rows below split into several fields although the header does not, the
    header is not the header (a title line above it) or lacks names: refuse, unless
    the splits are decimal commas of a one-column number file ("0,5").
    """
    for sep, records in samples.items():
        if len(records) > 1 and _splits_most_rows(records):
            if sep == "," and all(re.fullmatch(r"[+-]?\d+(,\d+)?", ",".join(r)) for r in records[1:]):
                continue
            raise DataError(
                f"Line 1 has a single field, but most rows below it have several, separated "
                f"by {DELIMITER_NAMES[sep]}s. If the file starts with a title line above the "
                "header, delete it; otherwise give every column a name in the header line, "
                "or put values that contain the separator in double quotes."
            )
    for sep, records in samples.items():
        if all(len(r) == 1 for r in records):
            return sep
    return ","


# ---------------------------------------------------------------- table
def unique_names(header: list[str]) -> tuple[list[str], list[str]]:
    """Stripped, non-empty, unique column names, and notes on what was renamed."""
    names = [h.strip() for h in header]
    notes = []
    for i, name in enumerate(names):
        if not name:
            names[i] = f"column_{i + 1}"
            notes.append(f"Column {i + 1} had no name; it is called '{names[i]}'.")
    seen: Counter = Counter()
    taken = set(names)
    for i, name in enumerate(list(names)):
        seen[name] += 1
        if seen[name] > 1:
            k = seen[name]
            while f"{name} ({k})" in taken:
                k += 1
            names[i] = f"{name} ({k})"
            taken.add(names[i])
    for name, count in seen.items():
        if count > 1:
            notes.append(
                f"The column name '{name}' appears {count} times; the later ones are "
                f"called '{name} (2)' and so on."
            )
    return names, notes


def choose_delimiter(text: str, sep: str | None) -> tuple[str, str]:
    """The delimiter to use and the text to parse.

    An explicit ``sep`` wins; then Excel's ``sep=;`` first line (which is dropped);
    then :func:`sniff_delimiter`.
    """
    if sep is not None:
        if not isinstance(sep, str) or len(sep) != 1 or sep in '"\r\n':
            raise DataError(f"The separator must be one character such as , or ;, not {sep!r}.")
        return sep, text
    match = _EXCEL_SEP_LINE.match(text)
    if match:
        return match.group(1), text[match.end():]
    if _spaced(text):
        return "\t", "\n".join("\t".join(line.split()) for line in text.splitlines())
    return sniff_delimiter(text), text


#: Values below the header of a table separated by spaces that must read as numbers.
SPACED_NUMBER_SHARE = 0.8


def _spaced(text: str) -> bool:
    """Whether ``text`` is a table whose columns are separated by runs of spaces, as
    textbook data files often are (``Chins Situps Jumps`` over ``5 162 60``): no
    delimiter of :data:`DELIMITERS` in its first lines, every line of them two fields or
    more, as many as the header, and most values below it (:data:`SPACED_NUMBER_SHARE`)
    numbers. A column of names or sentences is none of these."""
    sample = text[:SNIFF_CHARS]
    if any(d in sample for d in DELIMITERS) or '"' in sample:
        return False
    lines = [line.split() for line in sample.splitlines() if line.strip()]
    if len(text) > SNIFF_CHARS:
        lines = lines[:-1]  # the last line may be cut in half
    if len(lines) < 2:
        return False
    width = len(lines[0])
    if width < 2 or any(len(fields) != width for fields in lines):
        return False
    values = [v for fields in lines[1:] for v in fields]
    return sum(map(is_number, values)) >= SPACED_NUMBER_SHARE * len(values)


def is_number(text) -> bool:
    """Whether ``text`` reads as a number (a decimal comma too)."""
    try:
        float(str(text).replace(",", "."))
    except ValueError:
        return False
    return True


def numbers_for_names(records: list[list[str]]) -> bool:
    """Whether the first of ``records`` is a row of data rather than column names: two
    fields or more, every one a number, and some not a whole number or some repeated
    (the first row of a UCI ``.data`` file). Distinct whole numbers can be names
    (years over a wide table) and stay names."""
    first = records[0] if records else []
    if len(first) < 2 or not all(map(is_number, first)):
        return False
    return len(set(first)) < len(first) or not all(float(v.replace(",", ".")).is_integer()
                                                   for v in first)


def missing_markers(na_values) -> list[str]:
    """The cell values read as missing: ``na_values`` (default NA_VALUES) plus the empty cell."""
    if na_values is None:
        na_values = NA_VALUES
    elif isinstance(na_values, str):
        na_values = [na_values]
    return sorted({str(v) for v in na_values} | {""})


def parse(text: str, sep: str, na_values) -> pd.DataFrame:
    """Parse ``text`` into a tidy DataFrame (see the module docstring)."""
    records = sample_records(text, sep)
    if not records:
        raise DataError("The file has no rows. Upload a CSV file with a header row and data rows.")
    names, notes = unique_names(records[0])
    na = missing_markers(na_values)
    frame = _read(text, sep, names, na, records)
    if frame.empty:
        raise DataError(
            "The file has a header row but no data rows. Add rows of data below the header."
        )
    frame = _restore_booleans(frame, text, sep, names, na)
    for name in frame.columns:
        frame[name] = _tidy_column(frame[name], na, DECIMAL_COMMA.get(sep))
    frame.attrs["notes"] = notes
    frame.attrs["sep"] = sep
    return frame


def _read(text, sep, names, na, records, dtype=None, usecols=None) -> pd.DataFrame:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                io.StringIO(text), sep=sep, header=0, names=names, index_col=False,
                keep_default_na=False, na_values=na, skipinitialspace=True,
                dtype=dtype, usecols=usecols, engine="c",
                # the C parser reads "3,14" itself; "1.5" and "1.234,5" are left to _as_numbers
                decimal="," if DECIMAL_COMMA.get(sep) == "always" else ".",
            )
    except pd.errors.ParserWarning:
        raise DataError(_ragged_message(records, sep, None)) from None
    except pd.errors.ParserError as err:
        raise DataError(_ragged_message(records, sep, str(err))) from None
    except (ValueError, OverflowError) as err:
        raise DataError(
            f"The file could not be read as a table ({err}). Check that it is a CSV file."
        ) from None


def _ragged_message(records, sep, pandas_message) -> str:
    width = len(records[0])
    line, count = None, None
    match = _LINE_IN_ERROR.search(pandas_message or "")
    if match:
        line, count = int(match.group(2)), int(match.group(3))
    else:
        for i, record in enumerate(records[1:], start=2):
            if len(record) != width:
                line, count = i, len(record)
                break
    where = f"Line {line} has {count} fields" if line else "Some rows have a different number of fields"
    return (
        f"{where}, but the header has {width} (separated by {DELIMITER_NAMES.get(sep, repr(sep))}s). "
        "Every row must have the same number of fields: check that line for an extra "
        "separator, or put values that contain the separator in double quotes."
    )


def _restore_booleans(frame, text, sep, names, na) -> pd.DataFrame:
    """Read columns pandas turned into True/False again as text: they are categories."""
    positions = [i for i, c in enumerate(frame.columns) if _is_boolish(frame[c])]
    if not positions:
        return frame
    raw = _read(text, sep, names, na, [names], dtype=str, usecols=positions)
    for i in positions:
        frame[names[i]] = raw[names[i]]
    return frame


def _is_boolish(column: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(column):
        return True
    if column.dtype != object:
        return False
    values = column.dropna()
    return len(values) > 0 and values.map(type).eq(bool).all()


def _tidy_column(column: pd.Series, na, decimal_comma: str | None) -> pd.Series:
    """Strip text cells, mark missing markers, and turn numbers stored as text into numbers."""
    if pd.api.types.is_numeric_dtype(column):
        return column
    text = column.astype("str").str.strip().where(column.notna())
    text = text.mask(text.isin(na))
    numbers = _as_numbers(text, decimal_comma)
    return text if numbers is None else numbers


def _as_numbers(text: pd.Series, decimal_comma: str | None) -> pd.Series | None:
    """The column as numbers when every value is one; None otherwise."""
    values = text.dropna()
    if values.empty:
        return None
    if decimal_comma and values.str.contains(",", regex=False).any():
        if not _is_decimal_comma(values, decimal_comma):
            return None
        text = text.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        values = text.dropna()
    head = pd.to_numeric(values.iloc[:50].to_numpy(dtype=object), errors="coerce")
    if np.isnan(np.asarray(head, dtype=float)).any():
        return None
    numbers = pd.to_numeric(text.to_numpy(dtype=object), errors="coerce")
    if numbers.dtype == object:  # values too large for int64 stay as they were written
        return None
    if np.isnan(np.asarray(numbers, dtype=float)).sum() > text.isna().sum():
        return None
    return pd.Series(numbers, index=text.index, name=text.name)


def _is_decimal_comma(values: pd.Series, mode: str) -> bool:
    if mode == "always":
        return bool(values.str.match(_DECIMAL_COMMA).all())
    if not values.str.match(_DECIMAL_COMMA).all():
        return False
    # Evidence that commas are decimal marks: "1.234,5" or "3,14" (not three digits).
    european = values.str.contains(".", regex=False) & values.str.contains(",", regex=False)
    return bool(european.any() or values.str.contains(_NOT_THOUSANDS).any())
