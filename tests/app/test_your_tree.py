"""Your tree: grown by hand in the page, it is the engine tree of the same splits, its
link reopens it, and the algorithm's tree of the same size is scored beside it."""
import numpy as np
import pytest

from engine.data import Dataset, load_sample
from engine.tree import DecisionTreeClassifier, HandSplit
from tests.app.test_pages import assert_clean, run_app
from ui.your_tree import KEY, MAX_SPLITS, decode, encode

TREE = "app_pages/decision_tree.py"
YOURS = "Your tree"


def test_splits_round_trip_through_their_text():
    splits = [((), HandSplit(2, 2.45)), ((1,), HandSplit(3, 1.75)),
              ((1, 0), HandSplit(0, left=(0, 2))), ((1, 1), HandSplit(1, multiway=True)),
              ((0,), HandSplit(2, 0.1 + 0.2))]
    assert decode(encode(splits), 4) == splits
    for bad in ("r_9_t1", "r_1_x", "r_0_t1~r_0_t2", "r_0_tnan", "q_0_t1", "r_0",
                "~".join(f"{k}_0_t1" for k in range(MAX_SPLITS + 1))):
        with pytest.raises(ValueError):
            decode(bad, 4)


def _box(at, prefix: str):
    """The selectbox whose key starts with ``prefix`` (keys carry the tree and the leaf)."""
    boxes = [b for b in at.selectbox if b.key and b.key.startswith(prefix)]
    assert len(boxes) == 1, [b.key for b in at.selectbox]
    return boxes[0]


def test_two_splits_by_hand_make_the_engine_tree_of_those_splits():
    at = run_app(TREE, data="iris", dt_view=YOURS)
    assert_clean(at)
    at.selectbox(key="dt_hand_feature").set_value("petal_length").run()
    box = _box(at, "dt_hand_question_")
    box.select_index([k for k, o in enumerate(box.options) if "2.45" in o][0]).run()
    at.button(key="dt_hand_split").click().run()
    assert_clean(at)
    assert at.session_state[KEY] == "r_2_t2.45"
    assert any("is the best here" in i.value for i in at.info)
    # the second split: the non-setosa leaf, on petal_width
    leaf = _box(at, "dt_hand_leaf_")
    leaf.select_index([k for k, o in enumerate(leaf.options) if "versicolor" in o][0]).run()
    at.selectbox(key="dt_hand_feature").set_value("petal_width").run()
    box = _box(at, "dt_hand_question_")
    box.select_index([k for k, o in enumerate(box.options) if o.endswith("≤ 1.7")][0]).run()
    at.button(key="dt_hand_split").click().run()
    assert_clean(at)
    text = at.session_state[KEY]
    assert text.startswith("r_2_t2.45~1_3_t1.7")  # the exact midpoint, as repr writes it
    data = Dataset(load_sample("iris"), "species")
    engine = DecisionTreeClassifier().fit_splits(data.X_train, data.y_train, dict(decode(text, 4)))
    dots = [c.proto.spec for c in at.get("graphviz_chart")]
    assert len(dots) == 2  # yours and the algorithm's
    assert dots[0].count("[label=<<TABLE") == engine.tree_.node_count == 5
    score = float((engine.predict(data.X_test) == data.y_test.to_numpy()).mean())
    assert any(f"yours {score:.1%}" in m.value for m in at.markdown)
    assert any("the algorithm's" in m.value for m in at.markdown)


def test_a_link_reopens_your_tree_and_a_bad_one_starts_again():
    at = run_app(TREE, data="iris", dt_view=YOURS, dt_hand="r_2_t2.45~1_3_t1.75")
    assert_clean(at)
    assert at.session_state[KEY] == "r_2_t2.45~1_3_t1.75"
    at.button(key="dt_hand_undo").click().run()
    assert at.session_state[KEY] == "r_2_t2.45"
    bad = run_app(TREE, data="iris", dt_view=YOURS, dt_hand="r_0_t99")  # sends every row left
    assert_clean(bad)
    assert any("do not make a tree here" in w.value for w in bad.warning)
    worse = run_app(TREE, data="iris", dt_view=YOURS, dt_hand="r_9_t1")
    assert_clean(worse)
    assert any("your tree's splits" in w.value for w in worse.warning)


def test_with_the_binned_search_the_questions_are_the_binned_trees():
    """With "Binned search" on, a column's questions lie between its quantile bins, as the
    page's own tree searches them: at most a few hundred, where every midpoint of a
    200,000-row upload made tens of thousands and took the tab 14 s."""
    column = "capital_run_length_total"  # 2,161 distinct values in spambase
    counts = {}
    for binned in ("true", "false"):
        at = run_app(TREE, data="spambase", dt_view=YOURS, dt_binned=binned)
        assert_clean(at)
        at.selectbox(key="dt_hand_feature").set_value(column).run()
        counts[binned] = len(_box(at, "dt_hand_question_").options)
    assert counts["true"] <= 255 < 3 * counts["true"] < counts["false"], counts


def test_leaf_titles_group_thousands():
    """A leaf of a large upload reads "3,000 rows (no: 1,500 · yes: 1,500)", not 3000."""
    from ui.your_tree import _leaf_title

    X = np.arange(3000.0).reshape(-1, 1)
    model = DecisionTreeClassifier(max_depth=1).fit(X, np.repeat(["no", "yes"], [1200, 1800]))
    assert _leaf_title(model, 0) == "node 0 · depth 0 · 3,000 rows (no: 1,200 · yes: 1,800)"
    assert _leaf_title(model, 2) == "node 2 · depth 1 · 1,800 rows (yes: 1,800)"
