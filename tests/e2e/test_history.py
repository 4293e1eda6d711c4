"""State you can trust: Back and Forward, copied links and impossible values (issue 30).

Each walk records what the screen shows after every step forward (address, page title,
target, a parameter), then goes Back to the start and Forward to the end and asserts
that every step shows exactly what it showed the first time.
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import exceptions, wait_for_app

pytestmark = pytest.mark.e2e

PAGES = ["Data", "Naive Bayes", "Decision Tree", "Random Forest", "AdaBoost",
         "Gradient Boosting", "Compare"]


def view(page) -> dict:
    """What a student would check: where they are, what is predicted, the parameters."""
    spins = page.locator('[data-testid="stSidebar"] input[type="number"]')
    return {
        "path": urlsplit(page.url).path,
        "query": parse_qs(urlsplit(page.url).query),
        "title": page.locator("h1").first.inner_text(),
        "target": page.get_by_role("combobox", name="Target column").input_value(),
        "numbers": [spins.nth(i).input_value() for i in range(spins.count())],
        "tab": page.locator('[role="tab"][aria-selected="true"]').all_inner_texts(),
        "exceptions": exceptions(page),
    }


def go(page, link: str) -> None:
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name=link, exact=True).click()
    wait_for_app(page)


def pick_target(page, column: str) -> bool:
    """Choose ``column`` as the target; False when it already was (no new view)."""
    if page.get_by_role("combobox", name="Target column").input_value() == column:
        return False
    page.get_by_role("combobox", name="Target column").click()
    page.get_by_role("option", name=column, exact=True).click()
    wait_for_app(page)
    return True


def set_number(page, label: str, value: str) -> None:
    box = page.get_by_role("spinbutton", name=label, exact=True)
    box.fill(value)
    box.press("Enter")
    wait_for_app(page)


def back_and_forth(page, seen: list[dict]) -> None:
    """Back to the first view and Forward to the last, checking each on the way."""
    for expected in reversed(seen[:-1]):
        page.go_back()
        wait_for_app(page)
        assert view(page) == expected
    for expected in seen[1:]:
        page.go_forward()
        wait_for_app(page)
        assert view(page) == expected


@pytest.mark.parametrize("data, target, first, second, number, rounds", [
    ("iris", "sepal_length", "Decision Tree", "Naive Bayes", ("Max depth", "3"), 2),  # first
    ("restaurant", "Patrons", "Gradient Boosting", "Decision Tree", ("Rounds T", "7"), 1),
    ("iris", "species", "Random Forest", "AdaBoost", ("Number of trees B", "20"), 1),  # last
])
def test_back_and_forward_restore_page_target_and_parameters(browser, app_url, data, target,
                                                             first, second, number, rounds):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(f"{app_url}/?data={data}")
    wait_for_app(page)
    seen = [view(page)]
    if pick_target(page, target):  # the last column is iris's own target: nothing to pick
        seen.append(view(page))
    go(page, first)
    seen.append(view(page))
    set_number(page, *number)
    seen.append(view(page))
    go(page, second)
    seen.append(view(page))
    assert [v["title"] for v in seen][-3:] == [first, first, second]
    assert all(v["target"] == target for v in seen[-4:])
    assert seen[-2]["query"][_key_of(number[0])] == [number[1]]
    assert all(v["exceptions"] == [] for v in seen)
    for _ in range(rounds):  # more than once: nothing drifts
        back_and_forth(page, seen)
    context.close()


def _key_of(label: str) -> str:
    return {"Max depth": "dt_max_depth", "Rounds T": "gb_rounds",
            "Number of trees B": "rf_trees"}[label]


def test_a_walk_through_every_page_comes_back_the_same(browser, app_url):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(f"{app_url}/?data=playtennis&seed=3")
    wait_for_app(page)
    seen = [view(page)]
    for link in PAGES[1:]:
        go(page, link)
        seen.append(view(page))
    assert [v["title"] for v in seen] == PAGES
    assert all(v["target"] == "PlayTennis" and v["query"]["seed"] == ["3"] for v in seen)
    back_and_forth(page, seen)
    context.close()


def test_the_link_box_follows_adaboost_rounds_and_reopens_the_round(browser, app_url):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(f"{app_url}/adaboost?data=two_moons")
    wait_for_app(page)
    page.get_by_text("Link to this view").click()
    wait_for_app(page)
    for _ in range(5):
        page.locator(".st-key-ab_round_fwd button").first.click()
        wait_for_app(page)
    link = page.locator('[data-testid="stSidebar"] [data-testid="stCode"] code').inner_text()
    assert parse_qs(urlsplit(link.strip()).query)["ab_round"] == ["6"]
    assert parse_qs(urlsplit(page.url).query)["ab_round"] == ["6"]
    context.close()

    fresh = browser.new_context(viewport={"width": 1600, "height": 1000})
    other = fresh.new_page()
    other.goto(link.strip())
    wait_for_app(other)
    other.wait_for_selector(".gtitle", timeout=30_000)
    titles = other.locator(".gtitle").all_text_contents()
    assert any(t.startswith("Round 6:") for t in titles), titles
    assert other.get_by_role("slider", name="Round t").input_value() == "6"
    fresh.close()


def test_values_that_do_not_fit_are_replaced_with_a_notice(page, app_url):
    page.goto(f"{app_url}/adaboost?data=two_moons&target=zzz&ab_x=nope&ab_round=999")
    wait_for_app(page)
    notices = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert any("“zzz” as the target column" in n and "“class”" in n for n in notices), notices
    assert any("“nope” as the x axis" in n for n in notices), notices
    assert any("Round t = 999" in n and "from 1 to 50; showing 1" in n for n in notices), notices
    assert page.get_by_role("combobox", name="Target column").input_value() == "class"
    query = parse_qs(urlsplit(page.url).query)
    assert "target" not in query and "ab_x" not in query and "ab_round" not in query
    assert exceptions(page) == []


def _captions(page) -> list[str]:
    return page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').all_inner_texts()


# A target in the first, a middle and the last column, on every page.
TARGETS = [("iris", "sepal_length"), ("restaurant", "Patrons"), ("iris", "species")]
PATHS = ["", "naive_bayes", "decision_tree", "random_forest", "adaboost", "gradient_boosting",
         "compare"]


@pytest.mark.parametrize("path", PATHS)
def test_a_copied_link_reopens_the_view_for_every_target_position(browser, app_url, path):
    for data, target in TARGETS:
        first = browser.new_context(viewport={"width": 1600, "height": 1000})
        page = first.new_page()
        page.goto(f"{app_url}/{path}?data={data}&seed=2")
        wait_for_app(page)
        pick_target(page, target)
        page.get_by_text("Link to this view").click()
        wait_for_app(page)
        link = page.locator('[data-testid="stSidebar"] [data-testid="stCode"] code').inner_text()
        link, shown = link.strip(), view(page)
        seen = _captions(page)
        first.close()
        assert parse_qs(urlsplit(link).query) == shown["query"]  # the address bar's view

        fresh = browser.new_context(viewport={"width": 1600, "height": 1000})
        other = fresh.new_page()
        other.goto(link)
        wait_for_app(other)
        again = view(other)
        assert {k: again[k] for k in ("path", "query", "title", "target", "numbers")} == \
            {k: shown[k] for k in ("path", "query", "title", "target", "numbers")}, (data, target)
        assert again["exceptions"] == []
        assert _captions(other)[:2] == seen[:2]
        fresh.close()
