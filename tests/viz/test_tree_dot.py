"""The tree diagram's DOT text and the path sentences, checked without a browser."""
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset, load_sample
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from viz.style import PALETTE, Style
from viz.tree_dot import (
    HIGHLIGHT,
    chart_css,
    count_text,
    default_display_depth,
    node_title,
    tint,
    tree_to_dot,
)
from viz.tree_path import explain_path


def node_ids(dot: str) -> list[str]:
    return re.findall(r"^(n\d+) \[label=", dot, flags=re.M)


@pytest.fixture(scope="module")
def restaurant():
    data = Dataset(load_sample("restaurant"), "WillWait")
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway")
    return model.fit(data.X, data.y), data


@pytest.fixture(scope="module")
def iris():
    data = Dataset(load_sample("iris"), "species")
    return DecisionTreeClassifier().fit(data.X_train, data.y_train), data


def test_aima_tree_has_one_dot_node_per_tree_node_and_the_splits_in_words(restaurant):
    model, _ = restaurant
    dot = tree_to_dot(model)
    assert len(node_ids(dot)) == model.tree_.node_count == 12
    assert "<B>Patrons ?</B>" in dot and "<B>Hungry ?</B>" in dot and "<B>Fri/Sat ?</B>" in dot
    for value in ("Full", "None", "Some", "Burger", "French", "Italian", "Thai"):
        assert re.search(rf"-> n\d+ \[label=<{value}(<BR/>or missing)?>", dot), value
    assert "samples = 12" in dot and "No: 6 · Yes: 6" in dot and "entropy = 1.000" in dot
    assert dot.count(" -> ") == model.tree_.node_count - 1


def test_leaves_share_the_bottom_rank(restaurant):
    model, _ = restaurant
    rank = re.search(r"\{rank=same; (.*);\}", tree_to_dot(model)).group(1).split("; ")
    leaves = np.flatnonzero(model.tree_.children_left < 0)
    assert sorted(rank) == sorted(f"n{i}" for i in leaves)


def test_numeric_split_reads_feature_le_threshold_and_binary_categorical_a_set(iris, restaurant):
    model, _ = iris
    assert "<B>petal_length ≤ 2.45</B>" in tree_to_dot(model)
    data = restaurant[1]
    binary = DecisionTreeClassifier(criterion="entropy").fit(data.X, data.y)
    # Patrons sorted by share of Yes: None 0/2, Full 2/6, Some 4/4; the best prefix goes left.
    assert "<B>Patrons ∈ {Full, None}</B>" in tree_to_dot(binary)


def test_fill_is_the_majority_class_palette_colour_tinted_by_purity(iris):
    model, _ = iris
    dot = tree_to_dot(model)
    setosa_leaf = int(model.tree_.children_left[0])  # pure setosa
    line = next(x for x in dot.splitlines() if x.startswith(f"n{setosa_leaf} [label="))
    assert f'color="{PALETTE[0]}"' in line
    assert f'fillcolor="{tint(PALETTE[0], 0.62)}"' in line
    root = next(x for x in dot.splitlines() if x.startswith("n0 [label="))
    assert f'fillcolor="{tint(PALETTE[2], 0.12 + 0.5 * (38 / 112 - 1 / 3) / (2 / 3))}"' in root


def test_tint_mixes_with_white():
    assert tint("#0072B2", 0.0) == "#FFFFFF"
    assert tint("#0072B2", 1.0) == "#0072B2"


def test_hostile_names_are_escaped_and_cannot_break_the_graph():
    X = pd.DataFrame({"<b>x</b>": [1.0, 2.0, 3.0, 4.0],
                      'a"];x[': pd.Categorical(['p"q', "<i>", "p\"q", "<i>"])})
    y = ["<script>", "&amp;", "<script>", "&amp;"]
    model = DecisionTreeClassifier().fit(X, y)
    dot = tree_to_dot(model)
    assert "<b>x</b>" not in dot and "<script>" not in dot and 'a"];x[' not in dot
    assert "&lt;b&gt;x&lt;/b&gt;" in dot or "a&quot;];x[" in dot
    assert "&amp;amp;" in dot or "&lt;script&gt;" in dot
    # Every node line is one attribute list: quotes balance outside the HTML label.
    for line in dot.splitlines():
        if line.startswith("n") and "[label=<" in line:
            outside = re.sub(r"label=<.*>,", "", line)
            assert outside.count('"') % 2 == 0


def test_highlighted_path_edges_and_borders(iris):
    model, data = iris
    row = data.X_test.iloc[[0]]
    path = np.flatnonzero(model.decision_path(row)[0])
    dot = tree_to_dot(model, highlight_path=path)
    highlighted = re.findall(rf'^n(\d+) -> n(\d+) .*color="{HIGHLIGHT}"', dot, flags=re.M)
    assert [(int(a), int(b)) for a, b in highlighted] == list(zip(path[:-1], path[1:], strict=True))
    bordered = re.findall(rf'^n(\d+) \[label=.*color="{HIGHLIGHT}"', dot, flags=re.M)
    assert [int(i) for i in bordered] == path.tolist()


