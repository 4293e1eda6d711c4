"""Figures of the decision-tree page, checked on their data (no Streamlit, no browser)."""
import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, load_sample
from engine.inspection import grid_rows, split_candidates, target_codes
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor, plurality
from engine.tree._prune import choose_ccp_alpha_cv
from viz import tree_figures as tf
from viz.style import PALETTE, Style


@pytest.fixture(scope="module")
def iris():
    data = Dataset(load_sample("iris"), "species")
    return DecisionTreeClassifier().fit(data.X_train, data.y_train), data


def test_threshold_curve_has_one_line_per_criterion_and_marks_the_best(iris):
    # 12 points: thresholds 4.5 (weak) and 5.5 (strong) by information gain.
    X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
    table = split_candidates(None, X=X, y=[1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0])
    fig = tf.threshold_curve_figure(table, "x", "entropy")
    assert [t.name for t in fig.data] == ["error decrease", "information gain (bits)", "Gini decrease"]
    gain = fig.data[1]
    assert list(gain.x) == pytest.approx(np.arange(1.5, 12.0, 1.0))
    assert dict(zip(gain.x, gain.y, strict=True))[5.5] == pytest.approx(0.16859, abs=1e-5)
    assert fig.layout.shapes[0].x0 == pytest.approx(float(gain.x[np.argmax(gain.y)]))
    assert fig.layout.xaxis.title.text.startswith("threshold")
    # margins set ahead for the tick labels (plotly then draws it once), larger with
    # larger type; the legend of criteria under the plot, the figure taller to hold it
    big = tf.threshold_curve_figure(table, "x", "entropy", Style.presentation())
    assert big.layout.margin.l > fig.layout.margin.l and big.layout.margin.b > fig.layout.margin.b
    assert fig.layout.legend.orientation == big.layout.legend.orientation == "h"
    assert big.layout.height > fig.layout.height


def test_a_long_gain_curve_is_drawn_as_lines_a_short_one_marks_every_threshold():
    """Every threshold of a measurement on thousands of rows is thousands of points a
    curve: marked one by one they cost the browser a shape each and show nothing more."""
    rng = np.random.default_rng(0)
    n = 2 * tf.MARKED_THRESHOLDS
    X = pd.DataFrame({"x": rng.permutation(n).astype(float)})
    y = (X["x"] > n / 2).astype(int).to_numpy() ^ (rng.random(n) < 0.2)
    table = split_candidates(None, X=X, y=y)
    long = tf.threshold_curve_figure(table, "x", "gini")
    assert len(long.data[0].x) == n - 1 > tf.MARKED_THRESHOLDS
    assert {t.mode for t in long.data} == {"lines"}
    short = tf.threshold_curve_figure(table.iloc[:tf.MARKED_THRESHOLDS], "x", "gini")
    assert {t.mode for t in short.data} == {"lines+markers"}


def test_category_order_reproduces_the_sorted_shares():
    data = Dataset(load_sample("restaurant"), "WillWait")
    table = split_candidates(None, X=data.X, y=data.y)
    order = tf.category_order_table(table, "Patrons")
    assert order["category"].tolist() == ["None", "Full", "Some"]
    assert order["share"].tolist() == pytest.approx([0.0, 2 / 6, 1.0])
    assert order["count"].tolist() == [2, 6, 4]
    fig = tf.category_order_figure(order, "Patrons", "Yes", 2)
    assert list(fig.data[0].x) == ["None", "Full", "Some"]
    assert fig.layout.shapes[0].x0 == pytest.approx(1.5)


def test_impurity_curves_match_the_two_class_formulas():
    curves = tf.impurity_curves(scaled_entropy=True)
    p = curves["p"].to_numpy()
    assert curves["gini"].to_numpy() == pytest.approx(2 * p * (1 - p))
    assert curves["misclassification"].to_numpy() == pytest.approx(np.minimum(p, 1 - p))
    half = curves.loc[np.isclose(p, 0.5)]
    assert half[["gini", "entropy", "misclassification"]].to_numpy() == pytest.approx(0.5)
    bits = tf.impurity_curves(scaled_entropy=False)
    assert bits.loc[np.isclose(p, 0.5), "entropy"].item() == pytest.approx(1.0)
    fig = tf.impurity_figure(curves, 0.25, style=Style.presentation())
    assert len(fig.data) == 3 and fig.layout.shapes[0].x0 == 0.25
    assert fig.layout.font.size >= 22


