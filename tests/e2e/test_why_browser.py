""""Why this prediction?" in a real browser: empty a value of the row, and the prediction,
the marked change and the waterfall follow; the rounds chart and the partial dependence
draw; at 1024×768 in presentation mode nothing breaks."""
import pytest

from .conftest import empty_grid_cell, exceptions, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

WHY = "Why+this+prediction%3F"
CHARTS = ".js-plotly-plot"


def open_why(page, app_url, path: str, query: str) -> None:
    page.goto(f"{app_url}/{path}?{query}")
    wait_for_app(page)
    page.wait_for_selector(f"{CHARTS} .waterfalllayer", timeout=60_000)


def test_an_edited_value_moves_the_prediction_and_the_waterfall(page, app_url):
    open_why(page, app_url, "random_forest", f"data=iris&rf_trees=20&rf_view={WHY}&rf_why_row=0")
    assert page.get_by_text("No value changed yet").first.is_visible()
    unchanged = page.get_by_text("No value changed yet").first
    seconds = empty_grid_cell(page, 2.5 / 4, unchanged, "detached")  # petal_length, 3rd of 4
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
    width = page.locator('[data-testid="stDataFrameResizable"]').first.bounding_box()["width"]
    unchanged = page.get_by_text("No value changed yet").first
    seconds = empty_grid_cell(page, 40 / width, unchanged, "detached")  # the first column
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
