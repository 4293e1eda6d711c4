"""A link copied from the sidebar reopens the same view in a fresh browser (issue 8)."""
from __future__ import annotations

import pytest

from .conftest import exceptions, wait_for_app


def copied_link(page) -> str:
    page.get_by_text("Link to this view").click()
    return page.locator('[data-testid="stSidebar"] [data-testid="stCode"] code').inner_text().strip()


def captions(page) -> list[str]:
    return page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').all_inner_texts()


@pytest.mark.parametrize("path, change", [
    ("decision_tree?data=iris", ("Max depth", "2")),
    ("gradient_boosting?data=two_moons", ("Rounds T", "7")),
])
def test_a_copied_link_opened_in_a_fresh_context_shows_the_same_view(browser, app_url, path, change):
    first = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = first.new_page()
    page.goto(f"{app_url}/{path}")
    wait_for_app(page)
    label, value = change
    box = page.get_by_role("spinbutton", name=label, exact=True)
    box.fill(value)
    box.press("Enter")
    wait_for_app(page)
    link, seen = copied_link(page), captions(page)
    first.close()
    assert f"{path.split('?')[0]}?" in link and f"={value}" in link

    fresh = browser.new_context(viewport={"width": 1600, "height": 1000})
    other = fresh.new_page()
    other.goto(link)
    wait_for_app(other)
    assert exceptions(other) == []
    assert other.get_by_role("spinbutton", name=label, exact=True).input_value() == value
    assert captions(other)[:2] == seen[:2]
    fresh.close()
