"""One script runner at a time per session: a run's output is never dropped for the next.

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
Streamlit folds requests to a running runner. Installed once per server process by
app.py; a no-op when Streamlit's session class lacks the two methods it wraps.
"""
from __future__ import annotations

from streamlit.runtime import app_session
from streamlit.runtime.scriptrunner import ScriptRunnerEvent

#: The attribute of a session that holds the requests waiting for the runner to stop.
_WAITING = "_glassbox_waiting_reruns"


def install(session_class=app_session.AppSession) -> bool:
    """Wrap ``session_class``'s runner creation and event handling (once); True if
    wrapped now or before."""
    create = getattr(session_class, "_create_scriptrunner", None)
    handle = getattr(session_class, "_handle_scriptrunner_event_on_event_loop", None)
    if create is None or handle is None:
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

    create_after_the_last._glassbox_ordered = True
    session_class._create_scriptrunner = create_after_the_last
    session_class._handle_scriptrunner_event_on_event_loop = handle_then_start_waiting
    return True
