"""Hostile and degenerate uploads, and hand-edited URLs, on the Data, Naive Bayes and Decision
Tree pages under AppTest: a clear message or a working model, never a traceback.

An upload is injected the way the Data page's uploader callback stores it: as
``ui.state.Upload`` in ``st.session_state["gb_upload"]`` with ``?data=upload`` in the URL
(the server-side bytes never travel in a link). Each test is one first run (see
tests/app/test_pages.py for why AppTest is used this way).

Two sessions (two AppTests) that upload different files each see only their own file.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ui.state import Upload

from .test_pages import ROOT, assert_clean

DATA, NB, DT = "app_pages/data.py", "app_pages/naive_bayes.py", "app_pages/decision_tree.py"
RF, AB, GB = "app_pages/random_forest.py", "app_pages/adaboost.py", "app_pages/gradient_boosting.py"
CMP = "app_pages/compare.py"
PAGES = [DATA, NB, DT, RF, AB, GB, CMP]
HOSTILE = ["<b>x</b>", "<script>alert(1)</script>", 'a"];x[label=<', "two\nlines", "🌳 emoji",
           "it's & \"quoted\""]


def run_upload(page: str | None, content: bytes, name: str = "hostile.csv", **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.session_state["gb_upload"] = Upload(name, content)
    at.query_params["data"] = "upload"
    for key, value in query.items():
        at.query_params[key] = value
    if page is not None:
        # Chosen before the first run: switching after it would read the sidebar's labels
        # outside a session, which AppTest cannot do for the upload entry.
        at.switch_page(page)
    at.run()
    return at


def csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode("utf-8")


def messages(at: AppTest) -> list[str]:
    return [e.value for kind in ("error", "warning", "info") for e in at.get(kind)]


def preview(at: AppTest) -> pd.DataFrame:
    """The Data page's preview of the table (the class names table comes before it)."""
    return next(d.value for d in at.dataframe if list(d.value.columns) != ["value", "name"])


def assert_message_or_model(at: AppTest) -> None:
    """No traceback; either a stated problem or something drawn from a model."""
    assert_clean(at)
    drawn = at.get("plotly_chart") or at.get("graphviz_chart") or at.metric
    assert messages(at) or drawn, "neither a message nor a result on screen"
    for message in (e.value for e in at.error):
        assert message.startswith("**") and len(message) > 30, message  # says what and why


def hostile_frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    values = np.array(HOSTILE)[rng.integers(0, len(HOSTILE), n)]
    return pd.DataFrame({
        HOSTILE[0]: rng.normal(size=n).round(3),
        HOSTILE[2]: rng.normal(size=n).round(3),
        HOSTILE[1]: values,
        "L" * 10_000: rng.integers(0, 3, n),
        "target 🌳": np.where(rng.random(n) > 0.5, "<i>yes</i>", "no\"];"),
    })


@pytest.mark.parametrize("page", PAGES)
def test_hostile_names_and_values_are_shown_as_text(page):
    at = run_upload(page, csv(hostile_frame()))
    assert_clean(at)
    assert not at.error, messages(at)
    if page == DATA:
        table = preview(at)
        assert HOSTILE[0] in table.columns and HOSTILE[1] in set(table[HOSTILE[1]])
    elif page == NB:
        assert at.metric, "a model should be fitted on this file"
    elif page == DT:
        assert at.get("graphviz_chart"), "the tree should be drawn"
    else:
        assert at.get("plotly_chart") or at.dataframe, "the model's views should be drawn"


@pytest.mark.parametrize("page", [NB, DT, RF, AB, GB, CMP])
def test_a_target_with_one_class_says_so(page):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=30), "y": ["only"] * 30})
    at = run_upload(page, csv(frame), target="y")  # chosen: Glassbox would not guess it
    assert_clean(at)
    assert any("one class" in m for m in messages(at)), messages(at)


@pytest.mark.parametrize("page", PAGES)
def test_a_target_with_5000_classes(page):
    rng = np.random.default_rng(0)
    n = 5_000
    frame = pd.DataFrame({"x": rng.normal(size=n).round(4), "g": rng.integers(0, 4, n),
                          "label": [f"c{i}" for i in range(n)]})
    at = run_upload(page, csv(frame), target="label", task="classification")
    assert_message_or_model(at)


PAGES_ONE_FEATURE = PAGES


