""""Why this prediction?" in a real browser: empty a value of the row, and the prediction,
the marked change and the waterfall follow; the rounds chart and the partial dependence
draw; at 1024×768 in presentation mode nothing breaks."""
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import exceptions, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

WHY = "Why+this+prediction%3F"
CHARTS = ".js-plotly-plot"


def open_why(page, app_url, path: str, query: str) -> None:
    page.goto(f"{app_url}/{path}?{query}")
    wait_for_app(page)
    page.wait_for_selector(f"{CHARTS} .waterfalllayer", timeout=60_000)


def empty_cell(page, x: float, attempts: int = 3) -> float:
    """Empty the row editor's cell ``x`` pixels from its left edge (a missing value);
    seconds until the page says the row changed ("No value changed yet" gone).

    The editor is a canvas grid: it is measured right before each click, and the edit
    is tried again (a bounded number of times) until the page answers.
    """
    editor = page.locator('[data-testid="stDataFrameResizable"]').first
    unchanged = page.get_by_text("No value changed yet")
    for attempt in range(attempts):
        editor.scroll_into_view_if_needed()
        wait_for_app(page)
        grid = editor.bounding_box()
        page.mouse.click(grid["x"] + x, grid["y"] + grid["height"] * 0.75)
        page.keyboard.press("Delete")
        start = time.perf_counter()
        page.keyboard.press("Enter")
        try:
            unchanged.first.wait_for(state="detached", timeout=15_000)
            return time.perf_counter() - start
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
    return float("nan")


def test_an_edited_value_moves_the_prediction_and_the_waterfall(page, app_url):
    open_why(page, app_url, "random_forest", f"data=iris&rf_trees=20&rf_view={WHY}&rf_why_row=0")
    assert page.get_by_text("No value changed yet").first.is_visible()
    width = page.locator('[data-testid="stDataFrameResizable"]').first.bounding_box()["width"]
    seconds = empty_cell(page, width * 2.5 / 4)  # petal_length, the third of four
    wait_for_app(page)
    print(f"iris forest: the edit answered in {seconds:.2f} s")
    assert page.locator(f"{CHARTS} .waterfalllayer").count() >= 1
    assert "petal_length = missing" in page.locator(CHARTS).first.text_content()
    assert exceptions(page) == []
    screenshot(page, "why-random_forest-iris-edited")


def test_boosting_shows_the_rounds_and_the_partial_dependence(page, app_url):
    open_why(page, app_url, "gradient_boosting", f"data=spambase&gb_rounds=30&gb_view={WHY}")
    wait_for_app(page)
    assert page.locator(CHARTS).count() >= 3  # waterfall, rounds, partial dependence
    assert page.get_by_text("Partial dependence on").first.is_visible()
    seconds = empty_cell(page, 40)  # the first column
    print(f"spambase gradient boosting: the edit answered in {seconds:.2f} s")
    assert exceptions(page) == []
    screenshot(page, "why-gradient_boosting-spambase")


def test_presentation_mode_at_1024(browser, app_url):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    open_why(page, app_url, "decision_tree", f"data=playtennis&dt_view={WHY}&present=true")
    assert page.get_by_role("button", name="Download the tree as Python").is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1024  # nothing pushes the page sideways
    assert exceptions(page) == []
    screenshot(page, "why-decision_tree-playtennis-1024-present")
    context.close()
