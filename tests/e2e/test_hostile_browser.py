"""A CSV full of markup, quotes, DOT syntax, newlines and emoji, in a real browser.

The file is uploaded on the Data page and the same session visits Naive Bayes and Decision
Tree. On each page: no exception box; no element that the data brought in (no <b>, <i> or
<script> whose text comes from the file, no <img> with an onerror); no alert dialog ever
opens; and the tree's SVG shows the hostile names as characters.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from .conftest import exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

MARKUP = ["<b>bold</b>", "<script>alert(1)</script>", '<img src=x onerror="alert(2)">',
          'a"];x[label=<', "<i>it</i> & co", "🌳 tree"]


def hostile_csv() -> bytes:
    rng = np.random.default_rng(1)
    n = 80
    values = np.array(MARKUP)[rng.integers(0, len(MARKUP), n)]
    x = rng.normal(size=n).round(3)
    frame = pd.DataFrame({
        "<b>width</b>": x,
        'a"];x[label=<': rng.normal(size=n).round(3),
        "<script>alert(3)</script>": values,
        "two\nlines": rng.integers(0, 4, n),
        "class 🌳": np.where(x + (values == MARKUP[1]) > 0.3, "<b>yes</b>", "<i>no</i>"),
    })
    return frame.to_csv(index=False).encode()


INJECTED = """() => {
    const fromData = new Set(['bold', 'width', 'yes', 'no', 'it']);
    const bad = [];
    for (const el of document.querySelectorAll('b, i, strong, em, script, img, iframe')) {
        const text = (el.textContent || '').trim();
        if (el.tagName === 'SCRIPT' ? text.includes('alert(') : fromData.has(text)) {
            bad.push(el.outerHTML);
        }
        if ((el.getAttribute('onerror') || '').includes('alert')) bad.push(el.outerHTML);
    }
    return bad;
}"""


def check_page(page, dialogs: list[str], name: str) -> None:
    wait_for_app(page)
    screenshot(page, f"hostile-{name}")
    assert exceptions(page) == [], name
    assert page.evaluate(INJECTED) == [], name
    assert dialogs == [], name


def test_hostile_csv_stays_text_on_data_naive_bayes_and_tree_pages(page, app_url):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "hostile.csv", hostile_csv())
    check_page(page, dialogs, "data")
    assert "data=upload" in page.url

    page.get_by_role("link", name="Naive Bayes").click()
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    check_page(page, dialogs, "naive_bayes")

    page.get_by_role("link", name="Decision Tree").click()
    page.wait_for_selector('[data-testid="stGraphVizChart"] g.node', timeout=60_000)
    check_page(page, dialogs, "decision_tree")
    tree_text = page.locator('[data-testid="stGraphVizChart"]').first.text_content()
    assert "<script>alert(3)</script>" in tree_text or "<b>width</b>" in tree_text


def test_class_names_with_markup_show_verbatim_on_charts(page, app_url):
    """plotly reads <b>, <i>, <br> and <a href> in any text as markup; viz escapes data text,
    so a class called '<b>yes</b>' is drawn as those characters, not as a bold 'yes'."""
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "hostile.csv", hostile_csv())
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)
    charts = page.locator(".js-plotly-plot").first.inner_text()
    assert "<b>yes</b>" in charts and "<i>no</i>" in charts
