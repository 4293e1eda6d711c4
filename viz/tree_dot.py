"""A fitted decision tree as graphviz DOT text (the path sentences are in ``tree_path``).

The DOT is rendered in the browser (``st.graphviz_chart`` uses Graphviz compiled to
WebAssembly), so every font, colour and width is written into the text itself. All
text that comes from the data (column names, category values, class labels) goes
into HTML-like labels through :func:`html.escape`: a column called ``<b>x</b>`` or
``a"];x[`` is shown as those characters and cannot change the graph.
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import numpy as np

from engine.tree import plurality
from engine.tree._tree import CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY, NUMERIC

from ._text import MAX_NAMED_VALUES, value_list
from .style import Style
from .tree_hist import NodeHistogram, histogram_html

#: Colour of a highlighted decision path (not a class colour, so it never means a class).
HIGHLIGHT = "#D4145A"
#: Grey of what a pruning removes (dashed boxes and edges) and of folded subtrees.
REMOVED, REMOVED_FILL = "#8a909c", "#F3F4F6"
#: Largest number of classes whose names are written out in a node; more show counts only.
MAX_NAMED_CLASSES = 3
#: Beyond this many classes a node lists the first counts and says how many more.
MAX_LISTED_COUNTS = 8
#: Graphviz sizes boxes from its own metrics of a few fonts; Arial is one of them, and the
#: browser draws it (or its metric twin Liberation Sans), so text fits its box.
DOT_FONT = "Arial"


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _num(x: float) -> str:
    return f"{x:.4g}"


def tint(color: str, amount: float) -> str:
    """``color`` (#RRGGBB) mixed with white: ``amount`` 0 is white, 1 the colour itself."""
    rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    mixed = 255 - amount * (255 - rgb)
    return "#" + "".join(f"{int(round(c)):02X}" for c in mixed)


def _purity(counts: np.ndarray) -> float:
    """0 for an even mix of the classes, 1 for a pure node."""
    total, k = counts.sum(), len(counts)
    if total <= 0 or k < 2:
        return 0.0
    return float((counts.max() / total - 1 / k) / (1 - 1 / k))


def _is_classifier(model) -> bool:
    return getattr(model, "_estimator_type", None) == "classifier"


def _majority(counts: np.ndarray) -> int:
    return int(plurality(np.asarray(counts)[None])[0])


class TreeNames:
    """Feature, category and class names of a fitted model, as text for labels."""

    def __init__(self, model, feature_names=None, class_names=None):
        self.features = [str(f) for f in (feature_names if feature_names is not None
                                          else model.feature_names_in_)]
        self.categories = list(getattr(model, "categories_", [None] * len(self.features)))
        classes = class_names if class_names is not None else getattr(model, "classes_", None)
        self.classes = None if classes is None else [str(c) for c in classes]

    def values(self, feature: int, codes: Iterable[int]) -> list[str]:
        cats = self.categories[feature]
        return [str(cats[c]) for c in codes]


def split_text(tree, node: int, names: TreeNames) -> str:
    """The question asked at ``node`` in the data's words (plain text, not escaped)."""
    kind, j = int(tree.split_kind[node]), int(tree.feature[node])
    if kind not in (NUMERIC, CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY):
        return ""  # a leaf: its feature is a placeholder (-2), not a column
    name = names.features[j]
    if kind == NUMERIC:
        t = tree.threshold[node]
        return f"{name} is present" if np.isinf(t) else f"{name} ≤ {_num(t)}"
    if kind == CATEGORICAL_BINARY:
        left = np.flatnonzero(tree.children_by_code(node) == tree.children_left[node])
        return f"{name} ∈ {{{value_list(names.values(j, left))}}}"
    if kind == CATEGORICAL_MULTIWAY:
        return f"{name} ?"


#: A hover text lists at most this many characters of a split's values.
MAX_TOOLTIP_CHARS = 2000


def _full_list(tree, node: int, names: TreeNames) -> str:
    """A ``tooltip`` attribute naming every value of a categorical split whose label
    names only the first few (hovering the box shows them); empty otherwise."""
    if int(tree.split_kind[node]) != CATEGORICAL_BINARY:
        return ""
    j = int(tree.feature[node])
    left = names.values(j, np.flatnonzero(tree.children_by_code(node) == tree.children_left[node]))
    if len(left) <= MAX_NAMED_VALUES:
        return ""
    text = f"{names.features[j]} ∈ {{{', '.join(left)}}}"
    if len(text) > MAX_TOOLTIP_CHARS:
        text = text[:MAX_TOOLTIP_CHARS - 1] + "…"
    return ', tooltip="' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def edge_text(tree, node: int, child: int, names: TreeNames, note_missing: bool = True) -> str:
    """Label of the edge ``node`` → ``child`` (plain text): yes / no or the category values."""
    kind, j = int(tree.split_kind[node]), int(tree.feature[node])
    if kind == CATEGORICAL_MULTIWAY:
        text = value_list(names.values(j, np.flatnonzero(tree.children_by_code(node) == child)))
    else:
        text = "yes" if child == tree.children_left[node] else "no"
    if note_missing and tree.missing_child[node] == child:
        text = f"{text} or missing" if text else "missing"
    return text


def _count_bar(counts: np.ndarray, style: Style) -> str:
    """A row of coloured cells whose widths are the class shares (a fixed-width table)."""
    total = counts.sum()
    if total <= 0:
        return ""
    bar_width = 4 * style.font_size  # in pt, a little wider than "samples = 100"
    widths = np.diff(np.round(np.cumsum(np.r_[0.0, counts]) / total * bar_width)).astype(int)
    height = max(6, style.font_size // 2)
    cells = "".join(
        f'<TD FIXEDSIZE="TRUE" WIDTH="{w}" HEIGHT="{height}" BGCOLOR="{style.color(q)}"></TD>'
        for q, w in enumerate(widths) if w > 0
    )
    return (f'<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0" FIXEDSIZE="TRUE" '
            f'WIDTH="{bar_width}" HEIGHT="{height}"><TR>{cells}</TR></TABLE>')


def count_text(n: float) -> str:
    """A class count as people read it: a whole number with thousands separators
    (3,450), a weighted count to four significant digits."""
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.4g}"


def _counts_rows(counts: np.ndarray, names: TreeNames) -> list[str]:
    """Class counts: "No: 6 · Yes: 6" for two classes, one line per class for three (a
    node is then half as wide, so more of a tree fits the screen), "[…]" for more."""
    as_int = [count_text(c) for c in counts]
    if names.classes is None or len(counts) > MAX_NAMED_CLASSES:
        return ["[" + value_list(as_int, MAX_LISTED_COUNTS) + "]"]
    named = [f"{_e(c)}: {n}" for n, c in zip(as_int, names.classes, strict=True)]
    return [" · ".join(named)] if len(named) <= 2 else named


#: A browser draws Graphviz's SVG at 96 px per 72 pt: a size in pt shows 4/3 as many px.
PX_PER_PT = 4 / 3


def font_sizes(style: Style) -> tuple[int, int, int]:
    """Point sizes of the diagram's text (body, node question, root question).

    Chosen so that, drawn at its natural size, body text is about ``style.font_size``
    px like the rest of the page, and the root's question half as large again. Whole
    points: Graphviz rounds the sizes of HTML-label fonts, and the CSS must match them.
    """
    body = style.font_size / PX_PER_PT
    return round(body), round(body * 1.25), round(body * 1.5)


#: Height of a framed diagram's box (CSS), a share of the screen.
FRAME_HEIGHT = "70vh"


def chart_css(style: Style, *, fit: bool = False, framed: bool = False) -> str:
    """CSS that lets a browser-rendered diagram keep the sizes written in its DOT.

    Streamlit's graphviz chart sets one small font on every element of the SVG, which
    overrides the ``font-size`` attributes Graphviz writes and that it sized the boxes
    for. These rules (numbers only, no user text) restore each size and Graphviz's font.

    Streamlit also shrinks a wide diagram to the width of its column, and on a
    1024-pixel screen with the sidebar open that made an iris tree's text 7 px high.
    Unless ``fit`` is True, the diagram keeps its natural size (text at
    ``style.font_size`` px) and a wider one scrolls sideways inside its own box.
    ``framed`` draws that box with a border and at most ``FRAME_HEIGHT`` of the screen
    high, scrolling both ways: on a projector the top of a tall tree then shows with the
    page around it, and the frame says there is more.
    """
    chart = '[data-testid="stGraphVizChart"]'
    rules = [f'{chart} svg text {{font-family: {DOT_FONT}, '
             f'"Liberation Sans", Helvetica, sans-serif !important;}}']
    rules += [f'{chart} svg text[font-size="{size:.2f}"] '
              f'{{font-size: {size}px !important;}}' for size in sorted(set(font_sizes(style)))]
    if not fit:
        rules += [f"{chart} {{overflow-x: auto; overflow-y: hidden;}}",
                  f"{chart} svg {{max-width: none !important;}}"]
    if framed and not fit:
        rules += [f"{chart} {{overflow: auto !important; max-height: {FRAME_HEIGHT}; "
                  "border: 2px solid #c9ced8; border-radius: 8px; padding: 6px;}",
                  f"{chart} svg {{display: block; margin: 0 auto;}}"]
    return "<style>" + "\n".join(rules) + "</style>"


def _rows(model, tree, node: int, names: TreeNames, criterion: str, style: Style,
          histogram: NodeHistogram | None = None) -> list[str]:
    """Lines of the label of ``node`` as HTML table rows (escaped); short, so nodes stay narrow."""
    size = font_sizes(style)[2 if node == 0 else 1]  # the root is read from the back of the room
    rows = []
    question = split_text(tree, node, names)
    if question:
        rows.append(f'<FONT POINT-SIZE="{size}"><B>{_e(question)}</B></FONT>')
    if histogram is not None:
        rows.append(histogram_html(histogram, style, font_sizes(style)[0]))
    rows.append(f"samples = {int(tree.n_node_samples[node]):,}")
    value = tree.value[node]
    if _is_classifier(model):
        rows += _counts_rows(value, names)
        bar = _count_bar(value, style)
        if bar:
            rows.append(bar)
        rows.append(f"{_e(criterion)} = {tree.impurity[node]:.3f}")
        label = names.classes[_majority(value)] if names.classes else str(_majority(value))
        rows.append(f"<B>class = {_e(label)}</B>")
    else:
        rows.append(f"MSE = {_num(tree.impurity[node])}")
        rows.append(f"<B>value = {_num(value[0])}</B>")
    return rows


def _test_row(test_counts, node: int, rows: str = "test") -> str:
    """ "test: 12 reached, 10 of its class" (classifier) or "test: 12 reached", with
    ``rows`` naming the rows counted."""
    reached, right = test_counts
    text = f"{rows}: {int(reached[node]):,} reached"
    if right is not None:
        text += f", {int(right[node]):,} of its class"
    return f"<I>{text}</I>"


def _label(rows: Sequence[str]) -> str:
    body = "".join(f"<TR><TD>{r}</TD></TR>" for r in rows)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="1">{body}</TABLE>>'


def _colors(model, tree, node: int, style: Style, value_range) -> tuple[str, str]:
    """(fill, border): the majority class's colour, tinted by purity; regression by value."""
    value = tree.value[node]
    if _is_classifier(model):
        color = style.color(_majority(value))
        return tint(color, 0.12 + 0.5 * _purity(value)), color
    lo, hi = value_range
    share = 0.5 if hi <= lo else (value[0] - lo) / (hi - lo)
    return tint(style.color(0), 0.08 + 0.55 * share), style.color(0)


def default_display_depth(tree, max_boxes: int = 10, limit: int = 4) -> int:
    """The deepest display limit (at most ``limit``) that draws at most ``max_boxes`` on the
    bottom row, so the diagram fits a projected screen without shrinking its type."""
    for depth in range(min(limit, tree.max_depth), 0, -1):
        shown = tree.depth <= depth
        bottom = shown & ((tree.children_left < 0) | (tree.depth == depth))
        if bottom.sum() <= max_boxes:
            return depth
    return 1


def _shown(tree, max_depth: int | None,
           around: Iterable[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nodes drawn, and the drawn nodes whose children are hidden: by the depth limit, or
    (``around`` a path) every node off the path, which is drawn with its children only."""
    if around is not None:
        path = np.asarray(sorted(int(i) for i in around), dtype=np.intp)
        on = np.zeros(tree.node_count, dtype=bool)
        on[path] = True
        shown = np.flatnonzero(on | ((tree.parent >= 0) & on[np.maximum(tree.parent, 0)]))
        return shown, shown[~on[shown] & (tree.children_left[shown] >= 0)]
    if max_depth is None:
        return np.arange(tree.node_count), np.zeros(0, dtype=np.intp)
    shown = np.flatnonzero(tree.depth <= max_depth)
    cut = shown[(tree.depth[shown] == max_depth) & (tree.children_left[shown] >= 0)]
    return shown, cut


def _descendants(tree) -> np.ndarray:
    """Number of nodes below each node (children first, so one pass from the deepest)."""
    below = np.zeros(tree.node_count, dtype=np.intp)
    for node in np.argsort(-tree.depth, kind="stable"):
        if tree.parent[node] >= 0:
            below[tree.parent[node]] += below[node] + 1
    return below


def _header(style: Style) -> list[str]:
    font, size = DOT_FONT, font_sizes(style)[0]
    pen = style.line_width / 2
    # Graphviz sets an edge's label beside the middle of the edge, on its right: siblings
    # stand far enough apart for one edge's label to clear the next edge by half an em
    # (tests/viz/test_tree_dot.py checks it on Graphviz's layout). It grows with the type.
    nodesep = 0.024 * style.font_size
    return [
        "digraph Tree {",
        f'graph [bgcolor="transparent", ranksep="{0.35 + 0.01 * style.font_size:.2f}", '
        f'nodesep="{nodesep:.2f}", fontname="{font}", margin="0", ordering="out"];',
        f'node [shape="box", style="rounded,filled", fontname="{font}", '
        f'fontsize="{size}", fontcolor="{style.text_color}", penwidth="{pen:g}", '
        f'margin="0.08,0.04"];',
        f'edge [fontname="{font}", fontsize="{size}", color="#5b6270", '
        f'fontcolor="{style.text_color}", arrowsize="{0.5 + 0.02 * style.font_size:.2f}"];',
    ]


def tree_to_dot(
    model,
    *,
    style: Style = Style(),
    max_depth: int | None = None,
    highlight_path: Iterable[int] | None = None,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    tree=None,
    criterion: str | None = None,
    missing_features: Iterable[int] | None = None,
    removed: Iterable[int] | None = None,
    test_counts: tuple[np.ndarray, np.ndarray | None] | None = None,
    counted_rows: str = "test",
    histograms: dict[int, NodeHistogram] | None = None,
    path_only: bool = False,
) -> str:
    """The tree as DOT text for ``st.graphviz_chart`` (or ``dot -Tsvg``).

    Parameters
    ----------
    model : fitted DecisionTreeClassifier or DecisionTreeRegressor
        Gives the names (``feature_names_in_``, ``categories_``, ``classes_``).
    style : Style
        Palette (node colour = majority class), font size and line widths.
    max_depth : int or None
        Display limit: nodes deeper than this are not drawn; a node with hidden
        children gets a dashed "… n more nodes" box.
    highlight_path : iterable of int, optional
        Node ids of a decision path: their borders and the edges between them are
        drawn thick in :data:`HIGHLIGHT`.
    feature_names, class_names : sequences of str, optional
        Override the model's names.
    tree : Tree, optional
        Draw this tree instead of ``model.tree_`` (e.g. ``model.tree_.collapse(...)``).
    criterion : str, optional
        Name of the impurity shown in each node; default the model's criterion.
    missing_features : iterable of int, optional
        Features whose edges say where a missing value goes ("yes or missing");
        default every feature (pass those with missing values in training to keep
        diagrams of complete data uncluttered).
    removed : iterable of int, optional
        Nodes whose split a pruning removes (e.g. ``viz.tree_prune.chi2_removed``):
        each gets a dashed border (it becomes a leaf), and the nodes and edges below
        it are drawn dashed and grey.
    test_counts : (reached, right), optional
        Per node, the rows of a test set that reach it and, for a classifier, how many
        of them are of its class (``engine.inspection.node_test_counts``): one more line
        in each node, "test: 12 reached, 10 of its class".
    counted_rows : str
        What that line calls the rows counted ("all rows" for a table fitted whole).
    histograms : {node: NodeHistogram}, optional
        Drawn under the question of those nodes: the class histogram of the node's
        feature, threshold marked (``viz.tree_hist.node_histograms``).
    path_only : bool
        Draw only the nodes of ``highlight_path`` and their children (the other
        subtrees folded into "… n more nodes" boxes): a long path in a big tree fits.

    Returns
    -------
    str
        DOT text: one ``n<id>`` node per drawn tree node; leaves (and collapsed
        boxes) on one rank at the bottom when ``style.leaves_in_a_row``.
    """
    tree = model.tree_ if tree is None else tree
    names = TreeNames(model, feature_names, class_names)
    criterion = criterion or getattr(model, "criterion", "impurity")
    if criterion == "gain_ratio":
        criterion = "entropy"  # C4.5 measures node impurity by entropy
    path = set(int(i) for i in highlight_path) if highlight_path is not None else set()
    shown, cut = _shown(tree, max_depth, path if path_only and path else None)
    value_range = (tree.value[:, 0].min(), tree.value[:, 0].max())
    lines = _header(style)
    cut_splits = set() if removed is None else set(int(i) for i in removed)
    gone = _below(tree, cut_splits)
    for node in shown:
        fill, border = _colors(model, tree, node, style, value_range)
        pen = style.line_width * (2.5 if node in path else 0.5)
        attrs = f'fillcolor="{fill}", color="{HIGHLIGHT if node in path else border}"'
        if node in gone:
            attrs = f'fillcolor="{REMOVED_FILL}", color="{REMOVED}", fontcolor="{REMOVED}"'
        if node in cut_splits or node in gone:
            attrs += ', style="dashed,rounded,filled"'
        rows = _rows(model, tree, node, names, criterion, style,
                     None if histograms is None else histograms.get(int(node)))
        if test_counts is not None:
            rows.append(_test_row(test_counts, node, counted_rows))
        lines.append(f'n{node} [label={_label(rows)}, '
                     f'{attrs}, penwidth="{pen:g}"{_full_list(tree, node, names)}];')
    noted = None if missing_features is None else set(int(j) for j in missing_features)
    lines += _edges(tree, shown, path, names, style, noted, gone)
    lines += _collapsed(tree, cut, style)
    bottom = [f"n{i}" for i in shown if tree.children_left[i] < 0] + [f"more{i}" for i in cut]
    if len(bottom) > 1 and style.leaves_in_a_row and not path_only:  # a path stays compact
        lines.append("{rank=same; " + "; ".join(bottom) + ";}")
    lines.append("}")
    return "\n".join(lines)


def _below(tree, nodes: set) -> set:
    """Every node with an ancestor in ``nodes`` (one pass down the levels)."""
    if not nodes:
        return set()
    marked = np.zeros(tree.node_count, dtype=bool)
    marked[list(nodes)] = True
    below = np.zeros(tree.node_count, dtype=bool)
    for depth in range(1, int(tree.max_depth) + 1):
        at = np.flatnonzero(tree.depth == depth)
        below[at] = below[tree.parent[at]] | marked[tree.parent[at]]
    return set(np.flatnonzero(below).tolist())


def _edges(tree, shown: np.ndarray, path: set, names: TreeNames, style: Style,
           noted: set | None, gone: set = frozenset()) -> list[str]:
    drawn = set(shown.tolist())
    root_weight = max(tree.weighted_n_node_samples[0], np.finfo(float).tiny)
    lines = []
    for child in shown[1:]:
        parent = int(tree.parent[child])
        if parent not in drawn:
            continue
        share = tree.weighted_n_node_samples[child] / root_weight
        width = style.line_width * (0.5 + 3.0 * share)
        on_path = parent in path and child in path
        attrs = f'penwidth="{width * (1.6 if on_path else 1):.2f}"'
        if on_path:
            attrs += f', color="{HIGHLIGHT}", fontcolor="{HIGHLIGHT}"'
        elif child in gone:
            attrs += f', style="dashed", color="{REMOVED}", fontcolor="{REMOVED}"'
        note = noted is None or int(tree.feature[parent]) in noted
        # "or missing" on a line of its own: a narrow label keeps clear of its neighbour's
        text = _e(edge_text(tree, parent, int(child), names, note)).replace(
            " or missing", "<BR/>or missing")
        lines.append(f"n{parent} -> n{child} [label=<{text}>, {attrs}];")
    return lines


def _collapsed(tree, cut: np.ndarray, style: Style) -> list[str]:
    if len(cut) == 0:
        return []
    below = _descendants(tree)
    lines = []
    for node in cut:
        lines.append(f'more{node} [label="… {below[node]} more nodes", style="dashed,rounded", '
                     f'fillcolor="white", color="#8a909c", fontcolor="#5b6270"];')
        lines.append(f'n{node} -> more{node} [style="dashed", color="#8a909c"];')
    return lines


def node_title(model, node: int, tree=None) -> str:
    """'node 3 · depth 2 · petal_width ≤ 1.75' (plain text), for a node chooser."""
    tree = model.tree_ if tree is None else tree
    question = split_text(tree, node, TreeNames(model)) or "leaf"
    return f"node {node} · depth {int(tree.depth[node])} · {question}"