def test_importances_and_confusion_matrix(iris):
    model, data = iris
    fig = tf.importance_figure(data.features, model.feature_importances_)
    assert fig.data[0].y[-1] == data.features[int(np.argmax(model.feature_importances_))]
    assert sum(fig.data[0].x) == pytest.approx(1.0)
    matrix = np.array([[5, 1], [0, 4]])
    heat = tf.confusion_figure(matrix, ["no", "yes"]).data[0]
    assert heat.z.tolist() == matrix.tolist() and list(heat.x) == ["no", "yes"]


def test_depth_curve_matches_refits_with_max_depth(iris):
    model, data = iris
    curve = tf.depth_curve(model, data.X_train, data.y_train, data.X_test, data.y_test)
    assert curve["depth"].tolist() == list(range(model.get_depth() + 1))
    assert curve["train"].iloc[-1] == pytest.approx(1 - model.score(data.X_train, data.y_train))
    for depth in (1, 2):
        refit = DecisionTreeClassifier(max_depth=depth).fit(data.X_train, data.y_train)
        assert curve["test"].iloc[depth] == pytest.approx(1 - refit.score(data.X_test, data.y_test))
        assert curve["n_leaves"].iloc[depth] == refit.get_n_leaves()
    assert (np.diff(curve["train"]) <= 1e-12).all()
    fig = tf.depth_curve_figure(curve, x="n_leaves", current=3)
    assert len(fig.data) == 2 and fig.layout.xaxis.title.text == "number of leaves"


@pytest.mark.parametrize("sample, target", [("mushroom", "edibility"), ("spambase", "spam"),
                                            ("friedman1", "y"), ("playtennis", "PlayTennis")])
def test_depth_curve_is_every_cut_tree_scored(sample, target):
    """The curve against its definition: the tree collapsed at every depth, its rows
    walked down again (categories, missing values, a regression target, a multiway tree)."""
    frame = load_sample(sample)
    if sample == "spambase":  # a tenth of two columns' values missing
        holes = np.random.default_rng(0).random((len(frame), 2)) < 0.1
        frame[["char_freq_!", "word_freq_remove"]] = frame[["char_freq_!", "word_freq_remove"]].mask(holes)
    data = Dataset(frame, target, random_state=0)
    cls = DecisionTreeRegressor if data.task == "regression" else DecisionTreeClassifier
    extra = {"categorical_split": "multiway"} if sample == "playtennis" else {}
    model = cls(random_state=0, **extra).fit(data.X_train, data.y_train)
    curve = tf.depth_curve(model, data.X_train, data.y_train, data.X_test, data.y_test)
    tree = model.tree_
    for depth in range(tree.max_depth + 1):
        sub = tree.collapse(np.flatnonzero((tree.depth == depth) & (tree.children_left >= 0)))
        for split, X, y in (("train", data.X_train, data.y_train), ("test", data.X_test, data.y_test)):
            value = sub.value[sub.apply(model.encoder_.transform(X))]
            y = np.asarray(y)  # the error by its definition, labels compared as labels
            error = (np.mean(model.classes_[plurality(value)] != y) if data.task == "classification"
                     else np.mean((y.astype(float) - value[:, 0]) ** 2))
            assert curve[split].iloc[depth] == pytest.approx(error, rel=1e-12), (depth, split)
        assert curve["n_leaves"].iloc[depth] == sub.n_leaves


def test_depth_curve_counts_a_test_label_the_tree_never_saw_as_an_error():
    """A class absent from the training rows (a rare class in a small table) is wrong at
    every depth, where scoring a forest against such labels refuses them."""
    X = pd.DataFrame({"x": np.arange(12.0)})
    y_train = pd.Series(["a"] * 6 + ["b"] * 6)
    model = DecisionTreeClassifier(random_state=0).fit(X, y_train)
    X_test, y_test = pd.DataFrame({"x": [1.0, 2.0, 9.0, 10.0]}), pd.Series(["a", "c", "b", "c"])
    curve = tf.depth_curve(model, X, y_train, X_test, y_test)
    assert curve["test"].tolist() == [0.75, 0.5]  # the root says "a"; depth 1 gets a and b right
    np.testing.assert_array_equal(target_codes(model, y_test, unseen_as_error=True), [0, -1, 1, -1])
    with pytest.raises(ValueError, match="not fitted on"):
        target_codes(model, y_test)


