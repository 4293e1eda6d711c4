"""Streamlit glue of the Decision Tree page's diagrams: how much to draw, which row to
follow, the downloads, growth step by step and what χ² pruning removed.

Every control's key starts with ``dt_`` and is bound to the URL. Renders to SVG / PNG
are cached by the DOT text and made only when a download button is pressed.
"""
from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from ui import tree_controls as tc
from ui.nb_controls import typed_row
from ui.params import cache_key
from ui.stepper import stepped
from viz import tree_hist
from viz.diagram_export import FORMATS, drawn_width, render_dot, unavailable_reason
from viz.style import Style
from viz.tree_dot import chart_css, default_display_depth, tree_to_dot
from viz.tree_path import explain_path
from viz.tree_prune import chi2_removed, chi2_removed_table

from . import data_controls as dc
from . import predict, questions, state, tables, url

#: Deepest level the χ² view draws by itself to show removed splits (more if asked).
CHI2_MAX_DEPTH = 6


@dataclass(frozen=True)
class Followed:
    """A row whose path is drawn: the one-row frame and how to name it."""

    frame: pd.DataFrame
    title: str

    @property
    def is_test_row(self) -> bool:
        """A row of the test set, named "Test row k (…)"; else a row the student typed."""
        return self.title.startswith("Test row")


#: In presentation mode the diagram's text is this many px (readable from the back row,
#: and small enough that the top levels fit a projector's first screen), and its default
#: depth is the deepest (of at most 4) whose drawing is at most PRESENTATION_WIDTH px
#: wide: a 1024-pixel projector with the sidebar folded.
PRESENTATION_PX = 19
PRESENTATION_WIDTH = 800


def diagram_style(style: Style) -> Style:
    """The style trees are drawn in: the page's, with PRESENTATION_PX text when presenting."""
    return replace(style, font_size=PRESENTATION_PX) if state.presentation() else style


@st.cache_data(max_entries=64, show_spinner=False)
def _width(dot: str) -> float | None:
    return drawn_width(dot)


def _presentation_depth(model, style: Style) -> int | None:
    """The deepest depth (of at most 4) whose diagram fits PRESENTATION_WIDTH; None when
    Graphviz cannot measure it here."""
    for depth in range(min(4, int(model.tree_.max_depth)), 0, -1):
        width = _width(tree_to_dot(model, style=style, max_depth=depth))
        if width is None:
            return None
        if width <= PRESENTATION_WIDTH:
            return depth
    return 1


def display_depth(model, style: Style) -> int:
    """The "draw down to depth" control; the default leaves a bottom row that fits a
    1024-pixel screen with the sidebar open, or in presentation mode a drawing that fits
    the projector's width at PRESENTATION_PX."""
    tree = model.tree_
    default = _presentation_depth(model, style) if state.presentation() else None
    if default is None:
        max_boxes = 10 if style.font_size <= Style().font_size else 6
        default = default_display_depth(tree, max_boxes=max_boxes)
    return url.bound(
        st.number_input, "Draw down to depth", 1, 60, value=default, key="dt_show_depth",
        help="Deeper nodes are folded into a dashed “… n more nodes” box. Default: as "
             "deep as keeps the bottom row short enough to read without shrinking.")


FIT_HELP = ("Off: the diagram keeps its full size and scrolls sideways, so its text stays "
            "readable. On: the whole tree at once, smaller.")


