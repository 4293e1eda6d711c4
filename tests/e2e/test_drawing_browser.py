"""Draw your own data in a real browser: six clicks on the plane, then a tree grown on them."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from engine import drawing

from .conftest import exceptions, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

PLANE = '[data-testid="stPlotlyChart"]'
TREE = '[data-testid="stGraphVizChart"] svg'
#: The axes' range in cells (viz.drawing_figure): where a cell is on the screen.
LOW, HIGH = -1.5, drawing.GRID + 0.5


def plot_area(page) -> dict:
    """The plane's plot area (plotly's drag layer), once the chart has stopped moving."""
    area = page.locator(f"{PLANE} .nsewdrag").first
    area.scroll_into_view_if_needed()
    wait_for_app(page)
    return area.bounding_box()


def click_cell(page, column: int, row: int, count: int) -> None:
    """Click the plane at a cell and wait until the drawing holds ``count`` points."""
    box = plot_area(page)
    x = box["x"] + (column - LOW) / (HIGH - LOW) * box["width"]
    y = box["y"] + box["height"] - (row - LOW) / (HIGH - LOW) * box["height"]
    page.mouse.move(x, y)
    page.wait_for_timeout(150)  # plotly finds the marker under the pointer on hover
    page.mouse.click(x, y)
    page.get_by_text(f"{count} of at most {drawing.MAX_POINTS} points").first.wait_for(
        timeout=30_000)
    wait_for_app(page)


def linked_drawing(page) -> np.ndarray:
    (text,) = parse_qs(urlsplit(page.url).query, keep_blank_values=True)["points"]
    return drawing.decode(text)


def test_six_clicks_draw_a_dataset_that_grows_a_tree(page, app_url):
    page.goto(f"{app_url}/?data=drawn")
    wait_for_app(page)
    assert page.get_by_text("Draw points of at least two classes").first.is_visible()
    cells = [(15, 20), (25, 12), (20, 30), (75, 80), (85, 70), (80, 88)]
    for i, (column, row) in enumerate(cells[:3], start=1):
        click_cell(page, column, row, i)
    page.locator('[data-testid="stButtonGroup"]').get_by_role("radio", name="B", exact=True).click()
    wait_for_app(page)
    for i, (column, row) in enumerate(cells[3:], start=4):
        click_cell(page, column, row, i)
    screenshot(page, "drawing-six-points")
    assert exceptions(page) == []
    drawn = linked_drawing(page)  # the link holds the drawing, each point where clicked
    assert drawn[:, 2].tolist() == [0, 0, 0, 1, 1, 1]
    assert np.abs(drawn[:, :2] - np.array(cells)).max() <= 1

    page.get_by_role("link", name="Decision Tree").first.click()  # carries the drawing
    wait_for_app(page)
    page.wait_for_selector(f"{TREE} g.node", timeout=30_000)
    screenshot(page, "drawing-six-points-tree")
    assert exceptions(page) == []
    text = page.locator(TREE).text_content()
    assert "samples = 6" in text and ("x1" in text or "x2" in text)
    assert page.locator(f"{TREE} g.node").count() == 3  # one split parts the two classes


def test_undo_erase_and_a_starting_shape(page, app_url):
    page.goto(f"{app_url}/?data=drawn&points={drawing.encode([[10, 10, 0], [90, 90, 1]])}")
    wait_for_app(page)
    click_cell(page, 50, 50, 3)
    page.get_by_role("button", name="Undo").click()
    page.get_by_text(f"2 of at most {drawing.MAX_POINTS} points").first.wait_for(timeout=30_000)
    wait_for_app(page)
    page.locator('[data-testid="stButtonGroup"]').get_by_role("radio", name="Erase").click()
    wait_for_app(page)
    click_cell(page, 10, 10, 1)
    assert linked_drawing(page).tolist() == [[90, 90, 1]]
    page.get_by_role("combobox", name="Start from a shape").click()  # its options open below
    page.get_by_role("option", name="Two moons").click()
    page.get_by_text(f"60 of at most {drawing.MAX_POINTS} points").first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert exceptions(page) == []
