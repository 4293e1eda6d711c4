"""The sidebar every page shows: dataset, target, seed, presentation mode.

Each widget is bound to a URL query parameter of the same name as its key, so the
address bar always holds a link that reopens the current view.
"""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from engine.data import DataError

from . import state

#: Session key of the "Link to this view" expander (open or not); not part of the link.
SHARE_OPEN = "share_open"

PRESENTATION_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 22px; }
h1 { font-size: 2.6rem !important; } h2 { font-size: 2.0rem !important; }
[data-testid="stWidgetLabel"] p { font-size: 20px !important; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] p { font-size: 2.4rem !important; }
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem !important; }
</style>
"""


def _reset_target() -> None:
    # A new dataset has other columns: the target must be chosen afresh.
    st.session_state.pop("target", None)


def _dataset_label(name: str) -> str:
    if name == state.UPLOAD:
        upload = state.current_upload()
        return f"Uploaded: {upload.name}" if upload else "Your uploaded file"
    return state.samples()[name]["title"]


def render() -> None:
    """Draw the shared sidebar (called by app.py before the page runs)."""
    names = [*state.samples(), state.UPLOAD]
    with st.sidebar:
        _seed_source_from_url(names)
        st.selectbox("Dataset", names, key="data", format_func=_dataset_label,
                     on_change=_reset_target,
                     help="A bundled dataset, or the file you uploaded on the Data page.")
        # Synced by hand rather than bound: a bound selectbox would put the long title in
        # the URL, and links should read ?data=playtennis.
        st.query_params["data"] = st.session_state["data"]
        _target_select()
        st.number_input("Random seed", min_value=0, max_value=2**31 - 1, value=0, step=1,
                        key="seed", bind="query-params",
                        help="Fixes the train/test split and every random choice of the "
                             "models: the same seed gives the same picture.")
        st.toggle("Presentation mode", key="present", bind="query-params",
                  help="Large type and thick lines for a classroom projector.")
    if state.presentation():
        st.markdown(PRESENTATION_CSS, unsafe_allow_html=True)  # constant CSS, no user text


def _seed_source_from_url(names: list[str]) -> None:
    if st.session_state.get("data") in names:
        return
    wanted = st.query_params.get("data")
    st.session_state["data"] = wanted if wanted in names else state.DEFAULT_SAMPLE


def _target_select() -> None:
    try:
        frame = state.current_frame()
    except DataError:
        frame = None  # the page shows the error; the sidebar stays usable
    if frame is None:
        st.caption("Target: upload a file on the Data page.")
        return
    columns = [str(c) for c in frame.columns]
    if st.session_state.get("target") not in columns:
        st.session_state["target"] = state.default_target(frame)
    st.selectbox("Target column", columns, key="target", bind="query-params",
                 help="The column the models learn to predict.")


def share_link() -> None:
    """A link to exactly this view, to copy (drawn after the page, so its state is in)."""
    base = (st.context.url or "").split("?")[0]  # no URL outside a browser (AppTest)
    query = urlencode({key: st.query_params.get_all(key) for key in st.query_params}, doseq=True)
    link = f"{base}?{query}" if query else base
    # Drawn only while open: the code block's highlighter is the largest script a first
    # visit would otherwise fetch and parse (≈ 0.2 s of a 3 s first render here).
    box = st.sidebar.expander("Link to this view", icon=":material/link:", key=SHARE_OPEN,
                              on_change="rerun")
    if box.open:
        box.code(link, language=None, wrap_lines=True)
        box.caption("Copy it with the icon at its right. Opened in any browser it shows this "
                    "view; an uploaded file has to be uploaded again.")
