"""Textbook examples open as their textbook has them (issue 32).

PlayTennis: ID3 on all 14 days gives Mitchell's (1997) tree, Outlook at the root with
Humidity under Sunny and Wind under Rain, and Naive Bayes has the priors 9/14 and 5/14.
The restaurant table gives Russell & Norvig's (2010) Fig. 18.6: Patrons, then Hungry,
Type and Fri/Sat. One click returns to the general defaults (Gini, binary splits; a
table this small is still fitted whole). Every model page can fit on all rows.
"""
from __future__ import annotations

import json
import re

import pytest

from .test_pages import assert_clean, run_app, values

TREE, NB = "app_pages/decision_tree.py", "app_pages/naive_bayes.py"


def dot_of(at) -> str:
    return at.get("graphviz_chart")[0].proto.spec


def questions(dot: str) -> list[str]:
    """The multiway questions of the diagram, root first ("Outlook ")."""
    return re.findall(r"<B>([^<]*)\?</B>", dot)


def root(dot: str) -> str:
    """The root's question, whatever its kind ("Humidity ∈ {High}", "Outlook ?")."""
    line = next(t for t in dot.splitlines() if t.startswith("n0 "))
    return re.search(r"<B>([^<]*)</B>", line).group(1)


def test_playtennis_opens_on_mitchells_id3_tree():
    at = run_app(TREE, data="playtennis")
    assert_clean(at)
    assert questions(dot_of(at))[0] == "Outlook "
    assert set(questions(dot_of(at))) == {"Outlook ", "Wind ", "Humidity "}
    assert any("all 14 rows fitted and scored" in c.value for c in at.caption)
    assert any("Mitchell (1997)" in c.value for c in at.caption)
    # the textbook's values are the defaults: a link need not carry them
    assert not any(k.startswith("dt_") for k in at.query_params)


def test_the_general_defaults_are_one_click_away_and_back():
    at = run_app(TREE, data="playtennis")
    at.button(key="textbook_switch").click().run()
    assert_clean(at)
    assert at.session_state["textbook"] is False
    assert at.session_state["dt_criterion"] == "gini"
    assert at.session_state["dt_cat_split"] == "binary"
    assert at.session_state["dt_all_rows"] is True  # 14 rows: too few to hold a quarter out
    assert "∈" in root(dot_of(at))  # a binary question, not ID3's branch per value
    at.button(key="textbook_switch").click().run()
    assert root(dot_of(at)) == "Outlook ?"


def test_a_link_that_chose_other_settings_keeps_them():
    at = run_app(TREE, data="playtennis", dt_criterion="gini")
    assert_clean(at)
    assert at.session_state["dt_criterion"] == "gini"
    assert at.session_state["dt_all_rows"] is True  # the rest stays the textbook's


def test_playtennis_naive_bayes_has_the_textbook_priors():
    at = run_app(NB, data="playtennis")
    assert_clean(at)
    priors = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    y = values(priors["y"])
    shares = dict(zip(priors["x"], y, strict=True))
    assert shares["Yes"] == pytest.approx(9 / 14) and shares["No"] == pytest.approx(5 / 14)
    assert at.session_state["nb_alpha"] == 0.0


def test_restaurant_opens_on_the_aima_tree():
    at = run_app(TREE, data="restaurant")
    assert_clean(at)
    assert questions(dot_of(at))[:2] == ["Patrons ", "Hungry "]
    assert any("12 nodes · 8 leaves · depth 4" in c.value for c in at.caption)


def test_other_data_has_no_textbook_note():
    at = run_app(TREE, data="iris")
    assert_clean(at)
    assert not any("Textbook settings" in c.value for c in at.caption)
    assert "textbook_switch" not in [b.key for b in at.button]


@pytest.mark.parametrize("page, key", [("app_pages/random_forest.py", "rf_all_rows"),
                                       ("app_pages/adaboost.py", "ab_all_rows"),
                                       ("app_pages/gradient_boosting.py", "gb_all_rows")])
def test_every_model_page_can_fit_on_all_rows(page, key):
    at = run_app(page, data="iris", **{key: "true"})
    assert_clean(at)
    assert any("all 150 rows fitted and scored" in c.value for c in at.caption)
    at = run_app(page, data="iris")
    assert at.session_state[key] is False  # 150 rows: a quarter is held out
    assert any("112 training rows, 38 test rows" in c.value for c in at.caption)


def test_a_tiny_table_starts_fitted_whole_everywhere():
    at = run_app("app_pages/random_forest.py", data="restaurant")
    assert_clean(at)
    assert at.session_state["rf_all_rows"] is True
    assert "rf_all_rows" not in at.query_params  # the default: a link need not carry it


def test_scores_on_seen_rows_say_so():
    at = run_app("app_pages/random_forest.py", data="iris", rf_all_rows="true", rf_view="Results")
    assert_clean(at)
    assert at.metric[0].label == "Accuracy on seen rows"
