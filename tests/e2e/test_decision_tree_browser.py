"""The Decision Tree page in a real browser: the diagram's SVG, the path, an upload, speed."""
import pytest

from .conftest import exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

CHART = '[data-testid="stGraphVizChart"] svg'
HIGHLIGHT = "#D4145A"

UPLOAD = (
    b"colour,size,shape,weight,label\n"
    b"red,small,round,1.0,yes\n"
    b"blue,large,,2.5,no\n"
    b"red,large,square,,yes\n"
    b"green,small,round,0.7,no\n"
    b"blue,small,square,1.8,no\n"
    b"red,,round,1.1,yes\n"
    b"green,large,square,3.0,no\n"
    b"red,small,square,0.9,yes\n"
    b"blue,large,round,2.2,no\n"
    b"green,small,,0.8,yes\n"
    b"red,large,round,1.5,yes\n"
    b"blue,small,round,,no\n"
)


def open_tree_page(page, app_url, query: str) -> None:
    page.goto(f"{app_url}/decision_tree?{query}")  # a shared link, opened directly
    wait_for_app(page)
    page.wait_for_selector(f"{CHART} g.node", timeout=30_000)


def node_count(page) -> int:
    return page.locator(f"{CHART} g.node").count()


def test_aima_tree_renders_with_the_followed_path(page, app_url):
    open_tree_page(page, app_url, "data=restaurant&dt_criterion=entropy&dt_cat_split=multiway"
                                  "&dt_all_rows=true&dt_row=1")
    screenshot(page, "decision_tree-restaurant")
    assert exceptions(page) == []
    assert node_count(page) == 12
    text = page.locator(CHART).text_content()
    assert "Patrons ?" in text and "Hungry ?" in text and "Fri/Sat ?" in text
    highlighted = page.locator(f'{CHART} g.edge path[stroke="{HIGHLIGHT}" i]').count()
    assert highlighted == 1  # test row 1 has Patrons = Some: one edge to a leaf
    assert page.get_by_text("Leaf reached: predict").first.is_visible()


def test_iris_diagram_and_every_tab_without_exception(page, app_url):
    open_tree_page(page, app_url, "data=iris")
    assert exceptions(page) == []
    assert node_count(page) >= 7
    for tab in ("Grow step by step", "Show your working", "Impurity", "Results", "Complexity",
                "Decision boundary"):
        page.get_by_role("tab", name=tab).click()
        wait_for_app(page)
        assert exceptions(page) == [], tab
    assert page.locator(".js-plotly-plot").count() >= 1


def test_uploaded_csv_with_categories_and_missing_values(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "shapes.csv", UPLOAD)
    page.get_by_role("link", name="Decision Tree").click()
    wait_for_app(page)
    page.wait_for_selector(f"{CHART} g.node", timeout=30_000)
    screenshot(page, "decision_tree-upload")
    assert exceptions(page) == []
    assert node_count(page) >= 1


WATCH = """() => { window.__changed = null;
    const chart = document.querySelector('[data-testid="stGraphVizChart"]');
    new MutationObserver(() => { window.__changed ??= performance.now(); })
        .observe(chart, {subtree: true, childList: true}); }"""


@pytest.mark.slow
def test_spambase_parameter_change_redraws_the_diagram(page, app_url):
    open_tree_page(page, app_url, "data=spambase")
    page.evaluate(WATCH)
    box = page.get_by_role("spinbutton", name="Max depth")
    box.fill("2")
    page.evaluate("window.__t0 = performance.now()")
    box.press("Enter")
    page.wait_for_function("window.__changed !== null", timeout=30_000)
    elapsed = page.evaluate("window.__changed - window.__t0") / 1000
    wait_for_app(page)
    assert exceptions(page) == []
    assert node_count(page) == 7  # the depth-2 tree
    print(f"spambase: diagram redrawn {elapsed:.2f} s after the change")
    # The goal is 1.5 s (measured 1.0-2.3 s here on 2 shared cores at load average 8,
    # where the script itself took 0.1-0.3 s); this bound only catches a regression
    # such as refitting uncached or drawing the whole 449-node tree.
    assert elapsed < 6.0
