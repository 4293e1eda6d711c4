"""Inside the nodes: per split, the class histogram of the feature it asks about.

For each drawn split node, the training rows that reach it are binned on the node's
feature and each bar is stacked by class (one colour for a regression tree), so the
diagram shows *why* the threshold sits where it does: the classes part on either side of
it (the view of dtreeviz; Parr & Grover 2018). A numeric split's bars are equal-width
bins laid so that the threshold falls on a bin edge, where a dark line marks it; a
categorical split has one bar per category. A strip under the bars is dark under the
values that answer "yes" (go to the left child).

The histograms are HTML-like table cells (``histogram_html``) placed in the node's label
by ``viz.tree_dot.tree_to_dot``: Graphviz draws them itself, in the browser too.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.tree._tree import CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY, NUMERIC

from .style import Style

#: Bins of a numeric feature's histogram over the node's range (one more when the
#: threshold shifts the grid).
HIST_BINS = 12
#: A categorical split with more categories at the node than this draws no histogram.
MAX_CATEGORY_BARS = 16
#: Training rows the histograms count at most (the caller draws the sample).
HIST_ROWS = 20_000
#: The line that marks a threshold and the strip under the "yes" values.
MARK, UNMARKED = "#1f2430", "#d5d9e0"


@dataclass(frozen=True)
class NodeHistogram:
    """One node's histogram: ``counts[b, k]`` rows of class ``k`` (or all rows, one
    column, for regression) in bar ``b``; ``yes[b]`` whether bar ``b``'s values go to the
    left child; ``cut`` the number of bars left of a numeric threshold (None for a
    categorical split); ``ends`` a numeric axis' first and last values as text (None for
    categories: one bar each, in the order of the feature's categories); ``missing``
    the rows at the node without a value of the feature."""

    counts: np.ndarray
    yes: np.ndarray
    cut: int | None
    ends: tuple[str, str] | None
    missing: int


def _ancestors(tree, leaves: np.ndarray) -> np.ndarray:
    """``out[d, i]``: the node at depth ``d`` on row ``i``'s path (-1 below its leaf)."""
    out = np.full((int(tree.max_depth) + 1, len(leaves)), -1, dtype=np.intp)
    node = leaves.copy()
    for depth in range(int(tree.max_depth), -1, -1):
        here = tree.depth[node] == depth
        out[depth, here] = node[here]
        node = np.where(here, np.maximum(tree.parent[node], 0), node)
    return out


def node_histograms(model, X: pd.DataFrame, y, nodes) -> dict[int, NodeHistogram]:
    """The histogram of each split node in ``nodes`` over the rows of (X, y) reaching it.

    ``model`` is a fitted decision tree; ``X`` has its features, ``y`` is the target
    (class labels of ``model.classes_``, or numbers). Leaves, "is present" splits and
    categorical splits with more than MAX_CATEGORY_BARS categories at the node get none.
    """
    tree = model.tree_
    encoded = model.encoder_.transform(X)
    classes = getattr(model, "classes_", None)
    if classes is None:
        codes, K = np.zeros(len(X), dtype=np.intp), 1
    else:
        codes, K = pd.Index(classes).get_indexer(pd.Series(np.asarray(y, dtype=object))), len(classes)
    known = codes >= 0  # a label the tree never saw is left out
    at_depth = _ancestors(tree, model.apply(X))
    out = {}
    for node in np.asarray(nodes, dtype=np.intp):
        kind = int(tree.split_kind[node])
        if kind not in (NUMERIC, CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY):
            continue
        rows = (at_depth[tree.depth[node]] == node) & known
        values = encoded[rows, int(tree.feature[node])]
        present = ~np.isnan(values)
        if kind == NUMERIC:
            histogram = _numeric(values[present], codes[rows][present], K,
                                 float(tree.threshold[node]))
        else:
            histogram = _categorical(tree, node, values[present], codes[rows][present], K)
        if histogram is not None:
            out[int(node)] = NodeHistogram(*histogram, missing=int((~present).sum()))
    return out


def _numeric(values, codes, K: int, threshold: float):
    """Bars (t + b·w, t + (b+1)·w] for whole numbers b: the threshold t is a bar edge."""
    if not len(values) or np.isinf(threshold):
        return None
    lo, hi = float(values.min()), float(values.max())
    width = (hi - lo) / HIST_BINS if hi > lo else 1.0
    first = int(np.ceil((lo - threshold) / width)) - 1
    last = int(np.ceil((hi - threshold) / width)) - 1
    bars = last - first + 1
    bar = np.clip(np.ceil((values - threshold) / width).astype(np.intp) - 1 - first, 0, bars - 1)
    # a row's side is its value's, whatever bar rounding put it in
    bar = np.where(values <= threshold, np.minimum(bar, -first - 1), np.maximum(bar, -first))
    bar = np.clip(bar, 0, bars - 1)
    counts = np.bincount(bar * K + codes, minlength=bars * K).reshape(bars, K)
    cut = int(np.clip(-first, 0, bars))
    return counts, np.arange(bars) < cut, cut, (f"{lo:.3g}", f"{hi:.3g}")