def followed_row(model, dataset: Dataset, features: list[str], row_slot,
                 typed_slot) -> Followed | None:
    """A test row chosen by number, or a row the student types (starting from it); the
    two controls go into the containers ``row_slot`` and ``typed_slot``, the editor below.
    The diagram opens without a path; the empty box suggests a row worth following."""
    X_test, y_test = dataset.X_test[features], dataset.y_test
    last = max(len(y_test) - 1, 0)
    row = url.bound(row_slot.number_input, f"Follow {dc.scored_row(dataset)} (0–{last}); empty: none", 0, last,
                    value=None, key="dt_row", placeholder=_suggestion(model, X_test, y_test))
    typed = url.bound(typed_slot.toggle, "Type a row", key="dt_typed",
                      help="Start from the chosen test row (or the first) and change "
                           "any value; an emptied cell is a missing value.")
    if typed and len(X_test):
        start = X_test.iloc[[row if row is not None else 0]]
        return Followed(typed_row(dataset, start, key="dt_typed_row"), "Your row")
    if row is None or row >= len(y_test):
        return None
    return Followed(X_test.iloc[[row]], f"Test row {row} (true value: {y_test.iloc[row]})")


def _suggestion(model, X_test: pd.DataFrame, y_test: pd.Series) -> str:
    """"e.g. 7: misclassified": the first test row the tree gets wrong (classification)
    or the one furthest off (regression)."""
    if not len(y_test):
        return "pick a row"
    predicted = model.predict(X_test)
    if getattr(model, "_estimator_type", None) == "classifier":
        wrong = np.flatnonzero(predicted != y_test.to_numpy())
        return f"e.g. {wrong[0]}: misclassified" if len(wrong) else "pick a row"
    return f"e.g. {int(np.argmax(np.abs(predicted - y_test.to_numpy(dtype=float))))}: furthest off"


HISTOGRAM_HELP = ("Under each question, the training rows that reach the node, binned on the "
                  "feature it asks about and stacked by class; a dark line marks the threshold "
                  "and a dark strip the values that answer yes.")


def node_histograms(model, dataset: Dataset, X_fit: pd.DataFrame, y_fit: pd.Series,
                    depth_limit: int) -> dict:
    """The split histograms of the nodes drawn (down to ``depth_limit``), over at most
    ``tree_hist.HIST_ROWS`` training rows (the shared seeded sample, by class share)."""
    rows = dc.drawn_rows(dataset, y_fit, tree_hist.HIST_ROWS)
    tree = model.tree_
    return tree_hist.node_histograms(model, X_fit.iloc[rows], y_fit.iloc[rows],
                                     np.flatnonzero(tree.depth <= depth_limit))


def histogram_caption(model, n_rows: int) -> None:
    stacked = "stacked by class" if hasattr(model, "classes_") else "counted"
    st.caption(f"Histograms: the training rows reaching each split, binned on its feature "
               f"and {stacked}. The dark line is the threshold; the dark strip under the bars "
               "marks the values that answer **yes** (left).")
    if n_rows > tree_hist.HIST_ROWS:
        st.caption(dc.sample_note(f"{tree_hist.HIST_ROWS:,} of {n_rows:,} training rows"))


def path_of(model, followed: Followed | None) -> np.ndarray | None:
    """Node ids on the path of the followed row, root first (None: no row, or a typed
    value the tree cannot read, which is then said)."""
    if followed is None:
        return None
    try:
        encoded = model.encoder_.transform(followed.frame)
    except (ValueError, TypeError) as error:
        st.warning(f"**This row cannot be followed.** {error} Change the value named above.")
        return None
    return np.flatnonzero(model.tree_.decision_path(encoded)[0])


def landing_question(model, followed: Followed | None, path: np.ndarray | None,
                     depth_limit: int, key: tuple) -> np.ndarray | None:
    """With Predict first on, a followed test row asks which leaf it lands in before its
    path is drawn: the path, or None while the question waits (typed rows are not asked)."""
    if path is None or not followed.is_test_row:
        return path
    asked = predict.ask(lambda: questions.landing_leaf(
        model, followed.frame.iloc[0], path, depth_limit, questions.question_key("dt-leaf", key, followed.title),
        followed.title.split(" (")[0].lower()))
    return path if asked else None


def explain(model, followed: Followed, missing: list[int]) -> None:
    st.markdown(f"**{followed.title}**")
    if followed.is_test_row:
        tables.show(followed.frame, hide_index=True)
    sentences = explain_path(model, followed.frame.iloc[0], missing_features=missing)
    st.markdown("\n".join(f"{k + 1}. {s}" for k, s in enumerate(sentences)))


