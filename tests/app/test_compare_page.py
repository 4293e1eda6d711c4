"""The Compare page under AppTest: every sample, every tab, links, and spam against ESL.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for why);
small B and T keep the runs fast.
"""
import json

import numpy as np
import pandas as pd
import plotly.io as pio
import pytest

from tests.app.test_pages import SAMPLES, assert_clean, run_app, values
from ui import compare_controls as cc

PAGE = "app_pages/compare.py"
SMALL = {"cmp_b": "4", "cmp_t_ada": "8", "cmp_t_gb": "8"}


def run_page(**query):
    return run_app(PAGE, **{**SMALL, **query})


def table_of(at) -> pd.DataFrame:
    return at.dataframe[0].value


def percent(table: pd.DataFrame, column: str = "test error") -> dict[str, float]:
    """Model → the per cent shown in ``column`` (the table shows text such as "9.6%")."""
    return {m: float(v.rstrip("%")) for m, v in zip(table["model"], table[column], strict=True)}


def figure_of(at, index: int = 0):
    """The chart's figure, with plotly's base64 typed arrays decoded back to numbers."""
    spec = json.loads(at.get("plotly_chart")[index].proto.spec)
    for trace in spec["data"]:
        for axis in ("x", "y"):
            if isinstance(trace.get(axis), dict):
                trace[axis] = values(trace[axis]).tolist()
    return pio.from_json(json.dumps(spec))


LARGE = {"mushroom", "spambase", "esl_10_2"}  # thousands of rows: seconds per model


@pytest.mark.parametrize("sample", [pytest.param(s, marks=pytest.mark.slow) if s in LARGE else s
                                    for s in SAMPLES])
def test_every_sample_gets_a_table_and_a_bar_chart(sample):
    at = run_page(data=sample)
    assert_clean(at)
    assert at.title[0].value == "Compare"
    assert not at.error, [e.value for e in at.error]
    chosen = at.multiselect(key="cmp_models").value
    table = table_of(at)
    assert table["model"].tolist() == [cc.MODELS[i] for i in chosen]
    bars = figure_of(at).data[0]
    assert list(bars.y) == table["model"].tolist()
    if sample == "reviews":  # text only: Naive Bayes is the one model that reads words
        assert chosen == ["nb"]
    elif table.columns[1] == "test error":
        assert len(chosen) == 7
        assert np.allclose(bars.x, list(percent(table).values()), atol=0.05)  # shown to 0.1
    else:
        assert chosen == list(cc.REGRESSION)
        assert np.allclose(bars.x, table["test MSE"].astype(float), rtol=1e-3)  # 4 digits shown


def test_link_chooses_models_by_name_and_drops_unknown_ones():
    at = run_page(data="iris", cmp_models=["Random forest", "Bagging", "no such model"])
    assert_clean(at)
    assert set(at.multiselect(key="cmp_models").value) == {"bagging", "forest"}
    table = table_of(at)
    assert table["model"].tolist() == ["Bagging", "Random forest"]
    assert table["trees"].tolist() == ["4", "4"]  # B from the link


def test_regression_target_offers_only_regression_models():
    at = run_page(data="friedman1", cmp_models=["Naive Bayes", "AdaBoost", "Decision tree"])
    assert_clean(at)
    assert at.multiselect(key="cmp_models").value == ["tree"]
    table = table_of(at)
    assert {"test MSE", "test R²"} <= set(table.columns)
    assert float(table["test R²"].iloc[0]) < 1


def test_learning_curves_end_at_the_fitted_models_test_error():
    at = run_page(data="xor", cmp_models=["Decision tree", "AdaBoost"])
    errors = percent(table_of(at))
    at = run_page(data="xor", cmp_models=["Decision tree", "AdaBoost"], cmp_view="Learning curves")
    assert_clean(at)
    traces = figure_of(at).data
    assert len(traces) == 4  # test and training line per model
    n_train = cc.curve_sizes(int(traces[0].x[-1]))
    for trace in traces:
        assert list(trace.x) == n_train and len(n_train) == 6
    for name in errors:  # the last point is the fitted model of the table
        test_line = next(t for t in traces if t.name == name and t.showlegend)
        assert test_line.y[-1] == pytest.approx(errors[name] / 100, abs=0.0005)
    tree_train = next(t for t in traces if t.name == "Decision tree" and not t.showlegend)
    assert max(tree_train.y) == 0  # a full-depth tree fits its rows (xor: no duplicates)


