"""How the app feels with a 200,000-row upload, in a real browser: issue 33's timings.

Run from the repository root (Debian's chromium, the virtualenv and scikit-learn, which
makes the data, needed)::

    .venv/bin/python bench/bench_big.py               # median of 3
    .venv/bin/python bench/bench_big.py --rows 50000  # a smaller file

Each repeat writes a new CSV (``make_classification``, 20 numeric columns rounded to 4
decimals, a class column "yes"/"no" first, so the target is not the last column), starts
a fresh browser context, uploads it on the Data page and then, in the same session (an
upload belongs to its session), opens every model page from the sidebar and times:

- the first render of the page (its fit included: a new file is never cached);
- one interaction: the tree's max depth, its "Show your working" and "Decision
  boundary" tabs, the forest's number of trees, AdaBoost's ▶ step, gradient boosting's
  Importance tab, and the Compare page's Learning curves tab.

Each time runs from the click to the moment the page has settled (see
``bench_browser.settle``). Targets (issue 33): first render ≤ 5 s, interaction ≤ 1 s.
Exceptions shown on a page are printed.
"""
from __future__ import annotations

import argparse
import io
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.bench_browser import COUNT_RUNS, runs, settle  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, exceptions, serve, upload  # noqa: E402

FIRST, STEP = 5.0, 1.0


def big_csv(n_rows: int, seed: int) -> bytes:
    """A 20-feature, two-class table of ``n_rows`` rows, class column first."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_rows, n_features=20, n_informative=5,
                               random_state=seed)
    frame = pd.DataFrame(X.round(4), columns=[f"x{j}" for j in range(20)])
    frame.insert(0, "class", np.where(y == 1, "yes", "no"))
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def timed(page, action, timeout: float = 600.0) -> float:
    before, start = runs(page), time.perf_counter()
    action()
    return settle(page, start, before, timeout)


def go(page, name: str) -> float:
    nav = page.locator('[data-testid="stSidebar"]')
    return timed(page, lambda: nav.get_by_role("link", name=name, exact=True).click())


def tab(page, name: str) -> float:
    return timed(page, lambda: page.get_by_role("tab", name=name).click())


def number(page, label: str, value: int) -> float:
    box = page.get_by_role("spinbutton", name=label, exact=True)
    box.fill(str(value))
    return timed(page, lambda: box.press("Enter"))


class Times(dict):
    """Timings in the order taken, each printed as it is taken (a long run shows progress)."""

    def __setitem__(self, name: str, seconds: float) -> None:
        print(f"  {name.strip()}: {seconds:.1f} s", flush=True)
        super().__setitem__(name, seconds)


def one_run(browser, base: str, content: bytes) -> tuple[dict, list[str]]:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    context.add_init_script(COUNT_RUNS)
    page = context.new_page()
    page.set_default_timeout(300_000)
    page.goto(base)
    page.wait_for_selector("h1")
    settle(page, time.perf_counter(), 0)
    start = time.perf_counter()
    upload(page, "big.csv", content)
    t = Times()
    t["upload (Data page)"] = time.perf_counter() - start
    errors = []
    t["Decision Tree: first render"] = go(page, "Decision Tree")
    t["  max depth 5"] = number(page, "Max depth", 5)
    t["  Show your working tab"] = tab(page, "Show your working")
    t["  Decision boundary tab"] = tab(page, "Decision boundary")
    errors += exceptions(page)
    t["Naive Bayes: first render"] = go(page, "Naive Bayes")
    t["Random Forest: first render"] = go(page, "Random Forest")
    t["  50 trees"] = number(page, "Number of trees B", 50)
    t["  Results tab"] = tab(page, "Results")
    errors += exceptions(page)
    t["AdaBoost: first render"] = go(page, "AdaBoost")
    t["  ▶ step"] = timed(page, lambda: page.get_by_role("button", name="▶").first.click())
    errors += exceptions(page)
    t["Gradient Boosting: first render"] = go(page, "Gradient Boosting")
    t["  Importance tab"] = tab(page, "Importance")
    errors += exceptions(page)
    t["Compare: first render"] = go(page, "Compare")
    t["  Learning curves tab"] = tab(page, "Learning curves")
    errors += exceptions(page)
    context.close()
    return t, errors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    results, errors = [], []
    with serve() as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), headless=True,
                                     args=CHROMIUM_ARGS)
        for k in range(args.repeats):
            content = big_csv(args.rows, seed=k)  # a new file: nothing cached
            print(f"run {k + 1}: {len(content) / 1e6:.1f} MB", flush=True)
            times, found = one_run(browser, base, content)
            results.append(times)
            errors += found
        browser.close()
    print(f"\n{args.rows:,} rows × 20 features, medians of {args.repeats}\n")
    print("| view | median s | runs | target | status |\n|---|---|---|---|---|")
    for name in results[0]:
        values = [r[name] for r in results]
        median = statistics.median(values)
        target = STEP if name.startswith("  ") else FIRST
        status = "" if name.startswith("upload") else ("ok" if median <= target else "MISSED")
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"| {name.strip()} | {median:.1f} | {shown} | ≤ {target:g} | {status} |")
    if errors:
        print("\nexceptions:", errors[:5])


if __name__ == "__main__":
    main()
