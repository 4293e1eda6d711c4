"""Soak: hundreds of page switches and uploads against one server, sampling its memory.

Run (not collected by pytest: the file name does not start with ``test_``)::

    .venv/bin/python tests/load/soak.py --steps 300 --port 8627

Starts ``streamlit run app.py`` on ``--port``, drives one Chromium through a cycle of pages
(sidebar links, so the session and its upload persist), uploads a new random CSV every
``--upload-every`` steps (each a different file, so the parse and fit caches keep filling)
and starts a new session (a reload) every ``--new-session-every`` steps. Every
``--sample-every`` steps it prints the server's resident memory, read from
``/proc/<pid>/status`` (VmRSS), and the server's CPU seconds so far, as CSV:
``step,seconds,rss_mb,cpu_s,exceptions``. Bounded caches show as a curve that rises and
then levels off.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["Data", "Naive Bayes", "Decision Tree", "Random Forest", "AdaBoost",
         "Gradient Boosting", "Compare"]
SAMPLES = ["iris", "playtennis", "two_moons", "mushroom", "spambase", "xor"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def random_csv(step: int) -> bytes:
    rng = np.random.default_rng(step)
    n = int(rng.integers(200, 2_000))
    frame = pd.DataFrame({f"x{j}": rng.normal(size=n).round(3) for j in range(5)})
    frame["colour"] = rng.choice(["red", "green", "blue", None], size=n)
    frame["y"] = np.where(frame["x0"] + rng.normal(size=n) > 0, "yes", "no")
    return frame.to_csv(index=False).encode()


def start_server(port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
           str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false"]
    log = open(ROOT / "artifacts" / f"streamlit-soak-{port}.log", "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(120):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit("the server did not start")


def settle(page, timeout: float = 120.0) -> None:
    deadline, quiet = time.time() + timeout, 0
    while time.time() < deadline and quiet < 3:
        done = page.evaluate("""() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
                && !!document.querySelector('h1')
                && !document.querySelector('[data-testid="stSkeleton"]'); }""")
        quiet = quiet + 1 if done else 0
        page.wait_for_timeout(200)


def step(page, url: str, i: int, args) -> None:
    if i % args.new_session_every == 0:
        page.goto(f"{url}/?data={SAMPLES[(i // args.new_session_every) % len(SAMPLES)]}")
        settle(page)
    if i % args.upload_every == 0:
        page.get_by_role("link", name="Data").click()
        settle(page)
        page.locator('input[type="file"]').set_input_files(
            {"name": f"soak{i}.csv", "mimeType": "text/csv", "buffer": random_csv(i)})
        page.get_by_text(f"soak{i}.csv").first.wait_for(timeout=60_000)
    page.get_by_role("link", name=PAGES[i % len(PAGES)]).click()
    settle(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--port", type=int, default=8627)
    parser.add_argument("--upload-every", type=int, default=7)
    parser.add_argument("--new-session-every", type=int, default=25)
    parser.add_argument("--sample-every", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    (ROOT / "artifacts").mkdir(exist_ok=True)
    server = start_server(args.port)
    url, began, errors = f"http://127.0.0.1:{args.port}", time.time(), 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), headless=True,
                                         args=["--no-sandbox", "--disable-gpu",
                                               "--disable-dev-shm-usage"])
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            print("step,seconds,rss_mb,cpu_s,exceptions", flush=True)
            for i in range(args.steps + 1):
                if i % args.sample_every == 0:
                    print(f"{i},{time.time() - began:.0f},{rss_mb(server.pid):.1f},"
                          f"{cpu_seconds(server.pid):.1f},{errors}", flush=True)
                if i < args.steps:
                    step(page, url, i, args)
                    errors += page.locator('[data-testid="stException"]').count()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
