"""Data ingestion: every awkward file a student may upload, the schema, the Dataset.

Each awkward input is built here from bytes, so the test shows exactly what the file
holds; each asserts the values and dtypes read, or that DataError names the problem.
"""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data import (
    NA_VALUES,
    DataError,
    Dataset,
    infer_schema,
    list_samples,
    load_csv,
    load_sample,
    train_test_split,
)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"


def error_text(source, **kwargs) -> str:
    """The DataError message load_csv gives for ``source`` (lower-cased)."""
    with pytest.raises(DataError) as info:
        load_csv(source, **kwargs)
    return str(info.value).lower()


# ---------------------------------------------------------------- encodings
def test_utf8_with_bom_does_not_leak_into_the_first_name() -> None:
    df = load_csv("\ufeffname,size\nnaïve,3\n".encode("utf-8"))
    assert list(df.columns) == ["name", "size"]
    assert df["name"].tolist() == ["naïve"]
    assert df.attrs["encoding"] == "utf-8"


def test_utf8_without_bom() -> None:
    df = load_csv("ville,°C\nZürich,-2.5\n".encode())
    assert list(df.columns) == ["ville", "°C"]
    assert df["°C"].tolist() == [-2.5]


def test_utf16_le_with_bom_tab_separated_excel_unicode_text() -> None:
    data = b"\xff\xfe" + "name\tprice\tsold\ncafé\t3,5\t12\nthé\t2,25\t7\n".encode("utf-16-le")
    df = load_csv(data)
    assert df.attrs["encoding"] == "utf-16" and df.attrs["sep"] == "\t"
    assert df["name"].tolist() == ["café", "thé"]
    assert df["price"].tolist() == [3.5, 2.25]
    assert df["sold"].dtype == np.int64


def test_utf16_be_with_bom() -> None:
    df = load_csv("a\tb\nx\t1\n".encode("utf-16"))  # native order with its BOM
    assert df.to_dict("list") == {"a": ["x"], "b": [1]}
    big_endian = b"\xfe\xff" + "a\tb\nx\t1\n".encode("utf-16-be")
    assert load_csv(big_endian).to_dict("list") == {"a": ["x"], "b": [1]}


def test_utf16_without_bom_is_recognised_by_its_nul_bytes() -> None:
    df = load_csv("colour,n\nred,1\nblue,2\n".encode("utf-16-le"))
    assert df["colour"].tolist() == ["red", "blue"]
    assert df.attrs["encoding"] == "utf-16-le"


def test_cp1252_cafe_and_euro() -> None:
    data = "item,price\ncafé,€3\nthé,€2\n".encode("cp1252")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # the test is only meaningful if UTF-8 fails
    df = load_csv(data)
    assert df.attrs["encoding"] == "cp1252"
    assert df["item"].tolist() == ["café", "thé"]
    assert df["price"].tolist() == ["€3", "€2"]


def test_explicit_encoding_that_does_not_fit_is_a_data_error() -> None:
    message = error_text("café\n1\n".encode("cp1252"), encoding="utf-8")
    assert "utf-8" in message and "encoding" in message


def test_bytes_undefined_in_cp1252_are_refused_not_garbled() -> None:
    message = error_text(b"a,b\n\x81\x8d,\x90\n")
    assert "encoding" in message and "utf-8" in message


# ---------------------------------------------------------------- delimiters
def test_semicolon_with_decimal_commas_and_thousands_dots() -> None:
    df = load_csv(b"name;length;weight\nA;3,14;1.234,5\nB;2,5;12,0\nC;-0,75;7\n")
    assert df.attrs["sep"] == ";"
    assert df["length"].tolist() == [3.14, 2.5, -0.75]
    assert df["weight"].tolist() == [1234.5, 12.0, 7.0]
    assert df["length"].dtype == np.float64


def test_semicolon_with_dot_decimals_is_still_numeric() -> None:
    df = load_csv(b"a;b\n1.5;x\n2.5;y\n")
    assert df["a"].tolist() == [1.5, 2.5]


def test_semicolon_column_mixing_words_and_numbers_stays_text() -> None:
    df = load_csv(b"a;b\n3,5;x\nabout 4;y\n")
    assert df["a"].tolist() == ["3,5", "about 4"]


def test_tab_file_with_us_thousands_grouping_is_not_read_as_decimal_commas() -> None:
    df = load_csv(b"city\tpeople\nA\t1,234\nB\t56,789\n")
    assert df["people"].tolist() == ["1,234", "56,789"]


