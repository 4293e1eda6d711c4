"""Predict first: a view waits for the student's prediction, then shows it beside the truth.

With "Predict first" on (the sidebar's toggle, ``predict=true`` in a link), a view that
would show what happens next first asks (:func:`ask`) a :class:`ui.questions.Question`
built from the model, and draws itself only once the student has chosen an answer; the
answer is then shown, right or wrong, with the one-line reason. Answers and the running
score live in this session only: a reload starts afresh.

In a live class (``ui.live``) the question is always asked. The teacher's screen lists
the options and shows the room's answers instead of asking; a student's answer to the
question the class has on screen goes to the class, and its truth waits for the
teacher's "Reveal".
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from . import live
from .markdown import literal
from .questions import Question

#: Session key: {question key: (the option chosen, whether it was right)}.
ANSWERS = "gb_predict_answers"


def on() -> bool:
    return bool(st.session_state.get("predict", False)) or live.role() is not None


def ask(question: Callable[[], Question | None]) -> bool:
    """Ask the question ``question()`` builds (only when "Predict first" is on: building
    may cost a computation); True once the view may show its answer: the student has
    answered (the reveal is drawn), or nothing is asked (None)."""
    if not on():
        return True
    question = question()
    if question is None:
        return True
    if live.teacher() is not None:
        return _ask_room(question)
    in_class, shown = live.answering(question.key)
    if in_class and not shown:
        return _answer_for_class(question)
    answers = st.session_state.setdefault(ANSWERS, {})
    box = st.container(border=True)
    if in_class and question.key not in answers:  # revealed: the class holds the answer
        chosen = live.own_choice(question.key)
        if chosen in question.options:
            answers[question.key] = (chosen, question.is_right(chosen))
        else:
            box.info(f"**{literal(question.prompt)}** You did not answer in time: it is "
                     f"{literal(question.options[question.answer])}. "
                     f"{literal(question.reason)}", icon=":material/schedule:")
            return True
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


def _ask_room(question: Question) -> bool:
    """The teacher's screen: the question and its options, the room's answers, Reveal;
    the view waits for the reveal, as the students' do."""
    live.on_screen(question.key)
    box = st.container(border=True)
    box.markdown(f"**Ask the class.** {literal(question.prompt)}")
    if question.figure is not None:
        box.plotly_chart(question.figure, width="stretch", key=f"predict_figure_{question.key}")
    live.tally(box, question)
    if not live.revealed(question.key):
        return False
    box.success(f"**It is {literal(question.options[question.answer])}.** "
                f"{literal(question.reason)}", icon=":material/check_circle:")
    return True


def _answer_for_class(question: Question) -> bool:
    """A student's screen, the question on the class's screen not yet revealed: the
    answer goes to the class and may change until the reveal; the view waits. The box is
    a fragment: an answer reruns the box only, not the page (thirty answers arrive at
    once)."""
    box = st.container(border=True)
    box.markdown(f"**Predict first.** {literal(question.prompt)}")
    if question.figure is not None:
        box.plotly_chart(question.figure, width="stretch", key=f"predict_figure_{question.key}")
    widget = f"predict_{question.key}"
    held = None if widget in st.session_state else live.own_choice(question.key)

    @st.fragment
    def answer() -> None:
        # Sent by the callback, which runs in whichever run first carries the click (a
        # fragment run cut short under load still delivers it), and shown below.
        choice = st.radio("Your prediction", question.options,  # a reload shows the answer sent
                          index=question.options.index(held) if held in question.options
                          else None, key=widget, label_visibility="collapsed",
                          horizontal=sum(map(len, question.options)) < 60,
                          on_change=_send_choice, args=(question.key, widget))
        if choice is None:
            st.caption("Choose your answer: it goes to the class, anonymously.")
            return
        refused = live.send(question.key, choice)
        if refused:
            st.warning(literal(refused), icon=":material/error:")
        else:
            st.caption(f"Sent: {literal(choice)}. You may change it until the teacher shows "
                       "the answer.")

    with box:
        answer()
    return False


def _send_choice(question: str, widget: str) -> None:
    choice = st.session_state.get(widget)
    if choice is not None:
        live.send(question, choice)  # a refusal is shown when the box is drawn


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
