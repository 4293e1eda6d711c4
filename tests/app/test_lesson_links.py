"""Lesson links: the text shows as plain text above the page, the hidden controls are not
drawn but their link values stand, and a link that asks too much is refused with a notice."""
from urllib.parse import parse_qs, urlsplit

from tests.app.test_pages import assert_clean, run_app
from ui.lesson import LESSON_CHARS

TREE = "app_pages/decision_tree.py"


def _infos(at) -> list[str]:
    return [i.value for i in at.info]


def test_a_lesson_shows_its_text_and_hides_the_chosen_controls():
    text = "Watch how a depth of 2 changes the *leaves* <b>now</b>."
    at = run_app(TREE, data="iris", dt_max_depth="2", lesson=text,
                 hide=["dt_max_depth", "dt_criterion"])
    assert_clean(at)
    shown = [v for v in _infos(at) if "Watch how" in v]
    assert len(shown) == 1
    # Markdown and HTML are escaped: the text reads as typed
    assert "\\*leaves\\*" in shown[0] and "<b>" not in shown[0].replace("\\<b\\>", "")
    keys = {w.key for w in (*at.number_input, *at.selectbox, *at.radio)}
    assert "dt_max_depth" not in keys and "dt_criterion" not in keys
    assert {"dt_min_leaf", "dt_min_split", "dt_row"} <= keys  # the others stay
    # the hidden control's value from the link stands: a depth-2 tree
    assert "depth 2" in at.caption[0].value
    assert at.query_params["hide"] == ["dt_max_depth", "dt_criterion"]  # the link keeps both
    assert at.query_params["lesson"] == text


def test_without_a_lesson_every_control_is_drawn():
    at = run_app(TREE, data="iris", dt_max_depth="2")
    assert_clean(at)
    assert "dt_max_depth" in {w.key for w in at.number_input}


def test_a_lesson_too_long_or_a_strange_key_gives_a_notice():
    at = run_app(TREE, data="iris", lesson="x" * (LESSON_CHARS + 1), hide="<script>")
    assert_clean(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "lesson text" in warnings and "controls to hide" in warnings
    assert not any("xxxx" in v for v in _infos(at))


def test_the_link_box_makes_a_lesson_link():
    at = run_app(TREE, data="iris")
    at.session_state["share_open"] = True  # the "Link to this view" box, opened
    at.run()
    at.text_area(key="lesson_draft").set_value("Look at the root.").run()
    at.multiselect(key="hide_draft").set_value(["dt_max_depth"]).run()
    assert_clean(at)
    codes = [c.value for c in at.code if "lesson=" in c.value]
    assert len(codes) == 1
    query = parse_qs(urlsplit(codes[0]).query)
    assert query["lesson"] == ["Look at the root."] and query["hide"] == ["dt_max_depth"]
    assert query["data"] == ["iris"]


def test_a_lesson_may_hide_the_shared_controls_and_keeps_their_link_values():
    at = run_app(TREE, data="mushroom", seed="3", predict="true", lesson="One dataset today.",
                 hide=["data", "seed", "predict", "target"])
    assert_clean(at)
    sidebar = {w.key for w in (*at.sidebar.selectbox, *at.sidebar.number_input,
                               *at.sidebar.toggle)}
    assert not sidebar & {"data", "seed", "predict", "target"}
    assert "present" in sidebar  # the one not hidden stays
    assert at.session_state["data"] == "mushroom" and at.session_state["seed"] == 3
    assert at.session_state["predict"] is True
    # the link box offers them, marked as shared
    at.session_state["share_open"] = True
    at.run()
    options = at.multiselect(key="hide_draft").options
    assert "dataset (every page)" in options and "“predict first” (every page)" in options


def test_a_lesson_hides_the_data_pages_split_controls():
    at = run_app(None, data="iris", test="0.3", lesson="Keep this split.", hide=["test", "strat"])
    assert_clean(at)
    assert not at.slider and "task" in {r.key for r in at.radio}
    assert at.session_state["test"] == 0.3
    assert any("Keep this split" in v for v in _infos(at))
