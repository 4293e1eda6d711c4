"""Live class: students answer on their laptops, the projector shows the room's answers.

One role per browser session (:class:`Role`, in the session state):

* The **teacher** presses "Start a class" (the sidebar's "Live class" box). The store
  makes a code and keeps the SHA-256 of a secret key that this browser keeps in a cookie,
  so a reload or a server restart finds the teacher again. The teacher's screen publishes
  its view (the page and its link's query) and the question on screen (:func:`publish`,
  at the end of every run and after every step), and instead of asking the question it
  shows the room's answers with "Reveal" (:func:`tally`).
* A **student** opens a link holding ``class=CODE`` or types the code. A student is a
  random id kept in a browser cookie: no names, no accounts. A fragment polls the class
  every ``POLL_S`` seconds (:func:`_follow`): a new view of the teacher's is opened as a
  link is, and a reveal redraws the page. A student's answer goes to the store (the last
  one counts) and the right answer is shown once the teacher reveals it.

The code is the ``class`` value of the URL, shared by every page's link, so a reload or a
restart comes back into the class. Several tabs of one browser share its cookies: a
teacher who wants to see a student's screen opens a private window.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from store import Store, StoreError, open_store
from store._validate import CODE_LENGTH, check_code
from viz.class_figures import tally_figure

from . import state, url
from .markdown import literal

#: The URL's key of the class code.
CLASS = "class"
#: Seconds between two looks at the class: a student's screen follows within about two.
POLL_S = 1.0
TEACHER_COOKIE = "glassbox_teacher"  # "CODE.KEY": this browser runs class CODE
STUDENT_COOKIE = "glassbox_student"  # this browser's student id, for every class
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")

# Session keys (never part of a link).
_ROLE = "gb_class_role"            # Role, while in a class
_PAGE = "gb_class_page"            # url path of this run's page
_ASKED = "gb_class_asked"          # key of the question this run put on screen (teacher)
_PUBLISHED = "gb_class_published"  # (view, question) last sent to the class (teacher)
_FOLLOWED = "gb_class_followed"    # the teacher's view this student last opened
_SEEN = "gb_class_seen"            # (question, revealed) as this student's page drew it
_COOKIE = "gb_class_cookie"        # (name, value) the browser is to keep
_PROBLEM = "gb_class_problem"      # a message for the Live class box, shown once
_SENT = "gb_class_sent"            # {question: choice} this student has sent
_TALLY = "gb_class_tally"          # (what the tally chart shows, the chart) last drawn
_COMPLETE = "gb_class_complete"    # the last full run reached its end (not cut short)


@dataclass(frozen=True)
class Role:
    """This session's place in class ``code``: the teacher's screen, or student ``student``."""

    code: str
    teacher: bool
    student: str = ""


@st.cache_resource(show_spinner=False, max_entries=1)
def class_store() -> Store:
    """The server's class store (one per process; it keeps no user's data in memory)."""
    return open_store()


def _store() -> Store | None:
    try:
        return class_store()
    except Exception as error:  # noqa: BLE001 - a missing database must not stop the page
        st.session_state[_PROBLEM] = (
            f"The live class is not available on this server: its database cannot be "
            f"opened ({type(error).__name__}). Ask whoever runs Glassbox to check "
            "GLASSBOX_DATABASE_URL or GLASSBOX_DATA_DIR.")
        return None


def pretty(code: str) -> str:
    """A code as the board shows it: ``ABCD-EFGH``."""
    half = CODE_LENGTH // 2
    return f"{code[:half]}-{code[half:]}"


def role() -> Role | None:
    return st.session_state.get(_ROLE)


def teacher() -> Role | None:
    """The teacher's role, if this session runs a class."""
    current = role()
    return current if current is not None and current.teacher else None


def student() -> Role | None:
    """The student's role, if this session is in a class."""
    current = role()
    return current if current is not None and not current.teacher else None


# --- Entering and leaving -------------------------------------------------------------------

def resolve(page) -> Role | None:
    """Read the class code from the URL and take this session's role in it (the sidebar's
    first job after the shared values): the teacher's if this browser holds the class's
    key, else a student's. ``page`` is this run's page."""
    st.session_state[_PAGE] = page.url_path
    st.session_state[_COMPLETE] = False
    st.session_state[_ASKED] = None
    st.session_state[_SEEN] = None
    code = url.resolve(url.Param(CLASS, "", _parse_code, "class code", shared=True,
                                 empty="no class"))
    current = role()
    if not code:
        st.session_state.pop(_ROLE, None)
        return None
    if current is not None and current.code == code:
        return current
    entered = _enter(code)
    if entered is None:
        st.session_state[CLASS] = ""  # the URL drops the code at the end of this run
    return entered


