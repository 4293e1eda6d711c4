"""The Decision Tree page in a real browser: the diagram's SVG, the path, readable type at
1024×768, the play control, downloads, an upload, speed."""
import xml.etree.ElementTree as ET

import pytest

from .conftest import SHAPES_CSV, empty_grid_cell, exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

CHART = '[data-testid="stGraphVizChart"] svg'
HIGHLIGHT = "#D4145A"

UPLOAD = SHAPES_CSV


def open_tree_page(page, app_url, query: str) -> None:
    page.goto(f"{app_url}/decision_tree?{query}")  # a shared link, opened directly
    wait_for_app(page)
    page.wait_for_selector(f"{CHART} g.node", timeout=30_000)


def node_count(page) -> int:
    return page.locator(f"{CHART} g.node").count()


def test_aima_tree_renders_with_the_followed_path(page, app_url):
    open_tree_page(page, app_url, "data=restaurant&dt_criterion=entropy&dt_cat_split=multiway"
                                  "&dt_all_rows=true&dt_row=0")
    screenshot(page, "decision_tree-restaurant")
    assert exceptions(page) == []
    assert node_count(page) == 12
    text = page.locator(CHART).text_content()
    assert "Patrons ?" in text and "Hungry ?" in text and "Fri/Sat ?" in text
    highlighted = page.locator(f'{CHART} g.edge path[stroke="{HIGHLIGHT}" i]').count()
    assert highlighted == 1  # row 0 (x1) has Patrons = Some: one edge to a leaf
    assert page.get_by_text("Leaf reached: predict").first.is_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="SVG").click()
    svg = ET.parse(download.value.path()).getroot()  # well-formed XML
    texts = ["".join(t.itertext()) for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert "Patrons ?" in texts and "samples = 12" in texts


# Height of the drawn text boxes and the font size they are drawn at, in screen pixels.
MEASURE = """() => {
    const texts = [...document.querySelectorAll('[data-testid="stGraphVizChart"] svg g.node text')];
    const heights = texts.map(t => t.getBoundingClientRect().height);
    const sizes = texts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    return [texts.length, Math.min(...heights), Math.min(...sizes)]; }"""


@pytest.mark.parametrize("width, height", [
    (1024, 768), pytest.param(1600, 1000, marks=pytest.mark.slow)])  # 1024 is the hard case
@pytest.mark.parametrize("present", [False, True])
def test_diagram_text_stays_readable_with_the_sidebar_open(browser, app_url, width, height,
                                                           present):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    least = 16 if present else 11  # px: a projected room (presentation) or a laptop
    for query in ("data=iris&dt_show_depth=4", "data=spambase&dt_show_depth=3"):
        open_tree_page(page, app_url, f"{query}&present={str(present).lower()}")
        unfold = page.locator('[data-testid="stExpandSidebarButton"]')
        if present and unfold.is_visible():  # a presentation link opens with it folded
            unfold.click()
            page.wait_for_timeout(500)  # it slides in and the diagram reflows
        assert page.locator('[data-testid="stSidebar"]').is_visible()
        n_texts, box, size = page.evaluate(MEASURE)
        print(f"{query} {width}x{height} present={present}: text {box:.1f} px high, "
              f"font {size:.1f} px")
        assert n_texts >= 40 and box >= least and size >= least
        assert exceptions(page) == []
    screenshot(page, f"decision_tree-spambase-{width}-{'present' if present else 'normal'}")
    context.close()


def test_play_grows_the_tree_level_by_level(page, app_url):
    open_tree_page(page, app_url, "data=iris&dt_view=Grow+step+by+step&dt_step=0")
    assert node_count(page) == 1
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Pause").wait_for(timeout=10_000)
    seen = set()
    for _ in range(60):  # 4 more levels at one step per 1.2 s
        seen.add(node_count(page))
        if page.get_by_role("button", name="Play").count():
            break
        page.wait_for_timeout(250)
    wait_for_app(page)
    assert page.get_by_role("button", name="Play").count() == 1  # it stopped at the end
    assert node_count(page) == 11 and len(seen - {1, 11}) >= 2  # levels came one by one
    assert "dt_step=5" in page.url
    assert exceptions(page) == []


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
    page.get_by_text("Type a row").click()  # starts from the first test row
    wait_for_app(page)
    assert page.get_by_text("Your row").first.is_visible()
    assert page.get_by_text("Leaf reached: predict").first.is_visible()
    assert exceptions(page) == []


#: Notes the moment a diagram other than the one drawn now is in the page (a changed
#: diagram is drawn by a new element: ui.tree_diagram.graphviz).
WATCH = """() => { window.__changed = null;
    const old = document.querySelector('[data-testid="stGraphVizChart"] svg');
    new MutationObserver(() => {
        const now = document.querySelector('[data-testid="stGraphVizChart"] svg');
        if (now && now !== old) window.__changed ??= performance.now();
    }).observe(document.body, {subtree: true, childList: true}); }"""


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
    # The goal is 1.5 s on 2 shared cores; this bound only catches a regression such as
    # refitting uncached, drawing the whole 449-node tree or redrawing in the old element.
    assert elapsed < 6.0


@pytest.mark.slow
def test_typed_row_with_an_emptied_cell_says_where_missing_values_go(page, app_url):
    open_tree_page(page, app_url, "data=iris&dt_typed=true&dt_row=0")
    empty_grid_cell(page, 2.5 / 4, page.get_by_text("petal_length is missing").first)
    wait_for_app(page)
    steps = page.locator("li").all_inner_texts()
    missing = [s for s in steps if s.startswith("petal_length is missing")]
    # Iris has no gaps, so the tree learned no side: missing values follow the majority.
    assert missing and all("most training rows" in s for s in missing)
    assert page.locator(f'{CHART} g.edge path[stroke="{HIGHLIGHT}" i]').count() >= 2
    assert exceptions(page) == []
