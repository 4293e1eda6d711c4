"""The URL: the one owner of every value a link carries.

Every control whose value belongs in a link is drawn through :func:`bound` (a page's
own controls) or resolved by :func:`resolve` (the values every page shares: dataset,
target, seed, presentation mode, the split). Streamlit's ``bind="query-params"`` is not
used: a bound widget belongs to one page, so its value left the URL on a page switch,
and Back restored a missing value to the widget's first option rather than the page's
default.

The rules, in one place:

* A value equal to its default is not written into the URL; a missing value means the
  default. The dataset's name is always written: a link says which data it shows.
* Where the URL and the session disagree, the one that changed wins. A link opened (a
  session's first run, or a view a live class sends: :func:`open_link`) or Back /
  Forward to an entry this app wrote (it always holds ``data``) comes from outside, and
  the URL wins. Otherwise the session's value, just
  chosen on screen, wins: a widget change sends a URL a step behind, and a page switch
  one without the page's values.
* A value the user never changed follows its default when that depends on the data (the
  depth drawn follows the tree), so it never enters the URL as if it had been chosen.
  A textbook example's settings (``state.preset``, while ``textbook`` is on) are its
  controls' defaults in the same way: a link holds only what differs from the source.
* A value from outside that does not fit (a column this data does not have, a round
  past the last, a word where a number goes) is replaced, **with a notice** above the
  page, never silently. A session value that no longer fits (the data changed) is
  replaced silently: the user has just changed what it depends on.
* At the end of every full run the URL is written from the values the run drew, so
  it holds exactly the view on screen; the page links carry the shared values, so a
  page switch is one entry in the browser's history.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from engine import drawing
from engine.data import DataError

from . import state
from .markdown import literal

#: Session keys of this module (never part of a link).
_PARAMS = "gb_url_params"      # {key: Param}: the values this full run drew
_DEFAULTS = "gb_url_defaults"  # {key: default} of the last full run
_WRITTEN = "gb_url_written"    # present once the session has written the URL
_OUTSIDE = "gb_url_outside"    # this run's URL came from outside (a link, Back, Forward)
_NOTICE_BOX = "gb_notice_box"  # this run's container for notices, above the page
_NOTICED = "gb_url_noticed"    # the keys this run has given a notice about
_FULL_RUN = "gb_full_run"      # between begin_run and end_run: not a fragment's rerun
_OPENED = "gb_url_opened"      # the next run opens a link this session was sent to (open)

TASKS = ("auto", "classification", "regression")


@dataclass(frozen=True)
class Param:
    """A value the URL keeps under ``key``.

    ``parse`` turns the URL's texts (``get_all``) into the value, raising ``ValueError``
    when they do not fit; a number outside its range comes back as ``(value brought into
    the range, (low, high))``: from a link it gives way to the default, in the session
    (the range shrank under it) it is brought into the range. ``name`` is how a notice
    names it.
    """
    key: str
    default: object
    parse: Callable[[list[str]], object]
    name: str
    shared: bool = False  # carried by the links to every page
    always: bool = False  # written even when it equals the default
    empty: str = "none"   # how a notice names no value (a number input's placeholder)


# --- Text -------------------------------------------------------------------------------

def to_url(value) -> list[str]:
    """The texts a value has in the URL (several for a multiselect)."""
    if isinstance(value, list | tuple):
        return [_text(item) for item in value] or [""]
    return [_text(value)]


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _single(texts: list[str]) -> str:
    if len(texts) != 1:
        raise ValueError(texts)
    return texts[0]


#: How a switch may be written in a link typed by hand (any case); links the app writes
#: hold "true" or "false".
SWITCH_TEXTS = {"true": True, "1": True, "yes": True, "on": True,
                "false": False, "0": False, "no": False, "off": False}


def parse_bool(texts: list[str]) -> bool:
    text = _single(texts).strip().lower()
    if text not in SWITCH_TEXTS:
        raise ValueError(text)
    return SWITCH_TEXTS[text]


def _by_text(options: Sequence, labels: Callable | None) -> dict[str, object]:
    """Each option by its text in the URL, and by its label too (older links held it)."""
    by_text = {str(labels(option)): option for option in options} if labels else {}
    by_text.update({_text(option): option for option in options})
    return by_text


def parse_one_of(options: Sequence, labels: Callable | None = None):
    by_text = _by_text(options, labels)

    def parse(texts: list[str]) -> object:
        text = _single(texts)
        if text not in by_text:
            raise ValueError(text)
        return by_text[text]
    return parse


@dataclass(frozen=True)
class Partly:
    """Some of the values a link asked for, without those that do not fit."""
    value: list
    left_out: list[str]


def parse_some_of(options: Sequence, labels: Callable | None = None):
    by_text = _by_text(options, labels)

    def parse(texts: list[str]) -> list | Partly:
        if texts == [""]:
            return []
        kept = list(dict.fromkeys(by_text[text] for text in texts if text in by_text))
        left_out = [text for text in texts if text not in by_text]
        if not kept and left_out:
            raise ValueError(texts)
        return Partly(kept, left_out) if left_out else kept
    return parse


def parse_number(low, high, *, whole: bool, optional: bool = False):
    """A number in ``low..high`` (either may be None); out of range it is clamped."""
    def parse(texts: list[str]):
        text = _single(texts)
        if text == "" and optional:
            return None
        number = int(text) if whole else float(text)
        if number != number:  # NaN
            raise ValueError(text)
        inside = min(max(number, low if low is not None else number),
                     high if high is not None else number)
        return (inside, (low, high)) if inside != number else inside
    return parse


# --- One run ----------------------------------------------------------------------------

def begin_run(box) -> None:
    """First in every full run: ``box`` (a container above the page) takes notices."""
    ctx = get_script_run_ctx()
    history = bool(ctx and ctx.is_history_navigation) and "data" in st.query_params
    opened = st.session_state.pop(_OPENED, False)
    st.session_state[_OUTSIDE] = _WRITTEN not in st.session_state or history or opened
    st.session_state[_NOTICE_BOX] = box
    st.session_state[_NOTICED] = set()
    drawn = st.session_state.get(_PARAMS, {})
    st.session_state[_DEFAULTS] = {key: param.default for key, param in drawn.items()}
    st.session_state[_PARAMS] = {}
    st.session_state[_FULL_RUN] = True


def resolve(param: Param) -> object:
    """Put this run's value of ``param`` in the session (see the rules above)."""
    key, texts = param.key, st.query_params.get_all(param.key)
    if came_from_outside():
        value, asked = param.default, texts
    else:
        value, asked = st.session_state.get(key, param.default), None
        last = st.session_state.get(_DEFAULTS, {})
        if key in last and value == last[key]:
            value = param.default  # never chosen: it follows its default (the data changed)
    if asked:
        value = _from_outside(param, asked)
    elif value != param.default:
        value = _still_fits(param, value)
    st.session_state[key] = value
    st.session_state.setdefault(_PARAMS, {})[key] = param
    return value


