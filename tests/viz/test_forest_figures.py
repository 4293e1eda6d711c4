"""Random Forest figures and tables, tested on their data (no Streamlit).

Every curve and bar is checked against a second, independent computation from the
forest's own members (a loop over the first b trees, the trees' own importances),
and the textbook numbers (Breiman 2001; Hastie et al. 2009): m = ⌊√p⌋ / ⌊p/3⌋, a row is
out of bag for ≈ e⁻¹ of the trees, and the variance of the average of B trees is ρσ² + (1−ρ)σ²/B.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, load_sample
from engine.ensemble import RandomForestClassifier, RandomForestRegressor
from engine.inspection import oob_permutation_importance, tree_correlation
from engine.metrics import r2_score
from viz import forest_figures as ff
from viz.style import Style

B = 30


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


@pytest.fixture(scope="module")
def moons():
    data = Dataset(load_sample("two_moons"), "class", random_state=0)
    forest = RandomForestClassifier(n_estimators=B, oob_score=True, random_state=0)
    return data, forest.fit(data.X_train, data.y_train)


@pytest.fixture(scope="module")
def friedman():
    data = Dataset(load_sample("friedman1"), "y", random_state=0)
    forest = RandomForestRegressor(n_estimators=B, oob_score=True, min_samples_leaf=5,
                                   random_state=0)
    return data, forest.fit(data.X_train, data.y_train)


def first_trees_proba(forest, X, b: int) -> np.ndarray:
    """The mean class probabilities of the first b trees, one tree at a time."""
    return np.mean([tree.predict_proba(X) for tree in forest.estimators_[:b]], axis=0)


def test_error_curve_has_one_point_per_tree_and_matches_the_first_b_trees(moons):
    data, forest = moons
    curve = ff.error_curve(forest, data.X_test, data.y_test)
    assert curve["n_trees"].tolist() == list(range(1, B + 1))
    truth = data.y_test.to_numpy()
    for b in (1, 7, B):
        predicted = forest.classes_[np.argmax(first_trees_proba(forest, data.X_test, b), axis=1)]
        assert curve["test"].iloc[b - 1] == pytest.approx(np.mean(predicted != truth))
    assert curve["oob"].iloc[-1] == pytest.approx(1 - forest.oob_score_)


def test_regression_curves_are_one_minus_r2(friedman):
    data, forest = friedman
    curve = ff.error_curve(forest, data.X_test, data.y_test)
    assert curve["test"].iloc[-1] == pytest.approx(1 - r2_score(data.y_test, forest.predict(data.X_test)))
    assert curve["oob"].iloc[-1] == pytest.approx(1 - forest.oob_score_)
    assert ff.error_name(False).startswith("1 − R²")


def test_oob_curve_figure_draws_two_lines_per_model_with_b_points(moons):
    data, forest = moons
    curve = ff.error_curve(forest, data.X_test, data.y_test)
    without_oob = curve.assign(oob=np.nan)
    fig = ff.oob_curve_figure({"random forest": curve, "no bootstrap": without_oob},
                              error_label="misclassification rate")
    assert [t.name for t in fig.data] == ["random forest: OOB error", "random forest: test error",
                                          "no bootstrap: test error"]
    assert all(len(t.x) == B for t in fig.data)
    assert [t.line.dash for t in fig.data] == ["solid", "dash", "dash"]
    assert fig.data[0].line.color != fig.data[2].line.color
    np.testing.assert_allclose(fig.data[1].y, curve["test"])


def test_oob_curve_frame_while_the_trees_grow_has_the_axes_and_no_curve():
    fig = ff.oob_curve_figure({}, error_label="misclassification rate", growing=200)
    assert not fig.data
    assert tuple(fig.layout.xaxis.range) == (0, 200)
    assert fig.layout.xaxis.title.text == "number of trees B"
    assert [a.text for a in fig.layout.annotations] == ["Growing 200 trees…"]


def test_a_row_is_out_of_bag_for_about_e_to_the_minus_one_of_the_trees(moons):
    _, forest = moons
    share = np.mean(forest.inbag_counts_ == 0)
    # (1 − 1/n)^n with n = 225 is 0.3671; 6750 cells give a standard error of 0.006
    assert abs(share - (1 - 1 / 225) ** 225) < 0.03
    assert ff.OOB_SHARE == pytest.approx(0.3679, abs=1e-4)


@pytest.mark.parametrize(("p", "marks"), [(57, {"√p": 7, "p/3": 19, "p": 57}),
                                          (10, {"√p": 3, "p/3": 3, "p": 10}),
                                          (2, {"√p": 1, "p/3": 1, "p": 2})])
def test_m_marks_are_breimans_defaults(p, marks):
    assert ff.m_marks(p) == marks


def test_tick_labels_name_each_default_once():
    assert ff.m_tick_labels([1, 2, 3, 10], 10) == ["1", "2", "3<br>√p = p/3", "10<br>p"]


def test_effect_of_m_figure_plots_every_m(friedman):
    table = pd.DataFrame({"m": [1, 3, 10], "oob": [0.5, 0.3, 0.25], "test": [0.5, 0.35, 0.36],
                          "rho": [0.3, 0.5, 0.75]})
    fig = ff.effect_of_m_figure(table, 10, 3, error_label="1 − R²")
    assert [t.name for t in fig.data] == ["OOB error", "test error", "ρ (mean pairwise)"]
    assert all(list(t.x) == [1, 3, 10] for t in fig.data)
    assert list(fig.data[2].y) == [0.3, 0.5, 0.75] and fig.data[2].xaxis == "x2"
    assert list(fig.layout.xaxis.ticktext) == ["1", "3<br>√p = p/3", "10<br>p"]


def test_variance_formula_plugs_in_the_measured_rho_and_sigma2(friedman):
    data, forest = friedman
    found = tree_correlation(forest, data.X_test)
    text = ff.variance_latex(found.rho, found.sigma2, B)
    assert f"{found.rho:.3f}" in text and rf"\frac{{1 - {found.rho:.3f}}}{{{B}}}" in text
    shown = float(re.search(r"= ([-\d.e+]+) \\end\{aligned\}$", text).group(1))
    assert shown == pytest.approx(found.ensemble_variance(), rel=1e-3)
    # averaging shrinks the variance, but never below ρσ²
    assert found.rho * found.sigma2 <= shown <= found.sigma2


def test_impurity_table_is_the_forests_importance_with_the_trees_spread(friedman):
    _, forest = friedman
    table = ff.impurity_importance_table(forest)
    np.testing.assert_allclose(table["importance_mean"], forest.feature_importances_)
    per_tree = np.array([t.feature_importances_ for t in forest.estimators_])
    np.testing.assert_allclose(table["importance_std"], per_tree.std(axis=0))
    assert table["feature"].tolist() == [str(n) for n in forest.feature_names_in_]


def test_importance_bars_are_the_largest_values_with_error_bars():
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"feature": [f"f{i}" for i in range(30)],
                          "importance_mean": rng.uniform(size=30),
                          "importance_std": rng.uniform(0, 0.1, size=30)})
    fig = ff.importance_bars_figure(table, title="t", x_title="x", highlight="f3", top=20)
    bar = fig.data[0]
    top = table.nlargest(20, "importance_mean").iloc[::-1]
    assert list(bar.y) == top["feature"].tolist()
    np.testing.assert_allclose(bar.x, top["importance_mean"])
    np.testing.assert_allclose(bar.error_x.array, top["importance_std"])
    colors = dict(zip(bar.y, bar.marker.color, strict=True))
    if "f3" in colors:
        assert colors["f3"] == Style().color(5)
    assert {c for f, c in colors.items() if f != "f3"} == {Style().color(0)}


def test_a_noise_column_fools_impurity_importance_but_not_permutation(moons):
    data, _ = moons
    X = data.X_train.assign(noise=np.random.default_rng(1).normal(size=len(data.X_train)))
    forest = RandomForestClassifier(n_estimators=60, random_state=0).fit(X, data.y_train)
    impurity = ff.impurity_importance_table(forest).set_index("feature")["importance_mean"]
    permutation = oob_permutation_importance(forest, X, data.y_train, random_state=0)
    permutation = permutation.set_index("feature")["importance_mean"]
    assert impurity["noise"] > 0.1  # fully grown trees split on noise all the way down
    assert abs(permutation["noise"]) < 0.02 < permutation["x1"]


def test_inbag_figure_shows_counts_of_the_first_rows_and_trees(moons):
    _, forest = moons
    fig = ff.inbag_figure(forest.inbag_counts_, n_rows=40, n_trees=20, current=4)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (40, 20)
    np.testing.assert_array_equal(z, forest.inbag_counts_[:20, :40].T)
    outline = fig.layout.shapes[0]
    assert (outline.x0, outline.x1) == (3.5, 4.5)


def test_votes_add_up_to_b_and_pi_is_the_forests_probability(moons):
    data, forest = moons
    row = data.X_test.iloc[[5]]
    votes = ff.vote_table(forest, row)
    assert votes["votes"].sum() == B
    np.testing.assert_allclose(votes["mean_proba"], forest.predict_proba(row)[0])
    single = [tree.predict(row)[0] for tree in forest.estimators_]
    assert votes.set_index("class")["votes"].to_dict() == {
        str(c): single.count(c) for c in forest.classes_}
    fig = ff.vote_figure(votes)
    assert list(fig.data[0].y) == votes["votes"].tolist()


def test_regression_tree_predictions_average_to_the_forest(friedman):
    data, forest = friedman
    row = data.X_test.iloc[[0]]
    predictions = ff.vote_table(forest, row)
    assert len(predictions) == B
    assert predictions["prediction"].mean() == pytest.approx(forest.predict(row)[0])
    fig = ff.tree_predictions_figure(predictions, float(data.y_test.iloc[0]))
    assert fig.layout.shapes[0].x0 == pytest.approx(forest.predict(row)[0])
    assert len(fig.data[0].x) == B


def test_presentation_style_reaches_every_figure(moons):
    data, forest = moons
    big = Style.presentation()
    curve = ff.error_curve(forest, data.X_test, data.y_test)
    table = pd.DataFrame({"m": [1, 2], "oob": [0.1, 0.1], "test": [0.1, 0.1], "rho": [0.5, 0.8]})
    figures = [ff.oob_curve_figure({"rf": curve}, error_label="e", style=big),
               ff.effect_of_m_figure(table, 2, 1, error_label="e", style=big),
               ff.importance_bars_figure(ff.impurity_importance_table(forest), title="t",
                                         x_title="x", style=big),
               ff.inbag_figure(forest.inbag_counts_, style=big),
               ff.vote_figure(ff.vote_table(forest, data.X_test.iloc[[0]]), style=big)]
    for fig in figures:
        assert fig.layout.font.size == big.font_size
    assert figures[0].data[0].line.width == big.line_width
