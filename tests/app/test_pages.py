"""Every page runs under Streamlit's AppTest without an exception, on every sample.

Each test is one first run with its state in the URL, as a shared link would give it:
under AppTest (Streamlit 1.67) an ``st.navigation`` app's sidebar widgets drop out of the
element tree on reruns, so interactions with the sidebar are tested in the real browser
(tests/e2e) instead.
"""
import base64
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.data import list_samples

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["app_pages/data.py", "app_pages/naive_bayes.py", "app_pages/decision_tree.py",
         "app_pages/random_forest.py", "app_pages/adaboost.py", "app_pages/gradient_boosting.py",
         "app_pages/compare.py"]
SAMPLES = [entry["name"] for entry in list_samples()]


def run_app(page: str | None = None, **query) -> AppTest:
    """The app opened from a link to ``page`` (the Data page when None) with ``query``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    if page is not None:
        at.switch_page(page)
    at.run()
    return at


def values(array) -> np.ndarray:
    """A plotly JSON array: a list, or {"dtype", "bdata"} (base64 of the raw numbers)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array, dtype=float)


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def test_app_opens_on_the_data_page():
    at = run_app()
    assert_clean(at)
    assert at.title[0].value.endswith("Data")
    assert at.sidebar.selectbox(key="data").value == "playtennis"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs(page):
    at = run_app(page)
    assert_clean(at)
    assert at.title, f"{page} shows no title"


@pytest.mark.parametrize("sample", SAMPLES)
def test_data_page_runs_on_every_sample(sample):
    at = run_app(data=sample)
    assert_clean(at)
    assert at.sidebar.selectbox(key="data").value == sample
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) >= 1


def test_each_sample_opens_with_its_own_target():
    at = run_app(data="iris")
    assert_clean(at)
    assert at.sidebar.selectbox(key="target").value == "species"


def test_a_target_that_is_not_a_column_falls_back_to_the_default():
    at = run_app(data="loan", target="no such column")
    assert_clean(at)
    assert at.sidebar.selectbox(key="target").value == "y"


def test_link_reopens_sample_target_and_split():
    at = run_app(data="restaurant", target="Patrons", test="0.3", seed="7")
    assert_clean(at)
    assert at.sidebar.selectbox(key="target").value == "Patrons"
    assert at.sidebar.number_input(key="seed").value == 7
    assert at.slider(key="test").value == pytest.approx(0.3)


def test_upload_link_without_file_asks_for_the_file():
    at = run_app(data="upload")
    assert_clean(at)
    assert any("Upload it again" in i.value for i in at.info)


def test_regression_target_shows_a_histogram_not_class_balance():
    at = run_app(data="friedman1")
    assert_clean(at)
    assert "Target mean" in [m.label for m in at.metric]
    assert any("**regression**" in m.value for m in at.markdown)
