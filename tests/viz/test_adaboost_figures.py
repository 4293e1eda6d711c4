"""Figures and tables of the AdaBoost page, checked on their data (no Streamlit, no browser).

Oracles: AdaBoost's formulas recomputed here, scikit-learn's AdaBoost (SAMME on stumps,
whose decision function equals ours although each of its weights is twice ours), and the
engine's own staged outputs.
"""
import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.tree import DecisionTreeClassifier as SkTree

from engine.data import Dataset, load_sample
from engine.ensemble import AdaBoostClassifier
from engine.tree import DecisionTreeClassifier
from viz import adaboost_figures as af
from viz.style import Style


@pytest.fixture(scope="module")
def moons():
    data = Dataset(load_sample("two_moons"), "class")
    model = AdaBoostClassifier(n_estimators=15).fit(data.X_train, data.y_train)
    return model, data


@pytest.fixture(scope="module")
def iris():
    data = Dataset(load_sample("iris"), "species")
    model = AdaBoostClassifier(n_estimators=10).fit(data.X_train, data.y_train)
    return model, data


def test_marker_area_is_proportional_to_the_weight():
    alpha = np.r_[np.linspace(2.0, 4.0, 60), 1e-4, 1000.0]
    alpha /= alpha.sum()
    sizes = af.marker_diameters(alpha, base=8)
    inside = (sizes > af.MIN_DIAMETER) & (sizes < af.MAX_SCALE * 8)
    assert inside[:60].all() and not inside[60:].any()
    ratio = sizes[inside] ** 2 / alpha[inside]  # area / weight: one constant
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
    assert sizes[60] == af.MIN_DIAMETER and sizes[61] == af.MAX_SCALE * 8
    uniform = af.marker_diameters(np.full(10, 0.1), base=8)
    np.testing.assert_allclose(uniform, 8.0)  # the mean weight gets the style's size


def test_round_figure_sizes_points_by_the_weights_round_t_was_fitted_with(moons):
    model, data = moons
    X2 = data.X_train[["x1", "x2"]]
    grid = af.staged_grid(model, X2, resolution=40)
    misses = model.training_misses_
    t = 4
    detail = af.round_detail(model, t)
    fig = af.round_figure(grid, t, X2, data.y_train, detail, af.stump_line(
        model.estimators_[t - 1], ("x1", "x2")), Style())
    alpha = model.sample_weights_[t - 1]
    labels = data.y_train.to_numpy()
    miss = misses[t - 1]
    base = Style().marker_size
    for q, name in enumerate(model.classes_):
        for part, wrong in enumerate((False, True)):
            trace = fig.data[1 + 2 * q + part]
            mask = (labels == name) & (miss == wrong)
            expected = np.clip(base * np.sqrt(alpha[mask] / alpha.mean()),
                               af.MIN_DIAMETER, af.MAX_SCALE * base)
            if wrong:  # a cross, in the class colour, never smaller than MIN_CROSS
                expected = np.maximum(expected, af.MIN_CROSS)
            np.testing.assert_allclose(np.asarray(trace.marker.size), expected)
            assert trace.marker.symbol == ("x" if wrong else "circle")
            assert trace.marker.color == Style().color(q)
            np.testing.assert_allclose(np.asarray(trace.x), X2["x1"].to_numpy()[mask])
    assert miss.sum() > 0 and fig.data[-1].name == f"misclassified by f̂_{t}"
    legend = [tr.name for tr in fig.data if tr.showlegend is not False and tr.name]
    assert legend == [*map(str, model.classes_), f"misclassified by f̂_{t}"]
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), grid.class_index[t - 1] + 0.5)
    learner = model.estimators_[t - 1]
    line = fig.layout.shapes[0]
    axis = "x" if learner.tree_.feature[0] == 0 else "y"
    assert (line.x0 if axis == "x" else line.y0) == pytest.approx(learner.tree_.threshold[0])


def test_points_with_a_missing_drawn_value_are_left_out(moons):
    model, data = moons
    X2 = data.X_train[["x1", "x2"]].copy()
    X2.iloc[:5, 0] = np.nan
    grid = af.staged_grid(model, data.X_train[["x1", "x2"]], resolution=10)
    detail = af.round_detail(model, 1)
    fig = af.round_figure(grid, 1, X2, data.y_train, detail)
    assert sum(len(tr.x) for tr in fig.data[1:5]) == len(X2) - 5  # two classes, right/wrong
    assert not fig.layout.shapes  # no line given, none drawn


