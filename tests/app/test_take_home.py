""""Take it home" under AppTest: on the Naive Bayes page for every sample, and as a
component for a tree, a forest and a regressor (what the other pages will call).

State goes in through the URL (``nb_home=true`` opens the section, ``nb_new_mode`` picks
typed rows): AppTest only does first runs reliably (see tests/app/test_pages.py).
"""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.data import list_samples

from .test_pages import assert_clean, run_app

PAGE = "app_pages/naive_bayes.py"
SAMPLES = [entry["name"] for entry in list_samples()]
TYPED = "Type one row"


def prediction_frames(at):
    return [d.value for d in at.dataframe if "prediction" in d.value.columns]


@pytest.mark.parametrize("sample", SAMPLES)
def test_section_opens_on_every_sample(sample):
    at = run_app(PAGE, data=sample, nb_home="true", nb_new_mode=TYPED)
    assert_clean(at)
    if sample == "friedman1":  # the page stops before the model: no section
        assert not prediction_frames(at)
        return
    assert not at.error, [e.value for e in at.error]
    (table,) = prediction_frames(at)
    probabilities = table.filter(like="P(")
    assert len(table) == 1 and probabilities.shape[1] >= 2
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    assert str(table["prediction"][0]) == probabilities.columns[probabilities.iloc[0].argmax()][2:-1]


def test_closed_section_computes_nothing():
    at = run_app(PAGE, data="iris", nb_new_mode=TYPED)
    assert_clean(at)
    assert not prediction_frames(at)
    assert "Predict new rows" not in "\n".join(m.value for m in at.markdown)


def _component_script(model_name: str, sample: str, target: str) -> None:
    from engine.data import Dataset, load_sample
    from engine.ensemble import GradientBoostingRegressor, RandomForestClassifier
    from engine.tree import DecisionTreeClassifier
    from ui.take_home import take_home

    makers = {"tree": lambda: DecisionTreeClassifier(max_depth=3),
              "forest": lambda: RandomForestClassifier(n_estimators=5, random_state=0),
              "boosting": lambda: GradientBoostingRegressor(n_estimators=5)}
    dataset = Dataset(load_sample(sample), target, random_state=0)
    features = [c for c, k in dataset.feature_kinds.items() if k != "text"]
    model = makers[model_name]().fit(dataset.X_train[features], dataset.y_train)
    take_home(model, dataset, features, "t")


@pytest.mark.parametrize(("model_name", "sample", "target"), [
    ("tree", "mushroom", "edibility"), ("forest", "restaurant", "WillWait"),
    ("boosting", "friedman1", "y"),
])
def test_component_on_other_models(model_name, sample, target):
    at = AppTest.from_function(_component_script, args=(model_name, sample, target),
                               default_timeout=60)
    at.query_params["t_home"] = "true"
    at.query_params["t_new_mode"] = TYPED
    at.run()
    assert_clean(at)
    (table,) = prediction_frames(at)
    if model_name == "boosting":  # a regressor: a number, no probabilities
        assert table.columns[0] == "prediction" and not table.filter(like="P(").shape[1]
        assert np.isfinite(table["prediction"][0])
    else:
        np.testing.assert_allclose(table.filter(like="P(").sum(axis=1), 1.0)


@pytest.mark.parametrize(("home", "mode"), [("true", "no such mode"), ("maybe", TYPED)])
def test_hand_edited_links_do_not_break_the_page(home, mode):
    at = run_app(PAGE, data="playtennis", nb_home=home, nb_new_mode=mode)
    assert_clean(at)
    assert at.title[0].value == "Naive Bayes"


def test_a_page_whose_model_is_fitted_on_demand_offers_it_when_opened():
    from tests.app.test_pages import assert_clean, run_app

    at = run_app("app_pages/gradient_boosting.py", data="iris", gb_home="true", gb_n_estimators="10")
    assert_clean(at)
    assert any(e.label.startswith("Take it home") for e in at.expander)
    assert len(at.get("download_button")) >= 2
