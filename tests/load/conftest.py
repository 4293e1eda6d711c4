"""One Streamlit server and one Chromium for the load tests (the e2e fixtures, reused)."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import browser, serve  # noqa: F401  (browser is a fixture)


@pytest.fixture(scope="module")
def load_url():
    """A fresh server for this module: its caches start cold, so the first fit is measured."""
    with serve() as url:
        yield url