def test_staged_grid_is_the_staged_prediction_on_the_grid(moons):
    model, data = moons
    X2 = data.X_train[["x1", "x2"]]
    grid = af.staged_grid(model, X2, resolution=25)
    assert grid.class_index.shape == (len(model.estimators_), 25, 25)
    gx, gy = np.meshgrid(grid.xs, grid.ys)
    points = pd.DataFrame({"x1": gx.ravel(), "x2": gy.ravel()})
    for t, predicted in enumerate(model.staged_predict(points), start=1):
        expected = np.searchsorted(model.classes_, predicted).reshape(gx.shape)
        np.testing.assert_array_equal(grid.class_index[t - 1], expected)
    assert grid.xs[0] < X2["x1"].min() and grid.ys[-1] > X2["x2"].max()


def test_staged_grid_agrees_with_scikit_learn(moons):
    _, data = moons
    X = data.X_train[["x1", "x2"]]
    ours = AdaBoostClassifier(n_estimators=8).fit(X, data.y_train)
    sk = SkAdaBoost(SkTree(max_depth=1), n_estimators=8).fit(X.to_numpy(), data.y_train)
    grid = af.staged_grid(ours, X, resolution=30)
    gx, gy = np.meshgrid(grid.xs, grid.ys)
    points = np.column_stack([gx.ravel(), gy.ravel()])
    for t, predicted in enumerate(sk.staged_predict(points), start=1):
        expected = np.searchsorted(sk.classes_, predicted).reshape(gx.shape)
        np.testing.assert_array_equal(grid.class_index[t - 1], expected)


def test_staged_grid_refuses_a_model_of_other_columns(iris):
    model, data = iris
    with pytest.raises(ValueError, match="exactly the columns"):
        af.staged_grid(model, data.X_train[["sepal_length", "sepal_width"]])


@pytest.mark.parametrize("which", ["moons", "iris"])
def test_round_detail_follows_the_formulas(which, request):
    model, data = request.getfixturevalue(which)
    K = len(model.classes_)
    misses = model.training_misses_
    assert misses.shape == (len(model.estimators_), len(data.y_train))
    with np.errstate(all="raise"):
        for t in range(1, len(model.estimators_) + 1):
            d = af.round_detail(model, t)
            assert d.error == pytest.approx(d.before[d.miss].sum() / d.before.sum())  # ε_t
            w = 0.5 * np.log((1 - d.error) / d.error) + 0.5 * np.log(K - 1)  # SAMME
            assert d.weight == pytest.approx(w)
            assert d.after.sum() == pytest.approx(1.0)
            np.testing.assert_allclose(d.after * d.normaliser, d.before * d.factors)
            following = (model.sample_weights_[t] if t < len(model.estimators_)
                         else model.final_sample_weight_)
            np.testing.assert_allclose(d.after, following, rtol=1e-12)
            if K == 2:  # after the update the misclassified hold exactly half the weight
                assert d.after[d.miss].sum() == pytest.approx(0.5)


def test_heaviest_table_lists_the_k_heaviest_after_the_update(moons):
    model, data = moons
    d = af.round_detail(model, 3)
    table = af.heaviest_table(d, data.y_train, data.X_train.index, k=6)
    assert len(table) == 6
    after = table["α_i after (÷ Z_t)"].to_numpy()
    assert after.tolist() == sorted(after, reverse=True)
    assert after[0] == pytest.approx(d.after.max())
    np.testing.assert_allclose(after, table["α_i before"] * table["× e^(±ŵ_t)"] / d.normaliser)
    rows = table["row"].to_numpy()
    np.testing.assert_array_equal(table["class"], data.y_train.loc[rows].astype(str))
    positions = data.X_train.index.get_indexer(rows)
    np.testing.assert_array_equal(table["f̂_t wrong"], d.miss[positions])