def test_tab_file_with_european_thousands_and_decimal_commas() -> None:
    df = load_csv("Stadt\tEinwohner\nKöln\t1.084.831,0\nBonn\t336,5\n".encode("utf-16"))
    assert df["Einwohner"].tolist() == [1084831.0, 336.5]


def test_pipe_separated() -> None:
    df = load_csv(b"a|b|c\n1|x|2.5\n2|y|3\n")
    assert df.attrs["sep"] == "|"
    assert df.to_dict("list") == {"a": [1, 2], "b": ["x", "y"], "c": [2.5, 3.0]}


def test_tab_separated() -> None:
    df = load_csv(b"a\tb\n1\thello, world\n2\tbye\n")
    assert df.attrs["sep"] == "\t"
    assert df["b"].tolist() == ["hello, world", "bye"]


def test_a_table_of_numbers_separated_by_spaces() -> None:
    # as scikit-learn's linnerud_exercise.csv: runs of spaces, aligned or not
    df = load_csv(b"Chins Situps Jumps\n5 162 60\n2  110   60\n12 101 101\n")
    assert df.to_dict("list") == {"Chins": [5, 2, 12], "Situps": [162, 110, 101],
                                  "Jumps": [60, 60, 101]}


@pytest.mark.parametrize("first", [b"0,0.64,0.64,1", b"0,0,5,13"])  # decimals; repeats
def test_a_first_line_of_numbers_is_the_first_row_not_the_names(first: bytes) -> None:
    # a UCI .data file (spambase.data, digits) has no header: its first row is data
    df = load_csv(first + b"\n0.21,0.28,0.5,1\n0.06,0,0.71,0\n")
    assert list(df.columns) == ["column 1", "column 2", "column 3", "column 4"]
    assert len(df) == 3 and df["column 4"].tolist()[1:] == [1, 0]
    assert any("Line 1 holds numbers" in note for note in df.attrs["notes"])


def test_distinct_whole_numbers_can_be_names() -> None:
    df = load_csv(b"2019,2020,2021\n1.5,2,3\n4,5,6.5\n")  # years over a wide table
    assert list(df.columns) == ["2019", "2020", "2021"] and len(df) == 2


@pytest.mark.parametrize("content", [
    b"name\nJohn Smith\nAnn Lee\nBo Ek\n",  # a column of two-word names
    b"review\nloved it so much\nnot good\n",  # sentences: no common width
    b"a b\nred 2\nblue 4\n",  # words, not numbers, below the header
])
def test_words_separated_by_spaces_stay_one_column(content: bytes) -> None:
    assert load_csv(content).shape[1] == 1


def test_delimiter_inside_quotes_does_not_count() -> None:
    df = load_csv(b'name;note\nA;"x;y;z"\nB;"p;q;r"\n')
    assert df.attrs["sep"] == ";"
    assert df["note"].tolist() == ["x;y;z", "p;q;r"]


def test_one_column_file_with_commas_inside_quotes_stays_one_column() -> None:
    df = load_csv(b'name\n"Smith, John"\n"Doe, Jane"\n"Roe, R."\n')
    assert df.shape == (3, 1)
    assert df["name"].tolist() == ["Smith, John", "Doe, Jane", "Roe, R."]


def test_one_column_of_numbers() -> None:
    df = load_csv(b"x\n1\n2\n3\n")
    assert df.shape == (3, 1) and df["x"].dtype == np.int64


def test_explicit_separator_overrides_the_sniffer() -> None:
    df = load_csv(b"a,b;c\n1,2;3\n", sep=";")
    assert list(df.columns) == ["a,b", "c"]


def test_excel_sep_directive_line_is_used_and_dropped() -> None:
    df = load_csv(b"sep=;\r\na;b\r\n1,5;x\r\n")
    assert df.to_dict("list") == {"a": [1.5], "b": ["x"]}


def test_old_mac_line_endings() -> None:
    assert load_csv(b"a,b\r1,2\r3,4\r").to_dict("list") == {"a": [1, 3], "b": [2, 4]}


def test_title_line_above_the_header_is_refused_with_advice() -> None:
    message = error_text(b"Sales report 2024\nregion,total\nnorth,12\nsouth,7\n")
    assert "line 1" in message and "title line" in message and "commas" in message


def test_one_column_of_decimal_commas() -> None:
    assert load_csv(b"x\n1,5\n-3\n0,25\n")["x"].tolist() == [1.5, -3.0, 0.25]


