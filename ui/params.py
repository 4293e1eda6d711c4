"""A page's parameters, declared once: each :class:`Control` makes its sidebar widget, its
URL binding and its estimator keyword; :func:`cache_key` makes the key of every cached fit.

A controls module lists its page's controls in order (``CONTROLS``); the page calls
:func:`draw_controls`, which draws each one through ``ui.url.bound`` (the URL's one owner) and
returns the estimator's keyword arguments. The rules:

* A control's key starts with its page's prefix (``dt_``, ``rf_``, ...) and is its name
  in the URL too: ``?dt_max_depth=3`` opens the tree page with ``max_depth=3``.
* A control that does not apply (``applies`` is false: a numeric target, another variant
  chosen) gives ``otherwise``. It is left out, with ``note`` in its place if it has one,
  or with ``disable`` drawn greyed out, so that its value stays in a link.
* A control whose range or default depends on the data says so with ``adapt``; a value
  chosen under another range or default starts again from the new default (a value from
  a link is kept: the link asked for it).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import streamlit as st

from engine.data import Dataset

from . import url

#: ``applies(dataset, values)``: whether a control applies, given the values drawn before it.
Applies = Callable[[Dataset, Mapping[str, object]], bool]


@dataclass(frozen=True)
class Control:
    """One estimator parameter as one widget whose value the URL keeps.

    Drawn as ``widget(label, *args, key=key, help=help, **kwargs)``, so ``args`` and
    ``kwargs`` are the widget's own (range, options, default, step, placeholder, format).
    ``convert`` turns the widget's value into the estimator's ("off" → None, text →
    float); ``adapt(dataset)`` returns the fields that depend on the data; ``place``
    picks one of the containers given to :func:`draw_controls`.
    """

    name: str
    widget: Callable
    label: str
    key: str
    args: tuple = ()
    kwargs: Mapping[str, object] = field(default_factory=dict)
    help: str | None = None
    applies: Applies | None = None
    otherwise: object = None
    disable: bool = False
    note: str | None = None
    convert: Callable[[object], object] | None = None
    adapt: Callable[[Dataset], dict] | None = None
    place: int = 0


def classification(dataset: Dataset, values: Mapping[str, object]) -> bool:
    """``applies`` of a control that only a class target has."""
    return dataset.task == "classification"


def draw_controls(controls: Sequence[Control], dataset: Dataset, places: Sequence = (st,)) -> dict:
    """Draw ``controls`` in order; returns ``{control.name: value}`` for every one of them.

    ``places`` are the containers a control's ``place`` indexes (by default the current
    one: the sidebar when called under ``with st.sidebar``).
    """
    values: dict[str, object] = {}
    for control in controls:
        values[control.name] = _value(control, dataset, values, places)
    return values


def _value(control: Control, dataset: Dataset, values: Mapping[str, object],
           places: Sequence) -> object:
    if control.adapt is not None:
        control = replace(control, **control.adapt(dataset))
        _afresh(control.key, control.args)
    applies = control.applies is None or control.applies(dataset, values)
    place = places[control.place]
    if not applies and not control.disable:
        if control.note:
            place.caption(control.note)
        return control.otherwise
    kwargs = {**control.kwargs, **({} if applies else {"disabled": True})}
    value = url.bound(getattr(place, control.widget.__name__), control.label, *control.args,
                      key=control.key, help=control.help, **kwargs)
    if not applies:
        return control.otherwise
    return value if control.convert is None else control.convert(value)


def _afresh(key: str, depends_on: object) -> None:
    """A value chosen under other data-dependent arguments (range, default) starts again
    from its default; a value from a link or Back is the one asked for."""
    marker = f"_{key}_for"
    if st.session_state.get(marker, depends_on) != depends_on and not url.came_from_outside():
        st.session_state.pop(key, None)
    st.session_state[marker] = depends_on


def seed() -> int:
    """The shared random seed (the sidebar's), the ``random_state`` of every page's model."""
    return int(st.session_state.get("seed") or 0)


def cache_key(dataset: Dataset, params: Mapping[str, object]) -> tuple[str, tuple]:
    """What a cached fit is found by: the dataset's content hash (the table and every data
    choice, seed included) and the parameters as sorted (name, value) pairs. Two keys are
    equal exactly when the data and every parameter are."""
    return dataset.content_hash, tuple(sorted(params.items()))