def test_a_path_alone_draws_its_nodes_and_their_children_and_folds_the_rest():
    data = Dataset(load_sample("spambase"), "spam")
    model = DecisionTreeClassifier(max_depth=8).fit(data.X_train, data.y_train)
    tree = model.tree_
    path = np.flatnonzero(model.decision_path(data.X_test.iloc[[5]])[0])
    dot = tree_to_dot(model, highlight_path=path, path_only=True)
    children = np.flatnonzero(np.isin(tree.parent, path))
    assert sorted(int(i[1:]) for i in node_ids(dot)) == sorted({0, *path.tolist(), *children.tolist()})
    folded = [c for c in children if c not in path and tree.children_left[c] >= 0]
    below = {c: int(n) for c, n in re.findall(r"^more(\d+) \[label=\"… (\d+) more", dot, re.M)}
    assert sorted(int(c) for c in below) == sorted(folded)
    # every node is drawn or counted in one box
    assert len(node_ids(dot)) + sum(below.values()) == tree.node_count


def test_depth_limit_folds_subtrees_into_a_more_box(iris):
    model, _ = iris
    tree = model.tree_
    dot = tree_to_dot(model, max_depth=1)
    assert len(node_ids(dot)) == int((tree.depth <= 1).sum())
    hidden = tree.node_count - int((tree.depth <= 1).sum())
    counts = [int(n) for n in re.findall(r"… (\d+) more nodes", dot)]
    assert sum(counts) == hidden and len(counts) == 1


def test_presentation_style_writes_larger_type_and_pens(iris):
    model, _ = iris
    normal, big = tree_to_dot(model), tree_to_dot(model, style=Style.presentation())
    size = lambda dot: float(re.search(r'node \[.*fontsize="([\d.]+)"', dot).group(1))  # noqa: E731
    # Sizes in pt; a browser shows 4/3 px per pt, so text shows at Style.font_size px.
    assert size(big) * 4 / 3 == pytest.approx(24) and size(normal) * 4 / 3 == pytest.approx(14, abs=1)
    assert 'POINT-SIZE="27"' in big  # the root's question, 1.5 × 24 px = 27 pt
    assert 'text[font-size="18.00"] {font-size: 18px' in chart_css(Style.presentation())
    pens = lambda dot: max(float(w) for w in re.findall(r'penwidth="([\d.]+)"', dot))  # noqa: E731
    assert pens(big) > pens(normal)


def test_missing_side_is_noted_only_for_features_with_missing_values(iris):
    model, _ = iris
    assert "or missing" in tree_to_dot(model)
    assert "or missing" not in tree_to_dot(model, missing_features=[])


def test_path_sentences_follow_the_aima_tree(restaurant):
    model, data = restaurant
    sentences = explain_path(model, data.X.iloc[1])
    assert sentences[0].startswith("Patrons is Full, so go to the branch 'Full")
    assert sentences[1].startswith("Hungry is Yes")
    assert sentences[-1].startswith("Leaf reached: predict No")
    assert len(sentences) == int(model.decision_path(data.X.iloc[[1]])[0].sum())


def test_numeric_path_sentence_states_the_comparison(iris):
    model, data = iris
    row = data.X_test.iloc[0]
    first = explain_path(model, row)[0]
    sign = "≤" if row["petal_length"] <= 2.45 else ">"
    assert first.startswith(f"petal_length is {row['petal_length']:.4g} {sign} 2.45")


def test_regression_nodes_show_mean_and_squared_error():
    data = Dataset(load_sample("friedman1"), "y")
    model = DecisionTreeRegressor(max_depth=2).fit(data.X_train, data.y_train)
    dot = tree_to_dot(model)
    assert len(node_ids(dot)) == model.tree_.node_count
    assert f"value = {model.tree_.value[0, 0]:.4g}" in dot and "MSE = " in dot
    assert explain_path(model, data.X_test.iloc[0])[-1].startswith("Leaf reached: predict ")


def test_default_display_depth_keeps_the_bottom_row_short(iris):
    model, _ = iris
    depth = default_display_depth(model.tree_, max_boxes=4)
    dot = tree_to_dot(model, max_depth=depth)
    bottom = re.search(r"\{rank=same; (.*);\}", dot).group(1).split("; ")
    assert len(bottom) <= 4
    assert node_title(model, 0) == "node 0 · depth 0 · petal_length ≤ 2.45"


