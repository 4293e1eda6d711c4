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
