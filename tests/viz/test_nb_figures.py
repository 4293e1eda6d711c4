"""Naive Bayes figures and tables, tested on their data (no Streamlit).

The reference numbers are Mitchell's PlayTennis counts (REFERENCE.md: without
smoothing P(No | Sunny, Cool, High, Strong) = 0.7954); every drawn sum is checked
against the engine's own posterior.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from engine.data import list_samples, load_sample
from engine.metrics import confusion_matrix
from engine.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB
from engine.text import Vocabulary
from viz import nb_figures as nf
from viz import tree_figures as tf

TARGETS = {entry["name"]: entry["target"] for entry in list_samples()}
SUSHI = "The sushi & everything else was awesome!"


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


def sample(name: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = load_sample(name)
    target = TARGETS[name]
    X = frame.drop(columns=[target] + [c for c in ("Day",) if c in frame.columns])
    return X, frame[target]


@pytest.fixture(scope="module")
def tennis():
    X, y = sample("playtennis")
    return X, y, MixedNB(alpha=0).fit(X, y)


TEXTBOOK_ROW = pd.DataFrame({"Outlook": ["Sunny"], "Temperature": ["Cool"],
                             "Humidity": ["High"], "Wind": ["Strong"]})


def waterfall_end(trace) -> float:
    """Where a waterfall ends: the sum of its steps after the last absolute/total bar."""
    total = 0.0
    for value, measure in zip(trace.x, trace.measure, strict=True):
        if measure == "absolute":
            total = value
        elif measure == "relative":
            total += value
    return total


def test_likelihood_frame_puts_counts_and_theta_side_by_side(tennis):
    X, y, _ = tennis
    model = MixedNB(alpha=1).fit(X, y)
    frame = nf.likelihood_frame(model.likelihood_table("Outlook"))
    assert list(frame.columns) == ["count (No)", "P(x | No)", "count (Yes)", "P(x | Yes)"]
    # Mitchell: Sunny is 3 of 5 No days and 2 of 9 Yes days; k = 3 values.
    assert frame.loc["Sunny", "count (No)"] == 3 and frame.loc["Sunny", "count (Yes)"] == 2
    assert frame.loc["Sunny", "P(x | No)"] == pytest.approx((3 + 1) / (5 + 3))
    assert frame.loc["Overcast", "P(x | No)"] == pytest.approx(1 / 8)


def test_zero_probabilities_are_marked_only_where_theta_is_zero(tennis):
    frame = nf.likelihood_frame(tennis[2].likelihood_table("Outlook"))
    html = nf.style_zero_probabilities(frame).to_html()
    rule = re.search(r"([^{}]*)\{\s*background-color: #f6c9c0", html)
    marked = re.findall(r"row(\d+)_col(\d+)", rule.group(1))
    zeros = np.argwhere(frame.to_numpy() == 0)
    probability_columns = {j for j, c in enumerate(frame.columns) if c.startswith("P(")}
    expected = {(int(i), int(j)) for i, j in zeros if j in probability_columns}
    assert {(int(i), int(j)) for i, j in marked} == expected == {(0, 1)}  # Overcast | No


def test_ledger_steps_add_up_to_the_log_posterior(tennis):
    _, _, model = tennis
    X, _ = sample("playtennis")
    for row in range(len(X)):
        steps = nf.ledger_steps(model.evidence_ledger(X, row))
        relative = [s for s in steps.index if s not in nf.STEP_MEASURES]
        joint = steps.loc["log P(c)"] + steps.loc[[s for s in relative if s != "− log P(x)"]].sum()
        np.testing.assert_allclose(joint, steps.loc["log joint"])
        log_posterior = model.predict_log_proba(X.iloc[[row]])[0]
        finite = np.isfinite(log_posterior)
        np.testing.assert_allclose(steps.loc["log posterior"][finite], log_posterior[finite])
        np.testing.assert_allclose((joint + steps.loc["− log P(x)"])[finite], log_posterior[finite])


def test_waterfall_ends_at_the_log_posterior_for_each_class():
    X, y = sample("iris")
    model = GaussianNB().fit(X, y)
    ledger = model.evidence_ledger(X, 60)
    fig = nf.ledger_figure(nf.ledger_steps(ledger))
    assert [t.type for t in fig.data] == ["waterfall"] * 3
    assert [t.name for t in fig.data] == ["setosa", "versicolor", "virginica"]
    expected = model.predict_log_proba(X.iloc[[60]])[0]
    for trace, value in zip(fig.data, expected, strict=True):
        assert waterfall_end(trace) == pytest.approx(value, abs=1e-9)
        assert list(trace.y) == ["log P(c)", *X.columns, "log joint", "− log P(x)", "log posterior"]
    assert fig.layout.xaxis.title.text.startswith("log probability")


def test_many_features_are_summed_into_one_step_without_changing_the_total():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 20)), columns=[f"f{j}" for j in range(20)])
    y = np.where(X["f3"] + X["f7"] > 0, "a", "b")
    model = GaussianNB().fit(X, y)
    ledger = model.evidence_ledger(X, 5)
    steps = nf.ledger_steps(ledger, max_features=4)
    assert "other 16 features" in steps.index and len(steps) == 1 + 5 + 3
    assert {"f3", "f7"} <= set(steps.index)  # the two informative features differ most
    features = ledger.xs("feature", level="part").sum()
    kept = steps.drop(index=["log P(c)", "log joint", "− log P(x)", "log posterior"]).sum()
    np.testing.assert_allclose(kept, features)


def test_a_zero_count_is_drawn_as_minus_infinity(tennis):
    _, _, model = tennis
    ledger = model.evidence_ledger(TEXTBOOK_ROW.assign(Outlook="Overcast"), 0)
    steps = nf.ledger_steps(ledger)
    assert np.isneginf(steps.loc["Outlook", "No"])  # no Overcast day is a No day
    fig = nf.ledger_figure(steps)
    no = fig.data[0]
    assert np.isfinite(np.asarray(no.x, dtype=float)).all()
    assert no.text[list(no.y).index("Outlook")] == "−∞"
    assert no.text[-1] == "−∞" and fig.data[1].text[-1].startswith("+0.000")


def test_posterior_arithmetic_reproduces_the_textbook(tennis):
    _, _, model = tennis
    lines = nf.posterior_latex(model.evidence_ledger(TEXTBOOK_ROW, 0))
    assert len(lines) == 2
    assert lines[0].startswith(r"P(\text{No} \mid x) = \frac{0.357 \times 0.6 \times 0.2 \times 0.8 \times 0.6}")
    assert lines[0].endswith("= 0.795")  # REFERENCE.md: 0.7954
    assert lines[1].endswith("= 0.205")
    # The denominator Σ_r P(c_r) ∏_j P(x_j | c_r) is the same in both lines.
    assert "{0.0206 + 0.00529}" in lines[0] and "{0.0206 + 0.00529}" in lines[1]


def test_posterior_arithmetic_of_many_features_uses_the_log_sum():
    X, y = sample("iris")
    model = GaussianNB().fit(X, y)
    lines = nf.posterior_latex(model.evidence_ledger(X, 0), max_factors=2)
    total = model.log_likelihood_contributions(X.iloc[[0]])[0][0, 0].sum()
    assert f"e^{{{total:+.3f}}}" in lines[0]


@pytest.mark.parametrize(("log_value", "text"), [
    (np.log(0.5), "0.5"), (np.log(0.0012345), "0.00123"), (-np.inf, "0"),
    (-1000.0, r"5.08 \times 10^{-435}"), (np.log(2.5e-7), r"2.5 \times 10^{-7}"),
])
def test_numbers_are_written_from_their_logs(log_value, text):
    assert nf.number_from_log(log_value) == text


def test_user_labels_are_escaped_for_latex():
    assert nf.latex_text("a_b & $c} 100%") == r"\text{a\_b \& \$c\} 100\%}"
    assert nf.latex_text("back\\slash") == r"\text{back\textbackslash{}slash}"


def test_priors_figure_shows_class_frequencies(tennis):
    fig = nf.priors_figure(tennis[2])
    bar = fig.data[0]
    assert list(bar.x) == ["No", "Yes"]
    np.testing.assert_allclose(bar.y, [5 / 14, 9 / 14])
    assert list(bar.text) == ["0.357", "0.643"]
    assert list(bar.customdata) == [5, 9]  # N_c, in the hover
    assert fig.layout.yaxis.title.text == "prior P(c)"


def test_gaussian_curves_mark_the_row_at_its_likelihood():
    X, y = sample("iris")
    model = MixedNB().fit(X, y)
    row = X.iloc[[100]]
    value = float(row["petal_length"].iloc[0])
    fig = nf.gaussian_curves_figure(model.gaussian_params("petal_length"), "petal_length", value)
    curves, marks = fig.data[:3], fig.data[3]
    assert [c.name for c in curves] == ["setosa", "versicolor", "virginica"] and len(fig.data) == 4
    assert list(marks.x) == [value] * 3
    # The marker height is P(x_j | c), the same number the evidence ledger logs.
    contributions, _ = model.log_likelihood_contributions(row)
    j = list(X.columns).index("petal_length")
    np.testing.assert_allclose(marks.y, np.exp(contributions[0, :, j]), rtol=1e-12)
    assert fig.layout.xaxis.title.text == "petal_length"
    assert fig.layout.shapes[0].x0 == value  # the dashed vertical line


def test_normal_pdf_integrates_to_one():
    x = np.linspace(-10, 14, 20001)
    assert np.trapezoid(nf.normal_pdf(x, 2.0, 1.5), x) == pytest.approx(1.0, abs=1e-9)


@pytest.fixture(scope="module")
def reviews():
    X, y = sample("reviews")
    vocabulary = Vocabulary().fit(X["review"])
    counts = vocabulary.transform(X["review"])
    return X, y, vocabulary, counts


def test_word_table_matches_the_engine_word_by_word(reviews):
    X, y, vocabulary, counts = reviews
    multinomial = MultinomialNB().fit(counts, y)
    table = nf.word_table(vocabulary, multinomial.feature_log_prob_, multinomial.classes_, SUSHI)
    assert len(table) == 6 and table.index[0] == "1. the"
    engine = MixedNB().fit(X, y).word_contributions(SUSHI)
    np.testing.assert_allclose(table.to_numpy(), engine.to_numpy(), rtol=1e-12)
    unseen = [i for i in table.index if i.endswith("(unseen)")]
    assert (table.loc[unseen] == 0).all().all()


def test_bernoulli_word_table_sums_to_the_text_log_likelihood(reviews):
    _, y, vocabulary, counts = reviews
    bernoulli = BernoulliNB().fit(counts, y)
    table = nf.bernoulli_word_table(vocabulary, bernoulli, SUSHI)
    x = vocabulary.transform([SUSHI])
    contributions, _ = bernoulli.log_likelihood_contributions(x)
    np.testing.assert_allclose(table.sum().to_numpy(), contributions[0].sum(axis=1))
    n_present = int((x > 0).sum())
    assert len(table) == n_present + 1
    assert table.index[-1] == f"absent words ({len(vocabulary.words_) - n_present})"


def test_word_figure_centres_each_word_over_the_classes(reviews):
    _, y, vocabulary, counts = reviews
    multinomial = MultinomialNB(alpha=0).fit(counts, y)
    table = nf.word_table(vocabulary, multinomial.feature_log_prob_, multinomial.classes_,
                          SUSHI + " horrible")
    fig = nf.word_figure(table, "Multinomial")
    assert [t.name for t in fig.data] == ["negative", "positive"]
    x = np.array([t.x for t in fig.data], dtype=float)
    assert np.isfinite(x).all()
    np.testing.assert_allclose(x.sum(axis=0), 0.0, atol=1e-12)
    if np.isneginf(table.to_numpy()).any():  # α = 0: some θ is 0, shown as −∞ in the hover
        assert "−∞" in [v for t in fig.data for v in t.customdata]


def test_confusion_figure_shows_the_matrix(tennis):
    X, y, model = tennis
    matrix = confusion_matrix(y, model.predict(X), labels=model.classes_)
    fig = tf.confusion_figure(matrix, model.classes_, rows="all rows")
    assert fig.layout.title.text == "Confusion matrix (all rows)"
    np.testing.assert_array_equal(fig.data[0].z, matrix)
    assert list(fig.data[0].x) == ["No", "Yes"]
    assert fig.layout.xaxis.title.text == "predicted class"
    assert fig.layout.yaxis.title.text == "true class"


def test_decision_grid_is_the_models_map_class():
    X, y = sample("iris")
    X2 = X[["petal_length", "petal_width"]]
    model = GaussianNB().fit(X2, y)
    grid = nf.decision_grid(model, X2, resolution=30)
    assert grid["z"].shape == (30, 30) and grid["x"].shape == (30,)
    assert grid["x"][0] < X2["petal_length"].min() and grid["y"][-1] > X2["petal_width"].max()
    point = pd.DataFrame({"petal_length": [grid["x"][7]], "petal_width": [grid["y"][21]]})
    assert model.classes_[grid["z"][21, 7]] == model.predict(point)[0]
    fig = nf.decision_boundary_figure(grid, X2, y, model.classes_)
    assert [t.type for t in fig.data] == ["heatmap", "scatter", "scatter", "scatter"]
    assert sum(len(t.x) for t in fig.data[1:]) == len(X2)
    assert fig.layout.xaxis.title.text == "petal_length"
    # the axes end with the grid; petal widths' grid starts at 0 (not below), the view a
    # little lower, so that markers near 0 are whole
    assert tuple(fig.layout.xaxis.range) == (grid["x"][0], grid["x"][-1])
    assert grid["y"][0] == 0.0
    assert fig.layout.yaxis.range[0] == pytest.approx(-nf.ZERO_ROOM * grid["y"][-1])


def test_feature_views_follow_the_model():
    X, y = sample("playtennis")
    assert set(nf.feature_views(CategoricalNB().fit(X, y)).values()) == {"table"}
    mixed = pd.DataFrame({"colour": ["a", "b"] * 5, "size": np.arange(10.0),
                          "note": ["one two three"] * 10})
    views = nf.feature_views(MixedNB().fit(mixed, [0, 1] * 5))
    assert views == {"colour": "table", "size": "gaussian", "note": "text"}
    counts = np.arange(20).reshape(10, 2)
    assert set(nf.feature_views(MultinomialNB().fit(counts, [0, 1] * 5)).values()) == {"counts"}
    assert set(nf.feature_views(GaussianNB().fit(counts, [0, 1] * 5)).values()) == {"gaussian"}


def test_decision_grid_of_counts_stays_non_negative():
    """A multinomial model refuses negative counts: the grid must not pad below 0."""
    X = pd.DataFrame({"a": [0, 1, 4, 0, 2, 5], "b": [3, 2, 0, 5, 1, 0]}, dtype=float)
    model = MultinomialNB().fit(X, ["x", "x", "y", "x", "y", "y"])
    grid = nf.decision_grid(model, X, resolution=10)
    assert grid["x"][0] == 0.0 and grid["y"][0] == 0.0
    assert grid["x"][-1] > 5 and set(np.unique(grid["z"])) == {0, 1}


def test_ledger_numbers_stay_readable_on_a_laptop_and_a_projector():
    from viz.style import Style

    steps = pd.DataFrame({"no": [-0.5, -1.2, -0.01], "yes": [-0.9, -0.3, -0.02]},
                         index=["prior", "Outlook = Sunny", "evidence"])
    for style, floor in ((Style(), 12), (Style.presentation(), 18)):
        fig = nf.ledger_figure(steps, style)
        assert fig.layout.uniformtext.minsize >= floor and fig.layout.uniformtext.mode == "show"
        assert all(trace.textfont.size >= floor for trace in fig.data)
