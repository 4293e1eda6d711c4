"""The Random Forest page in a real browser: every tab, the play control, an upload, speed."""
import re
import time

import pytest

from .conftest import exceptions, screenshot, upload, wait_for_app
from .test_decision_tree_browser import UPLOAD

pytestmark = pytest.mark.e2e

PLOT = ".js-plotly-plot"
CHART = '[data-testid="stGraphVizChart"] svg'
TABS = ["Effect of m", "Importance", "Inside the forest", "Results"]


def open_forest_page(page, app_url, query: str) -> None:
    page.goto(f"{app_url}/random_forest?{query}")  # a shared link, opened directly
    wait_for_app(page)


def test_two_moons_curve_and_every_tab_without_exception(page, app_url):
    open_forest_page(page, app_url, "data=two_moons&rf_trees=20")
    page.wait_for_selector(PLOT, timeout=30_000)
    assert page.get_by_text("Out of bag (OOB)").first.is_visible()
    for tab in TABS:
        page.get_by_role("tab", name=tab).click()
        wait_for_app(page)
        assert exceptions(page) == [], tab
        assert f"rf_view={tab.replace(' ', '+')}" in page.url
    # the regions: at once, or once the forest on the pair has grown in the background
    page.wait_for_selector(f"{PLOT} .heatmaplayer, {PLOT} .heatmap", timeout=30_000)
    screenshot(page, "random_forest-moons-results")


def test_play_steps_through_the_trees(page, app_url):
    open_forest_page(page, app_url, "data=iris&rf_trees=4&rf_view=Inside+the+forest&rf_tree=1")
    page.wait_for_selector(f"{CHART} g.node", timeout=30_000)
    assert page.get_by_text(re.compile(r"^Tree 1:")).first.is_visible()
    page.get_by_role("button", name="Play").click()
    page.get_by_text(re.compile(r"^Tree 3:")).first.wait_for(timeout=30_000)
    page.get_by_text(re.compile(r"^Tree 4:")).first.wait_for(timeout=30_000)
    # at the last tree the control stops itself: Pause turns back into Play
    page.get_by_role("button", name="Play").wait_for(timeout=15_000)
    wait_for_app(page)
    assert "rf_tree=4" in page.url
    assert exceptions(page) == []


def test_uploaded_csv_with_categories_and_missing_values(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "shapes.csv", UPLOAD)
    page.get_by_role("link", name="Random Forest").click()
    wait_for_app(page)
    page.wait_for_selector(PLOT, timeout=30_000)
    assert exceptions(page) == []
    page.get_by_role("tab", name="Inside the forest").click()
    wait_for_app(page)
    page.wait_for_selector(f"{CHART} g.node", timeout=30_000)
    screenshot(page, "random_forest-upload-inside")
    assert exceptions(page) == []
    page.get_by_role("tab", name="Importance").click()
    wait_for_app(page)
    assert exceptions(page) == []
    assert page.get_by_text("OOB permutation importance").first.is_visible()


def wait_for_plot_text(page, text: str, timeout: float = 180.0) -> None:
    page.wait_for_function(
        """(text) => [...document.querySelectorAll('.js-plotly-plot .gtitle')]
                       .some(t => t.textContent.includes(text))""",
        arg=text, timeout=timeout * 1000)


@pytest.mark.slow
def test_spambase_200_trees_oob_curve_and_importance(page, app_url):
    started = time.perf_counter()
    open_forest_page(page, app_url, "data=spambase&rf_trees=200&seed=11")
    wait_for_plot_text(page, "Error against the number of trees")
    curve = time.perf_counter() - started
    page.get_by_role("tab", name="Importance").click()
    wait_for_plot_text(page, "OOB permutation importance")
    both = time.perf_counter() - started
    wait_for_app(page)
    assert exceptions(page) == []
    print(f"spambase, 200 trees: OOB curve after {curve:.1f} s, importance after {both:.1f} s")
    # Issue 7 asks for < 5 s; the forest fit itself is the lead's engine work in
    # progress (measured ~30 s for 200 trees), so this bound only catches a page that
    # fits twice or recomputes per rerun.
    assert both < 120
