"""The AdaBoost page in a real browser: stepping speed, the play control, an upload."""
import pytest

from .conftest import exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e

FORWARD = ".st-key-ab_round_fwd button"

# Clicks ▶ and returns the seconds until the chart's title names the next round: the
# fragment reran, the cached grids were sliced and plotly drew the new figure.
STEP = """async ([selector, title]) => {
    const t0 = performance.now();
    document.querySelector(selector).click();
    while (![...document.querySelectorAll('.gtitle')].some(e => e.textContent.startsWith(title))) {
        await new Promise(r => requestAnimationFrame(r));
        if (performance.now() - t0 > 30000) return -1;
    }
    return (performance.now() - t0) / 1000;
}"""


def open_page(page, app_url, query: str) -> None:
    page.goto(f"{app_url}/adaboost?{query}")  # a shared link, opened directly
    wait_for_app(page)
    page.wait_for_selector(".gtitle", timeout=30_000)


def step_times(page, first: int, n: int) -> list[float]:
    times = []
    for t in range(first + 1, first + n + 1):
        times.append(page.evaluate(STEP, [FORWARD, f"Round {t}:"]))
        wait_for_app(page)
    return times


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def test_two_moons_steps_round_by_round_quickly(page, app_url):
    open_page(page, app_url, "data=two_moons&ab_round=1")
    times = step_times(page, 1, 4)
    screenshot(page, "adaboost-two_moons")
    assert exceptions(page) == []
    assert min(times) > 0, times  # every step reached its round
    print(f"two_moons: one round redrawn in {median(times):.2f} s (median of {times})")
    # The goal is 0.5 s (0.6-2.0 s measured on 2 cores at load average 14); the bound
    # only catches a regression such as recomputing the grids or refitting every step.
    assert median(times) < 2.5


@pytest.mark.slow
def test_spambase_steps_within_a_second(page, app_url):
    open_page(page, app_url, "data=spambase&ab_round=1")
    times = step_times(page, 1, 3)
    assert exceptions(page) == [] and min(times) > 0, times
    print(f"spambase: one round redrawn in {median(times):.2f} s (median of {times})")
    assert median(times) < 4.0  # goal 1 s; 0.8-2.1 s measured at load average 16, see above


def test_play_advances_the_rounds_and_pause_stops(page, app_url):
    open_page(page, app_url, "data=xor&ab_rounds=20&ab_round=1")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.gtitle')].some(e => e.textContent.startsWith('Round 3:'))",
        timeout=30_000)
    page.get_by_role("button", name="Pause").click()
    wait_for_app(page)
    stopped = page.locator(".gtitle").first.text_content()
    page.wait_for_timeout(2500)  # more than two play intervals
    assert page.locator(".gtitle").first.text_content() == stopped
    assert exceptions(page) == []


def _shapes_csv(n: int = 48) -> bytes:
    """Categorical columns and missing values in both kinds of column."""
    colours, shapes = ["red", "blue", "green"], ["round", "square", ""]
    lines = ["colour,shape,weight,height,label"]
    for i in range(n):
        colour, shape = colours[i % 3], shapes[(i // 3) % 3]
        weight = "" if i % 7 == 0 else f"{1 + (i * 37 % 23) / 10:.1f}"
        height = f"{(i * 53 % 31) / 10:.1f}"
        label = "yes" if (colour == "red") != (i % 5 == 0) else "no"
        lines.append(f"{colour},{shape},{weight},{height},{label}")
    return ("\n".join(lines) + "\n").encode()


def test_uploaded_csv_with_categories_and_missing_values(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "shapes.csv", _shapes_csv())
    page.get_by_role("link", name="AdaBoost").click()
    wait_for_app(page)
    page.wait_for_selector(".gtitle", timeout=30_000)  # weight × height: the picture
    assert exceptions(page) == []
    assert page.get_by_text("or missing").first.is_visible()  # where a stump sends NaN
    assert page.get_by_text("asks colour ∈").first.is_visible()  # a category set
    screenshot(page, "adaboost-upload")
    page.get_by_role("tab", name="All stumps").click()
    wait_for_app(page)
    assert page.locator('[data-testid="stDataFrame"]').first.is_visible()
    assert page.get_by_role("button", name="Download the table (CSV)").is_visible()
    assert exceptions(page) == []