@pytest.mark.parametrize("sep", ["ab", "", '"', "\n"])
def test_explicit_separator_must_be_one_ordinary_character(sep: str) -> None:
    assert "one character" in error_text(b"a,b\n1,2\n", sep=sep)


# ---------------------------------------------------------------- quoting and values
def test_quoted_newlines_and_commas() -> None:
    df = load_csv(b'id,comment\n1,"line one\nline two"\n2,"a, b"\n3,"say ""hi"""\n')
    assert df["comment"].tolist() == ["line one\nline two", "a, b", 'say "hi"']
    assert df["id"].tolist() == [1, 2, 3]


def test_missing_markers_are_missing_but_none_is_a_value() -> None:
    rows = "\n".join(f"{m},1" for m in NA_VALUES)
    df = load_csv(f"value,k\n{rows}\nNone,2\nyes,3\n".encode())
    assert df["value"].isna().sum() == len(NA_VALUES)
    assert df["value"].dropna().tolist() == ["None", "yes"]
    assert {"?", "NA", "N/A", "NaN", "nan", "null", "NULL", "#N/A", "<NA>", ""} <= set(NA_VALUES)


def test_missing_markers_in_numeric_columns_leave_floats() -> None:
    df = load_csv(b"x,y\n1.5,?\nNA,2\n,3\n")
    assert df["x"].dtype == np.float64 and df["x"].isna().tolist() == [False, True, True]
    assert df["y"].tolist()[1:] == [2.0, 3.0] and np.isnan(df["y"][0])


def test_na_values_override_keeps_question_mark() -> None:
    df = load_csv(b"root,y\n?,e\nb,p\n,e\n", na_values=[])
    assert df["root"].tolist()[:2] == ["?", "b"]
    assert pd.isna(df["root"][2])  # an empty cell is always missing


def test_na_values_may_be_a_single_string() -> None:
    df = load_csv(b"a,b\n?,x\n-,y\n", na_values="-")
    assert df["a"].tolist()[0] == "?" and pd.isna(df["a"][1])


def test_whitespace_is_stripped_around_headers_and_values() -> None:
    df = load_csv(b" a , b \n 1 , x \n 2 ,  NA \n")
    assert list(df.columns) == ["a", "b"]
    assert df["a"].tolist() == [1, 2]
    assert df["b"].tolist()[0] == "x" and pd.isna(df["b"][1])


def test_true_false_and_yes_no_stay_text() -> None:
    df = load_csv(b"a,b,c\nTrue,yes,1\nFALSE,no,0\n,yes,1\n")
    assert df["a"].tolist()[:2] == ["True", "FALSE"] and pd.isna(df["a"][2])
    assert df["b"].tolist() == ["yes", "no", "yes"]
    assert df["c"].dtype == np.int64
    assert infer_schema(df).loc[["a", "b", "c"], "kind"].tolist() == [
        "categorical", "categorical", "numeric"]


def test_integers_and_floats() -> None:
    df = load_csv(b"i,f,e\n1,1.5,1e3\n-2,2,2.5E-1\n")
    assert df["i"].dtype == np.int64 and df["f"].dtype == np.float64
    assert df["e"].tolist() == [1000.0, 0.25]


# ---------------------------------------------------------------- header
def test_duplicate_headers_are_numbered_and_reported() -> None:
    df = load_csv(b"a,a,b,a\n1,2,3,4\n")
    assert list(df.columns) == ["a", "a (2)", "b", "a (3)"]
    assert df.iloc[0].tolist() == [1, 2, 3, 4]
    assert any("'a' appears 3 times" in note for note in df.attrs["notes"])


def test_duplicate_header_numbering_avoids_existing_names() -> None:
    df = load_csv(b"a,a (2),a\n1,2,3\n")
    assert list(df.columns) == ["a", "a (2)", "a (3)"]


def test_empty_header_cells_are_named_by_position() -> None:
    df = load_csv(b"a,,c,\n1,2,3,4\n")
    assert list(df.columns) == ["a", "column_2", "c", "column_4"]
    assert any("column_2" in note for note in df.attrs["notes"])


def test_trailing_separator_gives_an_empty_column() -> None:
    df = load_csv(b"a,b,\n1,2,\n3,4,\n")
    assert list(df.columns) == ["a", "b", "column_3"]
    assert infer_schema(df).loc["column_3", "kind"] == "empty"


