"""The two features a two-feature view draws: by default the most useful pair.

The ranking is :func:`engine.data.rank_features` (continuous columns first, then by how
much of the target one threshold on the column alone explains), so a table whose first
columns are 0/1 flags or classes 1/2/3 does not open on a picture of four spots.
"""
from __future__ import annotations

import streamlit as st

from engine.data import Dataset, rank_features

from . import url


@st.cache_data(max_entries=32, show_spinner=False)
def _ranked(_dataset: Dataset, content_hash: str, columns: tuple[str, ...]) -> list[str]:
    return rank_features(_dataset.X_train[list(columns)], _dataset.y_train, task=_dataset.task)


def most_useful(dataset: Dataset, numeric: list[str]) -> str:
    """The feature a one-feature view starts on: the first of the ranking."""
    return _ranked(dataset, dataset.content_hash, tuple(numeric))[0]


def default_pair(dataset: Dataset, numeric: list[str]) -> tuple[str, str]:
    """The pair :func:`axis_pair` opens on: the two first of the ranking."""
    ranked = _ranked(dataset, dataset.content_hash, tuple(numeric))
    return ranked[0], ranked[1]


def axis_pair(dataset: Dataset, numeric: list[str], keys: tuple[str, str],
              help: tuple[str | None, str | None] = (None, None)) -> tuple[str, str]:
    """Draw the "x axis" and "y axis" choices (URL keys ``keys``) side by side among the
    ``numeric`` features (at least two); returns the chosen pair."""
    ranked = _ranked(dataset, dataset.content_hash, tuple(numeric))
    first, second = st.columns(2)
    a = url.bound(first.selectbox, "x axis", numeric, index=numeric.index(ranked[0]),
                  key=keys[0], help=help[0])
    others = [c for c in numeric if c != a]
    b = url.bound(second.selectbox, "y axis", others, index=others.index(_partner(ranked, a)),
                  key=keys[1], help=help[1])
    return a, b


def _partner(ranked: list[str], a: str) -> str:
    """The y axis a pair opens on beside the x axis ``a``: the first other of the ranking."""
    return next(c for c in ranked if c != a)


def chosen_pair(dataset: Dataset, numeric: list[str], keys: tuple[str, str]) -> tuple[str, str]:
    """The pair :func:`axis_pair` (same ``keys``) will show, read without drawing its
    choices: the session's, or the link's, where it is among ``numeric``; else the
    default. For work started before the choices are drawn."""
    ranked = _ranked(dataset, dataset.content_hash, tuple(numeric))

    def chosen(key: str):
        return st.session_state.get(key, st.query_params.get(key))

    a = chosen(keys[0])
    a = a if a in numeric else ranked[0]
    b = chosen(keys[1])
    b = b if b in numeric and b != a else _partner(ranked, a)
    return a, b
