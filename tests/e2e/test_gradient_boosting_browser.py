"""The Gradient Boosting page in a real browser: play through rounds, step speed, an upload."""
import time

import pytest

from .conftest import SHAPES_CSV, exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

PLOT = ".js-plotly-plot"

UPLOAD = SHAPES_CSV


def open_page(page, app_url, query: str) -> None:
    page.goto(f"{app_url}/gradient_boosting?{query}")  # a shared link, opened directly
    wait_for_app(page)
    page.wait_for_selector(PLOT, timeout=30_000)


def test_play_runs_through_every_round_and_stops(page, app_url):
    open_page(page, app_url, "data=two_moons&gb_rounds=4")
    assert page.get_by_text("Round 0 of 4").first.is_visible()
    page.get_by_role("button", name="Play").click()
    page.get_by_text("Round 4 of 4").first.wait_for(timeout=30_000)
    page.get_by_role("button", name="Play").wait_for(timeout=15_000)  # Pause became Play
    wait_for_app(page)
    screenshot(page, "gradient_boosting-played")
    assert exceptions(page) == []
    assert "gb_round=4" in page.url  # the step is in the link


def step_seconds(page, before: str, after: str) -> float:
    """Click ▶ and time until the view shows ``after`` instead of ``before``."""
    page.get_by_text(before).first.wait_for(timeout=30_000)
    start = time.perf_counter()
    page.get_by_role("button", name="▶").click()
    page.get_by_text(after).first.wait_for(timeout=30_000)
    return time.perf_counter() - start


def test_one_step_only_draws(page, app_url):
    open_page(page, app_url, "data=two_moons&gb_round=3")
    seconds = step_seconds(page, "Round 3 of 100", "Round 4 of 100")
    assert exceptions(page) == []
    print(f"one step of the round view on two moons: {seconds:.2f} s")
    # Goal 0.5 s (0.37-0.44 s measured; the server's part is 0.1-0.3 s). At load average
    # 18-28 on two shared cores a step took up to 2.4 s, so this bound only catches a
    # step that refits or recomputes the stages.
    assert seconds < 5.0


@pytest.mark.slow
def test_spambase_boundary_step_only_draws(page, app_url):
    open_page(page, app_url, "data=spambase&gb_rounds=50&gb_view=Classification"
                             "&gb_fx=char_freq_%24&gb_fy=capital_run_length_average&gb_bround=3")
    seconds = step_seconds(page, "Decision regions after round 3", "Decision regions after round 4")
    assert exceptions(page) == []
    assert page.get_by_text("Drawn: 900 of 3,450 training rows").first.is_visible()
    print(f"one step of the spambase boundary: {seconds:.2f} s")
    assert seconds < 8.0  # goal 1 s; see test_one_step_only_draws for the loose bound


def test_uploaded_csv_with_categories_and_missing_values(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "shapes.csv", UPLOAD)
    page.get_by_role("link", name="Gradient Boosting").click()
    wait_for_app(page)
    page.wait_for_selector(PLOT, timeout=30_000)  # the round view on "weight" (gaps left out)
    screenshot(page, "gradient_boosting-upload-rounds")
    assert exceptions(page) == []
    for tab in ("Shrinkage", "Importance", "Classification", "Results"):
        page.get_by_role("tab", name=tab).click()
        wait_for_app(page)
        assert exceptions(page) == [], tab
    assert page.get_by_text("Accuracy on seen rows").first.is_visible()  # 16 rows: fitted whole
    screenshot(page, "gradient_boosting-upload")
