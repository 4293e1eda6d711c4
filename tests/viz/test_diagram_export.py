"""DOT → SVG / PNG with Graphviz's ``dot`` program: the files hold the diagram's text."""
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, load_sample
from engine.tree import DecisionTreeClassifier
from viz import diagram_export
from viz.diagram_export import render_dot, unavailable_reason
from viz.tree_dot import tree_to_dot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"

needs_dot = pytest.mark.skipif(diagram_export.dot_binary() is None,
                               reason="Graphviz's dot is not installed (apt-get install graphviz)")


def svg_texts(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)  # raises if the file is not well-formed XML
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


@pytest.fixture(scope="module")
def iris_dot():
    data = Dataset(load_sample("iris"), "species")
    return tree_to_dot(DecisionTreeClassifier(max_depth=3).fit(data.X_train, data.y_train))


@needs_dot
def test_svg_is_xml_holding_every_node_label(iris_dot):
    texts = svg_texts(render_dot(iris_dot, "svg"))
    assert "petal_length ≤ 2.45" in texts
    assert "samples = 112" in texts
    assert sum(t.startswith("class = ") for t in texts) == iris_dot.count("class = ")


@needs_dot
def test_png_starts_with_the_png_signature_and_is_large_enough_to_read(iris_dot):
    png = render_dot(iris_dot, "png")
    assert png[:8] == PNG_SIGNATURE
    width, height = (int.from_bytes(png[16 + 4 * i:20 + 4 * i], "big") for i in (0, 1))
    # 192 dpi: twice the pixels a browser shows the same diagram with.
    svg = ET.fromstring(render_dot(iris_dot, "svg"))
    assert width == pytest.approx(2 * float(svg.get("width").removesuffix("pt")) * 4 / 3, rel=0.02)
    assert height > 200


@needs_dot
def test_hostile_column_and_class_names_render_as_text():
    hostile, sneaky = "<b>x</b>", 'a"];x['  # a DOT injection attempt
    X = pd.DataFrame({hostile: [0.0, 1.0, 2.0, 3.0] * 2, sneaky: list("ppppqqqq")})
    y = np.array(["<i>no</i>"] * 5 + ["yes"] * 3)
    model = DecisionTreeClassifier().fit(X, y)
    tree = model.tree_
    texts = svg_texts(render_dot(tree_to_dot(model), "svg"))
    assert f"{sneaky} ∈ {{p}}" in texts and f"{hostile} ≤ 0.5" in texts  # as text, tags and all
    assert "class = <i>no</i>" in texts and "<i>no</i>: 5 · yes: 3" in texts
    # Four lines per node, a question per split, a label per edge (its "or missing" on a
    # second line): nothing was injected.
    n_splits = int((tree.children_left >= 0).sum())
    second_lines = texts.count("or missing")
    assert len(texts) == 4 * tree.node_count + n_splits + tree.node_count - 1 + second_lines


@needs_dot
def test_download_has_a_white_background_not_the_pages_transparency():
    root = ET.fromstring(render_dot("digraph { bgcolor=transparent; a -> b }", "svg"))
    background = root.find(f"{SVG}g/{SVG}polygon")
    assert background.get("fill") == "white"


def test_without_the_dot_program_nothing_is_rendered_and_the_reason_is_given(monkeypatch):
    monkeypatch.setattr(diagram_export, "dot_binary", lambda: None)
    assert render_dot("digraph { a -> b }", "png") is None
    assert "not available" in unavailable_reason("digraph { a -> b }")


@needs_dot
def test_oversized_diagrams_and_timeouts_give_none_not_a_hung_server():
    huge = "digraph {" + "".join(f"n{i} -> n{i + 1};" for i in range(40_000)) + "}"
    assert len(huge) > diagram_export.MAX_DOT_CHARS
    assert render_dot(huge, "svg") is None and "too large" in unavailable_reason(huge)
    assert "too large" in unavailable_reason(huge[:diagram_export.MAX_DOT_CHARS // 2], "png")
    chain = "digraph {" + "".join(f"n{i} -> n{i + 1};" for i in range(3_000)) + "}"
    assert render_dot(chain, "svg", timeout=0.001) is None


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="format"):
        render_dot("digraph { a }", "pdf")