# ---------------------------------------------------------------- refused files
@pytest.mark.parametrize(
    "data, words",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["png", "csv"]),
        (b"PK\x03\x04\x14\x00\x06\x00\x08\x00[Content_Types].xml", ["excel", "save as", "csv"]),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", ["excel", "save as"]),
        (b"%PDF-1.7\n%\xe2\xe3", ["pdf"]),
        (b"a,b\n1,\x00\x012\n", ["binary", "csv"]),
    ],
    ids=["png", "xlsx", "xls", "pdf", "nul-bytes"],
)
def test_binary_files_are_refused_with_advice(data: bytes, words: list[str]) -> None:
    message = error_text(data)
    assert all(word in message for word in words), message


@pytest.mark.parametrize("data", [b"", b"   \n\n\t\n", b"\xef\xbb\xbf"], ids=["empty", "blank", "bom"])
def test_empty_files_are_refused(data: bytes) -> None:
    assert "empty" in error_text(data)


def test_header_only_file_is_refused() -> None:
    message = error_text(b"a,b,c\n")
    assert "header" in message and "no data rows" in message


def test_row_with_too_many_fields_names_its_line() -> None:
    message = error_text(b"a,b\n1,2\n3,4\n5,6,7\n8,9\n")
    assert "line 4" in message and "3 fields" in message and "header has 2" in message
    assert "quotes" in message


def test_first_data_row_too_long_is_not_turned_into_an_index() -> None:
    message = error_text(b"a,b\n1,2,3\n4,5\n")
    assert "line 2" in message and "3 fields" in message


def test_short_rows_are_padded_with_missing_values() -> None:
    df = load_csv(b"a,b,c\n1,2,3\n4,5\n")
    assert df["c"].isna().tolist() == [False, True]


def test_missing_path() -> None:
    message = error_text("/no/such/file.csv")
    assert "no readable file" in message and "file.csv" in message


# ---------------------------------------------------------------- sources
def test_uploaded_file_object_like_streamlit(tmp_path: Path) -> None:
    upload = io.BytesIO(b"x;y\n1,5;a\n2,5;b\n")
    upload.name = "measurements.csv"
    upload.read()  # a page may already have read it: getvalue() still has every byte
    df = load_csv(upload)
    assert df["x"].tolist() == [1.5, 2.5]
    path = tmp_path / "m.csv"
    path.write_bytes(b"x,y\n1,a\n")
    assert load_csv(path).shape == load_csv(str(path)).shape == (1, 2)


def test_reader_without_getvalue_and_bytearray() -> None:
    class Reader:
        def __init__(self) -> None:
            self.inner = io.BytesIO(b"k,v\na,1\n")

        def read(self) -> bytes:
            return self.inner.read()

    assert load_csv(Reader()).to_dict("list") == {"k": ["a"], "v": [1]}
    assert load_csv(bytearray(b"k\n1\n"))["k"].tolist() == [1]


def test_unsupported_source_type() -> None:
    assert "cannot read" in error_text(12345)


# ---------------------------------------------------------------- schema
def test_infer_schema_kinds_counts_and_reasons() -> None:
    n = 12
    df = pd.DataFrame({
        "row": np.arange(1, n + 1),
        "code": [f"C{i:03d}" for i in range(n)],
        # free text: every review its own (two sentences repeated would be two categories)
        "review": [f"the food was great, visit {i}" for i in range(n - 1)] + [None],
        "site": ["A"] * n,
        "blank": [np.nan] * n,
        "height": np.linspace(1.5, 2.0, n),
        "stars": [1, 2, 3] * 4,
        "colour": ["red", "blue", None] * 4,
        "flag": [True, False] * 6,
    })
    schema = infer_schema(df)
    assert schema["kind"].to_dict() == {
        "row": "id", "code": "id", "review": "text", "site": "constant", "blank": "empty",
        "height": "numeric", "stars": "numeric", "colour": "categorical", "flag": "categorical",
    }
    assert schema["include"].to_dict() == {
        c: k not in ("id", "constant", "empty") for c, k in schema["kind"].items()}
    assert schema.loc["colour", "n_distinct"] == 2 and schema.loc["colour", "n_missing"] == 4
    assert schema.loc["blank", "reason"] == "all missing"
    assert "one value" in schema.loc["site", "reason"]
    assert "identifier" in schema.loc["code", "reason"]
    assert schema.loc["height", "dtype"] == "float64"


def test_unique_integers_that_are_not_a_run_are_numeric() -> None:
    df = pd.DataFrame({"x": [3, 17, 5, 40, 2], "y": [5, 4, 3, 2, 1]})
    assert infer_schema(df)["kind"].tolist() == ["numeric", "id"]


