"""A live class in a real browser: one teacher and five students, each in a browser
context of their own (own cookies, as their own laptops would be).

The teacher starts a class on a question's view; three students open the class link and
two type the code on the Data page; all five follow the teacher's view, answer, and the
teacher's tally counts exactly their answers; "Reveal" reaches every student; the
teacher steps on and the students follow. Then the server is stopped and started again
on the same port and database: the teacher's screen reconnects into the class and the
tally is intact, and the students' screens show the answers they had sent. The same run on
SQLite (the default) and on PostgreSQL (``GLASSBOX_DATABASE_URL``).
"""
from __future__ import annotations

import re
import time
from collections import Counter

import pytest

from tests.postgres import new_schema, postgres_server  # noqa: F401 - the fixture, offered here

from .conftest import _free_port, exceptions, screenshot, serve, wait_for_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

VIEW = "decision_tree?data=iris&dt_view=Grow+step+by+step&dt_step=1"
OPTIONS = '[class*="st-key-predict_"] [role="radiogroup"] label'  # a student's options
#: Which option each of the five students picks (by position): the tally must be these.
PICKS = (0, 0, 1, 2, 0)
#: A student's screen follows the teacher's within this (the issue asks two seconds; the
#: page's own redraw on this shared 2-core machine comes on top).
FOLLOW_S = 15.0

#: The teacher's reveal: the right answer and its reason.
TRUTH = '[data-testid="stAlertContentSuccess"]:has-text("It is")'
TALLY = """() => {
    const plot = document.querySelector('[class*="st-key-class_tally_"] .js-plotly-plot');
    if (!plot || !plot.data) return null;
    const bar = plot.data[0];
    const xs = Array.isArray(bar.x) ? bar.x : Array.from(bar.x || []);
    return {x: xs.map(Number), y: Array.from(bar.y), colors: bar.marker.color};
}"""


def open_live_box(page) -> None:
    box = page.locator('[data-testid="stSidebar"] [data-testid="stExpander"]',
                       has_text="Live class")
    if box.locator('[data-testid="stExpanderDetails"]').count() == 0 or \
            not box.locator('[data-testid="stExpanderDetails"]').first.is_visible():
        box.locator("summary").first.click()