@pytest.mark.parametrize("page", PAGES_ONE_FEATURE)
def test_all_missing_and_constant_columns_leave_one_feature(page):
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"gone": [""] * n, "same": ["k"] * n, "zero": [0] * n,
                          "x": rng.normal(size=n).round(3),
                          "y": np.where(rng.random(n) > 0.5, "a", "b")})
    at = run_upload(page, csv(frame))
    assert_message_or_model(at)
    assert not at.error, messages(at)


@pytest.mark.parametrize("page", PAGES)
def test_only_all_missing_and_constant_features(page):
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"gone": [""] * n, "same": ["k"] * n,
                          "y": np.where(rng.random(n) > 0.5, "a", "b")})
    at = run_upload(page, csv(frame))
    assert_message_or_model(at)


def test_a_log_of_dates_and_a_measurement_learns_it_from_the_season():
    """A date and a temperature (as vega_datasets' seattle-temps.csv): the temperature is
    the target, not the date's weekday, and the date's parts are its features."""
    days = pd.date_range("2010-01-01", periods=400, freq="D")
    temp = 10 - 8 * np.cos(2 * np.pi * days.day_of_year / 365)
    temp += np.random.default_rng(0).normal(size=400)
    at = run_upload(DATA, csv(pd.DataFrame({"date": days.strftime("%Y-%m-%d"),
                                            "temp": temp.round(1)})))
    assert_clean(at)
    assert not at.error, messages(at)
    assert at.sidebar.selectbox(key="target").value == "temp"
    assert next(m.value for m in at.metric if m.label == "Features used") == "3"


def test_a_table_with_no_feature_left_shows_its_columns_to_include_one():
    """The message asks for a column to be included on the Data page: the page shows the
    columns to tick under it. (The tick is a browser's: AppTest cannot rerun a session
    whose sidebar lists an upload.)"""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"order": [f"A{i:04d}" for i in range(60)],
                          "amount": rng.gamma(2, 30, 60).round(2)})
    at = run_upload(DATA, csv(frame))
    assert_clean(at)
    assert any("No feature columns are left" in e.value for e in at.error), messages(at)
    (editor,) = at.data_editor
    assert editor.value["column"].tolist() == ["order", "amount"]
    assert not editor.value["use"].any()


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_two_thousand_columns(page):
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame(rng.normal(size=(n, 2_000)).round(2),
                         columns=[f"f{j}" for j in range(2_000)])
    frame["y"] = np.where(frame["f0"] > 0, "up", "down")
    at = run_upload(page, csv(frame))
    assert_message_or_model(at)


@pytest.mark.parametrize("page", PAGES)
def test_a_one_row_file(page):
    at = run_upload(page, b"a,b,y\n1,2,yes\n")
    assert at.error and "**" in at.error[0].value, messages(at)
    assert_message_or_model(at)


@pytest.mark.parametrize("page", PAGES)
def test_infinite_values(page):
    rng = np.random.default_rng(0)
    n = 40
    x = rng.normal(size=n)
    x[::7] = np.inf
    x[3] = -np.inf
    frame = pd.DataFrame({"x": x, "z": rng.normal(size=n), "y": np.where(x > 0, "p", "q")})
    at = run_upload(page, frame.to_csv(index=False).encode())
    assert_message_or_model(at)


@pytest.mark.parametrize("page", [DATA, NB, DT])
def test_a_numeric_regression_target_with_huge_values(page):
    rng = np.random.default_rng(0)
    n = 50
    frame = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n),
                          "y": rng.normal(size=n) * 1e300})
    at = run_upload(page, csv(frame), task="regression")
    assert_message_or_model(at)
    if page == DT:  # squared errors of ~1e300 overflow: the tree refuses, saying what to do
        assert any("The target has values as large as" in e.value and "Rescale" in e.value
                   for e in at.error), messages(at)


# --- hand-edited URLs ----------------------------------------------------------------------