#: Scrolls a diagram wider than its box so that its root is in view, centred, once per
#: drawing (a fixed script: no text from the data or the user goes into it).
CENTER_ROOT = """<script>(() => {
  if (window.__gbCenterRoot) return;
  window.__gbCenterRoot = true;
  let queued = false;
  const center = () => { queued = false;
    document.querySelectorAll('[data-testid="stGraphVizChart"]').forEach(box => {
      const svg = box.querySelector('svg'), root = svg && svg.querySelector('g.node');
      if (!root || svg.dataset.gbCentered === svg.getAttribute('viewBox')) return;
      svg.dataset.gbCentered = svg.getAttribute('viewBox');
      const r = root.getBoundingClientRect(), b = box.getBoundingClientRect();
      box.scrollLeft += (r.left + r.width / 2) - (b.left + b.width / 2);
    }); };
  new MutationObserver(() => { if (!queued) { queued = true; requestAnimationFrame(center); } })
    .observe(document.body, {childList: true, subtree: true, attributes: true,
                             attributeFilter: ['viewBox']});
  center();
})();</script>"""


def options(label: str):
    """Where a diagram's controls go: in presentation mode a folded expander, so the
    diagram starts high on the projector's first screen; otherwise the page itself."""
    return st.expander(label) if state.presentation() else st.container()


def diagram(dot: str, style: Style, *, place: str, fit: bool = False) -> None:
    """The diagram at its natural size (scrolling sideways, root in view) or shrunk to
    fit, drawn by :func:`graphviz` under the name ``place``."""
    st.markdown(chart_css(style, fit=fit, framed=state.presentation()),  # numbers, no user text
                unsafe_allow_html=True)
    st.html(CENTER_ROOT, unsafe_allow_javascript=True, width=1)
    graphviz(dot, place)


def graphviz(dot: str, place: str) -> None:
    """``st.graphviz_chart(dot)`` in a container keyed by ``place`` and the DOT itself, so
    that a changed diagram is drawn by a new element.

    Handed a new DOT in the element that drew the last one, the browser's renderer
    (d3-graphviz) first samples points along every path of the old and the new drawing,
    to morph one into the other. Streamlit draws no morph but cannot turn the sampling
    off, and without a GPU it costs more than the layout itself. A new element draws from
    nothing. ``place`` tells apart the diagrams of one run, whose DOT may be equal.
    """
    digest = hashlib.sha1(dot.encode()).hexdigest()[:16]
    with st.container(key=f"diagram-{place}-{digest}"):
        st.graphviz_chart(dot)


@st.cache_data(max_entries=16, show_spinner=False)
def _rendered(dot: str, format: str) -> bytes:
    return render_dot(dot, format) or b""  # b"" only if dot failed or timed out


def downloads(dot: str, name: str = "tree") -> None:
    """DOT always; SVG and PNG when Graphviz's ``dot`` can make them, else why not."""
    columns = st.columns(3, width=520)
    columns[0].download_button("DOT", dot, f"{name}.dot", "text/vnd.graphviz",
                               icon=":material/download:", key=f"dt_get_dot_{name}",
                               on_click="ignore", help="Graphviz source of the diagram.")
    reasons = []
    for column, format in zip(columns[1:], FORMATS, strict=True):
        reason = unavailable_reason(dot, format)
        if reason is None:
            column.download_button(format.upper(), lambda f=format: _rendered(dot, f),
                                   f"{name}.{format}", FORMATS[format], key=f"dt_get_{format}_{name}",
                                   on_click="ignore", icon=":material/download:",
                                   help=f"The diagram as {format.upper()}.")
        elif reason not in reasons:
            reasons.append(reason)
    for reason in reasons:
        st.caption(reason)