def _parse_code(texts: list[str]) -> str:
    return check_code(url._single(texts)) if texts != [""] else ""


def _cookie(name: str) -> str | None:
    try:
        value = st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 - no browser (a script run in a test)
        return None
    return value if isinstance(value, str) else None


def _teacher_key(code: str) -> str | None:
    held = _cookie(TEACHER_COOKIE) or ""
    held_code, _, key = held.partition(".")
    return key if held_code == code and _TOKEN.fullmatch(key) else None


def _student_id() -> str:
    """This browser's student id: the cookie's, or a new one the browser is told to keep."""
    held = _cookie(STUDENT_COOKIE)
    if held and _TOKEN.fullmatch(held):
        return held
    new = secrets.token_urlsafe(16)
    st.session_state[_COOKIE] = (STUDENT_COOKIE, new)
    return new


def _enter(code: str) -> Role | None:
    store = _store()
    if store is None:
        return None
    key = _teacher_key(code)
    try:
        if key is not None and store.is_teacher(code, key):
            entered = Role(code, teacher=True)
        else:
            entered = Role(code, teacher=False, student=_student_id())
            store.join(code, entered.student)
    except StoreError as error:
        st.session_state[_PROBLEM] = str(error)
        return None
    st.session_state[_ROLE] = entered
    st.session_state[CLASS] = code
    st.session_state.pop(_FOLLOWED, None)
    st.session_state.pop(_PUBLISHED, None)
    return entered


def _start() -> None:
    store = _store()
    if store is None:
        return
    key = secrets.token_urlsafe(32)
    try:
        code = store.create_class(teacher_key=key)
    except StoreError as error:
        st.session_state[_PROBLEM] = str(error)
        return
    st.session_state[_ROLE] = Role(code, teacher=True)
    st.session_state[CLASS] = code
    st.session_state["predict"] = True  # a class answers before it sees
    st.session_state[_COOKIE] = (TEACHER_COOKIE, f"{code}.{key}")
    st.session_state.pop(_PUBLISHED, None)


def _join_typed() -> None:
    typed = st.session_state.get("class_typed", "")
    try:
        code = check_code(typed)
    except StoreError as error:
        st.session_state[_PROBLEM] = str(error)
        return
    if _enter(code) is not None:
        st.session_state["class_typed"] = ""


def _leave() -> None:
    st.session_state.pop(_ROLE, None)
    st.session_state[CLASS] = ""


# --- The teacher's screen -------------------------------------------------------------------

def _view(query: dict[str, list[str]]) -> str:
    """The view a class follows: this page's path and its query, without the class code."""
    pairs = sorted((k, v) for k, values in query.items() if k != CLASS for v in values)
    return f"{st.session_state.get(_PAGE, '')}?{urlencode(pairs)}"


def on_screen(question: str) -> None:
    """Note that this run shows ``question`` (a question key): :func:`publish` sends it."""
    st.session_state[_ASKED] = question


def begin_step() -> None:
    """In a step's own rerun (a fragment), before the step is drawn: it asks afresh."""
    if not url.in_full_run():
        st.session_state[_ASKED] = None


def end_run() -> None:
    """Last in a full run: note that the page was drawn to its end, and publish."""
    st.session_state[_COMPLETE] = True
    publish()


def publish() -> None:
    """The teacher's screen: send the class this view and the question on it (after a full
    run, once the URL is written, and after a step's own rerun); nothing if unchanged."""
    current = teacher()
    if current is None:
        return
    view, question = _view(url.current()), st.session_state.get(_ASKED)
    if st.session_state.get(_PUBLISHED) == (view, question):
        return
    store = _store()
    if store is None:
        return
    try:
        store.show(current.code, view, question)
    except StoreError as error:
        st.session_state[_PROBLEM] = (f"The class cannot follow this view: {error} "
                                      "Students keep the view they have.")
        return
    st.session_state[_PUBLISHED] = (view, question)


def revealed(question: str) -> bool:
    """Whether the class has been shown the right answer to ``question`` (now or before:
    a teacher back on an earlier question sees it revealed)."""
    current, store = role(), _store()
    if current is None or store is None:
        return False
    try:
        return store.is_revealed(current.code, question)
    except StoreError:
        return False  # the class has ended: the sidebar says so


