"""Shared test fixtures: where the datasets live, and loading them.

Datasets are looked up first in the repository's own ``sample_data/`` (what the app ships)
and then in ``shared/data/`` beside the repository (the project's source copies: a fresh
clone of the repo next to ``shared/`` finds them without configuration).
``GLASSBOX_DATA`` may name one more folder to search first.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]


def data_dirs() -> list[Path]:
    """Folders searched for a dataset, in order of preference."""
    dirs = [REPO / "sample_data", REPO.parent / "shared" / "data"]
    extra = os.environ.get("GLASSBOX_DATA")
    return ([Path(extra)] if extra else []) + dirs


def find_data(name: str) -> Path | None:
    """The first existing ``name`` among :func:`data_dirs`, or None."""
    for folder in data_dirs():
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def data_path(name: str) -> Path:
    """Path of dataset ``name``; skips the calling test if no copy exists anywhere."""
    path = find_data(name)
    if path is None:
        searched = ", ".join(str(d) for d in data_dirs())
        pytest.skip(f"dataset {name!r} not found (searched {searched})")
    return path


@pytest.fixture(name="data_path", scope="session")
def data_path_fixture() -> Callable[[str], Path]:
    """``data_path("loan.csv")`` inside a test gives the file's path."""
    return data_path


@pytest.fixture(name="read_data", scope="session")
def read_data_fixture() -> Callable[..., pd.DataFrame]:
    """``read_data("restaurant.csv", keep_default_na=False)``: a dataset as a DataFrame."""

    def read(name: str, **read_csv_kwargs) -> pd.DataFrame:
        return pd.read_csv(data_path(name), **read_csv_kwargs)

    return read


@pytest.fixture
def raise_on_float_errors():
    """Overflow, 0/0 and x/0 fail the test instead of slipping through as inf or NaN.

    Underflow stays silent: a midpoint of subnormal values rounding towards 0 is IEEE's
    gradual underflow working as intended, not an error. Opt in with
    ``pytestmark = pytest.mark.usefixtures("raise_on_float_errors")``.
    """
    with np.errstate(all="raise", under="ignore"):
        yield


# One Chromium for the whole run: Playwright's sync API allows one running instance per
# thread, so the browser tests (tests/e2e) and the load tests (tests/load) share it.
@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium through Playwright (browser tests fail under CI without it)."""
    import shutil

    from tests.e2e.conftest import CHROMIUM_ARGS, _need

    chromium = shutil.which("chromium")
    _need(chromium is not None, "Debian's chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


