"""One Streamlit server for the load tests; the Chromium is tests/conftest.py's `browser`."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import serve


@pytest.fixture(scope="module")
def load_url():
    """A fresh server for this module: its caches start cold, so the first fit is measured."""
    with serve() as url:
        yield url