def test_roc_curves_for_two_classes_and_a_message_otherwise():
    at = run_page(data="two_moons", cmp_view="ROC curves")
    assert_clean(at)
    names = [t.name for t in figure_of(at).data]
    assert len(names) == 8 and all("AUC" in n for n in names)
    at = run_page(data="iris", cmp_view="ROC curves")
    assert_clean(at)
    assert "3 classes" in at.info[0].value and not at.get("plotly_chart")
    at = run_page(data="friedman1", cmp_view="ROC curves")
    assert "regression" in at.info[0].value


def test_no_model_chosen_says_what_to_do():
    at = run_page(data="iris", cmp_models="")
    assert_clean(at)
    assert "at least one model" in at.info[0].value


def test_subtitle_quotes_spam_results_only_on_spambase():
    iris = run_page(data="iris", cmp_models="")
    assert iris.caption[0].value == "Every model on the same training and test rows of this data."
    assert not any("9.3%" in c.value for c in iris.caption)
    spam = run_page(data="spambase", cmp_models="")
    assert "Hastie et al. (2009)" in spam.caption[0].value and "9.3%" in spam.caption[0].value


def test_training_order_keeps_class_shares_in_every_prefix():
    y = np.repeat(["spam", "ham"], [300, 700])
    order = cc.training_order(np.random.default_rng(1).permutation(y), seed=4)
    shuffled = np.random.default_rng(1).permutation(y)[order]
    assert sorted(order) == list(range(1000))
    for n in (20, 60, 100, 400, 1000):
        # a plain shuffle misses 0.3 n by about √(0.21 n) rows: 2–9 here
        assert abs(np.count_nonzero(shuffled[:n] == "spam") - 0.3 * n) <= 1.5


def test_curve_sizes_are_distinct_and_never_tiny():
    assert cc.curve_sizes(3450) == [345, 690, 1380, 2070, 2760, 3450]
    assert cc.curve_sizes(10) == [6, 8, 10]


@pytest.mark.slow
def test_spambase_table_lands_near_esl():
    at = run_app(PAGE, data="spambase", cmp_models=["Decision tree", "Bagging", "Random forest"])
    assert_clean(at)
    error = percent(table_of(at))
    # Hastie et al. (2009), ESL's split: tree 9.3%, bagging 5.4%, forest 4.9%. On one random split
    # of 1151 test rows the standard error of a 5% rate is 0.6 points: bands of ±2 points.
    assert 7.3 <= error["Decision tree"] <= 11.3  # per cent, as the table shows it
    assert 3.4 <= error["Bagging"] <= 7.4
    assert 2.9 <= error["Random forest"] <= 6.9
    assert error["Random forest"] <= error["Bagging"] < error["Decision tree"]
    assert any("Hastie et al. 2009: 9.3%" in m.value for m in at.markdown)


def test_each_model_is_shown_as_soon_as_it_is_fitted_and_scored_once(monkeypatch):
    """fit_all hands the entries so far to the view after each model but the last; the
    table then scores each model once, however often it is drawn."""
    from engine.data import Dataset, load_sample
    from viz import compare_figures as cf

    dataset = Dataset(load_sample("iris"), "species", random_state=971)  # cached nowhere else
    chosen, settings = ["nb", "tree", "adaboost"], cc.Settings(n_trees=5, ada_rounds=7,
                                                              gb_rounds=5)
    seen, scored = [], []
    original = cf.result_row
    monkeypatch.setattr(cf, "result_row", lambda e, *a: scored.append(e.name) or original(e, *a))
    entries, failures = cc.fit_all(dataset, chosen, settings,
                                   lambda so_far: seen.append(cc.results(dataset, so_far, settings)))
    assert not failures
    assert [list(t["model"]) for t in seen] == [["Naive Bayes"], ["Naive Bayes", "Decision tree"]]
    final = cc.results(dataset, entries, settings)
    assert list(final["model"]) == ["Naive Bayes", "Decision tree", "AdaBoost"]
    assert scored == ["Naive Bayes", "Decision tree", "AdaBoost"]  # each once


def test_learning_curves_are_handed_over_model_by_model():
    from engine.data import Dataset, load_sample

    dataset = Dataset(load_sample("iris"), "species", random_state=973)
    chosen, settings = ["nb", "tree", "adaboost"], cc.Settings(n_trees=5, ada_rounds=7,
                                                              gb_rounds=5)
    entries, _ = cc.fit_all(dataset, chosen, settings)
    seen = []
    curves = cc.learning_curves(dataset, chosen, entries, settings, seen.append)
    assert [sorted(set(c["model"])) for c in seen] == [["Naive Bayes"],
                                                       ["Decision tree", "Naive Bayes"]]
    pd.testing.assert_frame_equal(seen[-1], curves[curves["model"] != "AdaBoost"])