def _from_outside(param: Param, texts: list[str]):
    try:
        parsed = param.parse(texts)
    except (ValueError, TypeError) as error:
        asked, default = _cut(", ".join(texts)), _shown(param.default, param.empty)
        if isinstance(error, DataError):  # its message says why, for the user
            notice(f"This link asked for “{asked}” as the {param.name}, which does not fit "
                   f"here: {error} Showing “{default}” instead.", param.key)
        else:
            notice(f"This link asked for “{asked}” as the {param.name}, which does not fit "
                   f"here; showing “{default}” instead.", param.key)
        return param.default
    if isinstance(parsed, Partly):
        notice(f"This link asked for {', '.join(f'“{t}”' for t in parsed.left_out)} among the "
               f"{param.name}, which is not one of the choices here; it is left out.",
               param.key)
        return parsed.value
    if _clamped(parsed):
        _, (low, high) = parsed
        notice(f"This link asked for {param.name} = {', '.join(texts)}, but here it goes "
               f"from {_shown(low)} to {_shown(high)}; showing "
               f"{_shown(param.default, param.empty)}, the default.", param.key)
        return param.default
    return parsed


def _cut(text: str, most: int = 60) -> str:
    """``text`` as a notice quotes it: as typed (not Markdown), a long one (a drawing, a
    crafted link) cut short."""
    return literal(text if len(text) <= most else f"{text[:most - 20]}… ({len(text):,} characters)")


def _clamped(parsed) -> bool:
    return isinstance(parsed, tuple) and len(parsed) == 2 and isinstance(parsed[1], tuple)


def _still_fits(param: Param, value):
    try:
        parsed = param.parse(to_url(value))
    except (ValueError, TypeError):
        return param.default
    if isinstance(parsed, Partly):
        return parsed.value
    return parsed[0] if _clamped(parsed) else parsed


def _shown(value, empty: str = "none") -> str:
    return ", ".join(to_url(value)) if value not in (None, "") else empty


