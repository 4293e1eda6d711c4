"""Hostile text in column names, category values and class labels stays text in every picture.

The strings: HTML (``<b>x</b>``, ``<script>alert(1)</script>``), quotes, DOT syntax
(``a"];x[label=<``), a newline, emoji, ampersands and a 10,000-character value.

* DOT (viz.tree_dot) for trees, forest members and AdaBoost stumps, classification and
  regression, binary and multiway splits: ``dot -Tsvg`` accepts it, the SVG is well-formed
  XML with no element the data brought in (no <b>, no <script>), and the SVG's text holds
  the strings as characters.
* Plotly figures (data, Naive Bayes, tree, forest, boosting and compare figures): plotly.js
  reads <b>, <i>, <br> and <a href> in any text as markup, so the strings reach it with
  & < > escaped as entities (which it decodes back to the characters) in axis categories,
  trace names, hover text and titles, and never as raw markup.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, infer_schema
from engine.ensemble import AdaBoostClassifier, GradientBoostingRegressor, RandomForestClassifier
from engine.inspection import split_candidates
from engine.metrics import confusion_matrix
from engine.naive_bayes import MixedNB
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from viz import (
    adaboost_figures,
    compare_figures,
    data_charts,
    forest_figures,
    gb_figures,
    nb_figures,
    tree_figures,
)
from viz.style import Style
from viz.tree_dot import node_title, tree_to_dot

LONG = "L" * 10_000
HOSTILE = ["<b>x</b>", "<script>alert(1)</script>", 'a"];x[label=<', "two\nlines",
           "🌳 & 🌲", "it's", "back\\slash \\N \\G", LONG]
SVG = "{http://www.w3.org/2000/svg}"
DOT = shutil.which("dot")
needs_dot = pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed")


def hostile_frame(n: int = 64) -> pd.DataFrame:
    """Two numeric and one categorical column with hostile names; a hostile 3-class target."""
    rng = np.random.default_rng(0)
    cats = np.array(HOSTILE[:5])
    frame = pd.DataFrame({
        HOSTILE[0]: rng.normal(size=n),
        HOSTILE[2]: rng.normal(size=n),
        HOSTILE[1]: cats[rng.integers(0, len(cats), n)],
        LONG: rng.integers(0, 3, n).astype(float),
    })
    score = frame[HOSTILE[0]] + (frame[HOSTILE[1]] == HOSTILE[1]) * 2
    frame["🌳 class"] = np.where(score > 1, HOSTILE[1], np.where(score > 0, "two\nlines", "it's"))
    return frame


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return hostile_frame()


@pytest.fixture(scope="module")
def X(frame):
    return frame.drop(columns="🌳 class")


@pytest.fixture(scope="module")
def y(frame):
    return frame["🌳 class"]


def render_svg(dot: str) -> ET.Element:
    done = subprocess.run([DOT, "-Tsvg"], input=dot.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[:500]
    assert not done.stderr.strip(), done.stderr.decode()[:500]  # no syntax warnings either
    return ET.fromstring(done.stdout)


def svg_text(root: ET.Element) -> str:
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def assert_only_graphviz_elements(root: ET.Element) -> None:
    tags = {el.tag.removeprefix(SVG) for el in root.iter()}
    allowed = {"svg", "g", "title", "polygon", "path", "ellipse", "text", "polyline", "a",
               "defs", "linearGradient", "radialGradient", "stop", "tspan"}
    assert tags <= allowed, tags - allowed
    assert "script" not in tags and "b" not in tags


def split_models(X, y):
    binary = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    multiway = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                      max_depth=3, random_state=0).fit(X, y)
    return {"binary": binary, "multiway": multiway}


@needs_dot
@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_tree_dot_renders_and_keeps_hostile_names_as_text(X, y, split):
    model = split_models(X, y)[split]
    used = {model.feature_names_in_[j] for j in model.tree_.feature[model.tree_.children_left >= 0]}
    assert HOSTILE[1] in used, "the hostile categorical column must be split on"
    dot = tree_to_dot(model, highlight_path=[0, int(model.tree_.children_left[0])])
    assert "<script>" not in dot and "<b>x</b>" not in dot
    root = render_svg(dot)
    assert_only_graphviz_elements(root)
    text = svg_text(root)
    for name in used:
        assert name.split("\n")[0] in text  # Graphviz draws a newline as whitespace
    assert "<script>alert(1)</script>" in text  # a category value, shown as characters


@needs_dot
def test_many_hostile_classes_and_the_long_name_in_a_regression_tree(X):
    y = X[LONG] * 2 + X[HOSTILE[0]]
    model = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    root = render_svg(tree_to_dot(model, max_depth=1))
    assert_only_graphviz_elements(root)
    node_title(model, 0)  # plain text for a chooser; must not fail on hostile names


@needs_dot
def test_forest_members_and_adaboost_stumps_render(X, y):
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    boost = AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, y)
    for member in [*forest.estimators_, *boost.estimators_]:
        root = render_svg(tree_to_dot(member))
        assert_only_graphviz_elements(root)


@needs_dot
def test_class_names_override_is_escaped_too(X, y):
    model = split_models(X, y)["binary"]
    names = ['"];evil[', "<i>i</i>", LONG]
    root = render_svg(tree_to_dot(model, class_names=names))
    assert_only_graphviz_elements(root)
    assert '"];evil[' in svg_text(root)


def escaped(text: str) -> str:
    """``text`` as plotly.js must receive it to draw the characters: it reads <b>, <i>,
    <br>, <a href>… as markup and decodes &amp; &lt; &gt; back to & < >."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def carried(fig) -> list[str]:
    """Every string the figure carries (what the browser receives), from its JSON."""
    found: list[str] = []

    def walk(node) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict | list):
            for child in node.values() if isinstance(node, dict) else node:
                walk(child)

    walk(json.loads(fig.to_json()))
    return found


