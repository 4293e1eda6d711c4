"""The Decision Tree page under AppTest: every sample, every criterion, every view.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for why).
"""
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.data import Dataset, list_samples, load_sample
from engine.tree import DecisionTreeClassifier
from viz.diagram_export import dot_binary
from viz.tree_prune import chi2_removed

ROOT = Path(__file__).resolve().parents[2]
PAGE = "app_pages/decision_tree.py"
SAMPLES = [entry["name"] for entry in list_samples()]
VIEWS = ["Tree", "Grow step by step", "Show your working", "Impurity", "Results", "Complexity",
         "Decision boundary"]


def run_page(**query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(PAGE)  # a link to the page, opened
    at.run()
    return at


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def dot_of(at: AppTest) -> str:
    return at.get("graphviz_chart")[0].proto.spec


def n_nodes(dot: str) -> int:
    return len(re.findall(r"^n\d+ \[label=", dot, flags=re.M))


@pytest.mark.parametrize("sample", SAMPLES)
def test_page_runs_on_every_sample_with_default_parameters(sample):
    at = run_page(data=sample)
    assert_clean(at)
    assert at.title[0].value == "Decision Tree"
    if sample == "reviews":  # text only: the page says what to do instead of drawing
        assert "only text columns" in at.error[0].value
        return
    assert not at.error, [e.value for e in at.error]
    assert "n0 [label=" in dot_of(at)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification", "gain_ratio"])
def test_every_classification_criterion_and_its_working(criterion):
    at = run_page(data="playtennis", dt_criterion=criterion, dt_cat_split="multiway")
    assert_clean(at)
    shown = "entropy" if criterion == "gain_ratio" else criterion
    assert f"{shown} = " in dot_of(at)
    at = run_page(data="playtennis", dt_criterion=criterion, dt_view="Show your working")
    assert_clean(at)
    assert len(at.dataframe) == 1 and len(at.get("plotly_chart")) == 1


@pytest.mark.parametrize("view", VIEWS)
def test_regression_target_runs_every_view(view):
    at = run_page(data="friedman1", dt_view=view, dt_max_depth="4")
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_on_iris(view):
    at = run_page(data="iris", dt_view=view)
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert at.get("graphviz_chart") or at.get("plotly_chart")


def test_aima_restaurant_tree_with_a_followed_row():
    at = run_page(data="restaurant", dt_criterion="entropy", dt_cat_split="multiway",
                  dt_all_rows="true", dt_row="1")
    assert_clean(at)
    dot = dot_of(at)
    assert "<B>Patrons ?</B>" in dot and "<B>Hungry ?</B>" in dot and "<B>Type ?</B>" in dot
    assert "#D4145A" in dot  # the followed row's path
    steps = next(m.value for m in at.markdown if "Patrons is" in m.value)
    assert "Patrons is" in steps and "Leaf reached: predict" in steps
    assert any("12 nodes · 8 leaves · depth 4" in c.value for c in at.caption)


def test_pruning_parameters_shrink_the_tree():
    full = run_page(data="iris")
    pruned = run_page(data="iris", dt_chi2="0.001", dt_ccp="0.02", dt_max_leaves="3")
    assert_clean(pruned)
    assert n_nodes(dot_of(pruned)) < n_nodes(dot_of(full))


def test_leaves_larger_than_the_data_give_a_single_leaf_not_an_error():
    at = run_page(data="iris", dt_min_leaf="200")
    assert_clean(at)
    # 112 training rows cannot make leaves of 200: the tree is a single leaf, not an error.
    assert "1 nodes · 1 leaves" in " ".join(c.value for c in at.caption)


def test_cross_validated_pruning_path_on_request():
    at = run_page(data="iris", dt_view="Complexity", dt_run_cv="true")
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 3
    assert any("Cross-validation chooses" in m.value for m in at.markdown)


def test_grow_step_by_step_shows_the_tree_cut_at_the_step():
    at = run_page(data="iris", dt_view="Grow step by step", dt_step="2")
    assert_clean(at)
    assert at.slider(key="dt_step").value == 2
    assert n_nodes(dot_of(at)) == 5  # root, the setosa leaf, and one more split


def test_grow_step_by_step_shows_the_textbook_loop_it_is_checked_against():
    at = run_page(data="iris", dt_view="Grow step by step")
    assert_clean(at)
    assert any(e.label.startswith("How is this grown?") for e in at.expander)
    code = [c.value for c in at.code]
    assert any(c.startswith("def grow(") and "best_split(" in c for c in code)
    assert any(c.startswith("def best_split(") for c in code)


def test_link_reopens_display_depth_row_typed_row_and_fit():
    at = run_page(data="iris", dt_show_depth="2", dt_row="3", dt_fit="true", dt_typed="true")
    assert_clean(at)
    assert at.number_input(key="dt_show_depth").value == 2
    assert at.number_input(key="dt_row").value == 3
    assert at.toggle(key="dt_fit").value and at.toggle(key="dt_typed").value
    assert n_nodes(dot_of(at)) == 5  # depth ≤ 2 of iris: root, a leaf, a split, two children
    assert "overflow-x" not in "".join(m.value for m in at.markdown)  # shrunk to fit
    assert any(m.value == "**Your row**" for m in at.markdown)
    assert any("Leaf reached: predict" in m.value for m in at.markdown)


def test_link_reopens_the_chosen_node_feature_axes_and_entropy_scale():
    at = run_page(data="iris", dt_view="Show your working", dt_node="2",
                  dt_work_feature="sepal_width")
    assert_clean(at)
    assert at.selectbox(key="dt_node").value == 2
    assert at.selectbox(key="dt_work_feature").value == "sepal_width"
    at = run_page(data="iris", dt_view="Decision boundary", dt_bx="sepal_width",
                  dt_by="petal_width")
    assert_clean(at)
    assert (at.selectbox(key="dt_bx").value, at.selectbox(key="dt_by").value) == (
        "sepal_width", "petal_width")
    at = run_page(data="iris", dt_view="Impurity", dt_scaled="false")
    assert_clean(at)
    assert at.toggle(key="dt_scaled").value is False


def test_hand_edited_link_values_are_ignored_or_clamped_without_a_traceback():
    at = run_page(data="iris", dt_show_depth="999", dt_row="-5", dt_fit="maybe",
                  dt_criterion="nonsense", dt_min_leaf="abc")
    assert_clean(at)
    assert at.number_input(key="dt_show_depth").value <= 4 and at.number_input(key="dt_row").value is None
    assert at.selectbox(key="dt_criterion").value == "gini"
    notices = " ".join(w.value for w in at.warning)  # each replaced value is said, none silently
    for asked in ("999", "-5", "maybe", "nonsense", "abc"):
        assert asked in notices, (asked, notices)
    at = run_page(data="iris", dt_view="Show your working", dt_node="777", dt_work_feature="nope")
    assert_clean(at)
    assert at.selectbox(key="dt_node").value == 0
    at = run_page(data="iris", dt_view="Grow step by step", dt_step="99")
    assert_clean(at)
    assert at.slider(key="dt_step").value == 1  # the default: the tree is 5 deep
    assert "from 0 to 5" in at.warning[0].value
    at = run_page(data="iris", dt_view="Decision boundary", dt_bx="petal_width", dt_by="petal_width")
    assert_clean(at)
    assert at.selectbox(key="dt_by").value != "petal_width"


def test_downloads_offer_dot_and_svg_png_when_graphviz_is_installed():
    at = run_page(data="iris")
    assert_clean(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == (["DOT", "SVG", "PNG"] if dot_binary() else ["DOT"])


def test_chi2_view_marks_and_lists_the_removed_splits():
    at = run_page(data="iris", dt_chi2="0.05", dt_chi2_view="true")
    assert_clean(at)
    pruned, grown = (c.proto.spec for c in at.get("graphviz_chart"))
    assert n_nodes(grown) > n_nodes(pruned)
    table = at.dataframe[-1].value
    removed = re.findall(r'^n(\d+) \[label=.*style="dashed,rounded,filled"', grown, flags=re.M)
    assert len(table) >= 1 and {"chi2", "df", "p_value"} <= set(table.columns)
    assert (table["p_value"] >= 0.05).all()
    assert set(table["node"]) <= {int(i) for i in removed}
    assert len(table) == len(chi2_removed(_grown_iris_tree(), 0.05))


def _grown_iris_tree():
    data = Dataset(load_sample("iris"), "species")
    return DecisionTreeClassifier().fit(data.X_train, data.y_train).tree_


def test_a_notice_names_an_empty_default_as_the_control_does():
    at = run_page(data="iris", dt_max_depth="abc")
    assert_clean(at)
    assert "“abc” as the Max depth" in at.warning[0].value
    assert "showing “no limit” instead" in at.warning[0].value


def test_show_your_working_on_a_projector_starts_with_the_trees_own_score():
    at = run_page(data="playtennis", dt_view="Show your working", present="true")
    assert_clean(at)
    columns = list(at.table[0].value.columns)
    assert "Information gain (bits)" in columns and "Gini decrease" not in columns
    assert "Threshold t" not in columns  # every split of PlayTennis is by category
    assert any("the largest **information gain (bits)**" in m.value for m in at.markdown)
    at = run_page(data="playtennis", dt_view="Show your working")
    assert {"Information gain (bits)", "Gini decrease", "χ²"} <= set(at.dataframe[0].value.columns)