def came_from_outside() -> bool:
    """Whether this run's URL came from a link, Back or Forward (never in a fragment's
    own rerun: its step has just been chosen on screen)."""
    if _FULL_RUN not in st.session_state:  # a script without app.py's begin_run (tests)
        return _WRITTEN not in st.session_state
    return in_full_run() and bool(st.session_state.get(_OUTSIDE))


def open_link(page, query: dict[str, list[str]]) -> None:
    """Switch this session to ``page`` with ``query``, as if the link had been opened: its
    values win over the session's (a student following the teacher's view)."""
    st.session_state[_OPENED] = True
    st.switch_page(page, query_params=query)


def in_full_run() -> bool:
    return bool(st.session_state.get(_FULL_RUN))


def write(keys: Sequence[str] | None = None) -> None:
    """Write the URL from the session: every value this run drew (or only ``keys``, from
    a fragment's own rerun). Values no control drew leave the URL. One write, so the
    browser makes at most one history entry of it."""
    params, now = st.session_state.get(_PARAMS, {}), current()
    query = {key: texts for key, texts in now.items() if keys is not None or key in params}
    for key in (keys if keys is not None else params):
        param = params.get(key)
        if param is None:
            continue
        value = st.session_state.get(key, param.default)
        if value == param.default and not param.always:
            query.pop(key, None)
        else:
            query[key] = to_url(value)
    if query != now:
        st.query_params.from_dict(query)
    st.session_state[_WRITTEN] = True


