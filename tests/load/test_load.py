"""A class opens the same forest link at once: one server, thirty sessions.

Each session is its own Streamlit session (own websocket, own session state), opened
within the same second, as a class does when the teacher shares a link. Two kinds:

- **students** (:mod:`tests.load.students`): Python clients that speak Streamlit's websocket
  protocol, doing to the server exactly what a browser tab does on opening the link. In a
  classroom each student's browser runs on the student's laptop; here thirty Chromium
  renderers would share this machine's two cores with the server (a warm page costs the
  server ~0.3 s and each renderer ~2.5 s of CPU), so the test would time Chromium, not
  the server. The students time the server.
- **browsers**: a few real Chromium contexts open the same link *while* the students load
  the server, and must draw the page without an exception.

Two rounds on one fresh server:

1. **cold**: the cache is empty; every session asks for the same forest at once. The fit
   runs once under ``ui.fitting``'s per-model lock; the other sessions wait for it.
2. **warm**: the same number of new sessions; every fit is a cache hit.

Printed: slowest, median and fastest session of each round, errors, and the cold/warm
ratio (what caching buys). Targets (issue 10): no errors, slowest under 20 s on this
2-core machine. ``GLASSBOX_LOAD_SESSIONS`` students (default 30), ``GLASSBOX_LOAD_BROWSERS``
browsers (default 2; ``GLASSBOX_LOAD_BROWSERS=30`` reproduces thirty local renderers),
``GLASSBOX_LOAD_PAGE`` and ``GLASSBOX_LOAD_QUERY`` pick the link.
"""
from __future__ import annotations

import os
import statistics
import threading
import time
from dataclasses import dataclass, field

import pytest

from tests.load.students import Visit, crowd

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

STUDENTS = int(os.environ.get("GLASSBOX_LOAD_SESSIONS", "30"))
BROWSERS = int(os.environ.get("GLASSBOX_LOAD_BROWSERS", "2"))
PAGE = os.environ.get("GLASSBOX_LOAD_PAGE", "random_forest")
QUERY = os.environ.get("GLASSBOX_LOAD_QUERY", "data=spambase")
TIMEOUT_S = 240.0
TARGET_SLOWEST_S = 20.0

SETTLED = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const done = app && app.getAttribute('data-test-script-state') === 'notRunning'
        && document.querySelector('h1')
        && !document.querySelector('[data-testid="stSkeleton"]')
        && document.querySelector('.js-plotly-plot, [data-testid="stGraphVizChart"] svg, '
                                  + '[data-testid="stMetric"], [data-testid="stAlert"]');
    const errors = [...document.querySelectorAll('[data-testid="stException"]')]
        .map(e => e.innerText.slice(0, 300));
    return {done: !!done, errors};
}"""


def report(name: str, seconds: list[float | None], errors: list[str]) -> dict:
    done = sorted(s for s in seconds if s is not None)
    summary = {
        "round": name, "sessions": len(seconds), "unfinished": len(seconds) - len(done),
        "slowest_s": round(done[-1], 2) if done else None,
        "median_s": round(statistics.median(done), 2) if done else None,
        "fastest_s": round(done[0], 2) if done else None, "errors": errors,
    }
    print(f"\n[load] {summary}")
    return summary


def student_round(url: str, name: str) -> dict:
    visits = crowd(url, PAGE, QUERY, STUDENTS, TIMEOUT_S)
    return report(name, [v.seconds for v in visits], [e for v in visits for e in v.errors])


def assert_healthy(summary: dict, *, timed: bool = True) -> None:
    assert summary["unfinished"] == 0, summary
    assert summary["errors"] == [], summary
    if timed:
        assert summary["slowest_s"] < TARGET_SLOWEST_S, summary


def test_a_class_of_students_on_one_server(load_url):
    cold = student_round(load_url, "cold, students")
    warm = student_round(load_url, "warm, students")
    print(f"\n[load] caching: cold slowest {cold['slowest_s']} s vs warm slowest "
          f"{warm['slowest_s']} s (x{cold['slowest_s'] / max(warm['slowest_s'], 1e-3):.1f})")
    assert_healthy(cold)
    assert_healthy(warm)
    # The forest is fitted once for the class: had every session fitted its own, the
    # cold round would take about STUDENTS fits, not one fit plus the warm round's time.
    assert cold["slowest_s"] - cold["fastest_s"] < TARGET_SLOWEST_S, cold


@dataclass
class Tab:
    """A real browser tab opened on the link, polled until its page has settled."""

    page: object
    started: float
    finished: float | None = None
    quiet: int = 0
    errors: list[str] = field(default_factory=list)


def open_tabs(browser, url: str, n: int) -> list[Tab]:
    tabs = []
    for _ in range(n):
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        started = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=60_000)
        tabs.append(Tab(page, started))
    return tabs


def wait_settled(tabs: list[Tab]) -> None:
    """Poll every tab until it has settled three polls in a row (or the time is up)."""
    deadline = time.perf_counter() + TIMEOUT_S
    while time.perf_counter() < deadline and any(t.finished is None for t in tabs):
        for tab in (t for t in tabs if t.finished is None):
            try:
                state = tab.page.evaluate(SETTLED)
            except Exception:  # a page still navigating: poll again later
                state = {"done": False, "errors": []}
            tab.quiet = tab.quiet + 1 if state["done"] else 0
            tab.errors = state["errors"]
            if tab.quiet >= 3:
                tab.finished = time.perf_counter()
        time.sleep(0.2)


def test_browsers_draw_the_page_while_the_class_loads_the_server(browser, load_url):
    url = f"{load_url}/{PAGE}?{QUERY}"
    visits: list[Visit] = []
    class_opens = threading.Thread(
        target=lambda: visits.extend(crowd(load_url, PAGE, QUERY, STUDENTS, TIMEOUT_S)))
    class_opens.start()
    tabs = open_tabs(browser, url, BROWSERS)
    try:
        wait_settled(tabs)
    finally:
        class_opens.join(TIMEOUT_S)
        for tab in tabs:
            tab.page.context.close()
    browsers = report("browsers among the students",
                      [t.finished - t.started if t.finished else None for t in tabs],
                      [e for t in tabs for e in t.errors])
    students = report("students beside the browsers", [v.seconds for v in visits],
                      [e for v in visits for e in v.errors])
    assert len(visits) == STUDENTS
    # Held to the target only beside a few renderers: thirty local Chromiums (a full-count
    # run) take the CPU from the server itself (students 39 s beside them, 8 s alone).
    assert_healthy(students, timed=BROWSERS <= 5)
    # The browsers must draw the page, without an exception, within TIMEOUT_S. Their time
    # is printed, not held to the 20 s target: it adds Chromium's own ≈ 2.5 s of CPU per
    # renderer to the class's server load on the same two cores (12 s here with 2
    # browsers beside 30 students; 18 s with a soak run in parallel).
    assert browsers["unfinished"] == 0, browsers
    assert browsers["errors"] == [], browsers
