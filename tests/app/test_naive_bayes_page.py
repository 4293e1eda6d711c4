"""The Naive Bayes page under AppTest: every sample, every variant, α = 0, text mode.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for
why): the page's own widgets are bound to query parameters (``nb_variant``,
``nb_alpha``, ``nb_numeric``, ``nb_bins``) so a link, and a test, can set them.
"""
from __future__ import annotations

import pytest

from engine.data import list_samples

from .test_pages import assert_clean, run_app

PAGE = "app_pages/naive_bayes.py"
SAMPLES = {entry["name"]: entry for entry in list_samples()}


def texts(at) -> str:
    return "\n".join(e.value for kind in ("markdown", "caption", "error", "warning", "info")
                     for e in at.get(kind))


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_page_runs_on_every_sample(sample):
    at = run_app(PAGE, data=sample)
    assert_clean(at)
    assert at.title[0].value == "Naive Bayes"
    if sample == "friedman1":  # a regression target: a message, no model
        assert "predicts a class" in at.info[0].value and "regression" in at.info[0].value
        assert not at.get("plotly_chart")
        return
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) >= 3  # priors, evidence ledger, confusion matrix
    accuracy = at.metric[0]
    # a textbook table fits on all its rows (its preset): the label says the rows were seen
    textbook = "preset" in SAMPLES[sample]
    assert accuracy.label == ("Accuracy on seen rows" if textbook
                              else "Test accuracy")
    assert accuracy.value.endswith("%")


@pytest.mark.parametrize(("variant", "sample"), [
    ("auto", "mushroom"), ("gaussian", "iris"), ("categorical", "playtennis"),
    ("multinomial", "spambase"), ("bernoulli", "zoo"),
])
def test_each_variant_runs_where_it_applies(variant, sample):
    at = run_app(PAGE, data=sample, nb_variant=variant)
    assert_clean(at)
    assert at.selectbox(key="nb_variant").value == variant
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) >= 3


@pytest.mark.parametrize(("variant", "sample", "why"), [
    ("gaussian", "playtennis", "needs numeric columns only"),
    ("multinomial", "two_moons", "needs values ≥ 0"),
    ("categorical", "reviews", "is free text"),
])
def test_a_variant_that_does_not_fit_the_columns_says_why(variant, sample, why):
    at = run_app(PAGE, data=sample, nb_variant=variant)
    assert_clean(at)
    assert why in at.error[0].value
    assert "Use" in at.error[0].value  # and what to do instead


def test_binned_numeric_columns_show_a_count_table():
    at = run_app(PAGE, data="iris", nb_numeric="binned", nb_bins="4")
    assert_clean(at)
    assert at.slider(key="nb_bins").value == 4
    table = at.dataframe[0].value
    assert len(table) == 4 and "count (setosa)" in table.columns


def test_alpha_zero_on_playtennis_shows_impossible_classes():
    at = run_app(PAGE, data="playtennis", nb_alpha="0.0", textbook="false",
                 nb_all_rows="false")  # 10 rows
    assert_clean(at)
    assert at.slider(key="nb_alpha").value == 0.0
    outlook = at.dataframe[0].value  # Outlook: no Overcast day is a No day
    assert outlook.loc["Overcast", "count (No)"] == 0
    assert outlook.loc["Overcast", "P(x | No)"] == 0.0
    # The default test row is Rain, Cool, Normal, Weak: Cool never occurs with No.
    assert "−∞" in texts(at)
    formulas = [latex.value.strip("$\n") for latex in at.get("latex")]
    assert any(f.startswith(r"P(\text{No} \mid x)") and f.endswith("= 0") for f in formulas)


def test_smoothing_removes_the_zero():
    at = run_app(PAGE, data="playtennis", nb_alpha="1.0", textbook="false")
    assert_clean(at)
    outlook = at.dataframe[0].value
    # 14 days, fitted whole: 5 No days, 3 values of Outlook
    assert outlook.loc["Overcast", "P(x | No)"] == pytest.approx(1 / 8)  # (0 + 1) / (5 + 3)
    assert "−∞" not in texts(at)


def test_text_mode_classifies_the_sushi_review():
    at = run_app(PAGE, data="reviews")
    assert_clean(at)
    assert at.text_input(key="nb_text").value == "The sushi & everything else was awesome!"
    verdicts = [m.value for m in at.markdown if "predicts" in m.value]
    assert [v.split("**")[1] for v in verdicts] == ["Multinomial", "Bernoulli"]
    assert all(v.split("**")[3] in {"negative", "positive"} for v in verdicts)


def test_a_sentence_in_the_link_is_classified():
    at = run_app(PAGE, data="reviews", nb_text="The food was cold and the service was terrible")
    assert_clean(at)
    verdicts = [m.value for m in at.markdown if "predicts" in m.value]
    assert len(verdicts) == 2 and all("predicts **negative**" in v for v in verdicts)


def test_decision_regions_for_two_numeric_columns():
    at = run_app(PAGE, data="iris")
    assert_clean(at)
    assert at.selectbox(key="nb_x").value == "petal_length"
    assert at.selectbox(key="nb_y").value == "petal_width"
    assert any("Fitted on these two columns only" in c.value for c in at.caption)


def test_a_typed_row_gets_its_own_evidence():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60)
    at.query_params["data"] = "playtennis"
    at.session_state["nb_typed"] = True  # the "Type a row of my own" toggle, switched on
    at.switch_page(PAGE)
    at.run()
    assert_clean(at)
    assert "Your row: predicted" in texts(at)
    assert ", true" not in [m for m in texts(at).splitlines() if m.startswith("Your row")][0]


def test_a_numeric_target_offers_a_column_of_classes_and_the_button_switches_to_it():
    at = run_app(PAGE, data="iris", target="sepal_length")
    assert_clean(at)
    assert "**species** has a few classes" in at.info[0].value
    (button,) = [b for b in at.button if b.label == "Predict species instead"]
    button.click().run()
    assert_clean(at)
    assert at.title[0].value == "Naive Bayes" and len(at.get("plotly_chart")) >= 3
    assert "target" not in at.query_params  # species is iris's own target: the default
