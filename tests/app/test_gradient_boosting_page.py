"""The Gradient Boosting page under AppTest: every sample, every view, links and bad links.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for why);
small T through ``gb_rounds`` keeps it quick.
"""
import json

import numpy as np
import pytest

from engine.data import Dataset, list_samples, load_sample
from tests.app.test_pages import SAMPLES, assert_clean, run_app, values
from ui.gb_controls import shrinkage_values

PAGE = "app_pages/gradient_boosting.py"
VIEWS = ["Round by round (one feature)", "Shrinkage", "Importance", "Classification", "Results"]


def has_numeric_feature(name: str) -> bool:
    entry = {e["name"]: e for e in list_samples()}[name]
    frame = load_sample(name).drop(columns=entry.get("exclude", []))
    return "numeric" in Dataset(frame, entry["target"]).feature_kinds.values()


def run_page(**query):
    return run_app(PAGE, **{"gb_rounds": "5", **query})


def charts(at) -> list:
    return at.get("plotly_chart")


@pytest.mark.parametrize("sample", SAMPLES)
def test_page_runs_on_every_sample(sample):
    at = run_page(data=sample)
    assert_clean(at)
    assert at.title[0].value == "Gradient Boosting"
    if sample == "reviews":  # text only: the page says what to do instead of fitting
        assert "only text" in at.error[0].value
        return
    assert not at.error, [e.value for e in at.error]
    if not has_numeric_feature(sample):
        assert any("needs a numeric feature" in i.value for i in at.info)
    else:
        assert len(charts(at)) == 1 and at.slider(key="gb_round").max == 5


@pytest.mark.parametrize("sample", ["mushroom", "zoo", "spambase"])
def test_results_on_categorical_and_wide_samples(sample):
    at = run_page(data=sample, gb_view="Results")
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert at.metric[0].label == "Test accuracy" and len(charts(at)) == 1  # the confusion matrix


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("sample", ["iris", "friedman1"])
def test_every_view_on_a_classification_and_a_regression_target(sample, view):
    at = run_page(data=sample, gb_view=view, gb_shrink="true", gb_perm="true")
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    if view == "Classification" and sample == "friedman1":
        assert "classification-only" in at.info[0].value
    else:
        assert charts(at)


def test_a_link_reopens_the_round_and_its_settings():
    at = run_page(data="friedman1", gb_x="x4", gb_round="3", gb_nu="0.5", gb_loss="huber")
    assert_clean(at)
    assert at.slider(key="gb_round").value == 3
    assert at.number_input(key="gb_nu").value == pytest.approx(0.5)
    assert at.selectbox(key="gb_x").value == "x4"
    assert any(m.value.startswith("**Round 3** of 5") for m in at.markdown)
    names = [trace["name"] for trace in _figure(at)["data"]]
    assert "pseudo-residual −∂L/∂S<sub>t</sub>" in names  # Huber: shown beside the residuals


def test_hand_edited_values_are_replaced_with_a_notice_not_a_traceback():
    at = run_page(data="iris", gb_round="999", gb_nu="abc", gb_x="nonexistent", gb_class="zzz")
    assert_clean(at)
    assert at.slider(key="gb_round").value == 0  # the default: round 999 is past the last
    notices = " ".join(w.value for w in at.warning)
    for asked in ("999", "abc", "nonexistent", "zzz"):
        assert asked in notices, (asked, notices)
    assert at.number_input(key="gb_nu").value == pytest.approx(0.1)
    assert at.selectbox(key="gb_x").value == "petal_length"  # the default: the most useful feature


def test_a_class_target_is_boosted_as_the_indicator_of_the_chosen_class():
    at = run_page(data="iris", gb_class="setosa", gb_x="petal_length", gb_round="0")
    assert_clean(at)
    data = _figure(at)["data"]
    points = values(data[0]["y"])
    assert set(np.unique(points)) == {0.0, 1.0}  # 1[species = setosa]
    start = values(data[1]["y"])
    assert np.allclose(start, points.mean())  # S_0 = share of setosa in the training rows


def test_shrinkage_draws_three_learning_rates():
    at = run_page(data="two_moons", gb_view="Shrinkage", gb_shrink="true", gb_nu="0.3")
    assert_clean(at)
    figure = _figure(at)
    assert len(figure["data"]) == 6 and all(len(values(t["x"])) == 5 for t in figure["data"])
    assert at.dataframe[0].value["ν"].tolist() == [1.0, 0.3, 0.01]


def test_shrinkage_values_keep_the_chosen_nu_and_two_others():
    assert shrinkage_values(0.1) == [1.0, 0.1, 0.01]
    assert shrinkage_values(0.3) == [1.0, 0.3, 0.01]  # 0.1 is nearest 0.3: dropped
    assert shrinkage_values(0.002) == [1.0, 0.1, 0.002]


def test_classification_boundary_steps_over_rounds():
    at = run_page(data="xor", gb_view="Classification", gb_bround="4")
    assert_clean(at)
    assert at.slider(key="gb_bround").value == 4
    titles = [f["layout"]["title"]["text"] for f in map(_figure_of, charts(at))]
    assert titles == ["Error against rounds", "Decision regions after round 4"]


def _figure_of(chart) -> dict:
    return json.loads(chart.proto.spec)


def _figure(at) -> dict:
    return _figure_of(charts(at)[0])


def test_rounds_beyond_the_work_limit_are_refused_with_what_to_choose(monkeypatch):
    """rows × rounds above the shared server's budget: no fit, the message names the most
    rounds that fit (as on the AdaBoost and forest pages)."""
    from ui import limits

    monkeypatch.setitem(limits.MAX_WORK, "boosting", 1_000)  # iris: 112 training rows
    at = run_page(data="iris", gb_rounds="20")
    assert_clean(at)
    message = at.error[0].value
    assert "too long on a shared server" in message and "Choose at most 8 rounds" in message
    assert not charts(at)
