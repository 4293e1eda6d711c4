"""A real Streamlit server and Debian's Chromium, driven by Playwright.

Under CI=true these tests must run: a missing Chromium fails them instead of skipping.
Locally without Chromium they skip with a message saying how to install it.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _need(condition: bool, why: str) -> None:
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run under CI: {why}")
    pytest.skip(f"{why} (install with: apt-get install -y chromium)")


#: A small upload with categorical columns and missing values, for every page's test.
SHAPES_CSV = (
    b"colour,size,shape,weight,label\n"
    b"red,small,round,1.0,yes\n"
    b"blue,large,,2.5,no\n"
    b"red,large,square,,yes\n"
    b"green,small,round,0.7,no\n"
    b"blue,small,square,1.8,no\n"
    b"red,,round,1.1,yes\n"
    b"green,large,square,3.0,no\n"
    b"red,small,square,0.9,yes\n"
    b"blue,large,round,2.2,no\n"
    b"green,small,,0.8,yes\n"
    b"red,large,round,1.5,yes\n"
    b"blue,small,round,,no\n"
    b"green,large,round,2.7,no\n"
    b"red,small,,1.2,yes\n"
    b"blue,large,square,2.9,no\n"
    b"green,small,square,0.6,yes\n"
)


@contextlib.contextmanager
def serve(env: dict[str, str] | None = None, port: int | None = None):
    """A fresh ``streamlit run app.py`` on ``port`` (a free local one if None), with
    ``env`` added to the environment; yields its base URL."""
    _mkdirs()
    port = _free_port() if port is None else port
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    with open(ROOT / "artifacts" / f"streamlit-e2e-{port}.log", "a") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_healthy(url, proc)
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def _wait_healthy(url: str, proc) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    pytest.fail("streamlit did not answer /_stcore/health within 60 s")


@pytest.fixture(scope="session")
def app_url():
    with serve() as url:
        yield url


def _mkdirs() -> bool:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return True


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    yield page
    context.close()


def wait_for_app(page, timeout: float = 60.0) -> None:
    """Wait until the script has finished and every element has drawn.

    Streamlit marks its root with ``data-test-script-state``; while lazily loaded
    widgets are on their way it shows ``stSkeleton`` placeholders. Both must settle.
    """
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=timeout * 1000)
    page.wait_for_selector("h1", timeout=timeout * 1000)
    deadline, quiet = time.time() + timeout, 0
    while time.time() < deadline and quiet < 3:
        settled = page.evaluate(
            """() => {
                const app = document.querySelector('[data-testid="stApp"]');
                const state = app && app.getAttribute('data-test-script-state');
                return state === 'notRunning'
                    && !document.querySelector('[data-testid="stSkeleton"]');
            }"""
        )
        quiet = quiet + 1 if settled else 0
        page.wait_for_timeout(250)


def _settled_box(page, locator, tries: int = 40) -> dict:
    """The locator's box once it has stopped moving: two measures 250 ms apart agree (a
    diagram or chart still being drawn above it moves it as it appears)."""
    box = locator.bounding_box()
    for _ in range(tries):
        page.wait_for_timeout(250)
        again = locator.bounding_box()
        if again == box:
            break
        box = again
    return box


def empty_grid_cell(page, x_share: float, answer, state: str = "visible",
                    attempts: int = 3) -> float:
    """Empty the cell at ``x_share`` of the width of the page's first row editor (one
    header row above one data row) and wait until the locator ``answer`` reaches
    ``state``; returns the seconds from the edit's Enter to the answer.

    The editor is a canvas grid: a click lands on whatever cell is under the pointer at
    that moment, and one that arrives while the page is still settling can miss. So the
    editor is brought into view and measured once it has stopped moving, right before
    each click, and the edit is tried again (a bounded number of times) until the page
    answers.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    editor = page.locator('[data-testid="stDataFrameResizable"]').first
    for attempt in range(attempts):
        editor.scroll_into_view_if_needed()
        wait_for_app(page)
        grid = _settled_box(page, editor)
        page.mouse.click(grid["x"] + grid["width"] * x_share, grid["y"] + grid["height"] * 0.75)
        page.keyboard.press("Delete")
        start = time.perf_counter()
        page.keyboard.press("Enter")
        try:
            answer.wait_for(state=state, timeout=15_000)
            return time.perf_counter() - start
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
    return float("nan")


def exceptions(page) -> list[str]:
    return page.locator('[data-testid="stException"]').all_inner_texts()


def screenshot(page, name: str) -> Path:
    _mkdirs()
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def upload(page, name: str, content: bytes) -> None:
    """Upload ``content`` as file ``name`` on the Data page and wait until it is in use."""
    page.locator('input[type="file"]').set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": content})
    page.get_by_text(name).first.wait_for(timeout=30_000)
    wait_for_app(page)
