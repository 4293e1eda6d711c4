"""Hostile text in column names, category values and class labels stays text in every picture.

The strings: HTML (``<b>x</b>``, ``<script>alert(1)</script>``), quotes, DOT syntax
(``a"];x[label=<``), a newline, emoji, ampersands and a 10,000-character value.

* DOT (viz.tree_dot) for trees, forest members and AdaBoost stumps, classification and
  regression, binary and multiway splits: ``dot -Tsvg`` accepts it, the SVG is well-formed
  XML with no element the data brought in (no <b>, no <script>), and the SVG's text holds
  the strings as characters.
* Plotly figures (viz.data_charts, viz.nb_figures, viz.tree_figures): the strings are carried
  unchanged as data (axis categories, trace names), and the figure serialises to JSON.
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
from engine.ensemble import AdaBoostClassifier, RandomForestClassifier
from engine.metrics import confusion_matrix
from engine.naive_bayes import MixedNB
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from viz import data_charts, nb_figures, tree_figures
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


def carried(fig) -> str:
    """Every string the figure carries, as one JSON text (what the browser receives)."""
    return json.loads(fig.to_json()).__repr__()


def test_data_charts_carry_hostile_class_names_as_data(frame):
    dataset = Dataset(frame, "🌳 class", random_state=0)
    fig = data_charts.class_balance_figure(dataset.class_balance(), Style())
    categories = {str(v) for trace in fig.data for v in (trace.x if trace.orientation != "h"
                                                         else trace.y)}
    assert {HOSTILE[1], "two\nlines", "it's"} <= categories
    schema = infer_schema(frame.assign(**{HOSTILE[1] + " gaps": [np.nan, "a"] * 32}))
    fig = data_charts.missing_values_figure(schema, len(frame), Style())
    assert any(HOSTILE[1] + " gaps" in [str(v) for v in (t.y if t.y is not None else [])]
               or HOSTILE[1] + " gaps" in [str(v) for v in (t.x if t.x is not None else [])]
               for t in fig.data)


def test_naive_bayes_figures_carry_hostile_labels_as_data(X, y):
    model = MixedNB().fit(X, y)
    fig = nb_figures.priors_figure(model, Style())
    assert HOSTILE[1] in carried(fig) or HOSTILE[1] in str([t.x for t in fig.data] +
                                                          [t.y for t in fig.data])
    labels = list(model.classes_)
    matrix = confusion_matrix(y, model.predict(X), labels=labels)
    fig = nb_figures.confusion_figure(matrix, labels, Style())
    axes = [str(v) for v in (*fig.data[0].x, *fig.data[0].y)]
    assert HOSTILE[1] in axes and "two\nlines" in axes
    fig.to_json()


def test_tree_figures_carry_hostile_feature_names_as_data(X, y):
    model = split_models(X, y)["binary"]
    fig = tree_figures.importance_figure(list(model.feature_names_in_),
                                         model.feature_importances_, Style())
    shown = {str(v) for t in fig.data for v in (*(t.x if t.x is not None else ()),
                                                *(t.y if t.y is not None else ()))}
    assert HOSTILE[0] in shown or HOSTILE[1] in shown
    labels = list(model.classes_)
    fig = tree_figures.confusion_figure(confusion_matrix(y, model.predict(X), labels=labels),
                                        labels, Style())
    assert HOSTILE[1] in {str(v) for v in (*fig.data[0].x, *fig.data[0].y)}


def test_a_tree_on_a_single_feature_draws():
    """Found by fuzzing: a leaf's placeholder feature (-2) was looked up as a column."""
    X = pd.DataFrame({HOSTILE[0]: np.arange(20.0)})
    model = DecisionTreeClassifier(random_state=0).fit(X, np.arange(20) % 3 == 0)
    dot = tree_to_dot(model)
    assert "&lt;b&gt;x&lt;/b&gt;" in dot
