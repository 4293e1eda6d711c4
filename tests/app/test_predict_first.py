"""Predict first: every question holds its right answer exactly once, is built from the
model (another model asks otherwise), and a page with the switch on waits for an answer
before it shows what the question is about."""
import json

import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, load_sample
from engine.ensemble import AdaBoostClassifier
from engine.inspection import split_candidates
from engine.tree import DecisionTreeClassifier
from tests.app.test_pages import assert_clean, run_app, values
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


def test_the_landing_leaf_is_the_rows_own_among_its_nearest_drawn_leaves():
    data = Dataset(load_sample("iris"), "species")
    answers = set()
    for seed in (0, 1):
        model = DecisionTreeClassifier(max_depth=4, max_features=2, random_state=seed).fit(
            data.X_train, data.y_train)
        tree = model.tree_
        encoded = model.encoder_.transform(data.X_test)
        leaves = model.tree_.apply(encoded)
        for row in range(0, len(data.X_test), 7):
            path = np.flatnonzero(tree.decision_path(encoded[row:row + 1])[0])
            question = q.landing_leaf(model, data.X_test.iloc[row], path, 4, "k",
                                      f"test row {row}")
            _once(question)
            leaf = leaves[row]
            right = (f"samples = {tree.n_node_samples[leaf]:,}, "
                     f"class = {model.classes_[np.argmax(tree.value[leaf])]}")
            assert question.options[question.answer] == right
            answers.add((seed, right))
            # every option is a leaf's label as the diagram shows it
            labels = {f"samples = {tree.n_node_samples[n]:,}, "
                      f"class = {model.classes_[np.argmax(tree.value[n])]}"
                      for n in np.flatnonzero(tree.children_left < 0)}
            assert set(question.options) <= labels
            # the prompt gives the row's value of each feature a drawn split asks about
            for j in set(tree.feature[tree.children_left >= 0]):
                name = data.X_test.columns[j]
                assert f"{name} = {data.X_test.iloc[row][name]:.4g}" in question.prompt
            if tree.depth[leaf] > 1:  # a leaf not drawn is not asked about
                assert q.landing_leaf(model, data.X_test.iloc[row], path, 1, "k", "r") is None
    assert len({right for _, right in answers}) > 2  # the answer follows the row and the tree


def test_the_strongest_push_is_the_largest_log_likelihood_ratio():
    from engine.naive_bayes import CategoricalNB
    data = Dataset(load_sample("playtennis"), "PlayTennis")
    model = CategoricalNB(alpha=1.0).fit(data.X_train, data.y_train)
    names = [str(n) for n in model.feature_names_in_]
    seen = set()
    for row in range(len(data.X_train)):
        contributions, _ = model.log_likelihood_contributions(data.X_train.iloc[[row]])
        ratio = contributions[0][1] - contributions[0][0]  # brute force: two classes
        question = q.strongest_push(ratio, names, str(model.classes_[1]), "k")
        if question is None:
            assert np.sum(np.isclose(ratio, ratio.max())) > 1 or ratio.max() <= 0
            continue
        _once(question)
        assert question.options[question.answer] == names[int(np.argmax(ratio))]
        assert list(question.options) == sorted(question.options)
        seen.add(question.options[question.answer])
    assert len(seen) > 1
    assert q.strongest_push(np.array([0.5, -np.inf]), ["a", "b"], "c", "k") is None


def test_the_word_push_is_the_words_log_ratio():
    table = pd.DataFrame({"ham": [-3.0, -5.0, 0.0, -3.0], "spam": [-4.0, -2.5, 0.0, -4.0]},
                         index=["1. the", "2. free", "3. zzz (unseen)", "4. the"])
    question = q.word_push(table, "spam", "k")
    _once(question)
    assert question.options == ("free", "the") and question.options[question.answer] == "free"
    assert "+2.500" in question.reason
    assert q.word_push(table.iloc[[0, 2]], "spam", "k") is None  # one word seen: no choice