def _categorical(tree, node: int, values, codes, K: int):
    present = np.unique(values.astype(np.intp))
    if not len(present) or len(present) > MAX_CATEGORY_BARS:
        return None
    bar = np.searchsorted(present, values.astype(np.intp))
    counts = np.bincount(bar * K + codes, minlength=len(present) * K).reshape(len(present), K)
    yes = np.zeros(len(present), dtype=bool)
    if int(tree.split_kind[node]) == CATEGORICAL_BINARY:
        yes = tree.children_by_code(node)[present] == tree.children_left[node]
    return counts, yes, None, None


def _stack(heights: np.ndarray, total_height: int, width: int, colors: list[str]) -> str:
    """One bar: its classes stacked, the first at the bottom, in a column ``total_height``
    high (rounded cumulatively, so a bar's cells add up to its rounded height)."""
    edges = np.round(np.cumsum(np.r_[0.0, heights])).astype(int)
    cells = [(h, colors[k]) for k, h in enumerate(np.diff(edges)) if h > 0]
    spacer = total_height - edges[-1]
    rows = [f"<TR>{_cell(width, spacer)}</TR>"] if spacer > 0 else []
    rows += [f"<TR>{_cell(width, h, c)}</TR>" for h, c in reversed(cells)]
    return ('<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0">' + "".join(rows) + "</TABLE>")


def histogram_html(histogram: NodeHistogram, style: Style, text_size: int) -> str:
    """The histogram as an HTML-like table for a node's label: bars, the strip under the
    "yes" values, the axis' ends (and the rows without a value) in ``text_size`` points."""
    counts = histogram.counts
    bars, K = counts.shape
    width = 5 * style.font_size  # pt, a little wider than the node's count bar
    bar_width = max(3, width // bars)
    height = 2 * style.font_size
    tallest = max(counts.sum(axis=1).max(), 1)
    colors = [style.color(k) for k in range(K)]
    top, strip = [], []
    for b in range(bars):
        if histogram.cut is not None and b == histogram.cut:
            top.append(_cell(2, height, MARK))
            strip.append(_cell(2, 3))
        top.append(f'<TD FIXEDSIZE="TRUE" WIDTH="{bar_width}" HEIGHT="{height}" VALIGN="BOTTOM">'
                   f'{_stack(counts[b] / tallest * height, height, bar_width, colors)}</TD>')
        strip.append(_cell(bar_width, 3, MARK if histogram.yes[b] else UNMARKED))
    total = bars * bar_width + (2 if histogram.cut is not None and histogram.cut < bars else 0)
    # fixed sizes: a label wider than the histogram centres it instead of spreading its bars
    plot = (f'<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0" FIXEDSIZE="TRUE" '
            f'WIDTH="{total}" HEIGHT="{height + 3}"><TR>{"".join(top)}</TR>'
            f'<TR>{"".join(strip)}</TR></TABLE>')
    rows = [plot]
    if histogram.ends is not None:
        lo, hi = (html.escape(e, quote=True) for e in histogram.ends)
        half, line = total // 2, round(1.2 * text_size)
        rows.append(f'<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0" FIXEDSIZE="TRUE" '
                    f'WIDTH="{total}" HEIGHT="{line}"><TR><TD FIXEDSIZE="TRUE" WIDTH="{half}" HEIGHT="{line}" ALIGN="LEFT">'
                    f'<FONT POINT-SIZE="{text_size}">{lo}</FONT></TD>'
                    f'<TD FIXEDSIZE="TRUE" WIDTH="{total - half}" HEIGHT="{line}" ALIGN="RIGHT">'
                    f'<FONT POINT-SIZE="{text_size}">{hi}</FONT></TD></TR></TABLE>')
    if histogram.missing:
        rows.append(f'<FONT POINT-SIZE="{text_size}">+ {histogram.missing:,} missing</FONT>')
    return ('<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0">'
            + "".join(f"<TR><TD>{r}</TD></TR>" for r in rows) + "</TABLE>")


def _cell(width: int, height: int, color: str | None = None) -> str:
    fill = f' BGCOLOR="{color}"' if color else ""
    return f'<TD FIXEDSIZE="TRUE" WIDTH="{width}" HEIGHT="{height}"{fill}></TD>'

