"""The Compare page in a real browser: spam against ESL, an upload, every tab.

The page has no step control (nothing on it is a sequence), so no play test here.
"""
import re

import pytest

from .conftest import SHAPES_CSV, exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

TABLE = '[data-testid="stDataFrame"]'
PLOT = ".js-plotly-plot"

UPLOAD = SHAPES_CSV


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    wait_for_app(page)


@pytest.mark.slow
def test_spambase_lands_near_esl_with_a_progress_bar(page, app_url):
    page.goto(f"{app_url}/compare?data=spambase&cmp_models=Decision+tree"
              "&cmp_models=Bagging&cmp_models=Random+forest")
    # 200 trees to grow: the bar ("1 of 3 models") shows while they are fitted
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    wait_for_app(page, timeout=180)
    page.wait_for_selector(TABLE, timeout=60_000)
    screenshot(page, "compare-spambase")
    assert exceptions(page) == []
    line = page.get_by_text("On this split:").inner_text()
    found = dict(re.findall(r"(Decision tree|Bagging|Random forest) (\d+\.\d)%", line))
    tree, bagging, forest = (float(found[k]) for k in ("Decision tree", "Bagging",
                                                          "Random forest"))
    # Hastie et al. (2009): 9.3%, 5.4%, 4.9%; ±2 points is about three standard errors on 1151 rows
    assert 7.3 <= tree <= 11.3 and 3.4 <= bagging <= 7.4 and 2.9 <= forest <= 6.9
    assert forest <= bagging < tree


def test_uploaded_csv_with_categories_and_missing_values_every_tab(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "shapes.csv", UPLOAD)
    page.get_by_role("link", name="Compare").click()
    wait_for_app(page, timeout=90)
    page.wait_for_selector(TABLE, timeout=60_000)
    assert exceptions(page) == []
    assert page.locator(PLOT).count() == 1  # the bar chart
    for name, value in (("Trees B (bagging, forest)", "5"), ("Rounds T (AdaBoost)", "10"),
                        ("Rounds T (gradient boosting)", "10")):  # fewer trees: quicker curves
        box = page.get_by_role("spinbutton", name=name)
        box.fill(value)
        box.press("Enter")
        wait_for_app(page)
    assert "cmp_b=5" in page.url and "cmp_t_gb=10" in page.url
    open_tab(page, "Learning curves")
    page.wait_for_selector(f"{PLOT} .scatterlayer .trace", timeout=60_000)
    assert exceptions(page) == []
    open_tab(page, "ROC curves")
    page.wait_for_selector(f"{PLOT} .legendtext", timeout=60_000)
    legend = page.locator(f"{PLOT} .legendtext").all_text_contents()
    assert sum("AUC" in t for t in legend) == 8  # seven models and the diagonal
    screenshot(page, "compare-upload-roc")
    assert exceptions(page) == []


def test_presentation_mode_iris_link_reopens_models_and_tab(page, app_url):
    page.goto(f"{app_url}/compare?data=iris&present=true&cmp_b=10&cmp_t_ada=20&cmp_t_gb=20"
              "&cmp_models=Naive+Bayes&cmp_models=Random+forest&cmp_view=ROC+curves")
    wait_for_app(page, timeout=90)
    assert exceptions(page) == []
    assert page.get_by_text("has 3 classes").first.is_visible()
    chosen = page.locator('[data-testid="stMultiSelect"]').inner_text()
    assert "Naive Bayes" in chosen and "Random forest" in chosen and "AdaBoost" not in chosen
    open_tab(page, "Table")
    page.wait_for_selector(f"{PLOT} .bars", timeout=30_000)
    size = page.locator(f"{PLOT} .xtick text").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 22  # presentation type on the axis labels
    # the first tab is the default, so the link drops the parameter; the models stay, by
    # their short names (a link with their labels, as above, still opens them)
    assert "cmp_view" not in page.url and "cmp_models=nb&cmp_models=forest" in page.url