def test_ccp_figure_marks_the_cross_validated_choice(iris):
    _, data = iris
    best, table = choose_ccp_alpha_cv(DecisionTreeClassifier(), data.X_train, data.y_train)
    fig = tf.ccp_figure(table, best)
    assert list(fig.data[0].x) == table["n_leaves"].tolist()
    chosen = table.loc[np.isclose(table["alpha"], best)].iloc[0]
    assert fig.data[1].x[0] == chosen["n_leaves"] and fig.data[1].y[0] == chosen["cv_error"]
    assert fig.data[1].marker.symbol == "star"


def test_decision_grid_and_boundary_points(iris):
    _, data = iris
    pair = ["petal_length", "petal_width"]
    model = DecisionTreeClassifier(max_depth=2).fit(data.X_train[pair], data.y_train)
    grid = tf.decision_grid(model, data.X_train[pair], resolution=40)
    assert grid["z"].shape == (40, 40)
    probe = pd.DataFrame({pair[0]: [grid["x"][0]], pair[1]: [grid["y"][0]]})
    expected = list(model.classes_).index(model.predict(probe)[0])
    assert grid["z"][0, 0] == expected
    fig = tf.boundary_figure(grid, data.X_train[pair], data.y_train, data.X_test[pair],
                             data.y_test, data.class_names)
    assert len(fig.data) == 1 + 2 * 3  # regions + (train, test) per class
    test_traces = [t for t in fig.data[1:] if t.name.endswith("(test)")]
    assert all(t.marker.color == "rgba(0,0,0,0)" for t in test_traces)
    assert sum(len(t.x) for t in test_traces) == len(data.y_test)
    assert fig.data[1].marker.color == PALETTE[0]
    assert fig.layout.xaxis.title.text == "petal_length"


def test_the_grid_of_a_forests_first_trees_is_cut_from_its_stages(iris):
    """A forest's grid with stages gives, for any b, the grid the forest of its first b
    trees draws; a tree's grid has no stages, a cut past the forest is None."""
    from engine.ensemble import RandomForestClassifier, first_members

    _, data = iris
    pair = ["sepal_length", "sepal_width"]
    X, y = data.X_train[pair], data.y_train
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    grid = tf.decision_grid(forest, X, resolution=30, stages=True)
    plain = tf.decision_grid(forest, X, resolution=30)
    np.testing.assert_array_equal(grid["z"], plain["z"])
    for b in (1, 3, 10):
        cut = tf.first_trees_grid(grid, b)
        alone = tf.decision_grid(first_members(forest, b, X, y), X, resolution=30)
        for name in ("x", "y", "z"):
            np.testing.assert_array_equal(cut[name], alone[name])
    assert tf.first_trees_grid(grid, 11) is None and tf.first_trees_grid(plain, 3) is None
    # every point coloured with the class predict gives there, ties (two trees) included
    two = first_members(forest, 2, X, y)
    _, rows = grid_rows(pair, grid["x"], grid["y"])
    predicted = pd.Index(two.classes_).get_indexer(two.predict(rows))
    np.testing.assert_array_equal(tf.first_trees_grid(grid, 2)["z"].ravel(), predicted)
    proba = two.predict_proba(rows)
    assert (proba.max(axis=1) == 0.5).any()  # some points tie
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert "stages" not in tf.decision_grid(tree, X, resolution=30, stages=True)


def test_regression_boundary_uses_a_continuous_scale():
    data = Dataset(load_sample("friedman1"), "y")
    pair = list(data.features[:2])
    model = DecisionTreeRegressor(max_depth=3).fit(data.X_train[pair], data.y_train)
    grid = tf.decision_grid(model, data.X_train[pair], resolution=20)
    assert len(np.unique(grid["z"])) <= 8
    fig = tf.boundary_figure(grid, data.X_train[pair], data.y_train, data.X_test[pair],
                             data.y_test, None)
    assert [t.name for t in fig.data[1:]] == ["train", "test"]