def test_a_last_curve_left_out_draws_the_curves_so_far_once(monkeypatch):
    """The curves handed over after the second model are all there will be when the
    third is left out (its refits over the work limit): drawn again, they must not
    collide with the chart drawn before (Streamlit's element ids)."""
    from ui import limits

    original = limits.check_work

    def curves_of_boosting_refused(rows, models, kind):
        if kind == "boosting" and rows > 200:  # the curve's refits, not the fit (112 rows)
            return "too much"
        return original(rows, models, kind)
    monkeypatch.setattr(limits, "check_work", curves_of_boosting_refused)
    at = run_page(data="iris", cmp_models=["Naive Bayes", "Decision tree", "Gradient boosting"],
                  cmp_view="Learning curves", seed="974")
    assert_clean(at)
    assert "Not drawn: Gradient boosting (up to " in " ".join(c.value for c in at.caption)
    assert {t.name for t in figure_of(at).data} == {"Naive Bayes", "Decision tree"}


def _big_dataset(n_rows: int):
    from engine.data import Dataset

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=n_rows), "b": rng.normal(size=n_rows)})
    frame["y"] = np.where(frame["a"] + rng.normal(size=n_rows) > 0, "yes", "no")
    return Dataset(frame, "y", random_state=0)


@pytest.mark.parametrize("model_id", ["forest", "bagging"])
def test_a_forest_curve_counts_the_rows_its_refits_draw(model_id):
    """Above limits.TREE_ROWS a refit's trees draw that many rows at every size, so a
    curve of 5 refits costs about 5 fits, not the sizes' share of one."""
    from ui import limits

    dataset = _big_dataset(200_000)
    n_train = len(dataset.y_train)
    sizes = cc.curve_sizes(n_train)[:-1]
    assert min(sizes) > limits.TREE_ROWS  # every refit draws TREE_ROWS rows a tree
    for n in sizes:
        refit = cc.estimator(model_id, dataset.task, cc.Settings(), 0, (), n)
        assert refit.get_params()["max_samples"] == limits.TREE_ROWS
    drawn = len(sizes) * limits.TREE_ROWS  # rows a tree, over the curve's refits
    assert cc.curve_work(dataset, model_id, cc.Settings()) == (drawn, 100, "forest")
    fits = limits.MAX_WORK["forest"] // drawn  # trees within the limit
    assert limits.most_models(drawn, "forest") == fits
    assert cc.curve_too_much_work(dataset, model_id, cc.Settings(n_trees=fits)) is None
    refused = cc.curve_too_much_work(dataset, model_id, cc.Settings(n_trees=fits + 1))
    assert refused and f"{drawn:,} training rows" in refused


def test_a_small_tables_curve_counts_each_sizes_rows():
    """At most limits.TREE_ROWS training rows, a refit's trees draw as many rows as its
    size: the curve costs the sizes' rows."""
    from ui import limits

    dataset = _big_dataset(13_000)
    assert len(dataset.y_train) <= limits.TREE_ROWS
    drawn = sum(cc.curve_sizes(len(dataset.y_train))[:-1])
    fits = limits.MAX_WORK["forest"] // drawn
    assert fits < limits.MAX_TREES  # the work limit, not the number of trees, decides
    assert cc.curve_too_much_work(dataset, "forest", cc.Settings(n_trees=fits)) is None
    refused = cc.curve_too_much_work(dataset, "forest", cc.Settings(n_trees=fits + 1))
    assert refused and f"{drawn:,} training rows" in refused
    assert cc.curve_too_much_work(dataset, "nb", cc.Settings()) is None  # no work limit


def test_the_pruned_tree_is_its_whole_tree_pruned_not_grown_again(monkeypatch):
    """The cross-validated tree grows the whole tree once (the path's and, pruned, the
    model) and one per fold: the same model as a refit with the chosen α."""
    from engine.data import Dataset, load_sample
    from engine.tree import DecisionTreeClassifier
    from engine.tree._classes import _BaseDecisionTree
    from engine.tree._prune import choose_ccp_alpha_cv

    dataset = Dataset(load_sample("spambase"), "spam", random_state=0)
    X, y = dataset.X_train, dataset.y_train
    grown, grow = [], _BaseDecisionTree._grow

    def counted(self, *args):
        grown.append(len(args[0]))
        return grow(self, *args)
    monkeypatch.setattr(_BaseDecisionTree, "_grow", counted)
    model, _, note = cc.train(cc.estimator("pruned", dataset.task, cc.Settings(), 0,
                                           n_rows=len(y)), "pruned", X, y)
    assert len(grown) == 1 + 5 and grown[0] == len(y)  # the whole tree, then one per fold
    monkeypatch.setattr(_BaseDecisionTree, "_grow", grow)
    alpha, _ = choose_ccp_alpha_cv(DecisionTreeClassifier(random_state=0), X, y, cv=5,
                                   random_state=0)
    refit = DecisionTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
    assert model.ccp_alpha == alpha > 0 and f"α = {alpha:.3g}" in note
    np.testing.assert_array_equal(model.tree_.children_left, refit.tree_.children_left)
    np.testing.assert_array_equal(model.tree_.threshold, refit.tree_.threshold)
    np.testing.assert_array_equal(model.predict(dataset.X_test), refit.predict(dataset.X_test))


