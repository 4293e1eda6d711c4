""""Why this prediction?" figures, tested on their data (no Streamlit).

Oracles: the models' own outputs (``predict_proba``, ``decision_function``, the staged
scores, ``predict_log_proba``), which every figure must add up to; the partial
dependence the engine computed; and the escaping rule of ``viz._text``.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification

from engine.ensemble import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
)
from engine.inspection import contributions, partial_dependence, round_contributions
from engine.naive_bayes import CategoricalNB, GaussianNB
from tests.viz.test_hostile_text import HOSTILE, LONG, carried, escaped
from viz import explain_figures as ef
from viz.style import Style

# bias + Σ parts = output is a telescoping sum; what is left is float rounding.
IDENTITY = 1e-9


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


@pytest.fixture(scope="module")
def iris():
    data = load_iris(as_frame=True)
    return data.data, data.target_names[data.target]


@pytest.fixture(scope="module")
def wide():
    """Fifteen numeric features, two classes."""
    X, y = make_classification(300, 15, n_informative=5, random_state=0)
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(15)]), y


@pytest.fixture(scope="module")
def forest(iris):
    return RandomForestClassifier(n_estimators=15, random_state=0).fit(*iris)


@pytest.fixture(scope="module")
def boosted(wide):
    return GradientBoostingClassifier(n_estimators=40, max_depth=2).fit(*wide)


def number(text: str) -> float:
    return float(text.replace("−", "-"))


def feature_bars(fig):
    """The waterfall: (measures, values, tick labels) in drawing order."""
    trace = fig.data[0]
    labels = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext, strict=True))
    return list(trace.measure), np.asarray(trace.x, dtype=float), [labels[y] for y in trace.y]


# --------------------------------------------------------------------------- waterfall


def test_forest_waterfall_walks_from_the_bias_to_the_probability(iris, forest):
    X, _ = iris
    row = X.iloc[[70]]
    bias, contrib = contributions(forest, row)
    values = [f"{v:g}" for v in row.iloc[0]]
    fig = ef.waterfall_figure(bias[0, 1], contrib[0, :, 1], list(X.columns),
                              "P(versicolor)", Style(), values=values)
    measures, x, labels = feature_bars(fig)
    assert measures == ["absolute", "relative", "relative", "relative", "relative", "total"]
    output = forest.predict_proba(row)[0, 1]
    assert x[:-1].sum() == pytest.approx(output, abs=IDENTITY)
    assert x[0] == bias[0, 1]
    assert number(fig.data[0].text[-1]) == pytest.approx(output, abs=5e-4)
    parts = x[1:-1]
    assert list(np.abs(parts)) == sorted(np.abs(parts), reverse=True)  # largest first
    j = list(X.columns).index("petal length (cm)")
    assert f"petal length (cm) = {values[j]}" in labels
    assert labels[0].startswith("start") and labels[-1] == "this row's output"
    json.loads(fig.to_json())


def test_gradient_boosting_waterfall_groups_the_small_parts(wide, boosted):
    X, _ = wide
    bias, contrib = contributions(boosted, X.iloc[[3]])
    parts = contrib[0]
    style = Style.presentation()
    fig = ef.waterfall_figure(bias[0], parts, list(X.columns), "score (log-odds)", style, top=5)
    measures, x, labels = feature_bars(fig)
    assert len(x) == 1 + 5 + 1 + 1 and labels[-2] == "10 other features"
    smallest = np.argsort(np.abs(parts))[:10]
    assert x[-2] == pytest.approx(parts[smallest].sum(), abs=1e-12)
    assert x[:-1].sum() == pytest.approx(boosted.decision_function(X.iloc[[3]])[0], abs=IDENTITY)
    assert fig.data[0].increasing.marker.color == style.color(ef.UP)
    assert fig.data[0].decreasing.marker.color == style.color(ef.DOWN)
    assert fig.layout.font.size == 24 and fig.layout.height <= 700
    # one feature over the top is shown by name, never as "1 other features"
    _, x, labels = feature_bars(ef.waterfall_figure(bias[0], parts, list(X.columns), "s",
                                                    top=14))
    assert len(x) == 17 and not any("other" in label for label in labels)


def test_waterfall_refuses_names_that_do_not_match():
    with pytest.raises(ValueError, match="3 parts"):
        ef.waterfall_figure(0.0, np.zeros(3), ["a", "b"], "y")


# --------------------------------------------------------------------------- rounds


def test_rounds_running_total_is_the_staged_score(wide, boosted):
    X, _ = wide
    start, parts = round_contributions(boosted, X.iloc[[5]])
    fig = ef.rounds_figure(start[0], parts[0], Style(), current=12,
                           output_label="score (log-odds)")
    running, bars = fig.data[0], fig.data[1]
    staged = [s[0] for s in boosted.staged_decision_function(X.iloc[[5]])]
    assert running.y[0] == boosted.init_[0]
    np.testing.assert_allclose(running.y[1:], staged, rtol=0, atol=IDENTITY)
    assert list(running.x) == list(range(41)) and list(bars.x) == list(range(1, 41))
    np.testing.assert_array_equal(bars.y, parts[0])
    # the round on screen: a line through both panels and a point on the total
    assert sorted((s.x0, s.yref) for s in fig.layout.shapes) == [(12, "y domain"),
                                                                  (12, "y2 domain")]
    mark = fig.data[2]
    assert list(mark.x) == [12] and mark.y[0] == pytest.approx(staged[11], abs=IDENTITY)
    assert bars.marker.opacity[11] == 1 and bars.marker.opacity[10] < 1
    assert fig.layout.yaxis.title.text == "score (log-odds)"
    with pytest.raises(ValueError, match="0 to 40"):
        ef.rounds_figure(start[0], parts[0], current=41)
    assert not ef.rounds_figure(start[0], parts[0]).layout.shapes


def test_rounds_of_adaboost_are_the_vote_before_normalising(iris):
    X, y = iris
    ada = AdaBoostClassifier(n_estimators=15).fit(X, y)
    start, parts = round_contributions(ada, X.iloc[[60]])
    k = 1
    fig = ef.rounds_figure(start[0, k], parts[0, :, k], current=0, output_label="vote")
    W = np.cumsum(ada.estimator_weights_)
    staged = [s[0, k] for s in ada.staged_decision_function(X.iloc[[60]])]
    np.testing.assert_allclose(np.asarray(fig.data[0].y[1:]) / W, staged, rtol=0, atol=1e-12)
    assert fig.layout.shapes[0].x0 == 0 and fig.data[2].y[0] == 0.0


# --------------------------------------------------------------------------- partial dependence


@pytest.fixture(scope="module")
def petal_pdp(iris, forest):
    return partial_dependence(forest, iris[0], "petal length (cm)", kind="individual")


def ice_traces(fig):
    return [t for t in fig.data if t.legendgroup == "ice"]


def ice_row(trace) -> int:
    row = int(re.match(r"row (\d+)<br>", trace.hovertemplate).group(1))
    assert trace.meta == row
    return row


def test_pdp_draws_one_average_and_the_requested_ice_curves(petal_pdp):
    fig = ef.pdp_figure(petal_pdp, "petal length (cm)", "P(versicolor)", Style(), ice_rows=7,
                        class_index=1, seed=3)
    curves = ice_traces(fig)
    average = [t for t in fig.data if t.name == "average (partial dependence)"]
    assert len(curves) == 7 and len(average) == 1 and len(fig.data) == 8
    np.testing.assert_allclose(average[0].y, petal_pdp.average[:, 1])
    np.testing.assert_allclose(average[0].x, petal_pdp.grid[0])
    assert average[0].line.width > curves[0].line.width and curves[0].opacity < 1
    rows = [ice_row(t) for t in curves]
    assert len(set(rows)) == 7
    for trace, row in zip(curves, rows, strict=True):
        np.testing.assert_allclose(trace.y, petal_pdp.individual[row, :, 1])
    assert [t.showlegend for t in curves] == [True] + [False] * 6
    again = ef.pdp_figure(petal_pdp, "petal length (cm)", "P", ice_rows=7, class_index=1, seed=3)
    assert [ice_row(t) for t in ice_traces(again)] == rows  # seeded
    every = ef.pdp_figure(petal_pdp, "petal length (cm)", "P", ice_rows=500, class_index=1)
    assert len(ice_traces(every)) == 150
    assert fig.layout.xaxis.title.text == "petal length (cm)"
    assert fig.layout.yaxis.title.text == "P(versicolor)"
    json.loads(fig.to_json())


def test_centred_ice_curves_start_at_zero(petal_pdp):
    fig = ef.pdp_figure(petal_pdp, "petal length (cm)", "P(versicolor)", ice_rows=10,
                        centred=True, class_index=2)
    for trace in fig.data:
        assert trace.y[0] == 0
    average = fig.data[-1]
    np.testing.assert_allclose(average.y, petal_pdp.average[:, 2] - petal_pdp.average[0, 2])
    assert fig.layout.yaxis.title.text.startswith("change in P(versicolor)")


def test_pdp_needs_a_class_for_more_than_two(petal_pdp):
    with pytest.raises(ValueError, match="class_index"):
        ef.pdp_figure(petal_pdp, "petal length", "P")


def test_binary_pdp_draws_either_class(wide, boosted):
    X, _ = wide
    pdp = partial_dependence(boosted, X, "f0", grid=[-1.0, 0.0, 1.0])
    ones = ef.pdp_figure(pdp, "f0", "P(1)").data[0].y
    zeros = ef.pdp_figure(pdp, "f0", "P(0)", class_index=0).data[0].y
    np.testing.assert_allclose(ones, pdp.average)
    np.testing.assert_allclose(zeros, 1 - pdp.average)


def test_categorical_pdp_is_bars_with_ice_points():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], 200),
                      "x": rng.normal(size=200)})
    y = (X.colour == "red") * 2.0 + X.x
    model = GradientBoostingRegressor(n_estimators=10).fit(X, y)
    pdp = partial_dependence(model, X, "colour", kind="individual")
    fig = ef.pdp_figure(pdp, "colour", "y", ice_rows=5)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 1 and list(bars[0].x) == ["blue", "green", "red"]
    np.testing.assert_allclose(bars[0].y, pdp.average)
    assert [t.mode for t in ice_traces(fig)] == ["markers"] * 5
    assert fig.layout.xaxis.type == "category"


def test_two_feature_pdp_is_a_heatmap(iris, forest):
    pdp = partial_dependence(forest, iris[0], ("petal length (cm)", "petal width (cm)"))
    fig = ef.pdp_figure(pdp, ("petal length (cm)", "petal width (cm)"), "P(virginica)",
                        Style.presentation(), class_index=2)
    assert [t.type for t in fig.data] == ["heatmap"]
    heat = fig.data[0]
    np.testing.assert_allclose(heat.z, pdp.average[:, :, 2].T)  # rows are the y values
    np.testing.assert_allclose(heat.x, pdp.grid[0])
    np.testing.assert_allclose(heat.y, pdp.grid[1])
    assert fig.layout.xaxis.title.text == "petal length (cm)"
    assert fig.layout.yaxis.title.text == "petal width (cm)"
    assert heat.colorbar.title.text == "P(virginica)"
    with pytest.raises(ValueError, match="two feature labels"):
        ef.pdp_figure(pdp, "petal length", "P", class_index=2)


# --------------------------------------------------------------------------- nomogram


def nomogram_bars(fig) -> tuple[np.ndarray, list[str]]:
    bars = fig.data[0]
    labels = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext, strict=True))
    return np.asarray(bars.x, dtype=float), [labels[y] for y in bars.y]


def test_two_class_nomogram_sums_to_the_log_posterior_odds(wide):
    X, y = wide
    nb = GaussianNB().fit(X, y)
    contrib, log_prior = nb.log_likelihood_contributions(X.iloc[[8]])
    for top, n_bars in ((20, 17), (4, 7)):
        fig = ef.nomogram_figure(contrib[0], log_prior, list(X.columns), nb.classes_,
                                 Style(), top=top)
        x, labels = nomogram_bars(fig)
        assert len(x) == n_bars and labels[0] == "prior log odds"
        lp = nb.predict_log_proba(X.iloc[[8]])[0]
        assert x[:-1].sum() == pytest.approx(lp[1] - lp[0], abs=IDENTITY)
        assert x[-1] == pytest.approx(lp[1] - lp[0], abs=IDENTITY)
        assert x[0] == pytest.approx(log_prior[1] - log_prior[0], abs=1e-12)
    per_feature = contrib[0, 1] - contrib[0, 0]  # log P(x_j | 1) − log P(x_j | 0)
    assert sorted(x[1:5]) == pytest.approx(sorted(per_feature[np.argsort(-np.abs(per_feature))[:4]]))
    # the posterior axis: the marker and every tick sit at the log odds of their probability
    marker = fig.data[1]
    p = np.exp(lp[1])
    assert marker.x[0] == pytest.approx(lp[1] - lp[0]) and f"{p:.3g}" in marker.text[0]
    axis = fig.layout.xaxis2
    for z, text in zip(axis.tickvals, axis.ticktext, strict=True):
        assert z == pytest.approx(np.log(float(text) / (1 - float(text))))
    assert axis.title.text == "posterior probability P(1 | x)"
    json.loads(fig.to_json())


def test_three_class_nomogram_is_one_against_the_rest(iris):
    X, y = iris
    nb = GaussianNB().fit(X, y)
    rows = X.iloc[[70, 120]]
    contrib, log_prior = nb.log_likelihood_contributions(rows)
    lp = nb.predict_log_proba(rows)
    for i in range(2):
        for c in range(3):
            fig = ef.nomogram_figure(contrib[i], log_prior, list(X.columns), nb.classes_,
                                     Style.presentation(), class_index=c)
            x, labels = nomogram_bars(fig)
            rest = np.log(np.exp(np.delete(lp[i], c)).sum())
            assert x[:-1].sum() == pytest.approx(lp[i, c] - rest, abs=IDENTITY)
            assert labels[-2] == "one of 2 other classes"
            assert -np.log(2) - 1e-12 <= x[-2] <= 0  # −H(w) of two weights
            assert fig.layout.height <= 700
        default = ef.nomogram_figure(contrib[i], log_prior, list(X.columns), nb.classes_)
        assert nb.classes_[np.argmax(lp[i])] in default.layout.title.text


def test_a_zero_count_is_drawn_as_minus_infinity():
    X = pd.DataFrame({"a": ["u", "u", "v", "v"], "b": ["p", "q", "p", "q"]})
    nb = CategoricalNB(alpha=0).fit(X, ["no", "no", "yes", "yes"])
    contrib, log_prior = nb.log_likelihood_contributions(X.iloc[[0]])
    points = ef.nomogram_points(contrib[0], log_prior, 1)
    assert points.log_odds == -np.inf and points.features[0] == -np.inf
    fig = ef.nomogram_figure(contrib[0], log_prior, ["a", "b"], nb.classes_)
    x, _ = nomogram_bars(fig)
    assert np.isfinite(x).all() and x[1] < 0
    assert fig.data[0].text[1] == "−∞" and fig.data[0].text[-1] == "−∞"


# --------------------------------------------------------------------------- hostile text


def assert_escaped_and_cut(fig, *texts: str) -> None:
    strings = carried(fig)
    for text in texts:
        assert any(escaped(text[:20]) in s for s in strings), text[:40]
    raw = [h for h in HOSTILE if escaped(h) != h]
    assert [s[:60] for s in strings if any(h in s for h in raw)] == []
    assert max(len(run) for s in strings for run in re.findall("L+", s) or [""]) <= ef.HOVER_CHARS


def test_hostile_names_are_escaped_and_long_ones_cut():
    rng = np.random.default_rng(0)
    names = [HOSTILE[0], HOSTILE[1], LONG]
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=names)
    y = np.where(X.iloc[:, 0] + X.iloc[:, 2] > 0, HOSTILE[1], "<i>no</i>")
    gb = GradientBoostingClassifier(n_estimators=5, max_depth=2).fit(X, y)
    bias, contrib = contributions(gb, X.iloc[[0]])
    fig = ef.waterfall_figure(bias[0], contrib[0], names, f"P({HOSTILE[1]})",
                              values=["<b>1</b>", LONG, "3"])
    assert_escaped_and_cut(fig, HOSTILE[0], HOSTILE[1])
    _, _, labels = feature_bars(fig)
    assert "L" * (ef.MAX_LABEL_CHARS - 1) + "… = 3" in labels  # a name cut to 40 characters
    assert escaped(HOSTILE[1]) + " = " + "L" * 23 + "…" in labels  # a value to 24

    pdp = partial_dependence(gb, X, LONG, grid=[-1.0, 1.0], kind="individual")
    fig = ef.pdp_figure(pdp, LONG, HOSTILE[0], ice_rows=3)
    assert_escaped_and_cut(fig, HOSTILE[0])
    assert fig.layout.xaxis.title.text == "L" * (ef.MAX_LABEL_CHARS - 1) + "…"
    pair = partial_dependence(gb, X, (HOSTILE[0], LONG), grid=([0.0, 1.0], [0.0, 1.0]))
    assert_escaped_and_cut(ef.pdp_figure(pair, (HOSTILE[0], LONG), HOSTILE[1]), HOSTILE[0])

    nb = GaussianNB().fit(X, y)
    nb_contrib, log_prior = nb.log_likelihood_contributions(X.iloc[[0]])
    fig = ef.nomogram_figure(nb_contrib[0], log_prior, names, nb.classes_,
                             values=["<b>1</b>", "2", "3"])
    assert_escaped_and_cut(fig, HOSTILE[0], HOSTILE[1], "<i>no</i>")
    start, parts = round_contributions(gb, X.iloc[[0]])
    assert_escaped_and_cut(ef.rounds_figure(start[0], parts[0], output_label=HOSTILE[1]),
                           HOSTILE[1])
