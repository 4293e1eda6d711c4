"""Predict first, your own tree and lesson links in a real browser: each model page asks
and then reveals; two splits by hand are scored beside the algorithm's tree; a lesson
link opened afresh shows its text and leaves out the hidden controls."""
import zlib
from urllib.parse import quote

import pytest

from .conftest import exceptions, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

QUESTION = '[class*="st-key-predict_"] label'  # the options of the question's radio
REVEAL = "text=/Right:|You said/"


@pytest.mark.parametrize("path, query, tab", [
    ("decision_tree", "data=iris&dt_view=Grow+step+by+step&dt_step=1", None),
    ("naive_bayes", "data=playtennis", "Evidence for one row"),
    ("random_forest", "data=iris&rf_view=Importance&rf_trees=20", None),
    ("adaboost", "data=two_moons&ab_round=2&ab_rounds=10", None),
    ("gradient_boosting", "data=friedman1&gb_round=1&gb_rounds=10", None),
    # the second question of each page: which leaf, OOB trend, heavier points, which plot
    ("decision_tree", "data=iris&dt_row=5", None),
    ("random_forest", "data=iris&rf_trees=40", None),
    ("adaboost", "data=two_moons&ab_round=3&ab_rounds=10", None),
    ("gradient_boosting", "data=friedman1&gb_round=2&gb_rounds=10", None),
])
def test_each_page_asks_then_reveals(page, app_url, path, query, tab):
    page.goto(f"{app_url}/{path}?{query}&predict=true")
    wait_for_app(page)
    if tab:
        page.get_by_role("tab", name=tab).click()
    page.get_by_text("Predict first.").first.wait_for(timeout=30_000)
    page.locator(QUESTION).last.click()
    page.locator(REVEAL).first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert page.get_by_text("Your predictions this session:").count() >= 1
    assert exceptions(page) == []
    screenshot(page, f"predict-{path}-{zlib.crc32(query.encode()) % 1000}")


def test_two_splits_by_hand_are_scored_beside_the_algorithms(page, app_url):
    page.goto(f"{app_url}/decision_tree?data=iris&dt_view=Your+tree")
    wait_for_app(page)
    page.get_by_role("button", name="Split this leaf").click()
    wait_for_app(page)
    page.get_by_role("button", name="Split this leaf").click()
    wait_for_app(page)
    assert "dt_hand=" in page.url and page.url.count("~") >= 1  # two splits in the link
    page.get_by_text("the algorithm's").first.wait_for(timeout=30_000)
    assert page.locator('[data-testid="stGraphVizChart"]').count() == 2
    assert page.get_by_text("yours ").count() >= 1
    assert exceptions(page) == []
    screenshot(page, "your-tree-iris")


def test_a_lesson_link_shows_its_text_and_hides_its_controls(browser, app_url):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    lesson = quote("Look at the root: why does it ask about petals?")
    page.goto(f"{app_url}/decision_tree?data=iris&lesson={lesson}&hide=dt_max_depth"
              "&hide=dt_criterion")
    wait_for_app(page)
    page.get_by_text("why does it ask about petals?").first.wait_for(timeout=30_000)
    assert page.get_by_label("Max depth").count() == 0
    assert page.get_by_label("Min samples per leaf").count() + \
        page.locator(".st-key-dt_min_leaf").count() >= 1  # the other controls stay
    assert exceptions(page) == []
    screenshot(page, "lesson-link-tree")
    context.close()