def tally(box, question) -> None:
    """In the teacher's question box: how many of the class have answered, a bar per
    option, and "Reveal" (the right answer's bar turns green for everyone). Redrawn every
    ``POLL_S`` seconds until revealed."""
    current, store = teacher(), _store()
    if current is None or store is None:
        return
    done = revealed(question.key)

    @st.fragment(run_every=None if done else POLL_S)
    def room() -> None:
        counts = store.tally(current.code, question.key)
        answered, joined = sum(counts.get(o, 0) for o in question.options), \
            store.n_members(current.code)
        st.markdown(f"**The class: {answered} of {joined} "
                    f"{'student has' if joined == 1 else 'students have'} answered.**")
        st.plotly_chart(_tally_figure(question, counts, done), width="stretch",
                        key=f"class_tally_{question.key}", config={"displayModeBar": False})

    with box:
        room()
        # Outside the fragment that redraws every second: a click is never lost to a redraw.
        if not done:
            st.button("Reveal the answer to everyone", type="primary",
                      icon=":material/visibility:", key=f"class_reveal_{question.key}",
                      on_click=_reveal, args=(current.code, question.key))


def _reveal(code: str, question: str) -> None:
    store = _store()
    if store is None:
        return
    try:
        store.reveal(code, question)
    except StoreError as error:
        st.session_state[_PROBLEM] = str(error)


def _tally_figure(question, counts: dict[str, int], done: bool):
    """The tally chart, built afresh only when a count, the reveal or the style changed
    (it is redrawn every second while the class answers)."""
    drawn = (question.key, tuple(counts.get(o, 0) for o in question.options), done,
             state.presentation())
    last = st.session_state.get(_TALLY)
    if last is None or last[0] != drawn:
        last = (drawn, tally_figure(question.options, counts,
                                    right=question.answer if done else None,
                                    style=state.style()))
        st.session_state[_TALLY] = last
    return last[1]


# --- The student's screen -------------------------------------------------------------------

def answering(question: str) -> tuple[bool, bool]:
    """For a student: (whether ``question`` is the one the class has on screen, whether
    it is revealed). The page's draw is noted, so a reveal redraws it."""
    current, store = student(), _store()
    if current is None or store is None:
        return False, False
    shown = store.state(current.code)
    if shown is None or shown.question != question:
        return False, False
    st.session_state[_SEEN] = (question, shown.revealed)
    return True, shown.revealed


def own_choice(question: str) -> str | None:
    """This student's answer to ``question`` as the class holds it (a reload or a server
    restart loses the session, not the answer)."""
    current, store = student(), _store()
    if current is None or store is None:
        return None
    try:
        return store.choice_of(current.code, question, current.student)
    except StoreError:
        return None


def send(question: str, choice: str) -> str | None:
    """Send a student's answer; None, or the sentence saying why it was refused."""
    current, store = student(), _store()
    if current is None or store is None:
        return "You are not in a class."
    sent = st.session_state.setdefault(_SENT, {})
    if sent.get((current.code, question)) == choice:
        return None  # a redraw of the page sends nothing new
    try:
        store.answer(current.code, question, current.student, choice)
    except StoreError as error:
        return str(error)
    sent[(current.code, question)] = choice
    return None


def _follow(pages) -> None:
    """A student's screen: every ``POLL_S`` seconds, open the teacher's new view, open it
    again when the question on screen is revealed, leave when the class has ended.

    The reveal opens the class's view as the store holds it, as a link is opened, rather
    than redrawing with what the session holds: the truth is drawn on the question's
    view even if the session has lost its values (Streamlit drops a session's widget
    values when a request names another page; see ``ui.runner_order``)."""
    current, store = student(), _store()
    if current is None or store is None:
        return

    def open_view(view: str) -> bool:
        path, _, query = view.partition("?")
        target = next((p for p in pages if p.url_path == path), None)
        if target is None:
            return False
        opened = parse_qs(query, keep_blank_values=True)
        opened[CLASS] = [current.code]
        url.open_link(target, opened)
        return True

    @st.fragment(run_every=POLL_S)
    def look() -> None:
        if _fragment_run() and not st.session_state.get(_COMPLETE, True):
            # A poll arriving under load can cut the page's run short (Streamlit runs the
            # fragment instead): draw the whole page again.
            st.rerun(scope="app")
        shown = store.state(current.code)
        if shown is None:
            _leave()
            st.session_state[_PROBLEM] = "The class has ended (or its time is up)."
            st.rerun(scope="app")
        path = (shown.view or "").partition("?")[0]
        # A new view of the teacher's is opened; so is the teacher's page when this
        # screen's last full run drew another (a page switch lost under load).
        if shown.view is not None and (shown.view != st.session_state.get(_FOLLOWED)
                                       or path != st.session_state.get(_PAGE)):
            st.session_state[_FOLLOWED] = shown.view
            open_view(shown.view)
        seen = st.session_state.get(_SEEN)
        if seen is not None and seen[0] == shown.question and seen[1] != shown.revealed:
            if shown.view is None or not open_view(shown.view):
                st.rerun(scope="app")

    look()


