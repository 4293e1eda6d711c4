"""Gradient-boosting figures, tested on their data (no Streamlit).

Oracles: scikit-learn's staged predictions and log loss (squared and Huber losses, whose
trees equal scikit-learn's on data without tied splits), and the definitions of Friedman (2001)
(S_{t+1} = S_t + ν f_{t+1}, residual = −gradient for the squared error).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_moons
from sklearn.ensemble import GradientBoostingClassifier as SkClassifier
from sklearn.ensemble import GradientBoostingRegressor as SkRegressor
from sklearn.metrics import log_loss as sk_log_loss

from engine.data import Dataset, load_sample
from engine.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from engine.inspection import permutation_importance
from viz import gb_figures as gf
from viz.style import Style


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


@pytest.fixture(scope="module")
def friedman():
    return Dataset(load_sample("friedman1"), "y", random_state=0)


@pytest.fixture(scope="module")
def moons():
    return Dataset(load_sample("two_moons"), "class", random_state=0)


@pytest.fixture(scope="module")
def noisy_moons():
    """Moons with full-precision noise: no tied splits, so trees equal scikit-learn's."""
    X, y = make_moons(n_samples=300, noise=0.3, random_state=0)
    frame = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "class": np.array(["A", "B"])[y]})
    return Dataset(frame, "class", random_state=0)


def one_feature(dataset, loss="squared_error", n_estimators=20, **params):
    X = dataset.X_train[["x4"]]
    y = dataset.y_train.to_numpy()
    model = GradientBoostingRegressor(n_estimators=n_estimators, loss=loss, **params).fit(X, y)
    return model, X, y, gf.one_feature_stages(model, X, y, "y")


def segment_of(stages, x) -> np.ndarray:
    """Index of the segment of ``stages.edges`` each x falls in (x <= threshold goes left)."""
    cuts = stages.edges[1:-1]
    return np.searchsorted(cuts, x, side="left")


@pytest.mark.parametrize("loss", ["squared_error", "huber"])
def test_stages_equal_scikit_learn_staged_predictions(friedman, loss):
    _, X, y, stages = one_feature(friedman, loss)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkRegressor(n_estimators=20, loss=loss).fit(X.to_numpy(), y)
    expected = np.vstack([np.full(len(y), stages.S[0, 0]), *sk.staged_predict(X.to_numpy())])
    np.testing.assert_allclose(stages.S, expected, rtol=0, atol=1e-9)
    if loss == "squared_error":
        assert stages.S[0, 0] == pytest.approx(y.mean())  # S_0 = ȳ


def test_step_line_is_the_model_on_every_segment(friedman):
    _, _, _, stages = one_feature(friedman)
    at_points = stages.S_grid[:, segment_of(stages, stages.x)]
    np.testing.assert_allclose(at_points, stages.S, rtol=0, atol=1e-12)
    fig = gf.round_figure(stages, 5, Style())
    line = next(tr for tr in fig.data if tr.name.startswith("S<sub>5</sub>"))
    assert line.line.shape == "hv"
    np.testing.assert_allclose(line.y[:-1], stages.S_grid[5])
    np.testing.assert_allclose(line.x, stages.edges)


def test_residual_panel_is_minus_the_gradient_and_the_next_tree_fits_it(friedman):
    model, _, y, stages = one_feature(friedman)
    t = 4
    fig = gf.round_figure(stages, t, Style())
    residual = next(tr for tr in fig.data if tr.name == f"residual y − S<sub>{t}</sub>")
    np.testing.assert_allclose(residual.y, y - stages.S[t])
    # Squared error (halved): −∂L/∂S_t = y − S_t is what the engine recorded for round t+1.
    np.testing.assert_allclose(stages.pseudo[t], y - stages.S[t], atol=1e-12)
    tree = next(tr for tr in fig.data if tr.name.startswith(f"tree f<sub>{t + 1}</sub>"))
    step = np.asarray(tree.y[:-1])[segment_of(stages, stages.x)]
    # S_{t+1} = S_t + ν f_{t+1}(x), and each leaf holds the mean residual of its rows.
    np.testing.assert_allclose(stages.S[t] + 0.1 * step, stages.S[t + 1], atol=1e-12)
    for value in np.unique(np.round(step, 12)):
        rows = np.isclose(step, value, atol=1e-9)
        assert np.mean(y[rows] - stages.S[t][rows]) == pytest.approx(value, abs=1e-9)
    assert not any("pseudo" in tr.name for tr in fig.data)  # equal to the residuals here


