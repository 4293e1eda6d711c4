"""Spreadsheet-safe CSV export and checking new rows against a model's columns."""
from __future__ import annotations

import io
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.data import DataError, load_csv
from engine.ensemble import GradientBoostingRegressor, RandomForestClassifier
from engine.export import (
    align_new_rows,
    escape_cell,
    predictions_csv,
    predictions_table,
    training_columns,
)
from engine.naive_bayes import CategoricalNB, MixedNB
from engine.tree import DecisionTreeClassifier

DANGEROUS = tuple("=+-@\t\r\n\x00\x1b\x7f")


def read_back(data: bytes) -> pd.DataFrame:
    """The CSV as a spreadsheet sees it: every cell as text, nothing read as missing."""
    return pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)


# ------------------------------------------------------------------------ CSV


@pytest.mark.parametrize("cell", ["=1+1", "+33 6 12", "-2+3", "@SUM(A1)", "\tcmd", "\rx",
                                  "\x00nul", "\x1bESC", "=HYPERLINK(\"http://x\")"])
def test_formula_like_text_is_prefixed(cell):
    assert escape_cell(cell) == "'" + cell
    frame = pd.DataFrame({"text": [cell, "plain"]})
    assert read_back(predictions_csv(frame))["text"].tolist() == ["'" + cell, "plain"]


@pytest.mark.parametrize("cell", ["plain", "", "'=already quoted", " =leading space", "1e5", "Ω"])
def test_harmless_text_is_left_alone(cell):
    assert escape_cell(cell) == cell


def test_numbers_stay_numbers_and_headers_are_escaped():
    frame = pd.DataFrame({"=cmd": [-1.5, 2.0], "-n": [-3, 4], "ok": [True, False],
                          "P(-1)": [0.25, 0.75]})
    text = predictions_csv(frame).decode()
    header, first, _ = text.split("\r\n", 2)
    assert header == "'=cmd,'-n,ok,P(-1)"
    assert first == "-1.5,-3,True,0.25"
    back = pd.read_csv(io.StringIO(text))
    assert back["'-n"].dtype == np.int64 and back["'=cmd"].tolist() == [-1.5, 2.0]


def test_mixed_object_column_escapes_only_its_text():
    frame = pd.DataFrame({"v": pd.Series([-5, "-5", None, "=x"], dtype=object)})
    assert read_back(predictions_csv(frame))["v"].tolist() == ["-5", "'-5", "", "'=x"]


def test_categorical_column_and_frame_are_not_mutated():
    frame = pd.DataFrame({"c": pd.Categorical(["=a", "b"])})
    before = frame.copy()
    assert read_back(predictions_csv(frame))["c"].tolist() == ["'=a", "b"]
    pd.testing.assert_frame_equal(frame, before)


CELLS = st.text(alphabet=string.printable + "=+-@\x00\x01\x1bé€", max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(CELLS, CELLS), min_size=1, max_size=8), CELLS)
def test_no_cell_starts_like_a_formula_and_nothing_else_changes(rows, header):
    frame = pd.DataFrame(rows, columns=[header or "h", "second"])
    back = read_back(predictions_csv(frame))
    cells = [(str(c), o) for c, o in zip(back.columns, [header or "h", "second"], strict=True)]
    cells += [(b, o) for col in range(2) for b, o in zip(back.iloc[:, col], frame.iloc[:, col],
                                                         strict=True)]
    for written, original in cells:
        assert written == escape_cell(original)
        assert not written.startswith(DANGEROUS)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=10))
def test_numbers_round_trip_exactly(values):
    frame = pd.DataFrame({"x": values})
    back = pd.read_csv(io.BytesIO(predictions_csv(frame)))
    np.testing.assert_array_equal(back["x"].to_numpy(), np.asarray(values))


def test_predictions_table_has_probabilities_that_match_the_model():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "c": ["x", "y", "x", "y"]})
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, ["no", "no", "yes", "yes"])
    table = predictions_table(model, X)
    assert table.columns.tolist() == ["prediction", "P(no)", "P(yes)"]
    np.testing.assert_array_equal(table[["P(no)", "P(yes)"]].to_numpy(), model.predict_proba(X))
    assert table["prediction"].tolist() == model.predict(X).tolist()
    regressor = GradientBoostingRegressor(n_estimators=3).fit(X, [1.0, 2.0, 3.0, 4.0])
    assert predictions_table(regressor, X).columns.tolist() == ["prediction"]


