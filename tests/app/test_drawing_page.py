"""A drawing in a link: the Data page draws it on the plane, every page trains on it, and a
drawing the app did not write is refused with a notice, never a traceback.

Clicks on the plane are plotly selection events, which AppTest cannot send; the browser
test (tests/e2e/test_drawing_browser.py) clicks.
"""
import json

import numpy as np
import pytest

from engine import drawing
from tests.app.test_pages import PAGES, assert_clean, run_app, values
from viz.drawing_figure import CLICK_STEP

SIX = [[10, 10, 0], [15, 20, 0], [20, 12, 0], [80, 85, 1], [85, 70, 1], [70, 90, 1]]


def test_the_data_page_draws_the_linked_points_on_a_clickable_plane():
    text = drawing.encode(SIX)
    at = run_app(data="drawn", points=text)
    assert_clean(at)
    assert at.sidebar.selectbox(key="data").value == "drawn"
    assert at.metric[0].value == "6"  # rows
    plane = json.loads(at.get("plotly_chart")[0].proto.spec)
    cells, a, b = plane["data"]
    assert len(values(cells["x"])) == (drawing.GRID // CLICK_STEP) ** 2
    assert values(a["x"]).tolist() == [10, 15, 20] and values(b["y"]).tolist() == [85, 70, 90]
    assert at.query_params["points"] == text  # the URL keeps the drawing


@pytest.mark.parametrize("page", PAGES)
def test_every_page_trains_on_six_drawn_points(page):
    at = run_app(page, data="drawn", points=drawing.encode(SIX))
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]


def test_the_tree_page_grows_a_tree_on_x1_and_x2():
    at = run_app("app_pages/decision_tree.py", data="drawn", points=drawing.encode(SIX))
    assert_clean(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "x1" in dot or "x2" in dot
    assert "samples = 6" in dot  # fewer than 30 rows: fitted on every one


def test_a_starting_shape_trains_the_forest():
    at = run_app("app_pages/random_forest.py", data="drawn",
                 points=drawing.encode(drawing.starting_shape("moons")))
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("text, why", [
    ("AAAA" * 201, "at most 300"),
    ("B9o-y", "not a drawing this app wrote"),
    ("<b>hi</b>", "not a drawing this app wrote"),
])
def test_a_linked_drawing_that_does_not_fit_is_refused_with_a_notice(text, why):
    at = run_app("app_pages/decision_tree.py", data="drawn", points=text)
    assert_clean(at)
    notices = " ".join(w.value for w in at.warning)
    assert "drawn points" in notices and why in notices, notices
    assert "points" not in at.query_params  # the refused value leaves the URL
    assert any("at least two classes" in i.value for i in at.info)


def test_one_class_is_not_enough_and_the_page_says_why():
    at = run_app("app_pages/naive_bayes.py", data="drawn", points=drawing.encode(SIX[:3]))
    assert_clean(at)
    assert "3 points of one class" in at.info[0].value


def test_other_data_leave_the_drawing_out_of_the_link():
    at = run_app(data="iris", points=drawing.encode(SIX))
    assert_clean(at)
    assert "points" not in at.query_params


def test_the_drawing_is_cached_by_its_points():
    from ui import state

    one, other = drawing.encode(SIX), drawing.encode(SIX[:5] + [[90, 90, 1]])
    a, b = state.drawn_frame(one), state.drawn_frame(other)
    assert not a.equals(b)
    assert np.array_equal(state.drawn_frame(one).to_numpy(), a.to_numpy())
