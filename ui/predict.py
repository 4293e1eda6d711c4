"""Predict first: a view waits for the student's prediction, then shows it beside the truth.

With "Predict first" on (the sidebar's toggle, ``predict=true`` in a link), a view that
would show what happens next first asks (:func:`ask`) a :class:`ui.questions.Question`
built from the model, and draws itself only once the student has chosen an answer; the
answer is then shown, right or wrong, with the one-line reason. Answers and the running
score live in this session only: a reload starts afresh.
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from .markdown import literal
from .questions import Question

#: Session key: {question key: (the option chosen, whether it was right)}.
ANSWERS = "gb_predict_answers"


def on() -> bool:
    return bool(st.session_state.get("predict", False))


def ask(question: Callable[[], Question | None]) -> bool:
    """Ask the question ``question()`` builds (only when "Predict first" is on: building
    may cost a computation); True once the view may show its answer: the student has
    answered (the reveal is drawn), or nothing is asked (None)."""
    if not on():
        return True
    question = question()
    if question is None:
        return True
    answers = st.session_state.setdefault(ANSWERS, {})
    box = st.container(border=True)
    if question.key not in answers:
        box.markdown(f"**Predict first.** {literal(question.prompt)}")
    if question.figure is not None:  # kept after the answer: the reason names its plots
        box.plotly_chart(question.figure, width="stretch", key=f"predict_figure_{question.key}")
    if question.key not in answers:
        choice = box.radio("Your prediction", question.options, index=None,
                           key=f"predict_{question.key}", label_visibility="collapsed",
                           horizontal=sum(map(len, question.options)) < 60)
        if choice is None:
            box.caption("Choose your answer: then the view shows what really happens.")
            return False
        answers[question.key] = (choice, question.is_right(choice))
    choice, right = answers[question.key]
    truth = question.options[question.answer]
    if right:
        box.success(f"**Right: {literal(truth)}.** {literal(question.reason)}",
                    icon=":material/check_circle:")
    else:
        box.error(f"**You said {literal(choice)}; it is {literal(truth)}.** "
                  f"{literal(question.reason)}", icon=":material/cancel:")
    box.caption(score_text())
    return True


def score() -> tuple[int, int]:
    """(right, answered) in this session."""
    answers = st.session_state.get(ANSWERS, {})
    return sum(right for _, right in answers.values()), len(answers)


def score_text() -> str:
    right, answered = score()
    return f"Your predictions this session: {right} of {answered} right."


def score_box() -> None:
    """The running score in the sidebar (drawn after the page, so it counts its answers)."""
    if on() and score()[1]:
        st.sidebar.caption(score_text())