def test_five_row_unique_labels_are_an_id() -> None:
    df = pd.DataFrame({"name": list("abcde"), "y": [0, 1, 0, 1, 1]})
    assert infer_schema(df).loc["name", "kind"] == "id"


SHARED_KINDS = {
    "playtennis.csv": {"Day": "id", "Outlook": "categorical", "PlayTennis": "categorical"},
    "restaurant.csv": {"Example": "id", "Patrons": "categorical", "WillWait": "categorical"},
    "zoo.csv": {"animal": "id", "legs": "numeric", "hair": "numeric", "type": "categorical"},
    "iris.csv": {"sepal_length": "numeric", "species": "categorical"},
    "loan.csv": {"Credit": "categorical", "y": "categorical"},
    "kitchen.csv": {"y": "numeric", "x_1": "numeric", "x_2": "numeric"},
    "mushroom.csv": {"odor": "categorical", "veil-type": "constant", "stalk-root": "categorical"},
    "spambase.csv": {"word_freq_make": "numeric", "spam": "numeric"},
}


@pytest.mark.parametrize("name", sorted(SHARED_KINDS))
def test_infer_schema_on_every_shared_file(name: str) -> None:
    path = SHARED / name
    if not path.is_file():
        pytest.skip(f"{path} not found")
    df = load_csv(path)
    reference = pd.read_csv(path, keep_default_na=False)
    assert df.shape == reference.shape
    schema = infer_schema(df)
    assert list(schema.index) == list(reference.columns)
    for column, kind in SHARED_KINDS[name].items():
        assert schema.loc[column, "kind"] == kind, column
    assert (schema["n_distinct"] == reference.nunique()).where(schema["n_missing"] == 0, True).all()


def test_question_mark_in_mushroom_is_missing_by_default_and_a_value_on_request() -> None:
    path = SHARED / "mushroom.csv"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    n_question = int((pd.read_csv(path, keep_default_na=False)["stalk-root"] == "?").sum())
    assert n_question == 2480  # UCI documents 2480 missing stalk-root values
    as_missing = infer_schema(load_csv(path)).loc["stalk-root"]
    as_value = infer_schema(load_csv(path, na_values=[])).loc["stalk-root"]
    assert (as_missing["n_missing"], as_value["n_missing"]) == (n_question, 0)
    assert as_value["n_distinct"] == as_missing["n_distinct"] + 1


def test_restaurant_none_is_a_value() -> None:
    path = SHARED / "restaurant.csv"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    patrons = load_csv(path)["Patrons"]
    assert patrons.notna().all() and set(patrons) == {"None", "Some", "Full"}


# ---------------------------------------------------------------- Dataset
def tennis() -> pd.DataFrame:
    """PlayTennis of Mitchell (1997), Table 3.2, built here (9 Yes, 5 No)."""
    outlook = "Sunny Sunny Overcast Rain Rain Rain Overcast Sunny Sunny Rain Sunny Overcast Overcast Rain"
    wind = "Weak Strong Weak Weak Weak Strong Strong Weak Weak Weak Strong Strong Weak Strong"
    play = "No No Yes Yes Yes No Yes No Yes Yes Yes Yes Yes No"
    return pd.DataFrame({
        "Day": [f"D{i}" for i in range(1, 15)], "Outlook": outlook.split(),
        "Wind": wind.split(), "Humidity": [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91],
        "PlayTennis": play.split(),
    })


def test_dataset_defaults_drop_ids_and_infer_classification() -> None:
    data = Dataset(tennis(), "PlayTennis")
    assert data.features == ["Outlook", "Wind", "Humidity"]
    assert data.task == "classification" and data.class_names == ["No", "Yes"]
    assert data.feature_kinds == {"Outlook": "categorical", "Wind": "categorical", "Humidity": "numeric"}
    assert isinstance(data.X["Outlook"].dtype, pd.CategoricalDtype)
    assert data.X["Humidity"].dtype == np.float64
    assert (len(data.X_train), len(data.X_test)) == (10, 4)  # ceil(0.25 * 14) = 4
    assert data.stratified and data.n_dropped == 0


