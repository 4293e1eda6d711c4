"""Fuzzing the path from a table to a Dataset and its charts (load_csv itself is fuzzed in
test_data_properties.py; this file starts where it ends).

Hypothesis draws hostile DataFrames (mixed dtypes, NaN, ±inf, huge and tiny floats, empty
strings, HTML, emoji, one row, one column, all-missing and constant columns, duplicate
names written to CSV and read back) and sends them through ``infer_schema``, ``Dataset``
(every column as the target, every task) and the Data page's charts
(``viz.data_charts``). The contract: a result, or a ``ValueError``/``DataError`` with a
message; never another exception type.

Budget: ``GLASSBOX_FUZZ_EXAMPLES`` (default 40).
"""
from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.data import KINDS, DataError, Dataset, infer_schema, load_csv
from viz import data_charts
from viz.style import Style

from .test_fuzz_estimators import HOSTILE_WORDS, frames

EXAMPLES = int(os.environ.get("GLASSBOX_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def refused(error: ValueError) -> None:
    assert str(error).strip(), f"{type(error).__name__} without a message"


def check_schema(frame: pd.DataFrame) -> pd.DataFrame:
    schema = infer_schema(frame)
    assert list(schema.index) == [str(c) for c in frame.columns] or len(schema) == frame.shape[1]
    assert set(schema["kind"]) <= set(KINDS)
    assert (schema["n_missing"] <= len(frame)).all() and (schema["n_distinct"] >= 0).all()
    return schema


def check_dataset(frame: pd.DataFrame, target: str, task: str | None, stratify: bool) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            dataset = Dataset(frame, target, task=task, stratify=stratify, random_state=0)
    except ValueError as error:
        refused(error)
        return
    assert len(dataset.X_train) + len(dataset.X_test) == len(dataset.y)
    assert len(dataset.y) + dataset.n_dropped == len(frame)
    assert target not in dataset.features
    style = Style()
    if dataset.task == "classification":
        balance = dataset.class_balance()
        assert balance["class"].nunique() == len(dataset.class_names)
        data_charts.class_balance_figure(balance, style).to_json()
    else:
        data_charts.target_histogram(dataset.y, style).to_json()


@FUZZ
@given(frame=frames(max_rows=15), data=st.data())
def test_schema_dataset_and_charts_answer_or_explain(frame, data):
    schema = check_schema(frame)
    data_charts.missing_values_figure(schema, len(frame), Style()).to_json()
    target = data.draw(st.sampled_from(list(frame.columns)))
    task = data.draw(st.sampled_from([None, "classification", "regression"]))
    check_dataset(frame, target, task, data.draw(st.booleans()))


@FUZZ
@given(frame=frames(max_rows=15), data=st.data())
def test_a_frame_written_to_csv_reads_back_into_a_dataset_or_a_clear_error(frame, data):
    """The upload path: bytes → load_csv → schema → Dataset, as ui.state does it."""
    sep = data.draw(st.sampled_from([",", ";", "\t"]))
    try:
        loaded = load_csv(frame.to_csv(index=False, sep=sep).encode("utf-8"))
    except DataError as error:
        refused(error)
        return
    check_schema(loaded)
    check_dataset(loaded, str(loaded.columns[-1]), None, True)


@FUZZ
@given(n_rows=st.integers(1, 30), n_classes=st.integers(1, 40), data=st.data())
def test_string_targets_with_many_or_one_class(n_rows, n_classes, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    words = [f"{data.draw(st.sampled_from(HOSTILE_WORDS))}{i}" for i in range(n_classes)]
    frame = pd.DataFrame({"x": rng.normal(size=n_rows),
                          "y": np.array(words, dtype=object)[rng.integers(0, n_classes, n_rows)]})
    try:
        dataset = Dataset(frame, "y", task="classification", random_state=0)
    except DataError as error:
        refused(error)
        assert frame["y"].nunique() < 2 or len(frame) < 2, str(error)
        return
    assert set(dataset.class_names) == set(frame["y"])


def test_duplicate_column_names_are_told_apart_on_upload():
    text = b"a,a,a ,y\n1,2,3,yes\n4,5,6,no\n7,8,9,yes\n"
    loaded = load_csv(text)
    assert loaded.columns.is_unique and len(loaded.columns) == 4
    check_dataset(loaded, "y", None, False)