def test_the_heavier_group_gains_the_most_weight():
    from viz import adaboost_figures as af
    data = Dataset(load_sample("iris"), "species")
    answers = []
    for seed in (0, 3):
        X = data.X_train.sample(frac=0.8, random_state=seed)
        y = data.y_train.loc[X.index]
        model = AdaBoostClassifier(n_estimators=6, random_state=seed).fit(X, y)
        for t in range(1, len(model.estimators_) + 1):
            detail = af.round_detail(model, t)
            learner = model.estimators_[t - 1]
            question = q.heavier_group(learner, detail, y, X, "k")
            if question is None:
                continue
            _once(question)
            # brute force: each row's root branch from its leaf, weight gained per group
            leaf = learner.apply(X)
            (yes, _), (no, _) = af.learner_sides(learner)  # a stump: left, then right
            side = np.where(leaf == learner.tree_.children_left[0], yes, no)
            gain = pd.Series(detail.after - detail.before).groupby(
                [side, y.astype(str).to_numpy()]).sum()
            answer, label = gain.idxmax()
            held = pd.Series(detail.before).groupby([side, y.astype(str).to_numpy()]).sum()
            assert question.options[question.answer] == (
                f"class {label} answering {answer} (holds {held[(answer, label)]:.1%} now)")
            assert gain.max() > 0 and (detail.miss[(side == answer) & (y.astype(str) == label)]).all()
            answers.append(question.options[question.answer])
    assert len(set(answers)) > 1


@pytest.mark.parametrize("shape, answer", [(lambda b: 0.3 - 0.001 * b, 0),
                                           (lambda b: 0.2 + 0.0 * b, 1),
                                           (lambda b: 0.1 + 0.0002 * b, 2)])
