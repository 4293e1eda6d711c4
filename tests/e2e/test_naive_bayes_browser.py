"""The Naive Bayes page in a real browser: charts draw, and a typed sentence is classified."""
import re

import pytest

from .conftest import exceptions, screenshot, upload, wait_for_app
from .test_browser import SEMICOLON_FILE

pytestmark = pytest.mark.e2e


def open_page(page, app_url: str, query: str) -> None:
    page.goto(f"{app_url}/naive_bayes?{query}")  # a shared link, opened directly
    wait_for_app(page)


def test_playtennis_draws_priors_and_the_evidence_ledger(page, app_url):
    open_page(page, app_url, "data=playtennis")
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)
    assert page.get_by_text("Priors P(c) = N_c / N").first.is_visible()
    page.get_by_role("tab", name="Evidence for one row").click()
    page.get_by_text("Evidence ledger").first.wait_for(timeout=30_000)
    wait_for_app(page)
    screenshot(page, "naive_bayes-playtennis-ledger")
    assert exceptions(page) == []
    assert page.locator(".katex").count() >= 3  # Bayes' rule, then one line per class


def test_a_typed_sentence_is_classified(page, app_url):
    open_page(page, app_url, "data=reviews")
    box = page.locator('input[aria-label="Type a sentence and press Enter"]')
    box.fill("The food was cold and the service was terrible")
    box.press("Enter")
    wait_for_app(page)
    verdict = page.get_by_text(re.compile(r"Multinomial predicts negative"))
    verdict.first.wait_for(timeout=30_000)
    assert page.get_by_text(re.compile(r"Bernoulli predicts negative")).first.is_visible()
    assert "terrible" in page.url  # the sentence is in the link
    screenshot(page, "naive_bayes-reviews-typed")
    assert exceptions(page) == []


def test_an_uploaded_file_with_mixed_columns_and_missing_values(page, app_url):
    """Numbers with gaps, categories with '?', a text column: one MixedNB over all of them."""
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "fruit.csv", SEMICOLON_FILE)
    page.get_by_role("link", name="Naive Bayes").click()
    page.get_by_role("heading", name="Naive Bayes").wait_for(timeout=30_000)
    wait_for_app(page)
    screenshot(page, "naive_bayes-upload-fruit")
    assert exceptions(page) == []
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)
    assert page.get_by_text("Accuracy on seen rows").first.is_visible()  # 8 rows: fitted whole
