"""Every page in a real browser; an upload nobody here wrote shows its schema and balance."""
import pytest

from .conftest import exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

PAGES = ["", "naive_bayes", "decision_tree", "random_forest", "adaboost",
         "gradient_boosting", "compare"]

SEMICOLON_FILE = (
    "Fruit;Weight (g);Price €;Origin;Review;Sweet\n"
    "Apple;150,5;0,40;Spain;crisp and fresh from the market;yes\n"
    "Banana;120,0;0,25;?;soft but a little too ripe;yes\n"
    "Lemon;;0,30;Italy;far too sour for my taste;no\n"
    "Apple;160,2;0,45;France;sweet and very juicy indeed;yes\n"
    "Lime;60,1;0,20;Mexico;sharp little green fruit;no\n"
    "Banana;118,3;NA;Ecuador;perfect for a quick breakfast;yes\n"
    "Lemon;90,0;0,35;Spain;bright and sour and fresh;no\n"
    "Grape;5,1;0,05;Italy;tiny sweet and seedless ones;yes\n"
).encode("cp1252")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_opens_without_an_exception(page, app_url, path):
    page.goto(f"{app_url}/{path}")
    wait_for_app(page)
    screenshot(page, f"page-{path or 'data'}")
    assert exceptions(page) == []
    assert page.locator("h1").first.is_visible()


def test_data_page_draws_class_balance(page, app_url):
    page.goto(f"{app_url}/?data=iris")
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)
    assert exceptions(page) == []
    assert page.get_by_text("Class balance").first.is_visible()


def test_upload_semicolon_decimal_comma_file(page, app_url):
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "fruit.csv", SEMICOLON_FILE)
    screenshot(page, "upload-fruit-1024")
    assert exceptions(page) == []
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)
    assert page.get_by_text("Class balance").first.is_visible()
    # The sidebar now points at the upload, with the last column as the target.
    assert "data=upload" in page.url


def test_bad_upload_keeps_the_current_data(page, app_url):
    page.goto(f"{app_url}/?data=iris")
    wait_for_app(page)
    page.locator('input[type="file"]').set_input_files(
        {"name": "photo.csv", "mimeType": "text/csv", "buffer": b"\x89PNG\r\n\x1a\n\x00\x00\x00"})
    page.get_by_text("could not be used").first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert exceptions(page) == []
    assert "data=iris" in page.url


def test_a_link_to_a_page_reopens_it_on_a_fresh_server(browser):
    """The first request a new server gets is a shared link: it must run app.py's sidebar."""
    from .conftest import serve

    with serve() as url:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(f"{url}/naive_bayes?data=iris")
        wait_for_app(page)
        assert exceptions(page) == []
        # app.py ran: the shared sidebar is there, and the page trains on the linked data.
        assert page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').count() >= 2
        assert page.get_by_text("setosa").first.is_visible()
        assert page.locator("h1").first.inner_text().strip().endswith("Naive Bayes")
        page.close()


@pytest.mark.parametrize("width, present, folded", [(1024, False, False), (1024, True, True),
                                                    (1600, True, False)])
def test_presentation_folds_the_sidebar_only_on_a_narrow_screen(browser, app_url, width,
                                                                present, folded):
    """At 1024×768 in large type the sidebar would take a third of the projector: there a
    link with present=true opens with it folded (its » button brings it back). Other links,
    and presentation on a wide screen, keep it open."""
    context = browser.new_context(viewport={"width": width, "height": 768})
    page = context.new_page()
    page.goto(f"{app_url}/decision_tree?data=iris&present={str(present).lower()}")
    wait_for_app(page)
    page.wait_for_timeout(800)  # the sidebar slides
    title_left = page.locator("h1").first.bounding_box()["x"]
    sidebar = page.locator('[data-testid="stSidebar"]').bounding_box()
    shown = sidebar is not None and sidebar["x"] + sidebar["width"] > 10
    context.close()
    assert shown is not folded
    assert (title_left < 200) is folded, title_left