def test_stratified_split_keeps_class_shares() -> None:
    y = pd.Series(["a"] * 60 + ["b"] * 30 + ["c"] * 10, name="label")
    frame = pd.DataFrame({"x": np.arange(100) % 7, "label": y})
    data = Dataset(frame, "label", test_size=0.2, random_state=3)
    assert data.y_test.value_counts().to_dict() == {"a": 12, "b": 6, "c": 2}
    balance = data.class_balance()
    assert list(balance.columns) == ["class", "split", "count", "share"]
    test_rows = balance[balance["split"] == "test"]
    np.testing.assert_allclose(test_rows["share"], [0.6, 0.3, 0.1])
    assert balance[balance["split"] == "all"]["count"].tolist() == [60, 30, 10]
    assert balance.groupby("split")["share"].sum().round(12).eq(1).all()


def test_split_is_reproducible_and_seed_dependent() -> None:
    first = Dataset(tennis(), "PlayTennis", random_state=7)
    again = Dataset(tennis(), "PlayTennis", random_state=7)
    other = Dataset(tennis(), "PlayTennis", random_state=8)
    assert first.X_test.index.tolist() == again.X_test.index.tolist()
    assert first.X_test.index.tolist() != other.X_test.index.tolist()
    assert first.content_hash == again.content_hash != other.content_hash


def test_split_parts_partition_the_rows() -> None:
    data = Dataset(tennis(), "PlayTennis")
    rows = sorted(data.X_train.index.tolist() + data.X_test.index.tolist())
    assert rows == list(range(14))
    assert data.y_train.index.equals(data.X_train.index)


def test_content_hash_changes_with_data_target_features_and_kinds() -> None:
    frame = tennis()
    base = Dataset(frame, "PlayTennis").content_hash
    assert len(base) == 64 and int(base, 16) >= 0
    changed = frame.copy()
    changed.loc[0, "Humidity"] = 86
    assert Dataset(changed, "PlayTennis").content_hash != base
    assert Dataset(frame, "Wind").content_hash != base
    assert Dataset(frame, "PlayTennis", features=["Outlook"]).content_hash != base
    assert Dataset(frame, "PlayTennis", kinds={"Humidity": "categorical"}).content_hash != base
    assert Dataset(frame, "PlayTennis", test_size=0.3).content_hash != base


