"""The AdaBoost page under AppTest: every sample, every view, links with odd values.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for
why). Few rounds (``ab_rounds``) keep it fast. The numbers the page prints are checked
against a model fitted here on the same split.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.data import Dataset, load_sample
from engine.ensemble import AdaBoostClassifier

from .test_pages import SAMPLES, assert_clean, run_app

PAGE = "app_pages/adaboost.py"
VIEWS = ["Round by round", "Error vs rounds", "All stumps", "Results"]
NO_FEATURES = {"reviews"}  # only a text column: nothing for a stump to split
REGRESSION = {"friedman1"}


def texts(at) -> str:
    return "\n".join(e.value for kind in ("markdown", "caption", "error", "warning", "info")
                     for e in at.get(kind))


def formulas(at) -> list[str]:
    return [latex.value.strip("$\n") for latex in at.get("latex")]


def same_model(sample: str, target: str, rounds: int) -> tuple[AdaBoostClassifier, Dataset]:
    # the sidebar's defaults: 25 % test rows, stratified, seed 0
    data = Dataset(load_sample(sample), target, test_size=0.25, stratify=True, random_state=0)
    return AdaBoostClassifier(n_estimators=rounds).fit(data.X_train, data.y_train), data


@pytest.mark.parametrize("sample", SAMPLES)
def test_page_runs_on_every_sample(sample):
    at = run_app(PAGE, data=sample, ab_rounds="8")
    assert_clean(at)
    assert at.title[0].value == "AdaBoost"
    if sample in REGRESSION:
        assert "Gradient Boosting" in at.info[0].value and "regression" in at.info[0].value
        assert not at.get("plotly_chart")
        return
    if sample in NO_FEATURES:
        assert "only text" in at.error[0].value
        return
    assert not at.error, [e.value for e in at.error]
    assert any(f.startswith(r"\varepsilon_{1}") for f in formulas(at))
    assert r"\hat w_{1}" in " ".join(formulas(at))  # kitchen's first stump is perfect
    assert len(at.dataframe) == 1  # the heaviest points


@pytest.mark.slow
@pytest.mark.parametrize("view", VIEWS[1:])
@pytest.mark.parametrize("sample", ["iris", "mushroom", "spambase"])
def test_every_view_runs(sample, view):
    at = run_app(PAGE, data=sample, ab_rounds="6", ab_view=view)
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    if view == "Error vs rounds":
        assert len(at.get("plotly_chart")) == 2
    elif view == "All stumps":
        assert len(at.dataframe[0].value) == 6
    else:
        assert at.metric[0].label == "Test accuracy" and at.metric[0].value.endswith("%")
        assert len(at.get("plotly_chart")) == 2  # confusion matrix, importances


def test_round_in_the_link_shows_that_rounds_numbers():
    model, data = same_model("two_moons", "class", 10)
    at = run_app(PAGE, data="two_moons", ab_rounds="10", ab_round="4")
    assert_clean(at)
    assert at.slider(key="ab_round").value == 4
    epsilon = next(f for f in formulas(at) if f.startswith(r"\varepsilon_{4}"))
    weight = next(f for f in formulas(at) if f.startswith(r"\hat w_{4}"))
    assert epsilon.endswith(f"{model.estimator_errors_[3]:.4f}")
    assert weight.endswith(f"{model.estimator_weights_[3]:.4f}")
    assert f"{model.estimator_errors_[3]:.4f}" in weight  # the numbers plugged in
    wrong = [learner.predict(data.X_train) != data.y_train.to_numpy()
             for learner in model.estimators_][3]
    assert f"**{wrong.sum()}** of {len(wrong)} training points misclassified" in texts(at)
    heaviest = at.dataframe[0].value
    after = heaviest["α_i after (÷ Z_t)"].to_numpy()
    assert after[0] == pytest.approx(model.sample_weights_[4].max())


def test_all_stumps_lists_every_rounds_weight():
    model, _ = same_model("two_moons", "class", 12)
    at = run_app(PAGE, data="two_moons", ab_rounds="12", ab_view="All stumps")
    assert_clean(at)
    table = at.dataframe[0].value
    assert table["t"].tolist() == list(range(1, 13))
    np.testing.assert_allclose(table["ŵ_t"], model.estimator_weights_)
    np.testing.assert_allclose(table["ε_t"], model.estimator_errors_)


def test_three_classes_say_samme_and_the_extra_half_log():
    model, _ = same_model("iris", "species", 5)
    at = run_app(PAGE, data="iris", ab_rounds="5")
    assert_clean(at)
    assert "SAMME" in at.info[0].value and "½ ln(K − 1)" in at.info[0].value
    assert f"{0.5 * np.log(2):.4f}" in at.info[0].value
    weight = next(f for f in formulas(at) if f.startswith(r"\hat w_{1}"))
    assert r"\ln(3 - 1)" in weight and weight.endswith(f"{model.estimator_weights_[0]:.4f}")


def test_many_features_fit_a_second_model_for_the_boundary():
    at = run_app(PAGE, data="spambase", ab_rounds="5", ab_source="the two drawn features")
    assert_clean(at)
    assert at.radio(key="ab_source").value == "the two drawn features"
    assert "second AdaBoost" in texts(at) and "all 57 features" in texts(at)
    assert len(at.get("plotly_chart")) == 1


def test_the_boundarys_model_starts_before_the_pages_own(monkeypatch):
    """The picture's two features (the link's) get their model started in the
    background before the page fits its own on all features, and the picture uses it."""
    import ui.adaboost_controls as ac

    started, prefetch = [], ac.prefetch

    def recorded(*jobs):
        started.extend(key for key, _ in jobs)
        return prefetch(*jobs)

    monkeypatch.setattr(ac, "prefetch", recorded)
    at = run_app(PAGE, data="spambase", ab_rounds="4", ab_x="word_freq_all",
                 ab_y="word_freq_our")
    assert_clean(at)
    assert started[0][0] == "adaboost" and started[0][-1] == ("word_freq_all", "word_freq_our")
    assert (at.selectbox(key="ab_x").value, at.selectbox(key="ab_y").value) == \
        ("word_freq_all", "word_freq_our")
    assert "second AdaBoost" in texts(at) and len(at.get("plotly_chart")) == 1


def test_fewer_than_two_numeric_features_still_show_the_arithmetic():
    at = run_app(PAGE, data="playtennis", ab_rounds="4", ab_round="2")
    assert_clean(at)
    assert "needs two numeric features" in at.info[0].value
    assert any(f.startswith(r"\varepsilon_{2}") for f in formulas(at))


@pytest.mark.parametrize("query", [
    {"ab_rounds": "100000"}, {"ab_rounds": "abc"}, {"ab_round": "999", "ab_rounds": "5"},
    {"ab_x": "no such column"}, {"ab_lr": "-3"}, {"ab_view": "Nope"}, {"ab_depth": "0"},
])
def test_hand_edited_links_fall_back_without_a_traceback(query):
    at = run_app(PAGE, data="two_moons", **query)
    assert_clean(at)
    assert not at.error
    assert 1 <= at.slider(key="ab_round").value <= at.number_input(key="ab_rounds").value


def test_learning_rate_scales_the_weights():
    at = run_app(PAGE, data="two_moons", ab_rounds="3", ab_lr="0.5")
    assert_clean(at)
    data = Dataset(load_sample("two_moons"), "class", test_size=0.25, stratify=True,
                   random_state=0)
    model = AdaBoostClassifier(n_estimators=3, learning_rate=0.5).fit(data.X_train, data.y_train)
    weight = next(f for f in formulas(at) if f.startswith(r"\hat w_{1}"))
    assert r"0.5 \cdot" in weight and weight.endswith(f"{model.estimator_weights_[0]:.4f}")


def test_a_perfect_first_learner_stops_boosting_and_says_so():
    model, _ = same_model("kitchen", "y", 8)
    assert len(model.estimators_) == 1 and model.estimator_errors_[0] == 0  # the premise
    at = run_app(PAGE, data="kitchen", ab_rounds="8")
    assert_clean(at)
    assert "boosting stopped early: a learner made no weighted error" in texts(at)
    weight = next(f for f in formulas(at) if f.startswith(r"\varepsilon_{1} = 0"))
    assert "perfect learner" in weight and r"\hat w_{1} = 0.5000" in weight


@pytest.mark.parametrize("binned", ["true", "false"])
def test_the_single_trees_beside_the_curve_are_searched_as_the_learners(binned):
    """The stump and the full-depth tree drawn beside the error curve search their
    thresholds as the page's learners do: between quantile bins when "Binned search" is
    on (at 200,000 rows an exact full-depth tree took most of the tab's 7 s)."""
    import json

    from engine.tree import DecisionTreeClassifier

    at = run_app(PAGE, data="spambase", ab_rounds="8", ab_view="Error vs rounds", ab_binned=binned)
    assert_clean(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    lines = {t["name"].split(":")[0]: t["name"] for t in spec["data"]}
    data = Dataset(load_sample("spambase"), "spam", test_size=0.25, stratify=True, random_state=0)
    tree = DecisionTreeClassifier(random_state=0, binning="quantile" if binned == "true" else "exact")
    error = 1 - float((tree.fit(data.X_train, data.y_train).predict(data.X_test)
                       == data.y_test.to_numpy()).mean())
    assert lines["a full-depth tree"] == f"a full-depth tree: {error:.1%}"
