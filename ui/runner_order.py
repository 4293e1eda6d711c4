"""A session's runs in the order the browser meant them, under load.

Two rules, both for a live class's screens, which ask for a fragment run every second:

* One script runner at a time per session: a run's output is never dropped for the next.
* A fragment's rerun asked for on a page the session has since left is ignored.

**One runner at a time.**

Streamlit runs a session's script on a runner thread; the runner hands each message to
the server's event loop, which sends it to the browser only while that runner is the
session's current one. A runner that has finished its last run stops taking requests
while its messages may still wait for the event loop. If a request arrives in that
window (a live class's screens ask for a fragment run every second; under load the loop
lags), Streamlit 1.67 starts a new runner at once, and every message of the old one
still waiting is ignored: a full run's page, its "finished" mark, a fragment's redraw.
A student's screen then misses the reveal for good (tests/load/test_class_load.py
caught it in about one run in three with 100 students).

:func:`install` keeps the order: a request that finds the current runner stopping waits
until that runner's last event ("shutdown", after all its messages) has been handled,
then starts the next runner; further requests in the meantime are folded into it as
Streamlit folds requests to a running runner.

**A fragment's rerun for another page.** Each request names the page the browser last
heard of. A student's screen that follows the teacher is switched to the teacher's page
by the server, and the polls it sent before it heard of the switch name the page it
left. Streamlit 1.67 takes a request naming a page other than the session's as a page
switch: before running the fragment it keeps only the widget values the request carries
(a poll carries the student's answer, or nothing) and the URL the browser had, and the
browser, told of a run on another page than its own, clears its page (only the
fragment is drawn again). The student's dataset and view are then gone from the
session and from the screen. Such a request is ignored: the fragment it names belongs
to a page no longer on screen, and the browser asks again, with the page it now shows,
within its polling interval. A request with no page (a fresh tab) or a full run (a page
link, Back) is never ignored.

The rule is checked twice: when the request arrives, and when the runner takes it to
run (a request may arrive while the switch's own run is under way, before that run has
noted its page; the runner takes it only after).

The page on screen is the page of the session's last full run, noted by app.py
(:func:`note_page_shown`) once the run knows it: fragment runs never change it, so one
stale request that is run cannot make the browser's later requests look stale.

:func:`install` is called once per server process by app.py; a no-op when Streamlit's
session class lacks the methods it wraps.
"""
from __future__ import annotations

from streamlit.runtime import app_session
from streamlit.runtime.scriptrunner import ScriptRunnerEvent, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils import script_requests

#: The attribute of a session that holds the requests waiting for the runner to stop.
_WAITING = "_glassbox_waiting_reruns"
#: The attribute of a session's pages manager that holds the page of its last full run.
_SHOWN = "_glassbox_page_shown"


def install(session_class=app_session.AppSession,
            requests_class=script_requests.ScriptRequests) -> bool:
    """Wrap ``session_class``'s runner creation, event handling and rerun requests, and
    how ``requests_class`` hands a runner its next run (once); True if wrapped now or
    before."""
    create = getattr(session_class, "_create_scriptrunner", None)
    handle = getattr(session_class, "_handle_scriptrunner_event_on_event_loop", None)
    request = getattr(session_class, "request_rerun", None)
    ready = getattr(requests_class, "on_scriptrunner_ready", None)
    if create is None or handle is None or request is None or ready is None:
        return False
    if getattr(create, "_glassbox_ordered", False):
        return True

    def create_after_the_last(self, initial_rerun_data) -> None:
        # Called when there is no runner, or the current one refused the request
        # because it is stopping: only then wait for its shutdown.
        if self._scriptrunner is not None:
            self.__dict__.setdefault(_WAITING, []).append(initial_rerun_data)
            return
        # A fresh runner (a full rerun stopped the last one, whose events are then
        # ignored by design): it carries the browser's current widget states, so what
        # waited is superseded.
        self.__dict__[_WAITING] = []
        create(self, initial_rerun_data)

    def handle_then_start_waiting(self, sender, event, *args, **kwargs) -> None:
        handle(self, sender, event, *args, **kwargs)
        waiting = self.__dict__.get(_WAITING)
        if (event != ScriptRunnerEvent.SHUTDOWN or not waiting
                or self._scriptrunner is not None):
            return
        self.__dict__[_WAITING] = []
        if self._state == app_session.AppSessionState.SHUTDOWN_REQUESTED:
            return  # the browser has gone: nothing to run for
        first, *later = waiting
        create(self, first)
        for rerun_data in later:
            if not self._scriptrunner.request_rerun(rerun_data):
                self.__dict__[_WAITING].append(rerun_data)  # it has stopped already

    def request_on_the_page_shown(self, client_state) -> None:
        if not _for_a_page_left(getattr(self, "_pages_manager", None),
                                bool(getattr(client_state, "fragment_id", "")),
                                getattr(client_state, "page_script_hash", "")):
            request(self, client_state)

    def next_run_on_the_page_shown(self):
        """The runner's next run, never a fragment's rerun for a page left. Called in
        the runner's thread: its context's pages manager is the session's."""
        next_run = ready(self)
        ctx = get_script_run_ctx(suppress_warning=True)
        pages = getattr(ctx, "pages_manager", None)
        while next_run.type == script_requests.ScriptRequestType.RERUN and _for_a_page_left(
                pages, bool(next_run.rerun_data.fragment_id_queue
                            or next_run.rerun_data.fragment_id),
                next_run.rerun_data.page_script_hash):
            next_run = ready(self)  # what came since, or the runner stops
        return next_run

    create_after_the_last._glassbox_ordered = True
    next_run_on_the_page_shown._glassbox_ordered = True
    session_class._create_scriptrunner = create_after_the_last
    session_class._handle_scriptrunner_event_on_event_loop = handle_then_start_waiting
    session_class.request_rerun = request_on_the_page_shown
    if not getattr(ready, "_glassbox_ordered", False):  # shared by every session class
        requests_class.on_scriptrunner_ready = next_run_on_the_page_shown
    return True


def note_page_shown() -> None:
    """In a full run, once ``st.navigation`` has chosen the page: note it as the page the
    browser is shown (read by the rule on fragments' reruns)."""
    ctx = get_script_run_ctx()
    if ctx is not None and not ctx.fragment_ids_this_run:
        setattr(ctx.pages_manager, _SHOWN, ctx.page_script_hash)


def _for_a_page_left(pages_manager, fragment: bool, named: str) -> bool:
    """Whether a rerun (of a fragment if ``fragment``) naming page ``named`` asks for a
    fragment's rerun on a page other than the one the session's last full run showed
    (noted on its ``pages_manager``)."""
    shown = getattr(pages_manager, _SHOWN, "")
    return bool(fragment and named and shown and named != shown)
