"""The Decision Tree page under AppTest: every sample, every criterion, every view.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for why).
"""
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.data import list_samples

ROOT = Path(__file__).resolve().parents[2]
PAGE = "app_pages/decision_tree.py"
SAMPLES = [entry["name"] for entry in list_samples()]
VIEWS = ["Tree", "Grow step by step", "Show your working", "Impurity", "Results", "Complexity",
         "Decision boundary"]


def run_page(**query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE)
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
    steps = at.markdown[-1].value
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