def _fragment_run() -> bool:
    """Whether this run is a fragment's own (not a full run drawing the fragment)."""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


# --- The sidebar's box ----------------------------------------------------------------------

def panel(pages: dict) -> None:
    """The sidebar's "Live class" box: start or join a class; in one, its code, how many
    have joined, the answers as CSV, and leaving. A student's screen follows from here."""
    current = role()
    flat = [p for entries in pages.values() for p in entries]
    box = st.sidebar.expander("Live class", icon=":material/groups:",
                              expanded=current is not None or _PROBLEM in st.session_state)
    with box:
        problem = st.session_state.pop(_PROBLEM, None)
        if problem:
            st.warning(literal(problem), icon=":material/error:")
        _set_cookie()
        if current is None:
            _outside_panel()
        elif current.teacher:
            _teacher_panel(current)
        else:
            st.markdown(f"You are in class **{pretty(current.code)}**. Your screen follows "
                        "the teacher's; your answers are anonymous.")
            st.button("Leave the class", key="class_leave", on_click=_leave)
            _follow(flat)


def _outside_panel() -> None:
    st.button("Start a class", key="class_start", on_click=_start, icon=":material/podium:",
              help="You get a code and a link. Students who open it see your screen's view "
                   "and answer its questions on their own laptops; your screen shows "
                   "their answers.")
    st.text_input("Or join with a code", key="class_typed", placeholder="ABCD-EFGH",
                  max_chars=2 * CODE_LENGTH, on_change=_join_typed)
    st.button("Join", key="class_join", on_click=_join_typed)


def _teacher_panel(current: Role) -> None:
    base = (st.context.url or "").split("?")[0]
    st.markdown(f"Class code **{pretty(current.code)}**")
    st.code(f"{base}?{urlencode({CLASS: current.code})}", language=None, wrap_lines=True)
    st.caption("Students open this link, or choose Live class → Join and type the code. "
               "Their screens follow yours; your questions show their answers.")
    if state.source() == state.UPLOAD:
        st.warning("Students cannot open a file you uploaded: for a class, choose a bundled "
                   "dataset or draw the points on the Data page.", icon=":material/upload_file:")
    store = _store()

    @st.fragment(run_every=2 * POLL_S)
    def joined() -> None:
        try:
            n = store.n_members(current.code)
        except StoreError:
            st.caption("The class has ended.")
            return
        st.metric("Students joined", n)

    joined()
    try:
        answers = store.export_csv(current.code)
    except StoreError as error:
        answers = None
        st.caption(literal(str(error)))
    if answers is not None:
        st.download_button("Answer counts (CSV)", answers, file_name=f"class-{current.code}.csv",
                           mime="text/csv", key="class_export", icon=":material/download:",
                           on_click="ignore")
    st.button("Leave the class", key="class_leave", on_click=_leave,
              help="Your screen stops leading; the class and its answers stay until the "
                   "class's time is up (24 hours).")


def _set_cookie() -> None:
    """Tell the browser to keep this session's id or key (a cookie for this site only,
    kept until the browser closes): a reload or a server restart finds it again. Sent on
    every run while in the class: a run cut short by a switch of page may never have
    delivered it, and an unchanged element is not run again by the browser."""
    pending = st.session_state.get(_COOKIE) if role() is not None else None
    if pending is None:
        return
    name, value = pending  # both from secrets and the code alphabet: safe in a script
    st.html(f'<script>document.cookie = "{name}={value}; path=/; SameSite=Strict";</script>',
            unsafe_allow_javascript=True, width="content")