def test_candidate_table_in_words():
    table = pd.DataFrame({
        "feature": ["age", "age", "town"], "split": ["threshold", "threshold", "subset"],
        "threshold": [30.5, np.inf, np.nan], "categories": [None, None, ("Oslo",)],
        "branch_counts": [((3.0, 1.0), (0.0, 4.0)), ((3.0, 5.0), (1.0, 0.0)), ((2.0, 2.0), (1.0, 3.0))],
        "missing_to": [None, None, None], "gini_decrease": [0.3, 0.01, 0.02],
        "info_gain": [0.5, 0.02, 0.03], "chosen": [True, False, False]})
    shown = tf.candidate_display(table, ["no", "yes"], "gini")
    assert list(shown["Split"]) == ["x ≤ t", "x present", "x ∈ values"]
    assert shown["Threshold t"].iloc[0] == 30.5 and shown["Threshold t"].iloc[1:].isna().all()
    assert list(shown["Rows per branch (no / yes)"]) == ["3 / 1 | 0 / 4", "3 / 5 | 1 / 0",
                                                         "2 / 2 | 1 / 3"]
    assert "Missing values go" not in shown and "Information gain (bits)" not in shown
    assert "Information gain (bits)" in tf.candidate_display(table, ["no", "yes"])


def test_boundary_without_test_rows_draws_each_row_once(iris):
    model, data = iris
    X = data.X[["petal_length", "petal_width"]]
    pair = DecisionTreeClassifier(max_depth=2).fit(X, data.y)
    fig = tf.boundary_figure(tf.decision_grid(pair, X), X, data.y, None, None, data.class_names)
    names = [trace.name for trace in fig.data if trace.type == "scatter"]
    assert names == [f"{c} (train)" for c in data.class_names]
    assert sum(len(trace.x) for trace in fig.data if trace.type == "scatter") == len(X)


def test_a_boundary_of_many_points_draws_them_with_webgl():
    """Above WEBGL_POINTS points (train and test together) every marker trace is plotly's
    WebGL scatter; below, SVG; the points and the regions are the same either way."""
    from viz._points import WEBGL_POINTS

    rng = np.random.default_rng(0)
    for n, kind in [(WEBGL_POINTS - 10, "scatter"), (3 * WEBGL_POINTS, "scattergl")]:
        X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
        y = pd.Series(np.where(X["a"] > 0, "yes", "no"))
        train, test = X.iloc[: n - 5], X.iloc[n - 5:]
        pair = DecisionTreeClassifier(max_depth=2).fit(train, y.iloc[: n - 5])
        fig = tf.boundary_figure(tf.decision_grid(pair, train), train, y.iloc[: n - 5], test,
                                 y.iloc[n - 5:], ["no", "yes"])
        kinds = [trace.type for trace in fig.data]
        assert kinds == ["heatmap"] + [kind] * 4
        assert sum(len(trace.x) for trace in fig.data[1:]) == n


def test_a_boundary_reserves_margins_for_its_ticks_titles_and_legend():
    """The margins are set before the browser measures (so plotly draws it once): wider
    for wider y tick labels, a longer legend and larger type; no right margin to speak
    of without a legend (a regression's colour bar)."""
    from viz.style import Style

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    y = pd.Series(np.where(X["a"] > 0, "yes", "no"))
    pair = DecisionTreeClassifier(max_depth=2).fit(X, y)

    def margin(X, names, style=Style(), classify=True):
        grid = tf.decision_grid(pair, X) if classify else {
            "x": np.linspace(0, 1, 5), "y": np.linspace(0, 1, 5), "z": np.zeros((5, 5))}
        fig = tf.boundary_figure(grid, X, y, None, None, names if classify else None, style)
        return fig.layout.margin

    small, wide = margin(X, ["no", "yes"]), margin(X * 10_000, ["no", "yes"])
    assert wide.l > small.l and wide.b == small.b
    assert margin(X, ["a much longer class name", "yes"]).r > small.r
    big = margin(X, ["no", "yes"], Style.presentation())
    assert big.l > small.l and big.r > small.r and big.b > small.b
    assert margin(X, None, classify=False).r == 10
