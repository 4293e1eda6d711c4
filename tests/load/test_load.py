"""Thirty students open the same forest link at once: one server, N browser contexts.

Each context is its own Streamlit session (own cookies, own websocket). All open
``/<page>?data=spambase`` within a second of each other, as a class does when the teacher
shares a link; the test then polls every page until its script has finished and something
is drawn, and records the time each took.

Two rounds on one server:

1. **cold**: the cache is empty; all N sessions ask for the same forest at once. Streamlit's
   ``st.cache_resource`` computes one key once (the others wait for it), so the forest is
   fitted once, not N times.
2. **warm**: N new sessions open the same link; every fit is a cache hit.

Printed: slowest, median and fastest session of each round, errors, and the cold/warm
ratio (what caching buys). Targets (issue 10): no errors, slowest under 20 s on a 2-core
machine. N = ``GLASSBOX_LOAD_SESSIONS`` (default 5, for CI); run 30 locally:
``GLASSBOX_LOAD_SESSIONS=30 .venv/bin/python -m pytest tests/load -s``.
``GLASSBOX_LOAD_PAGE`` picks the page (default ``random_forest``).
"""
from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SESSIONS = int(os.environ.get("GLASSBOX_LOAD_SESSIONS", "5"))
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


@dataclass
class Session:
    page: object
    started: float
    finished: float | None = None
    quiet: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return (self.finished or time.perf_counter()) - self.started


def open_sessions(browser, url: str, n: int) -> list[Session]:
    sessions = []
    for _ in range(n):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        started = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=60_000)
        sessions.append(Session(page, started))
    return sessions


def wait_all(sessions: list[Session]) -> None:
    """Poll every page until it has settled three polls in a row (or the time is up)."""
    deadline = time.perf_counter() + TIMEOUT_S
    while time.perf_counter() < deadline and any(s.finished is None for s in sessions):
        for s in (s for s in sessions if s.finished is None):
            try:
                state = s.page.evaluate(SETTLED)
            except Exception as error:  # a page still navigating: poll again later
                state = {"done": False, "errors": [], "navigating": str(error)}
            s.quiet = s.quiet + 1 if state["done"] else 0
            s.errors = state["errors"]
            if s.quiet >= 3:
                s.finished = time.perf_counter()
        time.sleep(0.2)


def close(sessions: list[Session]) -> None:
    for s in sessions:
        s.page.context.close()


def round_report(name: str, sessions: list[Session]) -> dict:
    times = sorted(s.seconds for s in sessions)
    report = {
        "round": name, "sessions": len(sessions), "slowest_s": round(times[-1], 2),
        "median_s": round(statistics.median(times), 2), "fastest_s": round(times[0], 2),
        "unfinished": sum(s.finished is None for s in sessions),
        "errors": [e for s in sessions for e in s.errors],
    }
    print(f"\n[load] {report}")
    return report


def run_round(browser, url: str, n: int, name: str) -> dict:
    sessions = open_sessions(browser, url, n)
    try:
        wait_all(sessions)
        return round_report(name, sessions)
    finally:
        close(sessions)


def test_many_sessions_on_one_server(browser, load_url):
    url = f"{load_url}/{PAGE}?{QUERY}"
    cold = run_round(browser, url, SESSIONS, "cold")
    warm = run_round(browser, url, SESSIONS, "warm")
    print(f"\n[load] caching: cold slowest {cold['slowest_s']} s vs warm slowest "
          f"{warm['slowest_s']} s (x{cold['slowest_s'] / max(warm['slowest_s'], 1e-3):.1f})")
    for report in (cold, warm):
        assert report["unfinished"] == 0, report
        assert report["errors"] == [], report
    assert warm["slowest_s"] < TARGET_SLOWEST_S, warm
    # Every cold session waited for one shared fit: none took far longer than the slowest
    # warm session plus one fit, which it would if each session fitted its own forest.
    assert cold["slowest_s"] < TARGET_SLOWEST_S + cold["fastest_s"], cold
