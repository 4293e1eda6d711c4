"""The drawing plane on its data: one clickable marker per cell, the points by class."""
import numpy as np

from engine import drawing
from viz.drawing_figure import CELL_TRACE, CLICK_STEP, SYMBOLS, drawing_figure
from viz.style import Style

POINTS = [[10, 20, 0], [75, 60, 1], [80, 62, 1], [50, 50, 2]]


def test_the_plane_is_covered_by_clickable_markers_under_the_points():
    fig = drawing_figure(POINTS, Style())
    cells = fig.data[CELL_TRACE]
    pairs = set(zip(np.asarray(cells.x).tolist(), np.asarray(cells.y).tolist(), strict=True))
    on_axis = range(0, drawing.GRID, CLICK_STEP)
    assert pairs == {(x, y) for x in on_axis for y in on_axis} and len(cells.x) == len(pairs)
    assert max(on_axis) >= drawing.GRID - CLICK_STEP  # up to the far edge
    assert cells.hoverinfo == "none"  # no label, but the click still selects it
    assert cells.marker.color == "rgba(0,0,0,0)"
    assert np.asarray(cells.x).dtype == np.uint8  # one byte a cell on every click


def test_each_class_is_one_trace_with_its_colour_and_shape_and_takes_no_clicks():
    style = Style()
    fig = drawing_figure(POINTS, style)
    assert [t.name for t in fig.data] == ["cells", "A", "B", "C"]
    for k, trace in enumerate(fig.data[1:]):
        assert trace.hoverinfo == "skip"
        assert trace.marker.color == style.color(k) and trace.marker.symbol == SYMBOLS[k]
    assert fig.data[2].x.tolist() == [75, 80] and fig.data[2].y.tolist() == [60, 62]


def test_no_points_is_the_empty_plane():
    fig = drawing_figure([], Style())
    assert len(fig.data) == 1


def test_the_plane_is_fixed_square_and_ticked_in_the_tables_units():
    fig = drawing_figure(POINTS, Style())
    layout = fig.layout
    assert layout.dragmode is False and layout.xaxis.fixedrange and layout.yaxis.fixedrange
    assert layout.yaxis.scaleanchor == "x"
    assert (layout.xaxis.title.text, layout.yaxis.title.text) == ("x1", "x2")
    assert list(layout.xaxis.ticktext) == ["0", "2", "4", "6", "8", "10"]
    assert list(layout.xaxis.tickvals) == [0, 20, 40, 60, 80, 100]


def test_presentation_mode_draws_larger_points_and_type():
    normal, big = drawing_figure(POINTS, Style()), drawing_figure(POINTS, Style.presentation())
    assert big.data[1].marker.size > normal.data[1].marker.size
    assert big.layout.font.size >= 22