def tally(page, answered: int, timeout_s: float = 30.0) -> dict:
    """The teacher's chart once it counts ``answered`` answers."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        shown = page.evaluate(TALLY)
        if shown and sum(shown["x"]) == answered:
            return shown
        page.wait_for_timeout(300)
    raise AssertionError(f"the tally never reached {answered} answers: {page.evaluate(TALLY)}")


def back_to_the_first_question(teacher) -> None:
    """◀, until the step leaves the URL (step 1 is the default). The tally redraws itself
    every second; a click landing as it is redrawn can be lost in Streamlit, as a teacher
    would find it, and the teacher clicks again: at most three clicks."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(3):
        teacher.get_by_role("button", name="◀").first.click()
        try:
            teacher.wait_for_url(lambda address: "dt_step=2" not in address, timeout=10_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


@pytest.fixture(params=["sqlite", "postgresql"])
def class_env(request, tmp_path):
    """The environment of a server whose class store is fresh: a SQLite folder, or a
    database of the throw-away PostgreSQL cluster."""
    if request.param == "sqlite":
        return {"GLASSBOX_DATA_DIR": str(tmp_path)}
    return {"GLASSBOX_DATABASE_URL": new_schema(request.getfixturevalue("postgres_server"))[1]}


def test_a_class_answers_reveals_and_survives_a_restart(browser, class_env):
    port = _free_port()
    contexts = []

    def laptop(width=1600, height=1000):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        return context.new_page()

    try:
        with serve(env=class_env, port=port) as app_url:
            teacher = laptop()
            teacher.goto(f"{app_url}/{VIEW}")
            wait_for_app(teacher)
            open_live_box(teacher)
            teacher.get_by_role("button", name="Start a class").click()
            teacher.get_by_text("Class code").first.wait_for(timeout=30_000)
            wait_for_app(teacher)
            code = re.search(r"Class code ([2-9A-Z]{4}-[2-9A-Z]{4})",
                             teacher.locator('[data-testid="stSidebar"]').inner_text()).group(1)
            assert f"class={code.replace('-', '')}" in teacher.url
            teacher.get_by_text("Ask the class.").first.wait_for(timeout=30_000)
            assert teacher.locator(OPTIONS).count() == 0  # the teacher's screen does not answer

            students = []
            for i in range(5):
                student = laptop(1024, 768)
                if i < 3:  # by the link
                    student.goto(f"{app_url}/?class={code.replace('-', '')}")
                else:  # by the code, typed as the board shows it
                    student.goto(f"{app_url}/")
                    wait_for_app(student)
                    open_live_box(student)
                    student.get_by_label("Or join with a code").fill(code.lower())
                    student.get_by_label("Or join with a code").press("Enter")
                students.append(student)
            for student in students:  # each follows to the teacher's view and question
                student.get_by_text("Predict first.").first.wait_for(timeout=FOLLOW_S * 1000)
                assert "decision_tree" in student.url and "dt_view=Grow" in student.url
            options = None
            for student, pick in zip(students, PICKS, strict=True):
                labels = student.locator(OPTIONS)
                labels.nth(pick).click()
                options = options or labels.all_inner_texts()
                student.get_by_text("Sent:").first.wait_for(timeout=30_000)
            shown = tally(teacher, len(PICKS))
            expected = Counter(options[p] for p in PICKS)
            assert dict(zip(shown["y"], shown["x"], strict=True)) == {
                o: expected.get(o, 0) for o in options}
            assert teacher.get_by_text(f"{len(PICKS)} of {len(PICKS)} students have answered") \
                .count() == 1
            screenshot(teacher, "class-teacher-tally")
            screenshot(students[0], "class-student-sent")

            teacher.get_by_role("button", name="Reveal the answer to everyone").click()
            clicked = time.perf_counter()
            for student in students:
                student.locator("text=/Right:|You said/").first.wait_for(
                    timeout=FOLLOW_S * 1000)
            print(f"reveal reached all 5 students in {time.perf_counter() - clicked:.1f} s")
            teacher.locator(TRUTH).first.wait_for(timeout=30_000)
            right = teacher.locator(TRUTH).first.inner_text()
            screenshot(students[3], "class-student-revealed")
            for student in students:
                assert exceptions(student) == []
            assert exceptions(teacher) == []

            # The teacher steps on: every student's screen follows to the next step.
            teacher.get_by_role("button", name="▶").first.click()
            clicked = time.perf_counter()
            for student in students:
                student.wait_for_url(re.compile(r"dt_step=2"), timeout=FOLLOW_S * 1000)
            print(f"the next step reached all 5 students in {time.perf_counter() - clicked:.1f} s")

        # A restart loses every session and keeps the database: the class comes back from it.
        # The open pages reconnect by themselves, as they would in a lecture room.
        with serve(env=class_env, port=port):
            teacher.get_by_text("Ask the class.").first.wait_for(timeout=60_000)
            wait_for_app(teacher)
            assert "dt_step=2" in teacher.url  # the view came back from the URL
            back_to_the_first_question(teacher)
            again = tally(teacher, len(PICKS))
            assert again["x"] == shown["x"] and again["y"] == shown["y"]
            teacher.locator(TRUTH).first.wait_for(timeout=30_000)
            assert teacher.locator(TRUTH).first.inner_text() == right  # still revealed
            for student in students:  # each reconnects, follows back, and keeps its answer
                student.locator("text=/Right:|You said/").first.wait_for(
                    timeout=FOLLOW_S * 1000 * 2)
                assert student.get_by_text("did not answer").count() == 0
                assert exceptions(student) == []
            assert exceptions(teacher) == []
            screenshot(teacher, "class-teacher-after-restart")
    except BaseException:
        for i, context in enumerate(contexts):  # what each screen showed, for the report
            for page in context.pages:
                screenshot(page, f"class-failed-{i}")
        raise
    finally:
        for context in contexts:
            context.close()