def assert_verbatim(fig, *texts: str) -> None:
    """``texts`` reach the figure escaped, and no hostile string reaches it as markup."""
    strings = carried(fig)
    for text in texts:
        assert any(escaped(text) in s for s in strings), text[:40]
    raw = [h for h in HOSTILE if escaped(h) != h]
    leaked = [s[:60] for s in strings if any(h in s for h in raw)]
    assert leaked == []


def test_data_charts_escape_class_and_column_names(frame):
    dataset = Dataset(frame, "🌳 class", random_state=0)
    fig = data_charts.class_balance_figure(dataset.class_balance(), Style())
    assert_verbatim(fig, HOSTILE[1], "two\nlines", "it's")
    axis = list(fig.layout.xaxis.categoryarray)
    assert escaped(HOSTILE[1]) in axis and {str(v) for v in fig.data[0].x} <= set(axis)
    schema = infer_schema(frame.assign(**{HOSTILE[1] + " gaps": [np.nan, "a"] * 32}))
    assert_verbatim(data_charts.missing_values_figure(schema, len(frame), Style()),
                    HOSTILE[1] + " gaps")
    target = frame[HOSTILE[0]].rename(HOSTILE[4])
    assert_verbatim(data_charts.target_histogram(target, Style()), HOSTILE[4])


def test_naive_bayes_figures_escape_labels(X, y):
    model = MixedNB().fit(X, y)
    assert_verbatim(nb_figures.priors_figure(model, Style()), HOSTILE[1])
    curves = nb_figures.gaussian_curves_figure(model.gaussian_params(HOSTILE[0]), HOSTILE[0], 0.5)
    assert_verbatim(curves, HOSTILE[0], HOSTILE[1])
    steps = nb_figures.ledger_steps(model.evidence_ledger(X, 0))
    assert_verbatim(nb_figures.ledger_figure(steps, Style()), HOSTILE[0], HOSTILE[1])
    words = pd.DataFrame([[-1.0, -2.0]], index=["1. <b>x</b>"], columns=[HOSTILE[1], "it's"])
    assert_verbatim(nb_figures.word_figure(words, "words", Style()), "1. <b>x</b>", HOSTILE[1])
    pair = X[[HOSTILE[0], HOSTILE[2]]]
    two = MixedNB().fit(pair, y)
    fig = nb_figures.decision_boundary_figure(nb_figures.decision_grid(two, pair, 20), pair, y,
                                              two.classes_, Style())
    assert_verbatim(fig, HOSTILE[0], HOSTILE[2], HOSTILE[1])


