"""The sidebar every page shows: dataset, target, seed, presentation mode, predict first.

Each widget is bound to a URL query parameter of the same name as its key, so the
address bar always holds a link that reopens the current view.
"""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from engine.data import DataError

from . import lesson, live, state, url

#: Session key of the "Link to this view" expander (open or not); not part of the link.
SHARE_OPEN = "share_open"

#: Every page: elements that draw nothing (a stylesheet, a script) take no room, so they
#: do not push the page down by a gap each.
BASE_CSS = """
<style>
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script:only-child),
[data-testid="stElementContainer"]:has(> [data-testid="stMarkdown"] style):not(:has(p, li, h1, h2, h3, table, img)) {
  display: none;
}
</style>
"""

PRESENTATION_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 22px; }
h1 { font-size: 2.6rem !important; } h2 { font-size: 2.0rem !important; }
[data-testid="stWidgetLabel"] p { font-size: 20px !important; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] p { font-size: 2.4rem !important; }
[data-testid="stMainBlockContainer"] { padding-top: 4rem !important; }  /* below the header bar */
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { font-size: 18px !important; }
[data-testid="stTable"] { overflow-x: auto; }
[data-testid="stTable"] th, [data-testid="stTable"] td { font-size: 20px !important; white-space: nowrap; }
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; row-gap: 0.3rem; overflow: visible; }
[data-testid="stTab"] p { font-size: 18px !important; }
</style>
"""
#: Presentation mode folds the sidebar on screens narrower than this (a 1024×768 projector:
#: in large type it would take a third of the width); wider screens keep it open.
NARROW_SCREEN_PX = 1280
#: Runs in the page, not in an iframe (``st.html``): clicks the sidebar's own « button,
#: so its » button brings the sidebar back as usual.
FOLD_SIDEBAR_JS = f"""<script>
(() => {{
  if (window.innerWidth >= {NARROW_SCREEN_PX}) return;
  let tries = 0;
  const fold = () => {{  // the sidebar may not be drawn yet: look again, for 5 s at most
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (sidebar && button) {{
      if (sidebar.dataset.collapsed === "false") button.click();
    }} else if (++tries < 50) setTimeout(fold, 100);
  }};
  fold();
}})();
</script>"""
#: Session key, set while presentation mode is on: the fold script is sent once per
#: switch-on, so a sidebar the user opens again stays open.
FOLDED = "gb_sidebar_folded"


def _reset_target() -> None:
    # A new dataset has other columns: the target must be chosen afresh.
    st.session_state.pop("target", None)


def _dataset_label(name: str) -> str:
    if name == state.UPLOAD:
        upload = state.current_upload()
        return f"Uploaded: {upload.name}" if upload else "Your uploaded file"
    if name == state.DRAWN:
        return "Drawn by you (Data page)"
    return state.samples()[name]["title"]


def render(pages: dict[str, list[st.Page]], page: st.Page) -> None:
    """Draw the shared sidebar (called by app.py before ``page`` runs).

    ``ui.url`` keeps its values in the URL; the links to the pages carry them, so a
    page switch is one entry in the browser's history that already holds the view.
    """
    url.resolve_shared()
    lesson.resolve_hidden()  # a lesson link may hide these controls too
    live.resolve(page)  # a class's link makes this session a student (or its teacher)
    names = state.sources()
    navigation = st.sidebar.container()
    with st.sidebar:
        if url.drawn("data"):
            st.selectbox("Dataset", names, key="data", format_func=_dataset_label,
                         on_change=_reset_target,
                         help="A bundled dataset, or the points you draw or the file you "
                              "upload on the Data page.")
        _target_select()
        if url.drawn("seed"):
            st.number_input("Random seed", min_value=0, max_value=2**31 - 1, step=1,
                            key="seed", help="Fixes the train/test split and every random "
                                             "choice of the models: the same seed gives "
                                             "the same picture.")
        if url.drawn("present"):
            st.toggle("Presentation mode", key="present",
                      help="Large type and thick lines for a classroom projector.")
        if url.drawn("predict"):
            st.toggle("Predict first", key="predict",
                      help="Steps and answers wait until you commit to a prediction of what "
                           "comes next; then yours is shown beside the real one. A link "
                           "with this on turns it on for everyone who opens it.")
    live.panel(pages)
    _navigation(navigation, pages)
    with st.sidebar:  # constant CSS and script, no user text
        st.markdown(BASE_CSS, unsafe_allow_html=True)
        if state.presentation():
            st.markdown(PRESENTATION_CSS, unsafe_allow_html=True)
        fold_on_narrow_screen()


def fold_on_narrow_screen() -> None:
    """Once each time presentation mode is switched on (or a projector link opened), fold
    the sidebar if the screen is narrow; a sidebar the user opens again stays open."""
    if not state.presentation():
        st.session_state.pop(FOLDED, None)
    elif not st.session_state.get(FOLDED):
        st.session_state[FOLDED] = True
        st.html(FOLD_SIDEBAR_JS, unsafe_allow_javascript=True, width="content")


def _navigation(box, pages: dict[str, list[st.Page]]) -> None:
    query = url.shared_query()
    with box:
        for section, entries in pages.items():
            st.caption(section)
            for page in entries:
                st.page_link(page, query_params=query, width="stretch")
        st.divider()


def _target_select() -> None:
    try:
        frame = state.current_frame()
    except DataError:
        frame = None  # the page shows the error; the sidebar stays usable
    if frame is None:
        st.caption("Target: upload a file on the Data page.")
        return
    columns = [str(c) for c in frame.columns]
    url.resolve_target(columns, state.default_target(frame))
    if url.drawn("target"):
        st.selectbox("Target column", columns, key="target",
                     help="The column the models learn to predict.")


#: Session key of the query the open "Link to this view" box was built from.
_SHARED_QUERY = "share_query"


def _current_query() -> str:
    return urlencode(url.current(), doseq=True)


def share_link() -> None:
    """A link to exactly this view, to copy (drawn after the page, so its state is in)."""
    base = (st.context.url or "").split("?")[0]  # no URL outside a browser (AppTest)
    query = _current_query()
    link = f"{base}?{query}" if query else base
    # Drawn only while open: the code block's highlighter is the largest script a first
    # visit would otherwise fetch and parse (≈ 0.2 s of a 3 s first render here).
    box = st.sidebar.expander("Link to this view", icon=":material/link:", key=SHARE_OPEN,
                              on_change="rerun")
    # Set at the end of a full run: a fragment that reruns alone compares against it.
    st.session_state[_SHARED_QUERY] = query if box.open else None
    if box.open:
        box.code(link, language=None, wrap_lines=True)
        box.caption("Copy it with the icon at its right. Opened in any browser it shows this "
                    "view; an uploaded file has to be uploaded again.")
        lesson.link_maker(box, base, url.current())


def refresh_link() -> None:
    """In a fragment (a step, a round): rerun the whole app when the open link box no
    longer holds the current view, so the link offered is always this view's."""
    if url.in_full_run():
        return  # the box is drawn afresh at the end of this run
    shown = st.session_state.get(_SHARED_QUERY)
    if shown is not None and shown != _current_query():
        st.rerun(scope="app")
