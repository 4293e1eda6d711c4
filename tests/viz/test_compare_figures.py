"""Tables and figures of the Compare page, checked on their data against scikit-learn."""
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as sk

from engine.data import Dataset, load_sample
from engine.ensemble import (
    AdaBoostClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from engine.naive_bayes import MixedNB
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from viz import compare_figures as cf
from viz.style import Style


def _entries(models: dict, X) -> list[cf.Entry]:
    return [cf.Entry(name, model, 0.25 * k, tuple(X.columns))
            for k, (name, model) in enumerate(models.items())]


@pytest.fixture(scope="module")
def moons():
    data = Dataset(load_sample("two_moons"), "class", random_state=3)
    X, y = data.X_train, data.y_train
    models = {
        "Naive Bayes": MixedNB().fit(X, y),
        "Decision tree": DecisionTreeClassifier(random_state=0).fit(X, y),
        "Random forest": RandomForestClassifier(n_estimators=12, oob_score=True,
                                                random_state=0).fit(X, y),
        "AdaBoost": AdaBoostClassifier(n_estimators=15, random_state=0).fit(X, y),
    }
    return data, _entries(models, X)


@pytest.fixture(scope="module")
def friedman():
    data = Dataset(load_sample("friedman1"), "y", random_state=0)
    X, y = data.X_train, data.y_train
    models = {
        "Decision tree": DecisionTreeRegressor(random_state=0).fit(X, y),
        "Random forest": RandomForestRegressor(n_estimators=8, oob_score=True,
                                               random_state=0).fit(X, y),
        "Gradient boosting": GradientBoostingRegressor(n_estimators=20, random_state=0).fit(X, y),
    }
    return data, _entries(models, X)


def test_classification_table_matches_scikit_learn_scores(moons):
    data, entries = moons
    with np.errstate(all="raise"):
        table = cf.results_table(entries, data.X_test, data.y_test, "classification")
    assert table["model"].tolist() == [e.name for e in entries]
    for entry, row in zip(entries, table.itertuples(index=False), strict=True):
        predicted = entry.model.predict(data.X_test)
        assert row[1] == pytest.approx(sk.zero_one_loss(data.y_test, predicted), abs=1e-12)
    forest = entries[2].model
    row = table.set_index("model").loc["Random forest"]
    assert row["OOB error"] == pytest.approx(1 - forest.oob_score_)
    assert row["trees"] == 12
    assert row["leaves per tree"] == pytest.approx(np.mean([t.tree_.n_leaves
                                                            for t in forest.estimators_]))
    tree_row = table.set_index("model").loc["Decision tree"]
    assert tree_row["trees"] == 1 and tree_row["leaves per tree"] == entries[1].model.get_n_leaves()
    assert np.isnan(table.set_index("model").loc["Naive Bayes", "OOB error"])
    assert table.set_index("model").loc["AdaBoost", "leaves per tree"] == 2  # stumps
    assert table["training time (s)"].tolist() == [0.0, 0.25, 0.5, 0.75]


def test_regression_table_has_mse_r2_and_oob_r2(friedman):
    data, entries = friedman
    table = cf.results_table(entries, data.X_test, data.y_test, "regression").set_index("model")
    for entry in entries:
        predicted = entry.model.predict(data.X_test)
        assert table.loc[entry.name, "test MSE"] == pytest.approx(
            sk.mean_squared_error(data.y_test, predicted), rel=1e-12)
        assert table.loc[entry.name, "test R²"] == pytest.approx(
            sk.r2_score(data.y_test, predicted), rel=1e-12)
    assert table.loc["Random forest", "OOB R²"] == pytest.approx(entries[1].model.oob_score_)
    assert table.loc["Gradient boosting", "trees"] == 20
    assert "test error" not in table


def test_error_bars_show_each_models_error_in_its_own_colour(moons):
    data, entries = moons
    table = cf.results_table(entries, data.X_test, data.y_test, "classification")
    fig = cf.error_bars_figure(table, "classification")
    bar = fig.data[0]
    assert list(bar.x) == pytest.approx(100 * table["test error"].to_numpy())
    assert list(bar.text) == [f"{v:.1f}%" for v in 100 * table["test error"]]
    # one colour per model, the same one on every figure of the page
    assert list(bar.marker.color) == [Style().color(cf.MODEL_NAMES.index(n)) for n in bar.y]
    assert fig.layout.xaxis.title.text == "test error (%)"
    assert list(bar.y) == table["model"].tolist() and bar.orientation == "h"


def test_regression_bars_are_the_test_mse(friedman):
    data, entries = friedman
    table = cf.results_table(entries, data.X_test, data.y_test, "regression")
    fig = cf.error_bars_figure(table, "regression", Style.presentation())
    assert list(fig.data[0].x) == pytest.approx(table["test MSE"].to_numpy())
    assert fig.layout.font.size == Style.presentation().font_size


def test_learning_curve_draws_test_solid_training_dashed_one_legend_entry():
    curves = pd.DataFrame({
        "model": ["Bagging"] * 3 + ["AdaBoost"] * 3, "n_train": [10, 20, 40] * 2,
        "train_error": [0.0, 0.0, 0.0, 0.2, 0.15, 0.1],
        "test_error": [0.3, 0.2, 0.1, 0.35, 0.25, 0.2]})
    style = Style.presentation()
    fig = cf.learning_curve_figure(curves, "error", style)
    assert len(fig.data) == 4
    assert [t.line.dash for t in fig.data] == ["solid", "dash"] * 2
    assert [t.showlegend for t in fig.data] == [True, False, True, False]
    assert list(fig.data[2].y) == [0.35, 0.25, 0.2] and list(fig.data[3].y) == [0.2, 0.15, 0.1]
    assert fig.data[0].line.color == style.color(cf.MODEL_NAMES.index("Bagging"))
    assert all(t.line.width == style.line_width for t in fig.data)
    assert fig.layout.legend.font.size == style.font_size


def test_roc_table_auc_and_curve_end_points_match_scikit_learn(moons):
    data, entries = moons
    table = cf.roc_table(entries, data.X_test, data.y_test, pos_label="B")
    for entry in entries:
        rows = table[table["model"] == entry.name]
        proba = entry.model.predict_proba(data.X_test)[:, 1]  # classes_ = ["A", "B"]
        assert rows["auc"].iloc[0] == pytest.approx(
            sk.roc_auc_score(data.y_test == "B", proba), abs=1e-12)
        fpr, tpr, _ = sk.roc_curve(data.y_test, proba, pos_label="B", drop_intermediate=False)
        np.testing.assert_allclose(rows["fpr"], fpr)
        np.testing.assert_allclose(rows["tpr"], tpr)
    fig = cf.roc_figure(table, "B")
    assert len(fig.data) == len(entries) + 1  # plus the diagonal of guessing
    auc = table.groupby("model", sort=False)["auc"].first()
    assert [t.name for t in fig.data[1:]] == [f"{n} (AUC {a:.3f})" for n, a in auc.items()]


def test_roc_figure_in_presentation_style(moons):
    data, entries = moons
    style = Style.presentation()
    fig = cf.roc_figure(cf.roc_table(entries, data.X_test, data.y_test, "B"), "B", style)
    assert fig.layout.font.size == 24
    assert all(t.line.width == style.line_width for t in fig.data[1:])
    assert fig.layout.legend.orientation == "h"  # below the plot, never over the curves
