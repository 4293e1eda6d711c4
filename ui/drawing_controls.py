"""The Data page's drawing: click the plane to add a point of the chosen class.

The drawing is one text in the session under ``state.POINTS`` (``engine.drawing``'s
encoding), which ``ui.url`` keeps in the link; every change below writes a new text, so
the tables and models derived from it are cached by their content. A click is a plotly
selection event (``st.plotly_chart(on_select=...)``): the plane holds invisible markers
on a grid of its cells (``viz.drawing_figure``), and the cell selected is where the point
goes.
Each change makes a new figure, hence a new chart whose selection starts empty: a click
is handled once, by the callback, before the run that draws its result.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import drawing
from viz.drawing_figure import CELL_TRACE, drawing_figure

from . import state

PLANE_KEY = "data_draw_plane"
CLASS_KEY = "data_draw_class"
SHAPE_KEY = "data_draw_shape"
#: Session key of the drawing's earlier texts, latest last, for Undo (never in a link).
HISTORY = "gb_draw_history"
MAX_UNDO = 50
ERASE = "erase"
#: Cells around a click that Erase empties (a point is about two cells wide on screen).
ERASE_RADIUS = 3


def points() -> np.ndarray:
    return drawing.decode(state.drawn_text())


def start() -> None:
    """Callback of the Data page's "Draw your own" button: switch to the drawing."""
    st.session_state["data"] = state.DRAWN
    st.session_state.pop("target", None)  # as the sidebar does on a change of data


def _set(new: np.ndarray) -> None:
    text = drawing.encode(new)
    old = state.drawn_text()
    if text == old:
        return
    history = st.session_state.setdefault(HISTORY, [])
    history.append(old)
    del history[:-MAX_UNDO]
    st.session_state[state.POINTS] = text


def _on_click() -> None:
    """Callback of the plane: the cell clicked gets a point, or loses its points."""
    event = st.session_state.get(PLANE_KEY)
    cells = [p for p in (event or {}).get("selection", {}).get("points", [])
             if p.get("curve_number") == CELL_TRACE]
    if not cells:
        return
    cell = np.array([round(cells[-1]["x"]), round(cells[-1]["y"])])
    chosen, now = st.session_state.get(CLASS_KEY), points()
    if chosen == ERASE:
        far = np.abs(now[:, :2] - cell).max(axis=1) > ERASE_RADIUS
        _set(now[far])
    elif len(now) < drawing.MAX_POINTS:
        k = drawing.CLASS_NAMES.index(chosen) if chosen in drawing.CLASS_NAMES else 0
        _set(np.vstack([now, [*cell, k]]))


def _undo() -> None:
    history = st.session_state.get(HISTORY) or []
    if history:
        st.session_state[state.POINTS] = history.pop()


def _clear() -> None:
    _set(np.zeros((0, 3), dtype=np.int64))


def _start_from() -> None:
    name = st.session_state.get(SHAPE_KEY)
    if name:
        _set(drawing.starting_shape(name, random_state=int(st.session_state.get("seed", 0))))
        st.session_state[SHAPE_KEY] = None


def _tool_label(option: str) -> str:
    return ":material/ink_eraser: Erase" if option == ERASE else option


def show() -> None:
    """The plane and its tools: the class of the next click, Undo, Clear, a starting shape."""
    now = points()
    plane, tools = st.columns([3, 2], gap="medium")
    with tools:
        st.segmented_control(
            "Each click adds a point of class", [*drawing.CLASS_NAMES, ERASE], default="A",
            key=CLASS_KEY, required=True, format_func=_tool_label,
            help=f"Erase removes the points within {ERASE_RADIUS} cells of the click.")
        undo, clear = st.columns(2)
        undo.button("Undo", icon=":material/undo:", on_click=_undo, width="stretch",
                    disabled=not st.session_state.get(HISTORY), key="data_draw_undo")
        clear.button("Clear", icon=":material/delete:", on_click=_clear, width="stretch",
                     disabled=not len(now), key="data_draw_clear")
        st.selectbox("Start from a shape", list(drawing.SHAPES), index=None, key=SHAPE_KEY,
                     format_func=drawing.SHAPES.get, on_change=_start_from,
                     placeholder="Two blobs, XOR, circles…",
                     help="Replaces the drawing with about 60 points of this shape (drawn with "
                          "the random seed) to edit. Undo brings the drawing back.")
        counts = np.bincount(now[:, 2], minlength=len(drawing.CLASS_NAMES))
        per_class = ", ".join(f"{n} {name}" for name, n in zip(drawing.CLASS_NAMES, counts,
                                                               strict=True) if n)
        st.caption(f"{len(now)} of at most {drawing.MAX_POINTS} points"
                   + (f" ({per_class})" if per_class else "") + ". The drawing is in the link "
                   "to this view: share it to share the data.")
        if len(now) >= drawing.MAX_POINTS:
            st.warning(f"The drawing is full ({drawing.MAX_POINTS} points): erase or undo "
                       "some to add others.")
    with plane:
        style = state.style()
        st.plotly_chart(drawing_figure(now, style, height=560 if state.presentation() else 600),
                        key=PLANE_KEY, on_select=_on_click, selection_mode="points",
                        config={"displayModeBar": False}, width="stretch")
