"""Students without a browser: Streamlit's own websocket protocol, spoken from Python.

A student's laptop draws the page in its own browser; what the classroom *server* does for
each student is run the page's script and stream the elements back. A
:class:`Student` does exactly what a browser tab does to the server on opening a link —
connect to ``/_stcore/stream``, send one ``rerun_script`` back-message with the link's page
and query string — and reads the forward-messages until the script has finished. So thirty
of them load the server as thirty laptops would, without thirty Chromium renderers fighting
the server for this machine's two cores.
"""
from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN
FRAGMENT_FINISHED = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


@dataclass
class Visit:
    """What one student saw: how long until the page was complete, and any exceptions."""

    seconds: float | None = None  # None: the script never finished in time
    elements: int = 0
    errors: list[str] = field(default_factory=list)


def stream_url(base_url: str) -> str:
    return base_url.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"


async def visit(base_url: str, page: str, query: str, timeout_s: float) -> Visit:
    """Open ``/<page>?<query>`` as a new session; time it until the script finishes."""
    seen = Visit()
    started = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            async with websockets.connect(stream_url(base_url), subprotocols=["streamlit"],
                                          max_size=None, open_timeout=timeout_s) as socket:
                await socket.send(_open_link(page, query))
                await _read_until_finished(socket, seen)
        seen.seconds = time.perf_counter() - started
    except TimeoutError:
        seen.errors.append(f"not finished after {timeout_s:.0f} s")
    except (OSError, websockets.WebSocketException) as error:
        seen.errors.append(f"connection: {error!r}")
    return seen


def _open_link(page: str, query: str) -> bytes:
    message = BackMsg()
    message.rerun_script.page_name = page
    message.rerun_script.query_string = query
    return message.SerializeToString()


async def _read_until_finished(socket, seen: Visit) -> None:
    while True:
        message = ForwardMsg()
        message.ParseFromString(await socket.recv())
        kind = message.WhichOneof("type")
        if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            seen.elements += 1
            element = message.delta.new_element
            if element.WhichOneof("type") == "exception":
                seen.errors.append(f"{element.exception.type}: {element.exception.message}"[:300])
        elif kind == "script_finished" and message.script_finished != RERUN:
            if message.script_finished != FINISHED:
                seen.errors.append(f"script finished with status {message.script_finished}")
            return


async def _crowd(base_url: str, page: str, query: str, n: int, timeout_s: float) -> list[Visit]:
    return list(await asyncio.gather(*(visit(base_url, page, query, timeout_s)
                                       for _ in range(n))))


def crowd(base_url: str, page: str, query: str, n: int, timeout_s: float = 240.0) -> list[Visit]:
    """``n`` students open the same link at the same moment; one Visit each.

    The students' event loop runs in a thread of its own: Playwright's sync API (the
    browser tests in the same pytest run) keeps an event loop running in the main thread.
    """
    visits: list[Visit] = []
    worker = threading.Thread(
        target=lambda: visits.extend(asyncio.run(_crowd(base_url, page, query, n, timeout_s))))
    worker.start()
    worker.join()
    return visits


# --- A student in a live class ----------------------------------------------------------------

@dataclass
class ClassVisit:
    """One student's part in a live class, as the server answered it."""

    options: list[str] = field(default_factory=list)  # the question's options on screen
    choice: str | None = None
    joined_s: float | None = None   # opening the class link until the question is on screen
    sent_s: float | None = None     # the answer's click until "Sent" came back
    revealed_s: float | None = None  # the teacher's reveal until the truth was on screen
    reconnects: int = 0             # connections lost and opened again
    restored_s: float | None = None  # the last loss until the question was back on screen
    errors: list[str] = field(default_factory=list)