def grow_view(model, style: Style, missing: list[int], ask=None) -> None:
    """The tree after each level of growth, with the shared step control (play, ◀ ▶).
    ``ask(step)`` (Predict first): False while the step's question waits for an answer,
    and the level before it is drawn meanwhile."""
    tree = model.tree_

    def draw(step: int) -> bool:
        answered = step < 1 or ask is None or ask(step)
        if not answered:
            step -= 1
            st.caption(f"Depth {step + 1} is drawn once you have answered.")
        cut = np.flatnonzero((tree.depth == step) & (tree.children_left >= 0))
        grown = tree.collapse(cut)
        nodes, leaves = grown.node_count, grown.n_leaves
        st.caption(f"After depth {step}: {nodes} {'node' if nodes == 1 else 'nodes'}, "
                   f"{leaves} {'leaf' if leaves == 1 else 'leaves'}.")
        diagram(tree_to_dot(model, tree=grown, style=style, max_depth=6,
                            missing_features=missing), style, place="grown")
        return answered

    stepped(draw, first=0, last=int(tree.max_depth), key="dt_step", label="Depth grown so far",
            default=min(1, int(tree.max_depth)))


def grow_question(model, dataset: Dataset, key: tuple):
    """``ask(step)`` for :func:`grow_view`: which split the heaviest node split at this
    step makes (classification trees; their candidate table is the cached one of "Show
    your working")."""
    def ask(step: int) -> bool:
        def build():
            node = questions.heaviest_split_at(model.tree_, step - 1)
            if node is None or dataset.task != "classification":
                return None
            table = tc.candidates(model, dataset, *key, node)
            return questions.next_split(model, table, node,
                                        questions.question_key("dt-grow", key, node))
        return predict.ask(build)
    return ask


def how_grown() -> None:
    """The textbook grower's own Python (``engine.tree._reference``), for the curious."""
    from engine.tree import _reference

    with st.expander("How is this grown? The textbook loop in Python"):
        st.markdown(
            "Glassbox grows its trees level by level with fast array code. The same tree, "
            "one node at a time and written to be read beside ID3 (Quinlan 1986) and CART "
            "(Breiman et al. 1984), is `engine/tree/_reference.py`; the tests check that "
            "both grow identical trees. Its heart:")
        for function in (_reference.grow, _reference.best_split):
            st.code(inspect.getsource(function), language="python", wrap_lines=True)


def chi2_view(dataset: Dataset, key: tuple, chi2_alpha: float, style: Style,
              depth_limit: int, missing: list[int]) -> None:
    """The tree before χ² pruning with the removed splits marked, and their tests."""
    grown = tc.fit_tree(dataset, *cache_key(dataset, {**dict(key[1]), "chi2_alpha": None}))
    removed = chi2_removed(grown.tree_, chi2_alpha)
    if len(removed) == 0:
        st.markdown(f"Every split is significant at level {chi2_alpha:g}: nothing was removed.")
        return
    st.markdown(f"The tree before χ² pruning. **Dashed border**: a split removed at level "
                f"{chi2_alpha:g} (the node becomes a leaf); **dashed grey**: the nodes "
                "and branches removed with it.")
    # Deep enough to show the removed splits' children, within reason.
    deepest = int(grown.tree_.depth[removed].max()) + 1
    shown = max(depth_limit, min(deepest, CHI2_MAX_DEPTH))
    dot = tree_to_dot(grown, style=style, max_depth=shown, removed=removed,
                      missing_features=missing)
    diagram(dot, style, place="chi2")
    table = chi2_removed_table(grown, grown.tree_, chi2_alpha)
    tables.show(table, style=lambda f: f.style.format({"chi2": "{:.3f}", "p_value": "{:.4f}"}),
                hide_index=True, height=min(400, 38 + 35 * len(table)))
    st.caption(f"{len(table)} splits removed, deepest first: χ² = Σ (n_kq − n̂_kq)²/n̂_kq "
               f"with df = (K−1)(Q−1); each has p ≥ {chi2_alpha:g}, so it does not differ "
               "significantly from a split that leaves the class shares unchanged.")
