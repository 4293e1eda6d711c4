"""Lesson links: a page opened with a short lesson text above it and chosen controls hidden.

A teacher makes one in the sidebar's "Link to this view" box: the text (``lesson``, at
most LESSON_CHARS characters, always shown as plain text, never as HTML or Markdown) and
the page's controls to hide (``hide``, their keys) go into the link with the rest of the
view. A hidden control keeps the link's value; the student sees its effect but cannot
move it (``ui.url.bound`` leaves it undrawn).
"""
from __future__ import annotations

import re
from urllib.parse import urlencode

import streamlit as st

from . import url
from .markdown import literal

#: A lesson's text at most (a few sentences: the page is the lesson).
LESSON_CHARS = 600
#: Controls one link may hide at most.
MAX_HIDDEN = 40
_KEY = re.compile(r"[a-z][a-z0-9_]{0,40}")


def _parse_lesson(texts: list[str]) -> str:
    if len(texts) != 1 or len(texts[0]) > LESSON_CHARS:
        raise ValueError(texts)
    return texts[0]


def _parse_hidden(texts: list[str]) -> list[str]:
    keys = [t for t in texts if t]
    if len(keys) > MAX_HIDDEN or not all(_KEY.fullmatch(k) for k in keys):
        raise ValueError(texts)
    return list(dict.fromkeys(keys))


def resolve_hidden() -> set[str]:
    """Read the controls the link hides (before any of them is drawn: the sidebar's first)."""
    url.resolve(url.Param(url.HIDE, [], _parse_hidden, "controls to hide", empty="none"))
    return url.hidden()


def show() -> None:
    """Read the lesson and the hidden controls from the link (before the page's controls
    are drawn) and show the lesson's text."""
    text = url.resolve(url.Param("lesson", "", _parse_lesson, "lesson text", empty="none"))
    resolve_hidden()
    if text:
        st.info(literal(text), icon=":material/school:")


def link_maker(box, base: str, query: dict[str, list[str]]) -> None:
    """In the "Link to this view" box: a lesson text and the controls to hide, and the
    lesson link they make (``base`` the page's address, ``query`` this view's)."""
    controls = url.hideable()
    text = box.text_area("Lesson text (optional)", max_chars=LESSON_CHARS, key="lesson_draft",
                         help="Shown above the page, as plain text, to whoever opens the link.")
    hide = box.multiselect("Controls to hide", list(controls), format_func=controls.get,
                           key="hide_draft",
                           help="They keep this view's values; students see their effect "
                                "but cannot change them.")
    if text or hide:
        pairs = [(key, value) for key, values in query.items() if key not in ("lesson", url.HIDE)
                 for value in values]
        pairs += [("lesson", text)] if text else []
        pairs += [(url.HIDE, key) for key in hide]
        box.code(f"{base}?{urlencode(pairs)}", language=None, wrap_lines=True)
        box.caption("The lesson link: this view, with the text above it and those controls "
                    "hidden.")