def test_the_oob_trend_reads_the_curve(shape, answer):
    for n in (40, 250):
        b = np.arange(1, n + 1)
        curve = pd.DataFrame({"n_trees": b, "oob": shape(b), "test": np.nan})
        question = q.oob_trend(curve, "k")
        _once(question)
        assert question.answer == (answer if n == 250 or answer != 2 else 1)  # 20 × 0.0002 < ½ pt
        more = q.oob_held_back(n)
        assert more == (100 if n >= 200 else n // 2) and f"{n - more} trees" in question.prompt


def test_the_oob_trend_of_a_real_forest():
    from engine.ensemble import RandomForestClassifier
    from viz import forest_figures as ff
    data = Dataset(load_sample("iris"), "species")
    forest = RandomForestClassifier(n_estimators=60, oob_score=True, random_state=0).fit(
        data.X_train, data.y_train)
    curve = ff.error_curve(forest, data.X_test, data.y_test)
    question = q.oob_trend(curve, "k")
    _once(question)
    change = curve["oob"].iloc[-1] - curve["oob"].iloc[29]
    expected = 1 if abs(change) <= q.OOB_SAME else 0 if change < 0 else 2
    assert question.answer == expected
    assert q.oob_trend(curve.assign(oob=np.nan), "k") is None  # no bootstrap: nothing to ask


def test_the_fit_target_plot_is_the_pseudo_residuals():
    from engine.ensemble import GradientBoostingRegressor
    from viz import gb_figures as gf
    data = Dataset(load_sample("friedman1"), "y")
    X, y = data.X_train[["x4"]], data.y_train.to_numpy()
    model = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    stages = gf.one_feature_stages(model, X, y, "y")
    letters = set()
    for t in range(stages.n_rounds):
        for key in (q.question_key("gb", t), q.question_key("gb", t, "other")):
            question = q.fit_target(stages, t, key, gf.NORMAL)
            _once(question)
            right = question.options[question.answer]
            letters.add(right)
            trace = question.figure.data[ord(right[-1]) - ord("A")]
            np.testing.assert_allclose(trace.y, stages.pseudo[t])  # the plot is the residual
            others = [tr.y for i, tr in enumerate(question.figure.data)
                      if i != ord(right[-1]) - ord("A")]
            assert any(np.allclose(o, stages.y) for o in others)
            assert any(np.allclose(o, stages.fitted(t)) for o in others)
    assert len(letters) > 1  # the answer is not always the same plot
    assert q.fit_target(stages, stages.n_rounds, "ab", gf.NORMAL) is None


def test_rounds_alternate_their_questions():
    def ask(name):
        return lambda: None if name == "none" else q.Question(name, name, ("a", "b"), 0, "")
    assert q.alternate(0, ask("x"), ask("y"))().key == "x"
    assert q.alternate(1, ask("x"), ask("y"))().key == "y"
    assert q.alternate(1, ask("x"), ask("none"))().key == "x"  # falls back on the other
    assert q.first_of(ask("none"), ask("none"))() is None


# --- the pages -------------------------------------------------------------------------

def _oob_trees(at) -> int:
    """Trees on the OOB curve of the Random Forest page (its first chart)."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return max(len(values(trace["x"])) for trace in spec["data"])


def _radios(at):
    return [r for r in at.radio if r.key and r.key.startswith("predict_")]


@pytest.mark.parametrize("page, params, n_questions", [
    ("app_pages/decision_tree.py", dict(data="iris", dt_view="Grow step by step", dt_step="2",
                                        dt_max_depth="3"), 1),
    ("app_pages/decision_tree.py", dict(data="iris", dt_row="5", dt_max_depth="3"), 1),
    ("app_pages/naive_bayes.py", dict(data="playtennis"), 2),  # the class, then a feature
    # the row's class (its one feature, the text, pushes alone), then a word of the sentence
    ("app_pages/naive_bayes.py", dict(data="reviews", nb_text="The food was cold and the "
                                      "service was terrible but the dessert was awesome"), 2),
    ("app_pages/adaboost.py", dict(data="iris", ab_round="3", ab_rounds="6"), 1),
    ("app_pages/adaboost.py", dict(data="iris", ab_round="2", ab_rounds="6"), 1),
    ("app_pages/random_forest.py", dict(data="iris", rf_view="Importance", rf_trees="20"), 1),
    ("app_pages/random_forest.py", dict(data="iris", rf_trees="40"), 1),
    ("app_pages/gradient_boosting.py", dict(data="friedman1", gb_round="2", gb_rounds="5"), 1),
    ("app_pages/gradient_boosting.py", dict(data="friedman1", gb_round="1", gb_rounds="5"), 1),
])
def test_each_model_page_asks_then_reveals(page, params, n_questions):
    at = run_app(page, predict="true", **params)
    assert_clean(at)
    before = len(at.get("plotly_chart")) + len(at.get("graphviz_chart"))
    asked, prompts = [], []
    oob_view = page.endswith("random_forest.py") and "rf_view" not in params
    oob_trees = _oob_trees(at) if oob_view else None
    while radios := [r for r in _radios(at) if r.value is None]:
        assert len(radios) <= 2, [r.key for r in radios]  # one per view at most
        asked.append(radios[0].key)
        prompts += [m.value for m in at.markdown if m.value.startswith("**Predict first.**")]
        radios[0].set_value(radios[0].options[0]).run()
        assert_clean(at)
    assert len(asked) == len(set(asked)) == n_questions
    revealed = [m.value for m in (*at.success, *at.error)]
    assert sum("Right:" in v or "You said" in v for v in revealed) == n_questions, revealed
    after = len(at.get("plotly_chart")) + len(at.get("graphviz_chart"))
    # the view appears (the tree page draws the diagram meanwhile, then the path; the
    # OOB curve stops short of the last trees, then runs to the end)
    if oob_view:
        assert (oob_trees, _oob_trees(at)) == (20, 40)
    else:
        assert after > before or page.endswith("decision_tree.py")
    if "dt_step" in params:
        assert any(c.value.startswith("After depth 2") for c in at.caption)
    if "nb_text" in params:
        assert any("Which word of the sentence pushes hardest towards positive" in p
                   for p in prompts)
    if "dt_row" in params:  # the row's path is explained once the leaf is predicted
        assert any("Test row 5" in m.value for m in at.markdown)
    assert any(f"of {n_questions} right" in c.value for c in at.caption)


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
