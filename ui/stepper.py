"""One step control for every sequence the app shows: tree depth, boosting round, trees so far.

A slider, ◀ ▶ buttons and a play button. The stepped view is drawn inside a fragment, so
moving one step reruns that view only, not the whole page; while playing, the fragment
reruns itself every ``interval`` seconds and advances one step, stopping at the end. The
step is kept in the URL under ``key`` (by ``ui.url``), so a link reopens the same step; it
is written there on each step, but not while playing, so Back is not one entry a frame.
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from . import live, url
from .sidebar import refresh_link


def stepped(draw: Callable[[int], None], *, first: int, last: int, key: str, label: str,
            default: int | None = None, interval: float = 1.2) -> None:
    """Draw the step control and ``draw(step)`` below it.

    Parameters
    ----------
    draw : callable taking the step (an int in ``first..last``) and drawing the view;
        it returns False when the step waits for the student (a "Predict first"
        question), and playing stops there.
    first, last : the range of steps, both included.
    key : session-state key and URL query parameter of the step (e.g. ``"ab_round"``).
    label : the slider's label, e.g. ``"Round t"``.
    default : the step shown first (``first`` when omitted).
    interval : seconds between two steps while playing.
    """
    playing_key = f"{key}_playing"
    default = first if default is None else int(min(max(default, first), last))
    playing = bool(st.session_state.get(playing_key)) and last > first

    @st.fragment(run_every=interval if playing else None)
    def view() -> None:
        if st.session_state.get(playing_key):
            _advance(key, playing_key, last)
        step = _controls(key, playing_key, first, last, label, default)
        if not url.in_full_run() and not st.session_state.get(playing_key):
            url.write([key])  # a full run writes the URL at its end
            refresh_link()  # the open "Link to this view" box follows the step
        live.begin_step()
        waits = draw(step) is False
        if not url.in_full_run():
            live.publish()  # a class follows the teacher's step
        if waits and st.session_state.get(playing_key):
            st.session_state[playing_key] = False  # a question waits: play stops at it
            st.rerun(scope="app")

    view()


def _advance(key: str, playing_key: str, last: int) -> None:
    if st.session_state[key] >= last:
        st.session_state[playing_key] = False
        st.rerun(scope="app")  # back to a page that no longer reruns itself
    st.session_state[key] += 1


def _controls(key: str, playing_key: str, first: int, last: int, label: str,
              default: int) -> int:
    if last <= first:
        st.caption(f"{label}: {first} (there is only one step).")
        return first
    # ◀ and ▶ need ≈ 45 px each: at 1024 px with the sidebar open the main column is
    # ≈ 565 px wide, and narrower buttons clip their arrows.
    play, back, slider, forward = st.columns([1.7, 1.2, 9, 1.2], gap="small",
                                             vertical_alignment="bottom")
    playing = bool(st.session_state.get(playing_key))
    # A word without an icon: word and icon together do not fit the column at 1024 px.
    if play.button("Pause" if playing else "Play", key=f"{key}_play", width="stretch",
                   help="Step through automatically, one step every second or so."):
        if not playing and st.session_state[key] >= last:
            st.session_state[key] = first  # play from the start once the end is reached
        st.session_state[playing_key] = not playing
        st.rerun(scope="app")
    back.button("◀", key=f"{key}_back", on_click=_move, args=(key, -1, first, last),
                help="One step back", disabled=playing, width="stretch")
    forward.button("▶", key=f"{key}_fwd", on_click=_move, args=(key, 1, first, last),
                   help="One step forward", disabled=playing, width="stretch")
    return url.bound(slider.slider, label, first, last, default, key=key, disabled=playing)


def _move(key: str, delta: int, first: int, last: int) -> None:
    st.session_state[key] = int(min(max(st.session_state.get(key, first) + delta, first), last))
