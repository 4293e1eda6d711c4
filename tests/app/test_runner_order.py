"""ui.runner_order: a request that finds the session's runner stopping waits for its
shutdown, so none of the stopping runner's messages are ignored for the new runner's;
a fragment's rerun asked for on a page the session has left is ignored, when it arrives
and when a runner takes it.

The session here is a stand-in with the three methods the fix wraps, behaving as
Streamlit's do: creating a runner makes it current; an event from a runner that is not
current is ignored; the current runner's shutdown leaves the session without one; its
pages manager holds the page app.py noted for its last full run. (The races themselves need a loaded
server: tests/load/test_class_load.py and tests/deploy/test_cluster.py.)
"""
from __future__ import annotations

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime.app_session import AppSessionState
from streamlit.runtime.scriptrunner import ScriptRunnerEvent

from ui import runner_order

SHUTDOWN, STARTED = ScriptRunnerEvent.SHUTDOWN, ScriptRunnerEvent.SCRIPT_STARTED


class Runner:
    def __init__(self, first):
        self.requests, self.stopping = [first], False

    def request_rerun(self, rerun_data) -> bool:
        if self.stopping:
            return False
        self.requests.append(rerun_data)
        return True


class Pages:
    """A session's pages manager: app.py notes on it the page of each full run."""


class Session:
    def __init__(self):
        self._scriptrunner, self._state = None, AppSessionState.APP_NOT_RUNNING
        self._pages_manager = Pages()
        self.runners, self.handled = [], []

    def _create_scriptrunner(self, initial_rerun_data) -> None:
        self._scriptrunner = Runner(initial_rerun_data)
        self.runners.append(self._scriptrunner)

    def _handle_scriptrunner_event_on_event_loop(self, sender, event, *args, **kwargs):
        if sender is not self._scriptrunner:
            return  # as Streamlit: the events of a runner that is not current are ignored
        self.handled.append(event)
        if event == SHUTDOWN:
            self._scriptrunner = None

    def request_rerun(self, rerun_data) -> None:
        """Streamlit's path for a fragment's rerun: the current runner, else a new one."""
        if self._scriptrunner is not None and self._scriptrunner.request_rerun(rerun_data):
            return
        self._create_scriptrunner(rerun_data)


class Ordered(Session):
    pass


runner_order.install(Ordered)


def test_installing_twice_wraps_once():
    wrapped = Ordered._create_scriptrunner
    assert runner_order.install(Ordered)
    assert Ordered._create_scriptrunner is wrapped


def test_without_the_fix_the_stopping_runners_events_are_lost():
    session = Session()
    session.request_rerun("poll 1")
    first = session.runners[0]
    first.stopping = True  # its run has ended; its events still wait for the loop
    session.request_rerun("poll 2")
    session._handle_scriptrunner_event_on_event_loop(first, STARTED)
    assert session.handled == []  # the first run's page never reaches the browser


def test_a_request_waits_until_the_stopping_runner_has_shut_down():
    session = Ordered()
    session.request_rerun("poll 1")
    first = session.runners[0]
    first.stopping = True
    session.request_rerun("poll 2")
    session.request_rerun("answer")
    assert session.runners == [first]  # no second runner while the first has events
    session._handle_scriptrunner_event_on_event_loop(first, STARTED)
    session._handle_scriptrunner_event_on_event_loop(first, SHUTDOWN)
    assert session.handled == [STARTED, SHUTDOWN]  # every event of the first was handled
    assert len(session.runners) == 2
    assert session.runners[1].requests == ["poll 2", "answer"]  # in order, folded together


def test_a_fresh_runner_supersedes_what_waited():
    session = Ordered()
    session.request_rerun("poll 1")
    session.runners[0].stopping = True
    session.request_rerun("poll 2")
    session._scriptrunner = None  # a full rerun stops the runner and starts afresh
    session._create_scriptrunner("full rerun")
    session._handle_scriptrunner_event_on_event_loop(session.runners[1], SHUTDOWN)
    assert [r.requests for r in session.runners] == [["poll 1"], ["full rerun"]]


def test_nothing_is_started_for_a_session_that_is_closing():
    session = Ordered()
    session.request_rerun("poll 1")
    first = session.runners[0]
    first.stopping = True
    session.request_rerun("poll 2")
    session._state = AppSessionState.SHUTDOWN_REQUESTED
    session._handle_scriptrunner_event_on_event_loop(first, SHUTDOWN)
    assert session.runners == [first]


def request(page: str, fragment: str = "") -> ClientState:
    """What a browser sends: a rerun of ``fragment`` (or the whole page) on ``page``."""
    return ClientState(page_script_hash=page, fragment_id=fragment)


