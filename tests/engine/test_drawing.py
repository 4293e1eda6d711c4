"""A drawing survives its trip through a link, and a text it never wrote is refused."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import drawing
from engine.data import DataError, Dataset

POINT = st.tuples(st.integers(0, drawing.GRID - 1), st.integers(0, drawing.GRID - 1),
                  st.integers(0, len(drawing.CLASS_NAMES) - 1))
DRAWINGS = st.lists(POINT, max_size=drawing.MAX_POINTS).map(
    lambda points: np.array(points, dtype=np.int64).reshape(-1, 3))


@given(DRAWINGS)
def test_every_drawing_round_trips_in_order(points):
    text = drawing.encode(points)
    np.testing.assert_array_equal(drawing.decode(text), points)
    assert len(text) <= drawing.MAX_TEXT
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@given(st.text(max_size=40))
def test_any_text_is_a_drawing_it_round_trips_to_or_a_data_error(text):
    try:
        points = drawing.decode(text)
    except DataError:
        return
    assert drawing.encode(points) == text


def test_the_largest_drawing_fits_and_one_more_point_is_refused():
    points = np.tile([[5, 7, 2]], (drawing.MAX_POINTS, 1))
    assert len(drawing.encode(points)) == drawing.MAX_TEXT == 800
    with pytest.raises(DataError, match="at most 300"):
        drawing.encode(np.tile([[5, 7, 2]], (drawing.MAX_POINTS + 1, 1)))
    too_long = drawing.encode(points) + "AAAA"
    with pytest.raises(DataError, match="at most 300"):
        drawing.decode(too_long)
    with pytest.raises(DataError, match="at most 300"):
        drawing.decode("A" * 100_000)


@pytest.mark.parametrize("text", [
    "B9o-y",      # a point cut in half (odd byte count)
    "B9o-yw=",    # padding: never written
    "B9o+yw",     # the other base64 alphabet
    "B9o yw",     # a space
    "B9o-yx",     # trailing bits encode never sets
    "dTA",        # code 30,000: past the third class
    "<script>",
])
def test_a_damaged_text_is_refused_with_a_reason(text):
    with pytest.raises(DataError, match="not a drawing this app wrote"):
        drawing.decode(text)


@pytest.mark.parametrize("points", [[[100, 0, 0]], [[0, -1, 0]], [[0, 0, 3]], [[1, 2]]])
def test_points_off_the_plane_or_of_no_class_are_refused(points):
    with pytest.raises(ValueError):
        drawing.encode(points)


def test_no_points_is_the_empty_text():
    assert drawing.encode(np.zeros((0, 3))) == ""
    assert drawing.decode("").shape == (0, 3)
    assert list(drawing.to_frame([]).columns) == ["x1", "x2", "class"]


def test_the_frame_has_two_numeric_features_and_a_class_column():
    points = [[0, 99, 0], [50, 25, 1], [99, 0, 2]]
    frame = drawing.to_frame(points)
    assert list(frame.columns) == ["x1", "x2", "class"]
    assert frame["x1"].dtype == np.float64 and frame["x2"].dtype == np.float64
    assert pd.api.types.is_string_dtype(frame["class"])
    assert frame["x1"].tolist() == [0.0, 5.0, 9.9]
    assert frame["x2"].tolist() == [9.9, 2.5, 0.0]
    assert frame["class"].tolist() == ["A", "B", "C"]


def test_six_points_make_a_classification_dataset_of_both_features():
    points = [[10, 10, 0], [15, 20, 0], [20, 12, 0], [80, 85, 1], [85, 70, 1], [70, 90, 1]]
    data = Dataset(drawing.to_frame(points), "class")
    assert data.task == "classification"
    assert data.features == ["x1", "x2"]
    assert data.class_names == ["A", "B"]
    assert len(data.y_train) + len(data.y_test) == 6


@pytest.mark.parametrize("name", sorted(drawing.SHAPES))
def test_each_starting_shape_is_a_drawing_that_round_trips(name):
    shape = drawing.starting_shape(name)
    assert 2 <= len(np.unique(shape[:, 2])) <= 3
    np.testing.assert_array_equal(drawing.decode(drawing.encode(shape)), shape)
    np.testing.assert_array_equal(shape, drawing.starting_shape(name))  # seeded
    assert not np.array_equal(shape, drawing.starting_shape(name, random_state=1))


def test_an_unknown_shape_is_a_value_error():
    with pytest.raises(ValueError, match="No starting shape"):
        drawing.starting_shape("spiral")