class ClassStudent:
    """A browser tab in a live class, spoken from Python: opens the class link, follows the
    teacher's view (the server switches its page), polls as the page's auto-rerunning
    fragments ask (every ``run_every``, as a browser's timer does), answers the question on
    screen by its radio (a fragment rerun with the widget's new value, as a click sends),
    and waits for the reveal."""

    def __init__(self, base_url: str, page: str, query: str,
                 cookies: dict[str, str] | None = None):
        self.base_url, self.page, self.query = base_url, page, query
        self.cookies = dict(cookies or {})  # sent with each connection, as a browser does
        self.seen = ClassVisit()
        self._widgets: dict[str, object] = {}  # widget id -> WidgetState sent with each rerun
        self._radio: tuple[str, str] | None = None  # (widget id, fragment id)
        self._polls: dict[str, float] = {}  # fragment id -> interval (s)
        self._page_hash = ""
        self._texts: list[str] = []
        self.trace: list[tuple] = []  # the non-element messages, in order (for a report)
        # (perf_counter time, finish status) of each full run of the page, and the time
        # the reveal was announced to this student (for a report of a student stuck).
        self.full_runs: list[tuple[float, int]] = []
        self.reveal_at: float | None = None
        self._full_run = False
        self._reader: asyncio.Task | None = None
        self._chosen_on_screen: str | None = None  # the option the radio shows chosen
        self._lost_at = 0.0
        self.answered = asyncio.Event()  # set once this student's answer has been sent

    def _rerun(self, fragment_id: str = "", auto: bool = False) -> bytes:
        message = BackMsg()
        rerun = message.rerun_script
        rerun.query_string = self.query
        rerun.page_script_hash = self._page_hash
        rerun.fragment_id = fragment_id
        rerun.is_auto_rerun = auto
        rerun.widget_states.widgets.extend(self._widgets.values())
        return message.SerializeToString()

    async def _read(self, socket) -> None:
        while True:
            message = ForwardMsg()
            message.ParseFromString(await socket.recv())
            kind = message.WhichOneof("type")
            if kind != "delta":
                self.trace.append((kind, str(getattr(message, kind)).replace("\n", " ")[:80]
                                   if kind in ("script_finished", "auto_rerun",
                                               "page_info_changed", "stop_auto_rerun")
                                   else list(message.metadata.run.fragment_ids)))
            if kind == "new_session":
                self._full_run = not message.metadata.run.fragment_ids
                self.trace.append(("page", message.new_session.page_script_hash[:8]))
                if self._full_run:
                    # As the browser: a full run's page is the page from now on (a
                    # fragment's run names the page it was asked on, which the
                    # browser does not take), and the run announces its polling
                    # fragments anew.
                    self._page_hash = message.new_session.page_script_hash
                    self._polls.clear()
                elif message.new_session.page_script_hash not in ("", self._page_hash):
                    # The browser clears its page for a run on another page than its
                    # own: the screen would lose what it showed (ui/runner_order.py).
                    self.seen.errors.append(
                        f"a fragment ran on page {message.new_session.page_script_hash[:8]}"
                        f" while the screen shows {self._page_hash[:8]}")
            elif kind == "page_info_changed":
                self.query = message.page_info_changed.query_string
            elif kind == "navigation":  # the page the app chose: the browser's page from now
                self._page_hash = message.navigation.page_script_hash
            elif kind == "auto_rerun":
                self._polls[message.auto_rerun.fragment_id] = message.auto_rerun.interval
            elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                self._element(message.delta.new_element, message.delta.fragment_id)
            elif kind == "script_finished":
                if self._full_run:
                    self.full_runs.append((time.perf_counter(), message.script_finished))
                if message.script_finished not in (FINISHED, RERUN, FRAGMENT_FINISHED):
                    self.seen.errors.append(f"script finished with {message.script_finished}")

    def _element(self, element, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.seen.errors.append(
                f"{element.exception.type}: {element.exception.message}"[:300])
        elif kind == "radio" and "predict_" in element.radio.id:
            self._radio = (element.radio.id, fragment_id)
            self.seen.options = list(element.radio.options)
            self._chosen_on_screen = self.seen.options[element.radio.default] \
                if element.radio.HasField("default") else None
        elif kind == "markdown":
            self._texts.append(element.markdown.body)
        elif kind == "alert":
            self._texts.append(element.alert.body)

    def _saw(self, pattern: str) -> bool:
        return any(pattern in text for text in self._texts)

    async def _poll(self, socket) -> None:
        """Send the auto-reruns the page asked for, as a browser's timers do (one tick a
        second; a fragment asking every second is polled on each tick)."""
        while True:
            await asyncio.sleep(1.0)
            for fragment_id in list(self._polls):
                self.trace.append(("poll sent", fragment_id[:6]))
                try:
                    await socket.send(self._rerun(fragment_id, auto=True))
                except websockets.ConnectionClosed:
                    return  # the reader reports the loss

    async def _until(self, condition, timeout_s: float, what: str | None) -> float | None:
        started = time.perf_counter()
        while not condition():
            if self._reader is not None and self._reader.done():
                self._reader.result()  # the connection was lost: raise why
            if time.perf_counter() - started > timeout_s:
                if what is not None:
                    self.seen.errors.append(f"{what}: not within {timeout_s:.0f} s")
                return None
            await asyncio.sleep(0.05)
        return time.perf_counter() - started

    def _reopen(self) -> bytes:
        """What a tab whose connection was lost sends on reconnecting: its page and URL."""
        message = BackMsg()
        message.rerun_script.page_script_hash = self._page_hash
        message.rerun_script.query_string = self.query
        return message.SerializeToString()

    async def attend(self, pick: int, answer_at, revealed: asyncio.Event,
                     timeout_s: float) -> ClassVisit:
        """Open the link, answer option ``pick`` at ``answer_at()`` (a ``perf_counter``
        time, None until it is known), then wait until ``revealed`` is set and the truth
        reaches this screen. A lost connection is opened again, as a browser does (up to
        three times): the page and URL the tab had, and the question must come back, with
        this student's answer if it was sent."""
        while True:
            try:
                return await self._lesson(pick, answer_at, revealed, timeout_s)
            except (OSError, websockets.WebSocketException) as error:
                if self.seen.reconnects >= 3 or self.seen.joined_s is None:
                    self.seen.errors.append(f"connection: {error!r}")
                    return self.seen
                self.seen.reconnects += 1
                self._lost_at = time.perf_counter()
                await asyncio.sleep(1.0)  # a browser waits a moment before reconnecting

    async def _lesson(self, pick: int, answer_at, revealed: asyncio.Event,
                      timeout_s: float) -> ClassVisit:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} \
            if self.cookies else None
        async with websockets.connect(stream_url(self.base_url), subprotocols=["streamlit"],
                                      max_size=None, open_timeout=timeout_s,
                                      additional_headers=headers) as socket:
            self._texts, self._radio, self._polls = [], None, {}
            self._chosen_on_screen = None
            self._reader = asyncio.create_task(self._read(socket))
            poller = asyncio.create_task(self._poll(socket))
            try:
                if self.seen.joined_s is None:
                    await socket.send(_open_link(self.page, self.query))
                    self.seen.joined_s = await self._until(
                        lambda: self._radio is not None and self._saw("Choose your answer"),
                        timeout_s, "the question")
                    if self.seen.joined_s is None:
                        return self.seen
                else:
                    await socket.send(self._reopen())
                    answered = self.seen.choice is not None
                    back = await self._until(
                        lambda: self._radio is not None and (
                            self._chosen_on_screen == self.seen.choice and self._saw("Sent:")
                            if answered else self._saw("Choose your answer")),
                        timeout_s, "the question after reconnecting")
                    if back is None:
                        return self.seen
                    self.seen.restored_s = time.perf_counter() - self._lost_at
                if self.seen.choice is None:
                    while answer_at() is None:
                        await asyncio.sleep(0.05)
                    await asyncio.sleep(max(0.0, answer_at() - time.perf_counter()))
                    widget_id, fragment_id = self._radio
                    self.seen.choice = self.seen.options[pick]
                    self._widgets[widget_id] = WidgetState(id=widget_id,
                                                           string_value=self.seen.choice)
                    self._texts.clear()
                    sent_at = time.perf_counter()
                    await socket.send(self._rerun(fragment_id))
                    # The receipt is shown when the answer's box is redrawn; the answer
                    # itself is counted by the click's callback in whichever run carries
                    # it (the teacher's tally is the test of that), so a missing receipt
                    # is reported, not an error.
                    if await self._until(lambda: self._saw("Sent:"), 30.0, None) is not None:
                        self.seen.sent_s = time.perf_counter() - sent_at
                self.answered.set()
                # Until the reveal (the truth may already be here: it is kept); a lost
                # connection is noticed meanwhile.
                await self._until(revealed.is_set, 3 * timeout_s, None)
                self.reveal_at = time.perf_counter()
                self.seen.revealed_s = await self._until(
                    lambda: self._saw("Right:") or self._saw("You said"), timeout_s,
                    "the reveal")
                return self.seen
            finally:
                poller.cancel()
                self._reader.cancel()