def shown(session, page: str) -> None:
    """A full run of ``page`` (what runner_order.note_page_shown notes)."""
    setattr(session._pages_manager, runner_order._SHOWN, page)


def test_a_fragments_rerun_for_a_page_left_is_ignored():
    session = Ordered()
    shown(session, "tree page")
    session.request_rerun(request("data page", fragment="poll"))  # sent before the switch
    assert session.runners == []
    session.request_rerun(request("tree page", fragment="poll"))
    assert [r.requests for r in session.runners] == [[request("tree page", "poll")]]


def test_a_full_run_or_a_request_without_a_page_is_never_ignored():
    session = Ordered()
    session.request_rerun(request("data page", fragment="poll"))  # no page run yet
    shown(session, "tree page")
    session.request_rerun(request("data page"))  # a page link: the switch itself
    session.request_rerun(request("", fragment="poll"))  # a browser naming no page
    assert [r.requests for r in session.runners] == [
        [request("data page", "poll"), request("data page"), request("", "poll")]]


def taken_by_the_runner(rerun_data, page_shown: str | None):
    """What a runner whose session last showed ``page_shown`` takes to run when
    ``rerun_data`` is pending: Streamlit's own request queue, read from a thread whose
    context holds the pages manager with that note."""
    import threading
    from types import SimpleNamespace

    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests
    from streamlit.runtime.scriptrunner_utils.script_run_context import (
        SCRIPT_RUN_CONTEXT_ATTR_NAME,
    )

    assert runner_order.install()
    pages = Pages()
    if page_shown is not None:
        setattr(pages, runner_order._SHOWN, page_shown)
    requests, taken = ScriptRequests(), []
    requests.request_rerun(rerun_data)
    runner = threading.Thread(target=lambda: taken.append(requests.on_scriptrunner_ready()))
    setattr(runner, SCRIPT_RUN_CONTEXT_ATTR_NAME, SimpleNamespace(pages_manager=pages))
    runner.start()
    runner.join()
    return taken[0]


def test_a_fragments_rerun_for_a_page_left_is_not_run_when_the_runner_takes_it():
    """A request that came while the switch's run was under way, before it noted its
    page, is let in; the runner, taking it after that run, does not run it."""
    from streamlit.runtime.scriptrunner_utils.script_requests import (
        RerunData,
        ScriptRequestType,
    )

    stale = RerunData(fragment_id="poll", page_script_hash="data page")
    assert taken_by_the_runner(stale, "tree page").type == ScriptRequestType.STOP
    for rerun_data, page_shown in [
            (RerunData(fragment_id="poll", page_script_hash="tree page"), "tree page"),
            (RerunData(page_script_hash="data page"), "tree page"),  # a page link
            (stale, None)]:  # a session that has shown no page yet
        taken = taken_by_the_runner(rerun_data, page_shown)
        assert taken.type == ScriptRequestType.RERUN
        assert taken.rerun_data.page_script_hash == rerun_data.page_script_hash


def test_streamlits_session_is_wrapped():
    import inspect

    from streamlit.runtime import app_session
    from streamlit.runtime.app_session import AppSession
    assert runner_order.install()
    assert getattr(AppSession._create_scriptrunner, "_glassbox_ordered", False)
    assert AppSession.request_rerun.__name__ == "request_on_the_page_shown"
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests
    assert ScriptRequests.on_scriptrunner_ready.__name__ == "next_run_on_the_page_shown"
    # The rule on a runner's next run reads the page where the runner takes its runs.
    from streamlit.runtime.scriptrunner import script_runner
    runner_source = inspect.getsource(script_runner.ScriptRunner._run_script_thread)
    assert "self._requests.on_scriptrunner_ready()" in runner_source
    assert "pages_manager=self._pages_manager" in runner_source
    # The rule on arrival reads the session's pages manager: the one note_page_shown sets.
    assert "self._pages_manager = " in inspect.getsource(AppSession.__init__)
    assert "pages_manager=self._pages_manager" in inspect.getsource(app_session)


def test_a_full_run_notes_the_page_it_shows():
    """app.py notes the page st.navigation chose; a fragment's run notes nothing."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ui import runner_order

        def first():
            st.write("first page")

        def second():
            st.write("second page")

        page = st.navigation([st.Page(first, title="First"), st.Page(second, title="Second")])
        runner_order.note_page_shown()
        ctx = st.runtime.scriptrunner.get_script_run_ctx()
        st.session_state["noted"] = getattr(ctx.pages_manager, runner_order._SHOWN, None)
        st.session_state["chosen"] = page._script_hash
        page.run()

    app = AppTest.from_function(script).run()
    assert not app.exception
    assert app.session_state["noted"] == app.session_state["chosen"] != ""
