"""Predict first: every question holds its right answer exactly once, is built from the
model (another model asks otherwise), and a page with the switch on waits for an answer
before it shows what the question is about."""
import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, load_sample
from engine.ensemble import AdaBoostClassifier
from engine.inspection import split_candidates
from engine.tree import DecisionTreeClassifier
from tests.app.test_pages import assert_clean, run_app
from ui import questions as q


def _once(question: q.Question) -> None:
    right = question.options[question.answer]
    assert question.options.count(right) == 1
    assert len(set(question.options)) == len(question.options) >= 2
    assert question.is_right(right) and not any(
        question.is_right(o) for o in question.options if o != right)


@pytest.mark.parametrize("sample, target", [("iris", "species"), ("playtennis", "PlayTennis"),
                                            ("mushroom", "edibility")])
def test_the_next_split_is_the_trees_own_among_other_features_best(sample, target):
    data = Dataset(load_sample(sample), target)
    model = DecisionTreeClassifier(max_depth=3, criterion="entropy").fit(data.X_train, data.y_train)
    tree = model.tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        table = split_candidates(model, node, data.X_train, data.y_train)
        question = q.next_split(model, table, int(node), "k")
        if question is None:  # only one feature can split this node
            assert table["feature"].nunique() < 2 or table["chosen"].sum() == 0
            continue
        _once(question)
        chosen = table[table["chosen"]].iloc[0]
        assert question.options[question.answer] == q.candidate_text(chosen)
        # the others are the best splits of other features, each named once, none tied
        features = [o.split(" ")[0].rstrip(":") for o in question.options]
        assert len(set(features)) == len(features)
        column = q.SCORES[model.criterion][0]
        best = float(chosen[column])
        for _, row in table.iterrows():
            if q.candidate_text(row) in question.options and not row["chosen"]:
                assert row[column] < best - 1e-9
        assert list(question.options) == sorted(question.options)  # the order gives nothing away


def test_the_heaviest_split_node_of_a_depth():
    data = Dataset(load_sample("iris"), "species")
    tree = DecisionTreeClassifier(max_depth=3).fit(data.X_train, data.y_train).tree_
    node = q.heaviest_split_at(tree, 1)
    at = np.flatnonzero((tree.depth == 1) & (tree.children_left >= 0))
    assert node in at and tree.n_node_samples[node] == tree.n_node_samples[at].max()
    assert q.heaviest_split_at(tree, 10) is None


def test_the_winning_class_is_the_largest_posterior():
    posterior = pd.Series({"a": 0.2, "b": 0.5, "c": 0.1, "d": 0.15, "e": 0.05})
    question = q.winning_class(posterior, "k", "row 3")
    _once(question)
    assert question.options[question.answer] == "b" and len(question.options) == q.MAX_OPTIONS
    assert q.winning_class(pd.Series({"a": 1.0}), "k", "row") is None


def test_the_error_question_follows_the_models_own_errors():
    data = Dataset(load_sample("iris"), "species")
    answers = []
    for seed in (0, 1):
        model = AdaBoostClassifier(n_estimators=8, random_state=seed).fit(
            data.X_train, data.y_train)
        errors = model.estimator_errors_
        for t in range(2, len(errors) + 1):
            question = q.error_change(errors, t, "k")
            if question is None:
                assert np.isclose(errors[t - 1], errors[t - 2])
                continue
            _once(question)
            assert question.options[question.answer].startswith(
                "above" if errors[t - 1] > errors[t - 2] else "below")
            answers.append(question.options[question.answer])
    assert q.error_change([0.1, 0.2], 1, "k") is None  # no round before the first
    assert len(set(answers)) > 1  # not always the same answer


def test_more_important_names_the_larger_drop():
    table = pd.DataFrame({"feature": ["x", "y", "z"], "importance_mean": [0.05, 0.3, 0.1]})
    question = q.more_important(table, "k")
    _once(question)
    assert question.options == ("y", "z") and question.options[question.answer] == "y"
    tied = pd.DataFrame({"feature": ["x", "y"], "importance_mean": [0.1, 0.1]})
    assert q.more_important(tied, "k") is None


def test_the_next_push_is_where_the_residuals_are_largest():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 9, 300)
    for bump, part in ((1.5, 0), (4.5, 1), (7.5, 2)):
        residual = np.exp(-(x - bump) ** 2) + rng.normal(0, 0.01, 300)
        question = q.next_push(x, residual, "x", 3, "k")
        _once(question)
        assert question.answer == part
    assert q.next_push(np.array([1.0, 1.0, 2.0]), np.zeros(3), "x", 0, "k") is None


def test_question_keys_differ_by_model_and_step():
    assert q.question_key("dt", ("h", ()), 1) != q.question_key("dt", ("h", ()), 2)
    assert q.question_key("dt", ("h", ()), 1) == q.question_key("dt", ("h", ()), 1)


# --- the pages -------------------------------------------------------------------------

def _radios(at):
    return [r for r in at.radio if r.key and r.key.startswith("predict_")]


@pytest.mark.parametrize("page, params", [
    ("app_pages/decision_tree.py", dict(data="iris", dt_view="Grow step by step", dt_step="2",
                                        dt_max_depth="3")),
    ("app_pages/naive_bayes.py", dict(data="playtennis")),
    ("app_pages/adaboost.py", dict(data="iris", ab_round="3", ab_rounds="6")),
    ("app_pages/random_forest.py", dict(data="iris", rf_view="Importance", rf_trees="20")),
    ("app_pages/gradient_boosting.py", dict(data="friedman1", gb_round="2", gb_rounds="5")),
])
def test_each_model_page_asks_then_reveals(page, params):
    at = run_app(page, predict="true", **params)
    assert_clean(at)
    radios = _radios(at)
    assert len(radios) == 1, [r.key for r in at.radio]
    question = radios[0]
    assert question.value is None
    before = len(at.get("plotly_chart")) + len(at.get("graphviz_chart"))
    question.set_value(question.options[0]).run()
    assert_clean(at)
    revealed = [m.value for m in (*at.success, *at.error)]
    assert any("Right:" in v or "You said" in v for v in revealed), revealed
    after = len(at.get("plotly_chart")) + len(at.get("graphviz_chart"))
    # the view appears (the tree page draws the level before meanwhile, then the next)
    assert after > before or page.endswith("decision_tree.py")
    if page.endswith("decision_tree.py"):
        assert any(c.value.startswith("After depth 2") for c in at.caption)
    assert any("Your predictions this session: " in c.value for c in at.caption)


def test_without_the_switch_nothing_is_asked():
    at = run_app("app_pages/adaboost.py", data="iris", ab_round="3", ab_rounds="6")
    assert_clean(at)
    assert not _radios(at)


def test_play_stops_at_a_question():
    at = run_app("app_pages/adaboost.py", predict="true", data="iris", ab_round="3",
                 ab_rounds="6")
    at.session_state["ab_round_playing"] = True
    at.run()
    assert_clean(at)
    assert not at.session_state["ab_round_playing"]
    assert len(_radios(at)) == 1  # the question is on screen, the round behind it
