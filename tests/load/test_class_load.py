"""A hundred students answer the same question within ten seconds, on one server.

The teacher is a real Chromium page: it starts a class on a question's view. The students
are websocket-level (:class:`tests.load.students.ClassStudent`): each opens the class link
as a browser tab does, is switched to the teacher's view by the server, keeps polling as
the page's auto-rerunning fragments ask (one request a second each, as a browser's timer
sends), and answers by its radio, the answers spread evenly over ten seconds. Then every
answer must be counted, the tally on the teacher's screen must equal the students'
choices, "Reveal" must reach every student, and no session may raise. (A student's
"Sent" receipt is reported, not required: under this load a poll can take the place of
the answer box's own redraw, while the answer itself is stored by the click's callback.)

Printed: the slowest and median join, answer receipt and reveal, and how long after the
last answer the projector's tally was complete. ``GLASSBOX_CLASS_STUDENTS`` (default 100)
sets the class's size.
"""
from __future__ import annotations

import os
import random
import re
import statistics
import time
from collections import Counter

import pytest

from store import open_store
from tests.e2e.conftest import exceptions, screenshot, serve, wait_for_app
from tests.e2e.test_class_browser import TRUTH, VIEW, open_live_box, tally
from tests.load.students import Class

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

STUDENTS = int(os.environ.get("GLASSBOX_CLASS_STUDENTS", "100"))
WINDOW_S = 10.0
TIMEOUT_S = 300.0


def _summary(name: str, seconds: list[float | None]) -> str:
    done = sorted(s for s in seconds if s is not None)
    if not done:
        return f"{name}: none"
    return (f"{name}: slowest {done[-1]:.1f} s, median {statistics.median(done):.1f} s "
            f"({len(done)} of {len(seconds)})")


def _stuck(students) -> str:
    """How many students did not get through; for the first few: the errors,
    reconnections, when the page last ran whole (seconds from the reveal, and how it
    finished), the last texts on screen and the last messages."""
    students = list(students)

    def runs(s) -> list[tuple[float, int]]:
        zero = s.reveal_at if s.reveal_at is not None else time.perf_counter()
        return [(round(at - zero, 1), status) for at, status in s.full_runs[-4:]]

    return f"{len(students)} students:\n" + "\n".join(
        f"{s.seen.errors} after {s.seen.reconnects} reconnections; answered "
        f"{s.seen.choice!r}, its receipt after {s.seen.sent_s} s; full runs {runs(s)}; "
        f"its URL's query {s.query!r}; "
        f"last texts on screen {[t[:100] for t in s._texts[-4:]]}; "
        f"last messages {s.trace[-25:]}" for s in students[:3])


def start_class(teacher, base_url: str) -> str:
    """The teacher opens the question's view at ``base_url`` and starts a class; its code."""
    teacher.goto(f"{base_url}/{VIEW}")
    wait_for_app(teacher)
    open_live_box(teacher)
    teacher.get_by_role("button", name="Start a class").click()
    teacher.get_by_text("Ask the class.").first.wait_for(timeout=60_000)
    teacher.wait_for_url(re.compile(r"class=[2-9A-Z]{8}"))
    return re.search(r"class=([2-9A-Z]{8})", teacher.url).group(1)


def test_a_hundred_students_answer_one_question(browser, tmp_path):
    with serve(env={"GLASSBOX_DATA_DIR": str(tmp_path)}) as url:
        context = browser.new_context(viewport={"width": 1600, "height": 1000})
        teacher = context.new_page()
        try:
            code = start_class(teacher, url)
            picks = [random.Random(i).randrange(3) for i in range(STUDENTS)]

            with Class(url, "", f"class={code}", picks, WINDOW_S, TIMEOUT_S) as room:
                deadline = time.time() + TIMEOUT_S + 30  # a student gives up at TIMEOUT_S
                while room.answering_from is None and time.time() < deadline:
                    time.sleep(0.2)
                assert room.answering_from is not None, "the class never had the question:\n" + (
                    _stuck(s for s in room.students if s.seen.joined_s is None))
                time.sleep(max(0.0, room.answering_from + WINDOW_S - time.perf_counter()))
                last_answer = time.perf_counter()
                shown = tally(teacher, STUDENTS, timeout_s=TIMEOUT_S)
                tally_after = time.perf_counter() - last_answer
                screenshot(teacher, "class-load-tally")
                teacher.get_by_role("button", name="Reveal the answer to everyone").click()
                room.reveal()
            visits = room.visits  # every student has seen the reveal (or timed out)
            teacher.locator(TRUTH).first.wait_for(timeout=60_000)
            assert exceptions(teacher) == []
        except BaseException:
            screenshot(teacher, "class-load-failed")
            raise
        finally:
            context.close()

    options = visits[0].options
    chosen = Counter(v.choice for v in visits)
    print(f"\n[class] {STUDENTS} students, answers spread over {WINDOW_S:.0f} s")
    print("[class] " + _summary("join (link to question on screen)", [v.joined_s for v in visits]))
    print("[class] " + _summary("answer to its receipt on the student's screen",
                                [v.sent_s for v in visits]))
    print("[class] " + _summary("reveal to the truth on screen", [v.revealed_s for v in visits]))
    print(f"[class] the projector's tally was complete {tally_after:.1f} s after the last answer")
    assert not any(s.seen.errors for s in room.students), _stuck(
        s for s in room.students if s.seen.errors)
    assert all(v.options == options for v in visits)  # one question for the whole class
    assert dict(zip(shown["y"], shown["x"], strict=True)) == {o: chosen.get(o, 0) for o in options}
    with open_store(f"sqlite://{tmp_path}/glassbox.db") as store:
        question = store.state(code).question
        assert store.tally(code, question) == {o: n for o, n in chosen.items()} | {}
        assert store.n_members(code) == STUDENTS