def test_content_hash_is_the_same_in_another_process() -> None:
    code = (
        "import pandas as pd; from engine.data import Dataset;"
        "f = pd.DataFrame({'x': [1.5, 2.5, 3.5, 4.5], 'c': list('abab'), 'y': ['p', 'q', 'p', 'q']});"
        "print(Dataset(f, 'y', test_size=0.5).content_hash)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.strip()
    frame = pd.DataFrame({"x": [1.5, 2.5, 3.5, 4.5], "c": list("abab"), "y": ["p", "q", "p", "q"]})
    assert out == Dataset(frame, "y", test_size=0.5).content_hash


@pytest.mark.parametrize(
    "target, expected",
    [
        (pd.Series([0, 1, 2, 1, 0, 2] * 3), "classification"),
        (pd.Series([0.0, 1.0, 1.0, 0.0] * 4), "classification"),
        (pd.Series(["x", "y"] * 5), "classification"),
        (pd.Series([True, False] * 5), "classification"),
        (pd.Series(np.linspace(0, 1, 12)), "regression"),
        (pd.Series(np.arange(30) % 25), "regression"),  # 25 distinct integers
        # linnerud's Jumps: 17 whole numbers in 20 rows, nearly one a row: a measurement
        (pd.Series([60, 101, 101, 37, 58, 42, 38, 40, 62, 105, 31, 33, 42, 48, 60, 72, 73,
                    58, 55, 50]), "regression"),
        (pd.Series([0, 1, 1, 0, 1]), "classification"),  # five rows, two of a class or more
    ],
    ids=["few-ints", "int-valued-floats", "strings", "bool", "floats", "many-ints",
         "a-value-a-row", "small-table"],
)
def test_task_inference(target: pd.Series, expected: str) -> None:
    frame = pd.DataFrame({"x": np.arange(len(target)) % 3, "t": target})
    assert Dataset(frame, "t").task == expected


def test_task_can_be_changed_and_regression_has_no_classes() -> None:
    frame = pd.DataFrame({"x": np.arange(20) % 4, "t": np.arange(20) % 5})
    data = Dataset(frame, "t", task="regression")
    assert data.task == "regression" and data.class_names is None and not data.stratified
    assert data.y.dtype == np.float64
    with pytest.raises(DataError, match="regression"):
        data.class_balance()


def test_integer_valued_float_target_gives_integer_class_names() -> None:
    frame = pd.DataFrame({"x": [3, 1, 4, 1, 5, 9, 2, 6], "t": [1.0, 0.0] * 4})
    assert Dataset(frame, "t").class_names == [0, 1]


def test_missing_targets_are_dropped_and_counted() -> None:
    frame = tennis()
    frame.loc[[2, 5], "PlayTennis"] = np.nan
    data = Dataset(frame, "PlayTennis")
    assert data.n_dropped == 2 and len(data.y) == 12
    assert 2 not in data.X.index and 5 not in data.X.index


def test_kind_overrides_cast_columns() -> None:
    frame = pd.DataFrame({
        "n": ["1", "2", "x", "4"] * 3, "c": [1.0, 2.0, np.nan, 1.0] * 3,
        "t": ["a b c", "d e f", "g", None] * 3, "y": list("pqpq") * 3,
    })
    data = Dataset(frame, "y", kinds={"n": "numeric", "c": "categorical", "t": "text"})
    assert data.X["n"].tolist()[:4] == [1.0, 2.0, pytest.approx(np.nan, nan_ok=True), 4.0]
    assert list(data.X["c"].cat.categories) == ["1", "2"] and data.X["c"].isna().sum() == 3
    assert data.X["t"].tolist()[:3] == ["a b c", "d e f", "g"] and data.X["t"].isna().sum() == 3


def test_numeric_override_of_words_is_refused() -> None:
    with pytest.raises(DataError, match="categorical") as info:
        Dataset(tennis(), "PlayTennis", kinds={"Outlook": "numeric"})
    assert "Outlook" in str(info.value) and "Sunny" in str(info.value)


def test_tiny_dataset_falls_back_to_an_unstratified_split() -> None:
    frame = pd.DataFrame({"x_1": [1, 0, 1, 1, 0], "x_2": [0, 1, 1, 0, 0], "y": [1, 0, 1, 1, 0]})
    data = Dataset(frame, "y")
    assert data.stratified and len(data.X_test) == 2
    lonely = pd.DataFrame({"x": [0.5, 1.5, 0.5, 2.0, 1.0, 0.5], "y": list("aabbbc")})
    data = Dataset(lonely, "y")
    assert not data.stratified and len(data.X_test) == 2 and data.class_names == ["a", "b", "c"]


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"target": "nope"}, ["no column", "nope"]),
        ({"target": "PlayTennis", "features": ["Outlook", "PlayTennis"]}, ["also chosen", "feature"]),
        ({"target": "PlayTennis", "features": ["Wnd"]}, ["do not exist", "wnd"]),
        ({"target": "PlayTennis", "kinds": {"Wind": "nominal"}}, ["nominal", "categorical"]),
        ({"target": "PlayTennis", "task": "clustering"}, ["classification", "regression"]),
        ({"target": "PlayTennis", "test_size": 1.5}, ["between 0 and 1"]),
        ({"target": "Outlook", "task": "regression"}, ["not numbers", "outlook"]),
    ],
    ids=["no-target", "target-in-features", "unknown-feature", "bad-kind", "bad-task",
         "bad-test-size", "regress-words"],
)
def test_dataset_errors_say_what_to_do(kwargs: dict, words: list[str]) -> None:
    with pytest.raises(DataError) as info:
        Dataset(tennis(), **kwargs)
    assert all(word in str(info.value).lower() for word in words), str(info.value)


def test_no_features_left_is_refused() -> None:
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(6)], "y": list("ababab")})
    with pytest.raises(DataError, match="at least one column"):
        Dataset(frame, "y")
    with pytest.raises(DataError, match="at least one column"):
        Dataset(tennis(), "PlayTennis", features=[])


def test_duplicate_column_names_in_a_frame_are_refused() -> None:
    frame = pd.DataFrame([[1, 2, "a"], [3, 4, "b"]], columns=["x", "x", "y"])
    with pytest.raises(DataError, match="unique"):
        Dataset(frame, "y")


def test_one_class_all_missing_and_too_many_classes() -> None:
    frame = tennis().assign(one="Yes", none=np.nan, many=[f"k{i}" for i in range(14)])
    with pytest.raises(DataError, match="only one class"):
        Dataset(frame, "one")
    with pytest.raises(DataError, match="missing in every row"):
        Dataset(frame, "none")
    big = pd.DataFrame({"x": np.arange(300) % 7, "y": [f"label {i}" for i in range(300)]})
    with pytest.raises(DataError, match="too many classes") as info:
        Dataset(big, "y")
    assert "regression" in str(info.value)