def test_three_classes_get_a_line_each_so_nodes_stay_narrow(iris, restaurant):
    model, _ = iris
    root = next(x for x in tree_to_dot(model).splitlines() if x.startswith("n0 [label="))
    assert "<TD>setosa: 37</TD>" in root and "<TD>versicolor: 37</TD>" in root
    assert "<TD>virginica: 38</TD>" in root
    assert "No: 6 · Yes: 6" in tree_to_dot(restaurant[0])  # two classes stay on one line


def test_chart_css_keeps_the_natural_size_and_scrolls_unless_asked_to_fit():
    scroll, fit = chart_css(Style()), chart_css(Style(), fit=True)
    assert '[data-testid="stGraphVizChart"] {overflow-x: auto;' in scroll
    assert "svg {max-width: none !important;}" in scroll
    assert "overflow-x" not in fit and "max-width" not in fit
    assert fit in scroll.replace(scroll[scroll.index('\n[data-testid="stGraphVizChart"] {'):-8], "")


def test_removed_splits_are_dashed_and_what_hangs_below_them_grey(iris):
    model, _ = iris
    tree = model.tree_
    split = int(tree.children_right[0])  # the root's right child, an internal node
    dot = tree_to_dot(model, removed=[split])
    below = [i for i in range(tree.node_count) if _has_ancestor(tree, i, split)]
    assert below, "the chosen split has nodes below it"
    line = {int(m.group(1)): m.group(0) for m in re.finditer(r"^n(\d+) \[label=.*$", dot, re.M)}
    assert 'style="dashed,rounded,filled"' in line[split] and "#8a909c" not in line[split]
    for node in below:
        assert 'style="dashed,rounded,filled"' in line[node] and 'color="#8a909c"' in line[node]
    kept = set(range(tree.node_count)) - set(below) - {split}
    assert all("dashed" not in line[node] for node in kept)
    grey_edges = re.findall(r'^n\d+ -> n(\d+) \[.*style="dashed", color="#8a909c"', dot, re.M)
    assert sorted(int(c) for c in grey_edges) == sorted(below)
    assert tree_to_dot(model, removed=[]) == tree_to_dot(model)


def _has_ancestor(tree, node: int, ancestor: int) -> bool:
    parent = int(tree.parent[node])
    while parent >= 0:
        if parent == ancestor:
            return True
        parent = int(tree.parent[parent])
    return False


@pytest.fixture(scope="module")
def gappy():
    """Two columns, one with missing values in training, one categorical."""
    X = pd.DataFrame({"colour": ["red"] * 4 + ["blue"] * 4,
                      "size": [1.0, 2.0, np.nan, 7.0, 4.0, 5.0, 6.0, np.nan]})
    y = ["a", "a", "a", "b", "b", "b", "b", "b"]
    return DecisionTreeClassifier(max_depth=2).fit(X, y)


def test_unseen_category_sentence_names_the_rule_and_the_rows(gappy):
    row = pd.Series({"size": 3.0, "colour": "green"})
    tree = gappy.tree_
    root_feature = gappy.feature_names_in_[tree.feature[0]]
    sentences = explain_path(gappy, row)
    unseen = [s for s in sentences if "not seen in training" in s]
    assert root_feature == "colour" and len(unseen) == 1
    heaviest = max(tree.children(0), key=lambda c: tree.weighted_n_node_samples[c])
    assert f"{int(tree.n_node_samples[heaviest])} of the 8 training rows" in unseen[0]
    assert "most training rows" in unseen[0]


def test_missing_value_sentence_says_learned_side_or_majority(gappy):
    sentences = explain_path(gappy, pd.Series({"size": np.nan, "colour": "red"}),
                             missing_features=[1])
    missing = [s for s in sentences if s.startswith("size is missing")]
    assert len(missing) == 1 and ("fitted best" in missing[0] or "learned" in missing[0])
    # A feature complete in training: missing values can only follow the majority.
    told = explain_path(gappy, pd.Series({"size": np.nan, "colour": "red"}), missing_features=[])
    missing = [s for s in told if s.startswith("size is missing")]
    assert "no training row lacked this value" in missing[0] and "training rows here" in missing[0]


def _label_texts(dot: str) -> list[str]:
    """The text of every label in the DOT: node tables' cells and edge labels, tags removed."""
    texts = []
    for label in re.findall(r"label=<(.*?)>[,\]]", dot):
        texts += [t.strip() for t in re.split(r"<[^>]*>", label) if t.strip()]
    return texts


