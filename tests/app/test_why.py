"""The "Why this prediction?" tab of the tree-based pages under AppTest, and its pieces.

Each page opens the tab from a link (its state in the URL); the charts are checked by
what they add up to, against the engine's own outputs.
"""
import json

import numpy as np
import pandas as pd
import pytest

from engine.ensemble import RandomForestClassifier
from engine.inspection import contributions, node_test_counts
from engine.tree import DecisionTreeClassifier, plurality
from tests.app.test_pages import assert_clean, run_app, values
from ui import why

WHY = "Why this prediction?"
PAGES = {  # page, its prefix, a small model through its URL keys
    "dt": ("app_pages/decision_tree.py", {"dt_max_depth": "4"}),
    "rf": ("app_pages/random_forest.py", {"rf_trees": "10"}),
    "ab": ("app_pages/adaboost.py", {"ab_rounds": "12"}),
    "gb": ("app_pages/gradient_boosting.py", {"gb_rounds": "12"}),
}


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _waterfall(at) -> dict:
    return next(t for f in _figures(at) for t in f["data"] if t.get("type") == "waterfall")


@pytest.mark.parametrize("prefix", list(PAGES))
@pytest.mark.parametrize("sample", ["iris", "friedman1", "mushroom"])
def test_the_tab_explains_a_row_on_every_tree_page(prefix, sample):
    page, small = PAGES[prefix]
    if prefix == "ab" and sample == "friedman1":
        pytest.skip("AdaBoost predicts classes; friedman1's target is a number")
    at = run_app(page, data=sample, **{f"{prefix}_view": WHY, f"{prefix}_why_row": "3", **small})
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert at.number_input(key=f"{prefix}_why_row").value == 3
    assert any(m.value.startswith("Predicted:") for m in at.markdown)
    assert _waterfall(at)["measure"][-1] == "total"
    if prefix in ("ab", "gb"):  # the rounds chart
        assert any(len(f["data"]) >= 2 and f["layout"].get("xaxis2") for f in _figures(at))
    if prefix == "dt":
        labels = [b.label for b in at.get("download_button")]
        assert "Download the tree as Python" in labels and "Download the tree as SQL" in labels


@pytest.mark.parametrize("prefix", ["dt", "rf"])
def test_the_waterfall_ends_at_the_probability_shown(prefix):
    page, small = PAGES[prefix]
    at = run_app(page, data="iris", **{f"{prefix}_view": WHY, f"{prefix}_why_row": "7", **small})
    assert_clean(at)
    trace = _waterfall(at)
    running = sum(x for x, m in zip(values(trace["x"]), trace["measure"], strict=True)
                  if m != "total")
    shown = next(d.value for d in at.dataframe if list(d.value.index) == ["probability"])
    assert np.isclose(running, shown.to_numpy().max())  # the predicted class's P


def test_changed_columns_compares_values_and_gaps():
    start = pd.DataFrame({"a": [1.0], "b": ["x"], "c": [np.nan]})
    assert why.changed_columns(start, start.copy()) == []
    edited = pd.DataFrame({"a": [2.0], "b": ["x"], "c": [np.nan]})
    assert why.changed_columns(start, edited) == ["a"]
    edited = pd.DataFrame({"a": [1.0], "b": ["y"], "c": [0.0]})
    assert why.changed_columns(start, edited) == ["b", "c"]


@pytest.mark.parametrize("make", [lambda: DecisionTreeClassifier(max_depth=3),
                                  lambda: RandomForestClassifier(n_estimators=5, random_state=0)])
def test_the_explained_class_is_the_predicted_one_and_adds_up(make):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["p", "q", "r"])
    y = np.where(X["p"] + X["q"] > 0.5, "hi", np.where(X["r"] > 0, "mid", "lo"))
    model = make().fit(X, y)
    row = X.iloc[[4]]
    k = int(np.searchsorted(model.classes_, model.predict(row)[0]))
    start, parts, label = why._explained(model, row, "proba", k)
    assert label == f"P({model.classes_[k]})"
    assert np.isclose(start + parts.sum(), model.predict_proba(row)[0, k])
    bias, contrib = contributions(model, row)
    assert np.isclose(start, bias[0, k])


def test_node_test_counts_add_up_from_the_leaves():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["u", "v", "w"], 200)})
    y = np.where((X["a"] > 0) ^ (X["b"] == "v"), "yes", "no")
    model = DecisionTreeClassifier(max_depth=3, categorical_split="multiway").fit(X, y)
    X_new = X.sample(60, random_state=1)
    y_new = np.where(rng.random(60) < 0.1, "unseen", y[X_new.index])
    reached, right = node_test_counts(model, X_new, y_new)
    path = model.decision_path(X_new).astype(bool)
    own = model.classes_[plurality(model.tree_.value)]  # ties: the last class, as a leaf predicts
    np.testing.assert_array_equal(reached, path.sum(axis=0))
    np.testing.assert_array_equal(right, (path & (y_new[:, None] == own[None, :])).sum(axis=0))


def test_the_tree_page_counts_the_test_rows_in_its_nodes():
    at = run_app(PAGES["dt"][0], data="iris", dt_max_depth="2", dt_test_counts="true")
    assert_clean(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "test: 38 reached, " in dot  # the root: every test row


def test_a_table_fitted_whole_counts_all_its_rows_in_the_nodes():
    at = run_app(PAGES["dt"][0], data="playtennis", dt_test_counts="true")
    assert_clean(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "all rows: 14 reached, 9 of its class" in dot and "test:" not in dot
    assert any(t.label == "Count all rows (every one seen in fitting) in each node"
               for t in at.toggle)


def test_the_forest_offers_the_tree_on_screen_as_code():
    at = run_app(PAGES["rf"][0], data="iris", rf_trees="10", rf_view="Inside the forest",
                 rf_tree="3")
    assert_clean(at)
    labels = [b.label for b in at.get("download_button")]
    assert "Download tree 3 as Python" in labels and "Download tree 3 as SQL" in labels


def test_two_features_give_a_map_of_the_mean_prediction():
    at = run_app(PAGES["gb"][0], data="iris", gb_view=WHY, gb_pdp="petal_length",
                 gb_pdp2="petal_width", gb_rounds="12")
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    heatmaps = [t for f in _figures(at) for t in f["data"] if t.get("type") == "heatmap"]
    assert len(heatmaps) == 1
    assert at.toggle(key="gb_pdp_centred").disabled


def test_the_tree_page_draws_a_class_histogram_in_each_split():
    at = run_app(PAGES["dt"][0], data="iris", dt_max_depth="2", dt_node_hist="true")
    assert_clean(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    splits = dot.count("≤")  # every numeric split of iris draws its histogram
    assert splits >= 2 and dot.count('WIDTH="2" HEIGHT="28" BGCOLOR="#1f2430"') == splits
    assert any("Histograms: the training rows" in c.value for c in at.caption)


def test_the_tree_pages_why_tab_draws_the_rows_path():
    at = run_app(PAGES["dt"][0], data="spambase", dt_max_depth="6", dt_view=WHY,
                 dt_why_row="4")
    assert_clean(at)
    dots = [c.proto.spec for c in at.get("graphviz_chart")]
    assert len(dots) == 1 and "more nodes" in dots[0] and 'color="#D4145A"' in dots[0]
    assert any("The row's path is drawn thick" in c.value for c in at.caption)