def run_url(page: str | None, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in query.items():
        at.query_params[key] = value
    if page is not None:
        at.switch_page(page)  # a link to the page, opened
    at.run()
    return at


@pytest.mark.parametrize("query", [
    {"data": "../../etc/passwd"}, {"data": "/etc/passwd"}, {"data": "%2e%2e%2fetc"},
    {"data": "<script>alert(1)</script>"}, {"target": "../../etc/passwd"},
])
def test_a_path_or_script_in_the_url_falls_back_to_a_sample(query):
    at = run_url(None, **query)
    assert_clean(at)
    assert at.sidebar.selectbox(key="data").value == "playtennis"
    text = " ".join(m.value for m in at.markdown)
    assert "root:" not in text


@pytest.mark.parametrize(("page", "query"), [
    (DT, {"data": "iris", "dt_max_depth": "-5"}),
    (DT, {"data": "iris", "dt_max_depth": "10000"}),
    (DT, {"data": "iris", "dt_min_leaf": "0"}),
    (DT, {"data": "iris", "dt_ccp": "-1"}),
    (DT, {"data": "iris", "dt_criterion": "<script>"}),
    (NB, {"data": "iris", "nb_alpha": "-1"}),
    (NB, {"data": "iris", "nb_alpha": "nan"}),
    (NB, {"data": "iris", "nb_bins": "1000000", "nb_numeric": "binned"}),
    (NB, {"data": "iris", "nb_variant": "pickle"}),
    (DATA, {"data": "iris", "seed": "abc"}),
    (DATA, {"data": "iris", "seed": "-3"}),
    (DATA, {"data": "iris", "test": "5"}),
    (DATA, {"data": "iris", "task": "'; DROP TABLE"}),
])
def test_out_of_range_url_values_are_clamped_or_refused(page, query):
    at = run_url(page, **query)
    assert_clean(at)
    assert not at.error or all(e.value.startswith("**") for e in at.error)
    key, value = [(k, v) for k, v in query.items() if k != "data"][0]
    for kind in ("number_input", "slider", "selectbox", "radio"):
        for widget in at.get(kind):
            if getattr(widget, "key", None) == key and widget.value is not None:
                assert str(widget.value) != value or kind in ("selectbox", "radio")


# --- isolation -----------------------------------------------------------------------------

def test_two_sessions_with_different_uploads_see_only_their_own():
    rng = np.random.default_rng(0)
    mine = pd.DataFrame({"secret_alpha": rng.normal(size=30).round(3),
                         "label": np.where(rng.random(30) > 0.5, "A1", "A2")})
    theirs = pd.DataFrame({"secret_beta": rng.normal(size=30).round(3),
                           "kind": np.where(rng.random(30) > 0.5, "B1", "B2")})
    first = run_upload(None, csv(mine), name="alpha.csv")
    second = run_upload(None, csv(theirs), name="beta.csv")
    again = run_upload(None, csv(mine), name="alpha.csv")
    for at in (first, second, again):
        assert_clean(at)
    assert list(preview(first).columns) == ["secret_alpha", "label"]
    assert list(preview(second).columns) == ["secret_beta", "kind"]
    assert list(preview(again).columns) == ["secret_alpha", "label"]
    assert first.sidebar.selectbox(key="target").value == "label"
    assert second.sidebar.selectbox(key="target").value == "kind"
    # A third session with no upload of its own sees neither file, only the request for one.
    fresh = run_url(None, data="upload")
    assert_clean(fresh)
    assert not fresh.dataframe
    assert any("Upload it again" in m for m in messages(fresh))


def test_a_column_that_leaks_the_target_is_flagged_with_a_button_to_leave_it_out():
    rng = np.random.default_rng(3)
    survived = rng.choice(["yes", "no"], 120)
    frame = pd.DataFrame({"age": rng.normal(40, 10, 120).round(),
                          "boat": np.where(survived == "yes", "13", "none"),
                          "survived": survived})
    at = run_upload(DATA, csv(frame))
    assert_clean(at)
    assert at.sidebar.selectbox(key="target").value == "survived"  # its name says so
    (warning,) = [w.value for w in at.warning if "alone predicts" in w.value]
    assert "**boat** alone predicts **survived** for 100.0%" in warning
    # The click is tested in a real browser (tests/e2e/test_public_csvs.py): AppTest cannot
    # rerun a session whose sidebar lists an upload.
    assert at.button(key="data_leak_boat").label == "Leave boat out"


def test_the_leak_check_is_made_once_per_table_not_once_per_split(monkeypatch):
    """It reads the whole table: a new seed (a new split of the same table) finds it made."""
    from engine import data
    from ui import data_controls

    made = []

    def counted(*args, **kwargs):
        made.append(args[1])
        return leaky_features(*args, **kwargs)

    leaky_features = data.leaky_features
    monkeypatch.setattr(data, "leaky_features", counted)
    data_controls._leaks_of.clear()
    frame = pd.DataFrame({"x": np.arange(60.0) % 7, "label": ["a", "b", "c"] * 20})
    for seed in ("1", "2"):
        assert_clean(run_upload(RF, csv(frame), seed=seed, rf_trees="5"))
    assert made == ["label"]