class Class:
    """``len(picks)`` students in one class, on an event loop in a thread of its own (the
    teacher is a Playwright page in the main thread). Student i opens ``/page?query``,
    answers option ``picks[i]`` at a moment spread evenly over ``window_s`` seconds from
    when the last has the question on screen, and waits for :meth:`reveal`. ``cookies(i)``
    gives student i's browser cookies (a proxy's route, the class's student id)."""

    def __init__(self, base_url: str, page: str, query: str, picks: list[int],
                 window_s: float, timeout_s: float = 240.0, cookies=None):
        self.students = [ClassStudent(base_url, page, query,
                                      cookies(i) if cookies is not None else None)
                         for i in range(len(picks))]
        self.visits: list[ClassVisit] = []
        self._picks, self._window_s, self._timeout_s = picks, window_s, timeout_s
        self.answering_from: float | None = None  # when the first answer is sent
        self._loop: asyncio.AbstractEventLoop | None = None
        self._revealed: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()))

    async def _main(self) -> None:
        self._loop, self._revealed = asyncio.get_running_loop(), asyncio.Event()
        self._ready.set()
        spacing = self._window_s / max(1, len(self.students) - 1)

        def when(i: int):
            return None if self.answering_from is None else self.answering_from + i * spacing

        tasks = [asyncio.create_task(s.attend(self._picks[i], lambda i=i: when(i),
                                              self._revealed, self._timeout_s))
                 for i, s in enumerate(self.students)]
        # Everyone answers once the whole class has the question on screen.
        while any(s.seen.joined_s is None and not s.seen.errors for s in self.students):
            await asyncio.sleep(0.1)
        self.answering_from = time.perf_counter() + 0.5
        self.visits = list(await asyncio.gather(*tasks))

    def __enter__(self) -> Class:
        self._thread.start()
        self._ready.wait()
        return self


    def reveal(self) -> None:
        """The teacher has revealed: every student now waits for the truth on screen."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._revealed.set)

    def __exit__(self, *exc_info) -> None:
        self.reveal()  # nobody waits forever, whatever happened
        self._thread.join(self._timeout_s + 60)