def test_stump_table_on_six_points():
    # The engine's worked example: X = 1..6, y = +, +, -, -, +, +.
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    model = AdaBoostClassifier(n_estimators=3).fit(X, [1, 1, -1, -1, 1, 1])
    table = af.stump_table(model, note_missing=False)
    assert table["t"].tolist() == [1, 2, 3] and set(table["feature"]) == {"x"}
    np.testing.assert_allclose(table["ε_t"], [1 / 3, 0.25, 1 / 6], atol=1e-4)
    np.testing.assert_allclose(table["ŵ_t"], 0.5 * np.log((1 - table["ε_t"]) / table["ε_t"]))
    first = model.estimators_[0]
    threshold = first.tree_.threshold[0]
    assert table["rule"][0] == f"x ≤ {threshold:g}"
    left, right = (first.predict(pd.DataFrame({"x": [v]}))[0] for v in (threshold - 0.5,
                                                                      threshold + 0.5))
    assert table["predicts"][0] == f"yes → {left} · no → {right}"


def test_stump_table_names_category_sets_and_learner_depth():
    X = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "green", "red", "blue", "green",
                                                "red", "red"]),
                      "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]})
    y = ["yes", "no", "no", "yes", "no", "no", "yes", "no"]
    model = AdaBoostClassifier(n_estimators=2).fit(X, y)
    row = af.stump_table(model, note_missing=False).iloc[0]
    # red is "yes" but once: the binary split sets {red} against {blue, green}
    assert row["feature"] == "colour" and row["leaves"] == 2
    assert (row["rule"], row["predicts"]) in {("colour ∈ {red}", "yes → yes · no → no"),
                                              ("colour ∈ {blue, green}", "yes → no · no → yes")}
    assert af.stump_line(model.estimators_[0], ("size", "colour")) is None  # not numeric
    deep = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=2),
                              n_estimators=1).fit(X, y)
    assert af.stump_table(deep)["leaves"][0] >= 2


def test_stump_line_knows_its_axis(moons):
    model, _ = moons
    learner = model.estimators_[0]
    name = learner.feature_names_in_[learner.tree_.feature[0]]
    other = "x1" if name == "x2" else "x2"
    assert af.stump_line(learner, (name, other)) == ("x", pytest.approx(learner.tree_.threshold[0]))
    assert af.stump_line(learner, (other, name))[0] == "y"
    assert af.stump_line(learner, (other, "x3")) is None


def test_error_curve_has_one_point_per_round_and_the_single_trees(moons):
    model, data = moons
    train = 1 - np.fromiter(model.staged_score(data.X_train, data.y_train), float)
    test = 1 - np.fromiter(model.staged_score(data.X_test, data.y_test), float)
    fig = af.error_curve_figure(train, test, {"a stump": 0.2, "a full-depth tree": 0.1},
                                current=3, style=Style.presentation())
    assert [len(t.x) for t in fig.data[:2]] == [len(model.estimators_)] * 2
    np.testing.assert_allclose(fig.data[1].y, test)
    assert list(fig.data[2].y) == [0.2, 0.2] and fig.data[3].name == "a full-depth tree: 10.0%"
    assert fig.layout.shapes[0].x0 == 3
    assert fig.layout.font.size >= 22 and fig.data[0].line.width == Style.presentation().line_width


def test_weight_curve_draws_every_rounds_error_and_weight(iris):
    model, _ = iris
    fig = af.weight_curve_figure(model, Style())
    np.testing.assert_allclose(fig.data[0].y, model.estimator_errors_)
    np.testing.assert_allclose(fig.data[1].y, model.estimator_weights_)
    assert [t.name for t in fig.data] == ["ε_t (weighted error)", "ŵ_t (model weight)"]


def test_the_weights_picture_stays_svg_however_many_points_it_draws():
    """It is redrawn at every step (``viz._points.point_adder``, stepped): SVG traces even
    above the WebGL limit of a picture drawn once."""
    from viz._points import WEBGL_POINTS

    rng = np.random.default_rng(0)
    n = 6 * WEBGL_POINTS
    X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    y = pd.Series(np.where(X["a"] + 0.3 * rng.normal(size=n) > 0, "yes", "no"))
    model = AdaBoostClassifier(n_estimators=3).fit(X, y)
    grid = af.staged_grid(model, X, resolution=10)
    detail = af.round_detail(model, 2)
    fig = af.round_figure(grid, 2, X, y, detail)
    markers = [tr for tr in fig.data if tr.type != "heatmap"]
    assert {tr.type for tr in markers} == {"scatter"}
    assert sum(len(tr.x) for tr in markers if tr.x[0] is not None) == n