# ------------------------------------------------------------------- new rows


@pytest.fixture(scope="module")
def fruit():
    X = pd.DataFrame({"colour": ["red", "green", "red", "yellow"] * 5,
                      "size": np.linspace(1.0, 5.0, 20),
                      "grade": ["1", "2", "3", "1"] * 5})
    y = ["apple", "pear", "apple", "banana"] * 5
    return X, y


def test_columns_are_reordered_and_extra_ones_dropped(fruit):
    X, y = fruit
    tree = DecisionTreeClassifier().fit(X, y)
    new = pd.DataFrame({"id": [1, 2], "size": [2.0, None], "grade": ["2", "3"],
                        "colour": ["red", "green"]})
    rows, notices = align_new_rows(new, tree)
    assert rows.columns.tolist() == ["colour", "size", "grade"]
    assert notices == ["Column(s) 'id' not used by the model: left out."]
    np.testing.assert_array_equal(tree.predict(rows), tree.predict(new[["colour", "size", "grade"]]))


def test_missing_columns_are_named(fruit):
    X, y = fruit
    tree = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(DataError, match="lack the column\\(s\\) 'colour', 'grade'"):
        align_new_rows(pd.DataFrame({"size": [1.0]}), tree)
    many = DecisionTreeClassifier().fit(pd.DataFrame({f"c{j}": [0, 1] for j in range(9)}), [0, 1])
    with pytest.raises(DataError, match="'c0', 'c1', 'c2', 'c3', 'c4' and 4 more that"):
        align_new_rows(pd.DataFrame({"x": [1]}), many)


def test_unseen_categories_are_listed_and_the_model_still_predicts(fruit):
    X, y = fruit
    for model, rule in ((DecisionTreeClassifier().fit(X, y), "branch that held the most"),
                        (MixedNB().fit(X, y), "α / (N + α k)")):
        new = pd.DataFrame({"colour": ["purple", "red", "purple", "blue"], "size": [1.0] * 4,
                            "grade": ["1"] * 4})
        rows, notices = align_new_rows(new, model)
        assert len(notices) == 2
        assert "'purple', 'blue'" in notices[0] and "(3 row(s))" in notices[0]
        assert rule in notices[1]
        assert model.predict_proba(rows).shape == (4, 3)


def test_numbers_read_for_a_text_category_are_matched_as_text(fruit):
    X, y = fruit
    model = CategoricalNB().fit(X[["colour", "grade"]], y)
    uploaded = load_csv(b"colour,grade\nred,2\ngreen,3\n")
    assert uploaded["grade"].dtype.kind in "if"  # the reader saw numbers
    rows, notices = align_new_rows(uploaded, model)
    assert notices == [] and rows["grade"].tolist() == ["2", "3"]


def test_text_in_a_numeric_column_is_a_clear_error(fruit):
    X, y = fruit
    model = DecisionTreeClassifier().fit(X, y)
    new = pd.DataFrame({"colour": ["red"] * 2, "size": ["big", "3.0"], "grade": ["1"] * 2})
    with pytest.raises(DataError, match="Column 'size' held numbers in training.*'big'"):
        align_new_rows(new, model)
    with pytest.raises(DataError, match="infinite"):
        align_new_rows(new.assign(size=[np.inf, 1.0]), model)
    with pytest.raises(DataError, match="empty"):
        align_new_rows(new.iloc[:0], model)


def test_training_columns_of_a_mixed_nb_with_text():
    X = pd.DataFrame({"colour": ["red", "blue", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0],
                      "review": ["good sweet fruit", "bad sour fruit", "sweet ripe apple",
                                 "hard bitter thing"]})
    model = MixedNB().fit(X, ["a", "b", "a", "b"])
    kinds = training_columns(model)
    assert {k: v[0] for k, v in kinds.items()} == {"colour": "categorical", "size": "numeric",
                                                   "review": "text"}
    assert list(kinds["colour"][1]) == ["blue", "red"]
    rows, _ = align_new_rows(X.assign(review=[None, "new words", "x", "y"]), model)
    assert model.predict(rows).shape == (4,)