@pytest.mark.parametrize("split", ["binary", "multiway"])
def test_a_split_on_many_categories_names_a_handful_and_counts_the_rest(split):
    """A column of 40 ticket codes and a target of 30 classes: no label in the diagram is
    wider than 80 characters; the rest of a set is counted ("… 15 more")."""
    rng = np.random.default_rng(1)
    tickets = np.array([f"{349000 + i}" for i in range(40)])
    X = pd.DataFrame({"ticket": pd.Categorical(tickets[rng.integers(0, 40, 400)])})
    y = np.where(X["ticket"].cat.codes.to_numpy() % 2 == 0, "yes", "no")
    dot = tree_to_dot(DecisionTreeClassifier(max_depth=2, categorical_split=split).fit(X, y))
    longest = max(_label_texts(dot), key=len)
    assert len(longest) <= 80, longest
    if split == "binary":  # multiway: one edge a category, each short already
        assert re.search(r"ticket ∈ \{(\d+, ){5}… \d+ more\}", dot)
    many = DecisionTreeClassifier(max_depth=1).fit(X, X["ticket"].astype(str).str[-2:])
    counts = [t for t in _label_texts(tree_to_dot(many)) if t.startswith("[")]
    assert counts and all(len(t) <= 80 and "more" in t for t in counts)


def test_a_long_value_list_is_abbreviated_in_the_box_and_whole_on_hover():
    import subprocess

    rng = np.random.default_rng(0)
    codes = [f'T"{i}' for i in range(30)]  # a quote in every value: escaped in the DOT
    X = pd.DataFrame({"ticket": rng.choice(codes, 300)})
    y = (X["ticket"].str[2:].astype(int) % 2).astype(str)
    dot = tree_to_dot(DecisionTreeClassifier(max_depth=1).fit(X, y))
    root = next(line for line in dot.splitlines() if line.startswith("n0 "))
    assert "more}" in root  # the label names a few and counts the rest
    tooltip = root.split('tooltip="', 1)[1]
    assert all(f'T\\"{i}' in tooltip for i in range(0, 30, 2))  # the left side, every value
    if shutil.which("dot"):
        svg = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, check=True)
        assert b'T&quot;28' in svg.stdout


def test_projector_trees_keep_each_leaf_at_its_depth(iris):
    model, _ = iris
    dot = tree_to_dot(model, style=Style.presentation())
    assert "rank=same" not in dot  # the setosa leaf stays right under the root
    assert "rank=same" in tree_to_dot(model)


def _label_boxes_and_edges(dot: str):
    """Each edge label's box (x0, x1, y0, y1) in points, widened by a quarter em on each side
    (words closer than that read as one: "Overcast Rain"), and each edge's path, from
    Graphviz's own layout (``dot -Tjson``)."""
    import json
    import subprocess

    layout = json.loads(subprocess.run(["dot", "-Tjson"], input=dot.encode(), check=True,
                                       capture_output=True).stdout)
    boxes, paths = [], []
    for edge in layout["edges"]:
        points = np.array([p for op in edge["_draw_"] if op["op"] == "b" for p in op["points"]])
        paths.append(points)
        texts = [op for op in edge.get("_ldraw_", []) if op["op"] == "T"]
        size = next((op["size"] for op in edge.get("_ldraw_", []) if op["op"] == "F"), 14.0)
        if texts:
            x0 = min(op["pt"][0] for op in texts) - 0.25 * size
            x1 = max(op["pt"][0] + op["width"] for op in texts) + 0.25 * size
            ys = [op["pt"][1] for op in texts]
            boxes.append((len(paths) - 1, (x0, x1, min(ys) - 0.25 * size, max(ys) + 0.75 * size)))
    return boxes, paths


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz")
@pytest.mark.parametrize("style", [Style(), Style.presentation()], ids=["screen", "projector"])
def test_edge_labels_clear_the_other_edges_and_labels(style):
    frame = load_sample("playtennis").drop(columns=["Day"])
    data = Dataset(frame, "PlayTennis")
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway")
    boxes, paths = _label_boxes_and_edges(tree_to_dot(model.fit(data.X, data.y), style=style))
    assert len(boxes) == model.tree_.node_count - 1
    for i, (x0, x1, y0, y1) in boxes:
        for j, path in enumerate(paths):
            inside = ((path[:, 0] > x0) & (path[:, 0] < x1) & (path[:, 1] > y0) & (path[:, 1] < y1))
            assert j == i or not inside.any(), (i, j)
        for k, (a0, a1, b0, b1) in boxes:
            assert k == i or a1 <= x0 or x1 <= a0 or b1 <= y0 or y1 <= b0, (i, k)


def test_class_counts_group_thousands_and_weighted_counts_keep_four_digits():
    """A node of a large upload reads "no: 75,002 · yes: 1,250,000", not 75002 and
    1.25e+06; a weighted count keeps four significant digits."""
    tree = DecisionTreeClassifier(max_depth=1).fit(np.array([[0.0], [1.0]]), ["no", "yes"],
                                                   sample_weight=[75_002, 1_250_000])
    dot = tree_to_dot(tree)
    assert "no: 75,002 · yes: 1,250,000" in dot
    assert count_text(2.5) == "2.5" and count_text(1234.5678) == "1,235"