def test_the_pruned_tree_prunes_the_decision_trees_own_fit(monkeypatch):
    """The table's pruned tree takes the decision tree's fit (the same estimator on the
    same rows) as its whole tree: five more trees, one per fold, not six; its time
    counts the whole tree's, and it is the tree its own whole fit gives."""
    from engine.data import Dataset, load_sample
    from engine.tree._classes import _BaseDecisionTree

    dataset = Dataset(load_sample("spambase"), "spam", random_state=0)
    cc._slot.clear()
    grown, grow = [], _BaseDecisionTree._grow

    def counted(self, *args):
        grown.append(len(args[0]))
        return grow(self, *args)
    monkeypatch.setattr(_BaseDecisionTree, "_grow", counted)
    tree = cc._cached(dataset, "fit", "tree", (), lambda: cc._fit(dataset, "tree", (), None))
    assert grown == [len(dataset.y_train)]
    pruned = cc._cached(dataset, "fit", "pruned", (),
                        lambda: cc._fit(dataset, "pruned", (), None))
    assert len(grown) == 1 + 5 and len(dataset.y_train) not in grown[1:]  # the folds only
    assert pruned.seconds > tree.seconds
    alone, _, _ = cc.train(cc.estimator("pruned", dataset.task, cc.Settings(), 0,
                                        n_rows=len(dataset.y_train)),
                           "pruned", dataset.X_train, dataset.y_train)
    assert pruned.model.ccp_alpha == alone.ccp_alpha > 0
    np.testing.assert_array_equal(pruned.model.tree_.children_left, alone.tree_.children_left)
    np.testing.assert_array_equal(pruned.model.tree_.threshold, alone.tree_.threshold)
    cc._slot.clear()


def test_the_pruned_trees_curve_prunes_the_decision_trees_refits(monkeypatch):
    """At every size of the learning curve the pruned tree's whole tree is the decision
    tree's refit, handed over: the same curve, and only the folds grown for it."""
    from engine.data import Dataset, load_sample
    from engine.tree._classes import _BaseDecisionTree

    dataset = Dataset(load_sample("spambase"), "spam", random_state=0)
    cc._slot.clear()
    tree = cc._cached(dataset, "fit", "tree", (), lambda: cc._fit(dataset, "tree", (), None))
    pruned = cc._cached(dataset, "fit", "pruned", (),
                        lambda: cc._fit(dataset, "pruned", (), None))
    alone = cc._curve(dataset, "pruned", (), pruned)
    grown, grow = [], _BaseDecisionTree._grow

    def counted(self, *args):
        grown.append(len(args[0]))
        return grow(self, *args)
    monkeypatch.setattr(_BaseDecisionTree, "_grow", counted)
    trees = {}
    cc._curve(dataset, "tree", (), tree, trees=trees)
    sizes = cc.curve_sizes(len(dataset.y_train))[:-1]  # the last is the fitted model
    assert sorted(trees) == sizes and grown == sizes
    shared = cc._curve(dataset, "pruned", (), pruned, trees=trees)
    assert len(grown) == len(sizes) * (1 + 5) and not set(grown[len(sizes):]) & set(sizes)
    pd.testing.assert_frame_equal(shared, alone)
    cc._slot.clear()


def test_leaves_per_tree_read_as_counts_for_one_tree_and_means_for_many():
    at = run_page(data="iris", cmp_models=["tree", "forest"])
    assert_clean(at)
    leaves = dict(zip(table_of(at)["model"], table_of(at)["leaves per tree"], strict=True))
    assert leaves["Decision tree"].isdigit()  # one tree: a count, "9" and not "9.0"
    assert leaves["Random forest"].replace(".", "", 1).isdigit()


def test_the_pruned_trees_note_is_read_whole_under_the_table():
    """The pruned tree's α is a caption under the table, not a grid column: in a column
    of its own the grid cut it to "α = 0.000497 (5-fold C" at 1600 px."""
    at = run_page(data="iris", cmp_models=["Decision tree", "Pruned tree (CV)"])
    assert_clean(at)
    table = table_of(at)
    assert "note" not in table.columns
    notes = [c.value for c in at.caption if c.value.startswith("Pruned tree (CV): α = ")]
    assert len(notes) == 1 and notes[0].endswith("(5-fold CV)"), [c.value for c in at.caption]