def test_tree_figures_escape_feature_names_categories_and_classes(X, y):
    model = split_models(X, y)["binary"]
    fig = tree_figures.importance_figure(list(model.feature_names_in_),
                                         model.feature_importances_, Style())
    assert_verbatim(fig, HOSTILE[0], HOSTILE[1])
    labels = list(model.classes_)
    fig = tree_figures.confusion_figure(confusion_matrix(y, model.predict(X), labels=labels),
                                        labels, Style())
    assert escaped(HOSTILE[1]) in fig.data[0].x
    assert_verbatim(fig, HOSTILE[1])
    table = split_candidates(model, 0, X, y)
    assert_verbatim(tree_figures.threshold_curve_figure(table, HOSTILE[0], "gini"), HOSTILE[0])
    order = tree_figures.category_order_table(table, HOSTILE[1])
    fig = tree_figures.category_order_figure(order, HOSTILE[1], HOSTILE[1], 1)
    assert escaped(HOSTILE[0]) in fig.data[0].x  # a category value of that column
    assert_verbatim(fig, HOSTILE[1])
    pair = X[[HOSTILE[0], HOSTILE[2]]]
    two = DecisionTreeClassifier(max_depth=2, random_state=0).fit(pair, y)
    fig = tree_figures.boundary_figure(tree_figures.decision_grid(two, pair, 20), pair, y,
                                       pair, y, list(two.classes_))
    assert_verbatim(fig, HOSTILE[0], HOSTILE[2], HOSTILE[1])


def test_ensemble_figures_escape_feature_and_class_names(X, y):
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    table = forest_figures.impurity_importance_table(forest)
    assert_verbatim(forest_figures.importance_bars_figure(table, title="t", x_title="x",
                                                          highlight=HOSTILE[0]), HOSTILE[0])
    votes = forest_figures.vote_table(forest, X.iloc[[0]])
    assert_verbatim(forest_figures.vote_figure(votes), HOSTILE[1])
    assert_verbatim(gb_figures.permutation_figure(table, Style()), HOSTILE[2])
    roc = pd.DataFrame({"model": "Decision tree", "fpr": [0.0, 1.0], "tpr": [0.0, 1.0],
                        "auc": 0.5})
    assert_verbatim(compare_figures.roc_figure(roc, HOSTILE[1]), HOSTILE[1])


def test_boosting_round_figures_escape_names(X, y):
    x = X[[HOSTILE[0]]]
    target = x[HOSTILE[0]].to_numpy() * 2
    model = GradientBoostingRegressor(n_estimators=2, max_depth=1).fit(x, target)
    stages = gb_figures.one_feature_stages(model, x, target, HOSTILE[4])
    assert_verbatim(gb_figures.round_figure(stages, 1, Style()), HOSTILE[0], HOSTILE[4])
    pair = X[[HOSTILE[0], HOSTILE[2]]]
    boost = AdaBoostClassifier(n_estimators=2, random_state=0).fit(pair, y)
    grid = adaboost_figures.staged_grid(boost, pair, resolution=10)
    detail = adaboost_figures.round_detail(boost, 1)
    fig = adaboost_figures.round_figure(grid, 1, pair, y, detail)
    assert_verbatim(fig, HOSTILE[0], HOSTILE[2], HOSTILE[1])


def test_a_tree_on_a_single_feature_draws():
    """Found by fuzzing: a leaf's placeholder feature (-2) was looked up as a column."""
    X = pd.DataFrame({HOSTILE[0]: np.arange(20.0)})
    model = DecisionTreeClassifier(random_state=0).fit(X, np.arange(20) % 3 == 0)
    dot = tree_to_dot(model)
    assert "&lt;b&gt;x&lt;/b&gt;" in dot
