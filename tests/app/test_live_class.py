"""The live class through AppTest: a teacher's session and students' sessions on one
store (a fresh SQLite file per test), each as its own AppTest, as each browser tab is its
own session. The browser test (tests/e2e/test_class_browser.py) adds cookies, polling and
a server restart."""
from __future__ import annotations

import pytest

from store import open_store
from tests.app.test_pages import assert_clean, run_app
from ui import live

DT = "app_pages/decision_tree.py"
GROW = {"data": "iris", "dt_view": "Grow step by step"}


@pytest.fixture(autouse=True)
def fresh_store(tmp_path, monkeypatch):
    """Every session of the test shares one new class database."""
    monkeypatch.setenv("GLASSBOX_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("GLASSBOX_DATABASE_URL", raising=False)
    live.class_store.clear()
    yield open_store(f"sqlite://{tmp_path}/glassbox.db")
    live.class_store.clear()


def _teacher():
    at = run_app(DT, **GROW)
    at.sidebar.button(key="class_start").click().run()
    assert_clean(at)
    return at, at.session_state["class"]


def _texts(at) -> str:
    return " ".join(str(e.value) for kind in ("markdown", "caption", "success", "error", "info",
                                               "warning") for e in getattr(at, kind))


def test_the_teacher_starts_a_class_and_its_screen_asks_the_room(fresh_store):
    at, code = _teacher()
    assert at.query_params["class"] == code and at.query_params["predict"] == "true"
    assert f"Class code **{live.pretty(code)}**" in _texts(at)
    assert "Ask the class." in _texts(at)
    assert not [r for r in at.radio if r.key and r.key.startswith("predict_")]  # no answering
    shown = fresh_store.state(code)
    assert shown.view.startswith("decision_tree?") and "dt_view=Grow+step+by+step" in shown.view
    assert "class=" not in shown.view and shown.question is not None
    assert "0 of 0 students have answered" in _texts(at)


def test_students_answer_the_teacher_sees_the_count_and_the_reveal_reaches_them(fresh_store):
    teacher, code = _teacher()
    question = fresh_store.state(code).question
    students = [run_app(DT, **GROW, predict="true", **{"class": code}) for _ in range(3)]
    options = None
    for i, student in enumerate(students):
        assert_clean(student)
        radio = next(r for r in student.radio if r.key == f"predict_{question}")
        options = radio.options
        radio.set_value(options[min(i, 1)]).run()
        assert_clean(student)
        assert "Sent:" in _texts(student)
    assert fresh_store.n_members(code) == 3
    assert fresh_store.tally(code, question) == {options[1]: 2, options[0]: 1}
    teacher.run()
    assert "3 of 3 students have answered" in _texts(teacher)
    teacher.button(key=f"class_reveal_{question}").click().run()
    assert_clean(teacher)
    assert "It is " in _texts(teacher)
    assert fresh_store.is_revealed(code, question)
    for student in students:
        student.run()  # the poll's rerun
        assert "Right:" in _texts(student) or "You said" in _texts(student)
    late = run_app(DT, **GROW, predict="true", **{"class": code})  # joins after the reveal
    assert "did not answer in time" in _texts(late)
    assert fresh_store.tally(code, question) == {options[1]: 2, options[0]: 1}  # closed


def test_a_student_joins_by_typing_the_code_as_the_board_shows_it(fresh_store):
    _, code = _teacher()
    student = run_app()
    student.sidebar.text_input(key="class_typed").set_value(live.pretty(code).lower()).run()
    assert_clean(student)
    assert student.session_state["class"] == code
    assert fresh_store.n_members(code) == 1


@pytest.mark.parametrize("typed, words", [
    ("ABC", "not a class code"),
    ("ABCDEFG0", "not a class code"),
    ("ABCD-EFGH", "No class with the code ABCDEFGH"),
])
def test_a_wrong_code_says_why_and_keeps_the_page(typed, words):
    student = run_app("app_pages/naive_bayes.py", data="playtennis")
    student.sidebar.text_input(key="class_typed").set_value(typed).run()
    assert_clean(student)
    assert words in " ".join(w.value for w in student.sidebar.warning)
    assert not student.session_state["class"]
    assert student.title[0].value.endswith("Naive Bayes")  # nothing the user had is lost


def test_a_link_with_a_bad_code_gives_a_notice_and_no_class():
    at = run_app(DT, data="iris", **{"class": "not-a-code!"})
    assert_clean(at)
    assert any("class code" in w.value for w in at.warning)
    assert "class" not in at.query_params
    unknown = run_app(DT, data="iris", **{"class": "ABCDEFGH"})
    assert any("No class with the code ABCDEFGH" in w.value for w in unknown.sidebar.warning)
    assert "class" not in unknown.query_params


def test_the_teacher_exports_the_counts_and_leaves(fresh_store):
    teacher, code = _teacher()
    assert teacher.sidebar.get("download_button")  # the answer counts as CSV
    teacher.sidebar.button(key="class_leave").click().run()
    assert_clean(teacher)
    assert "class" not in teacher.query_params
    assert "Ask the class." not in _texts(teacher)
    assert fresh_store.state(code) is not None  # the class stays for its students
