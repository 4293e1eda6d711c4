"""Coded classes (0 / 1) named on the Data page are the names every page shows (issue 32)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .test_hostile_uploads import DATA, DT, NB, csv, run_upload
from .test_pages import assert_clean

rng = np.random.default_rng(0)
PASSENGERS = csv(pd.DataFrame({"age": rng.uniform(1, 80, 120).round(),
                               "fare": rng.uniform(5, 200, 120).round(2),
                               "survived": rng.integers(0, 2, 120)}))



def run_named(page: str, names: dict):
    """The passenger upload opened on ``page`` with ``names`` given to its classes, as the
    Data page's table stores them (per upload, per target)."""
    from streamlit.testing.v1 import AppTest

    from ui.state import Upload

    from .test_pages import ROOT

    upload = Upload("passengers.csv", PASSENGERS)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.session_state["gb_upload"] = upload
    at.session_state["gb_overrides"] = {
        f"upload:{upload.digest}": {"class_names": {"survived": names}}}
    at.query_params["data"] = "upload"
    at.switch_page(page)
    at.run()
    return at


def test_the_data_page_offers_to_name_coded_classes():
    at = run_upload(DATA, PASSENGERS, "passengers.csv")
    assert_clean(at)
    assert any(e.label == "Name the classes" for e in at.expander)


def test_named_classes_are_what_every_page_shows():
    names = {"0": "died", "1": "lived"}
    at = run_named(DT, names)
    assert_clean(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "class = lived" in dot or "class = died" in dot
    assert "class = 0" not in dot and "class = 1" not in dot
    at = run_named(NB, names)
    assert_clean(at)
    picker = at.selectbox(key="nb_row")
    assert any(word in picker.format_func(picker.value) for word in ("died", "lived"))
    at = run_named(DATA, names)
    assert at.data_editor[0].value["name"].tolist() == ["died", "lived"]  # as they were named


def test_spambase_classes_are_named_by_the_catalogue():
    from .test_pages import run_app

    at = run_app("app_pages/decision_tree.py", data="spambase")
    assert_clean(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "class = spam" in dot and "class = not spam" in dot and "class = 0" not in dot
    at = run_app(NB, data="spambase")
    assert_clean(at)
    assert "spam" in at.selectbox(key="nb_row").format_func(0)
