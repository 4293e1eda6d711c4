"""Screenshots of every page for a person to look at (not a test).

Usage: start the app (``make run``), then
    .venv/bin/python scripts/screenshots.py [URL] [--query "data=iris&present=true"]
Writes artifacts/screenshots/look-<page>-<width>x<height>.png at 1600×1000 and 1024×768,
plus a tall 1600×3200 one that shows the whole page (Streamlit scrolls inside its own
container, so a full-page screenshot alone would stop at the first screen).
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.e2e.conftest import CHROMIUM_ARGS, exceptions, wait_for_app  # noqa: E402

PAGES = ["", "naive_bayes", "decision_tree", "random_forest", "adaboost",
         "gradient_boosting", "compare"]
SIZES = [(1600, 1000), (1024, 768), (1600, 3200)]
OUT = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url", nargs="?", default="http://localhost:8501")
    parser.add_argument("--query", default="")
    parser.add_argument("--pages", nargs="*", default=PAGES)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        for path in args.pages:
            for width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{args.url}/{path}?{args.query}")
                wait_for_app(page)
                page.wait_for_timeout(800)  # plotly animates its first draw
                name = f"look-{args.tag}{path or 'data'}-{width}x{height}.png"
                page.screenshot(path=str(OUT / name))
                problems = exceptions(page)
                print(name, "EXCEPTION: " + problems[0][:200] if problems else "ok")
                page.close()
        browser.close()


if __name__ == "__main__":
    main()