# ---------------------------------------------------------------- train_test_split
def test_train_test_split_arrays_and_frames() -> None:
    X, y = np.arange(20).reshape(10, 2), np.arange(10)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    assert X_train.shape == (7, 2) and X_test.shape == (3, 2)
    np.testing.assert_array_equal(X_test[:, 0] // 2, y_test)
    frame = pd.DataFrame(X, index=list("abcdefghij"))
    F_train, F_test, s_train, s_test = train_test_split(frame, pd.Series(y, index=frame.index),
                                                        test_size=0.3, random_state=0)
    assert F_test.index.tolist() == s_test.index.tolist() == list(np.array(list("abcdefghij"))[y_test])


def test_train_test_split_stratified_per_class_share() -> None:
    y = np.repeat([0, 1, 2], [40, 40, 20])
    _, _, _, y_test = train_test_split(np.zeros((100, 1)), y, test_size=0.25, stratify=y,
                                       random_state=1)
    assert np.bincount(y_test).tolist() == [10, 10, 5]


def test_train_test_split_counts_are_free_of_float_noise() -> None:
    # 0.7 * 10 is 7.000000000000001 in floating point: still 7 test rows, not 8
    assert len(train_test_split(np.zeros((10, 1)), np.arange(10), test_size=0.7)[1]) == 7


def test_train_test_split_stratified_with_mixed_label_types_and_a_lonely_class() -> None:
    y = np.array(["a", 1, "a", 1, "a", 1, "b", "b"], dtype=object)
    _, _, _, y_test = train_test_split(np.zeros((8, 1)), y, test_size=0.5, stratify=y,
                                       random_state=0)
    # exact shares 1.5, 1.5, 1.0 test rows: floors 1, 1, 1, the spare row to the first tie
    assert sorted(map(str, y_test)) == ["1", "a", "a", "b"]
    with pytest.raises(DataError, match="without stratification"):
        train_test_split(np.zeros((3, 1)), [0, 0, 1], stratify=[0, 0, 1], test_size=0.5)


@pytest.mark.parametrize("test_size", [0.0, 1.0, -0.1, 0.01])
def test_train_test_split_refuses_empty_parts(test_size: float) -> None:
    if test_size == 0.01:  # ceil(0.01 * 3) = 1 test row, 2 train rows: allowed
        assert len(train_test_split(np.zeros((3, 1)), np.arange(3), test_size=0.01)[1]) == 1
        with pytest.raises(DataError, match="no rows"):
            train_test_split(np.zeros((1, 1)), np.arange(1), test_size=0.01)
        return
    with pytest.raises(DataError):
        train_test_split(np.zeros((10, 1)), np.arange(10), test_size=test_size)


# ---------------------------------------------------------------- samples
def test_list_samples_and_load_every_sample() -> None:
    samples = list_samples()
    if not samples:
        pytest.skip("sample_data/catalog.json not written yet")
    for entry in samples:
        df = load_sample(entry["name"])
        assert entry["target"] in df.columns, entry["name"]
        excluded = [c for c in entry.get("exclude", []) if c in df.columns]
        assert len(excluded) == len(entry.get("exclude", []))


def test_load_sample_returns_copies_and_keeps_catalog_na_values() -> None:
    names = {entry["name"] for entry in list_samples()}
    if not {"restaurant", "mushroom"} <= names:
        pytest.skip("restaurant/mushroom not in the catalog yet")
    first = load_sample("restaurant")
    first.loc[0, "Patrons"] = "changed"
    assert load_sample("restaurant").loc[0, "Patrons"] != "changed"
    assert "None" in set(load_sample("restaurant")["Patrons"])
    assert (load_sample("mushroom")["stalk-root"] == "?").sum() == 2480


def test_unknown_sample_lists_the_valid_names() -> None:
    with pytest.raises(DataError) as info:
        load_sample("no-such-sample")
    message = str(info.value)
    assert "no-such-sample" in message
    for entry in list_samples():
        assert entry["name"] in message


def test_on_all_rows_fits_and_scores_every_row_under_its_own_hash():
    frame = pd.DataFrame({"x": np.random.default_rng(0).normal(size=20), "y": ["a", "b"] * 10})
    data = Dataset(frame, "y")
    whole = data.on_all_rows()
    assert whole.all_rows and not data.all_rows
    assert whole.X_train is data.X and whole.X_test is data.X  # shared, not copied
    assert whole.y_train.equals(data.y) and whole.y_test.equals(data.y)
    assert len(data.y_train) == 15  # the split itself is untouched
    assert whole.content_hash != data.content_hash
    assert whole.content_hash == Dataset(frame, "y").on_all_rows().content_hash
