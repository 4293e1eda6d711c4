"""Tables that stay readable on a projector.

``st.dataframe`` draws its grid on a canvas at a fixed 14 px, so the presentation CSS
cannot reach it. In presentation mode :func:`show` draws the same table as an HTML table
(``st.table``), whose text the mode's CSS sets to the projector's size and which
scrolls sideways in its own frame when it is wider than the page.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from . import state

#: A presentation table shows at most this many rows (a projector shows fewer anyway).
PRESENTATION_ROWS = 25


def show(frame: pd.DataFrame, *, style: Callable[[pd.DataFrame], Styler] | None = None,
         hide_index: bool = False, **kwargs) -> None:
    """``st.dataframe(style(frame), hide_index=..., **kwargs)``, or in presentation mode
    the first ``PRESENTATION_ROWS`` rows, styled, as a large-type HTML table
    (``column_config``, ``height`` and ``width`` are for the grid and are not used there;
    numbers keep 4 significant digits unless ``style`` formats them)."""
    if not state.presentation():
        st.dataframe(frame if style is None else style(frame), hide_index=hide_index, **kwargs)
        return
    shown = frame.iloc[:PRESENTATION_ROWS]
    styler = shown.style.format(precision=4, na_rep="") if style is None else style(shown)
    if hide_index:
        styler = styler.hide(axis="index")
    st.table(styler)
    if len(frame) > PRESENTATION_ROWS:
        st.caption(f"The first {PRESENTATION_ROWS} of {len(frame):,} rows; leave presentation "
                   "mode to scroll through all of them.")