def current() -> dict[str, list[str]]:
    """The query as it stands, every value of each key."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def end_run() -> None:
    """Last in every full run, also after a page that stopped early: write the URL."""
    write()
    st.session_state[_FULL_RUN] = False


def shared_query() -> dict[str, list[str]]:
    """The shared values of this run as the URL holds them (for the links to pages)."""
    query = {}
    for key, param in st.session_state.get(_PARAMS, {}).items():
        value = st.session_state.get(key, param.default)
        if param.shared and (param.always or value != param.default):
            query[key] = to_url(value)
    return query


# --- Notices ----------------------------------------------------------------------------

def notice(text: str, key: str | None = None) -> None:
    """Say, above the page, that a value from the URL was replaced (for this run)."""
    noticed = st.session_state.setdefault(_NOTICED, set())
    if key is not None and key in noticed:
        return
    noticed.add(key)
    box = st.session_state.get(_NOTICE_BOX)
    (box if box is not None else st).warning(text, icon=":material/link_off:")


# --- The shared values ------------------------------------------------------------------

def _parse_test(texts: list[str]) -> float:
    fraction = round(float(_single(texts)), 2)
    if not 0.1 <= fraction <= 0.5:
        raise ValueError(texts)
    return fraction


def _parse_drawing(texts: list[str]) -> str:
    """The text of a drawing, as ``engine.drawing`` writes it (DataError if it is not)."""
    text = _single(texts)
    drawing.decode(text)
    return text


def resolve_shared() -> None:
    """The values every page shares, but the target (it needs the chosen data)."""
    for param in (
        Param("data", state.DEFAULT_SAMPLE, parse_one_of(state.sources()),
              "dataset", shared=True, always=True),
        Param("seed", 0, parse_number(0, 2**31 - 1, whole=True), "random seed", shared=True),
        Param("present", False, parse_bool, "presentation mode", shared=True),
        Param("predict", False, parse_bool, "“predict first”", shared=True),
        Param("test", 0.25, _parse_test, "test fraction", shared=True),
        Param("strat", True, parse_bool, "“stratify by class”", shared=True),
        Param("task", "auto", parse_one_of(TASKS), "task", shared=True),
        Param("textbook", True, parse_bool, "textbook settings", shared=True),
    ):
        resolve(param)
    if state.source() == state.DRAWN:  # other data leave the drawing out of their links
        resolve(Param(state.POINTS, "", _parse_drawing, "drawn points", shared=True,
                      empty="no points"))


def resolve_target(columns: Sequence[str], default: str) -> str:
    return resolve(Param("target", default, parse_one_of(columns), "target column",
                         shared=True))


# --- Controls ---------------------------------------------------------------------------

def bound(widget: Callable, *args, **kwargs):
    """Draw ``widget(*args, **kwargs)`` with its value kept in the URL under its key.

    ``widget`` is a Streamlit widget function or a container's method (``st.slider``,
    ``col.selectbox``, ``st.tabs``, ``st.expander``). Its default, options and range are
    read from the call itself, so a control is declared once. Tabs and expanders rerun
    the page when switched, so the view and the URL follow them.
    """
    value = resolve(_with_preset(_param(widget, args, kwargs)))
    if widget.__name__ in ("tabs", "expander") and kwargs.get("on_change", "ignore") == "ignore":
        kwargs["on_change"] = "rerun"
    elif kwargs.get("key") in hidden():
        return value  # a lesson link hides this control: its value (the link's) stands
    return widget(*args, **kwargs)


#: Session key of the controls a lesson link hides (``ui.lesson``; in the URL as ``hide``).
HIDE = "hide"


def hidden() -> set[str]:
    """Keys of the page controls a lesson link hides (drawn through :func:`bound`)."""
    return set(st.session_state.get(HIDE) or ())


#: The shared values drawn as controls (the sidebar's and the Data page's split): a
#: lesson may hide them too.
SHARED_CONTROLS = ("data", "target", "seed", "present", "predict", "task", "test", "strat")


def hideable() -> dict[str, str]:
    """The controls of this run a lesson may hide, by key: the page's own values (not
    tabs or sections), then the shared controls."""
    params = st.session_state.get(_PARAMS, {})
    own = {key: param.name for key, param in params.items()
           if not param.shared and key not in ("lesson", HIDE)
           and not param.name.startswith("tab of") and not param.name.endswith("section")}
    return own | {key: f"{params[key].name} (every page)" for key in SHARED_CONTROLS
                  if key in params}


def drawn(key: str) -> bool:
    """Whether the shared control ``key`` is drawn (a lesson link may hide it)."""
    return key not in hidden()


def _with_preset(param: Param) -> Param:
    """``param`` with its default replaced by the dataset's textbook setting, if it has
    one that fits (see ``state.preset``): a link then holds only what differs from the
    textbook, and the general defaults come back when the settings are switched off."""
    values = (state.preset() or {}).get("values", {})
    if param.key not in values:
        return param
    try:
        value = param.parse(to_url(values[param.key]))
    except (ValueError, TypeError):
        return param
    if isinstance(value, Partly) or _clamped(value):
        return param
    return replace(param, default=value)


def _param(widget: Callable, args: tuple, kwargs: dict) -> Param:
    kind = widget.__name__
    call = inspect.signature(widget).bind(*args, **kwargs)
    call.apply_defaults()
    a = call.arguments
    key, name = a["key"], _label(a.get("label") or a["key"])
    labels = a.get("format_func") if callable(a.get("format_func")) else None
    if kind == "tabs":
        tabs = list(a["tabs"])
        return Param(key, a["default"] or tabs[0], parse_one_of(tabs), f"tab of “{name}”")
    if kind in ("selectbox", "radio"):
        options = list(a["options"])
        default = options[a["index"]] if a["index"] is not None and options else None
        return Param(key, default, parse_one_of(options, labels), name)
    if kind == "select_slider":
        options = list(a["options"])
        return Param(key, a["value"] if a["value"] is not None else options[0],
                     parse_one_of(options), name)
    if kind == "multiselect" or (kind == "segmented_control" and a["selection_mode"] == "multi"):
        default = a["default"]
        default = [] if default is None else list(default) if isinstance(default, list | tuple) \
            else [default]
        return Param(key, default, parse_some_of(list(a["options"]), labels), name)
    if kind == "segmented_control":
        return Param(key, a["default"], parse_one_of(list(a["options"]), labels), name)
    if kind in ("toggle", "checkbox"):
        return Param(key, bool(a["value"]), parse_bool, name)
    if kind == "expander":
        return Param(key, bool(a["expanded"]), parse_bool, f"“{name}” section")
    if kind in ("number_input", "slider"):
        return _number_param(kind, key, name, a)
    if kind == "text_input":
        return Param(key, a["value"] or "", _single, name)
    raise TypeError(f"{kind} cannot be kept in the URL")


def _number_param(kind: str, key: str, name: str, a: dict) -> Param:
    low, high, value = a["min_value"], a["max_value"], a["value"]
    whole = not any(isinstance(v, float) for v in (low, high, value, a.get("step")))
    if kind == "number_input":
        default = low if value == "min" else value
        optional = value is None
    else:
        default = low if value is None else value
        optional = False
    return Param(key, default, parse_number(low, high, whole=whole, optional=optional), name,
                 empty=a.get("placeholder") or "none")


def _label(label: str) -> str:
    return label.split(":")[0].strip().strip("*")