def test_absolute_loss_shows_sign_pseudo_residuals_and_median_leaves(friedman):
    _, _, y, stages = one_feature(friedman, "absolute_error", n_estimators=5)
    t = 2
    fig = gf.round_figure(stages, t, Style())
    pseudo = next(tr for tr in fig.data if "pseudo" in tr.name)
    np.testing.assert_array_equal(pseudo.y, np.sign(y - stages.S[t]))
    step = stages.tree_step(t)[segment_of(stages, stages.x)]
    residual = y - stages.S[t]
    for value in np.unique(np.round(step, 9)):
        rows = np.isclose(step, value, atol=1e-9)
        ordered = np.sort(residual[rows])
        low_median = ordered[(len(ordered) - 1) // 2]  # Friedman's LAD step: a leaf median
        assert value == pytest.approx(low_median, abs=1e-9) or (
            ordered[len(ordered) // 2 - 1] <= value <= ordered[len(ordered) // 2])


def test_last_round_has_no_next_tree(friedman):
    _, _, _, stages = one_feature(friedman)
    names = [tr.name for tr in gf.round_figure(stages, stages.n_rounds, Style()).data]
    assert not any(name.startswith("tree") for name in names)
    assert len(names) == 3
    assert gf.round_loss(stages, stages.n_rounds)[1] < gf.round_loss(stages, 0)[1]


def test_loss_curves_match_scikit_learn_and_the_engine_deviance(noisy_moons):
    moons = noisy_moons
    model = GradientBoostingClassifier(n_estimators=30).fit(moons.X_train, moons.y_train)
    curves = gf.loss_curves(model, moons.X_train, moons.y_train, moons.X_test, moons.y_test)
    assert list(curves["round"]) == list(range(1, 31))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkClassifier(n_estimators=30).fit(moons.X_train.to_numpy(), moons.y_train)
    expected = [sk_log_loss(moons.y_test, p) for p in sk.staged_predict_proba(moons.X_test.to_numpy())]
    np.testing.assert_allclose(curves["test"], expected, rtol=1e-9)
    # The binomial deviance of train_score_ is twice the mean negative log-likelihood.
    np.testing.assert_allclose(2 * curves["train"], model.train_score_, rtol=1e-9)


def test_regression_loss_curve_is_the_staged_mean_squared_error(friedman):
    model = GradientBoostingRegressor(n_estimators=15).fit(friedman.X_train, friedman.y_train)
    curves = gf.loss_curves(model, friedman.X_train, friedman.y_train, friedman.X_test,
                            friedman.y_test)
    np.testing.assert_allclose(curves["train"], model.train_score_, rtol=1e-9)
    last = np.mean((model.predict(friedman.X_test) - friedman.y_test.to_numpy()) ** 2)
    assert curves["test"].iloc[-1] == pytest.approx(last)


def test_shrinkage_figure_has_a_training_and_a_test_curve_per_nu():
    rounds = np.arange(1, 41)
    curves = {nu: pd.DataFrame({"round": rounds, "train": 1 / (nu * rounds),
                                "test": 1 / (nu * rounds) + nu * rounds / 40})
              for nu in (1.0, 0.1, 0.01)}
    style = Style.presentation()
    fig = gf.shrinkage_figure(curves, "mean squared error", style)
    assert len(fig.data) == 6
    assert all(len(trace.x) == 40 for trace in fig.data)
    assert [trace.line.dash for trace in fig.data] == ["dash", "solid"] * 3
    assert fig.data[0].line.color == fig.data[1].line.color == style.color(0)
    assert fig.layout.font.size == 24 and fig.data[0].line.width == style.line_width
    table = gf.shrinkage_table(curves)
    best = [int(np.argmin(c["test"])) + 1 for c in curves.values()]
    assert table["at round"].tolist() == best
    assert table["final test loss"].tolist() == [c["test"].iloc[-1] for c in curves.values()]


def test_permutation_bars_equal_the_importances_with_their_spread(moons):
    model = GradientBoostingClassifier(n_estimators=10).fit(moons.X_train, moons.y_train)
    table = permutation_importance(model, moons.X_test, moons.y_test, random_state=0)
    fig = gf.permutation_figure(table, Style())
    bars = fig.data[0]
    order = np.argsort(table["importance_mean"].to_numpy())
    assert list(bars.y) == table["feature"].iloc[order].tolist()  # largest on top
    np.testing.assert_allclose(bars.x, table["importance_mean"].iloc[order])
    np.testing.assert_allclose(bars.error_x.array, table["importance_std"].iloc[order])


def test_staged_errors_equal_scikit_learn(noisy_moons):
    moons = noisy_moons
    model = GradientBoostingClassifier(n_estimators=25, max_depth=2).fit(moons.X_train, moons.y_train)
    errors = gf.staged_errors(model, moons.X_train, moons.y_train, moons.X_test, moons.y_test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkClassifier(n_estimators=25, max_depth=2).fit(moons.X_train.to_numpy(), moons.y_train)
    expected = [np.mean(p != moons.y_test.to_numpy()) for p in sk.staged_predict(moons.X_test.to_numpy())]
    np.testing.assert_allclose(errors["test"], expected)
    fig = gf.staged_error_figure(errors, Style())
    assert [len(trace.y) for trace in fig.data] == [25, 25]


def test_staged_grids_start_at_the_prior_and_end_at_the_model(moons):
    X2 = moons.X_train[["x1", "x2"]]
    model = GradientBoostingClassifier(n_estimators=12).fit(X2, moons.y_train)
    grids = gf.staged_grids(model, X2, resolution=30)
    assert grids["z"].shape == (13, 30, 30) and grids["z"].dtype == np.int8
    majority = int(np.argmax(np.unique(moons.y_train, return_counts=True)[1]))
    assert (grids["z"][0] == majority).all()  # S_0: the log prior odds, one class everywhere
    gx, gy = np.meshgrid(grids["x"], grids["y"])
    final = model.predict(pd.DataFrame({"x1": gx.ravel(), "x2": gy.ravel()}))
    codes = pd.Index(model.classes_).get_indexer(final).reshape(gx.shape)
    np.testing.assert_array_equal(grids["z"][-1], codes)
    fig = gf.boundary_round_figure(grids, 7, X2, moons.y_train, moons.X_test[["x1", "x2"]],
                                   moons.y_test, model.classes_, Style.presentation())
    np.testing.assert_array_equal(fig.data[0].z, grids["z"][7] + 0.5)
    assert fig.layout.title.text == "Decision regions after round 7"
    assert fig.layout.font.size == 24


def test_prediction_figure_plots_every_test_row_against_the_diagonal(friedman):
    model = GradientBoostingRegressor(n_estimators=10).fit(friedman.X_train, friedman.y_train)
    predicted = model.predict(friedman.X_test)
    fig = gf.prediction_figure(friedman.y_test, predicted, Style())
    np.testing.assert_allclose(fig.data[0].x, friedman.y_test)
    np.testing.assert_allclose(fig.data[0].y, predicted)
    assert fig.data[1].x == fig.data[1].y  # the diagonal


def test_a_class_is_pictured_with_the_log_loss_the_model_minimises():
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 10, 200)
    y = (rng.random(200) < 1 / (1 + np.exp(-(x - 5)))).astype(int)
    X = pd.DataFrame({"x": x})
    model = GradientBoostingClassifier(n_estimators=8, learning_rate=0.3, max_depth=1).fit(X, y)
    stages = gf.one_feature_stages(model, X, y, "1[y = c]")
    assert stages.probability and not stages.squared
    for t in range(stages.n_rounds):
        p = 1 / (1 + np.exp(-stages.S[t]))
        # the trees were fitted to the negative gradient of the log loss, y − p_t
        np.testing.assert_allclose(stages.pseudo[t], y - p, atol=1e-12)
        np.testing.assert_allclose(stages.fitted(t), p)
    np.testing.assert_allclose(stages.fitted(stages.n_rounds), model.predict_proba(X)[:, 1])
    name, loss = gf.round_loss(stages, stages.n_rounds)
    p = model.predict_proba(X)[:, 1]
    assert name == "log loss"
    assert loss == pytest.approx(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert gf.round_loss(stages, 0)[1] > loss
    fig = gf.round_figure(stages, 3)
    assert "σ(S" in fig.data[1].name and "log-odds" in fig.data[-1].name


def test_drawn_rows_keep_the_losses_and_range_of_every_row(friedman):
    model, X, y, every = one_feature(friedman)
    rows = np.arange(0, len(y), 7)
    some = gf.one_feature_stages(model, X, y, "y", rows=rows)
    assert some.n_rows == every.n_rows == len(y) and len(some.x) == len(rows)
    np.testing.assert_array_equal(some.S, every.S[:, rows])
    np.testing.assert_array_equal(some.pseudo, every.pseudo[:, rows])
    np.testing.assert_array_equal(some.losses, every.losses)  # over every row, not the drawn
    np.testing.assert_array_equal(some.edges, every.edges)
    for t in (0, 5, every.n_rounds):
        assert every.losses[t] == pytest.approx(np.mean((y - every.S[t]) ** 2), rel=1e-12)
