"""The data a session is looking at, and how it survives reruns, page switches and links.

What lives where:

* The URL, owned by ``ui.url``: the values every page shares (``data``, ``target``,
  ``seed``, ``present``, the Data page's ``test`` / ``strat`` / ``task`` and, for a
  drawing, its ``points``) and each page's own controls. A copied link reopens the same
  sample or drawing, target, split and view, and Back / Forward restore them.
* ``st.session_state``: the uploaded file's bytes (never in a global: every session
  has its own) and the per-column overrides made on the Data page.
* Streamlit caches, keyed by content: parsed samples, parsed uploads (by their bytes'
  digest), drawings (by their text) and built datasets. They are bounded so a classroom
  server's memory stays bounded. A parsed table is shared, not unpickled on every run
  (a 200,000-row export with text columns took 0.3 s a rerun): each caller gets a
  shallow copy (:func:`_own`), which pandas' copy-on-write keeps from changing the shared
  table. What is derived from the raw table is keyed by
  :func:`frame_key` (the sample's name, the upload's digest and reading, or the drawing's
  digest), not by hashing the table on every run; a built Dataset is shared, not
  copied (``st.cache_resource``): nothing changes it.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from engine import data, drawing
from engine.data import (
    DataError,
    Dataset,
    infer_schema,
    list_samples,
    load_csv,
    load_sample,
    with_date_parts,
)
from viz.style import Style

UPLOAD = "upload"
#: The source of the points drawn on the Data page; their text is in the URL as ``points``.
DRAWN = "drawn"
POINTS = "points"
DEFAULT_SAMPLE = "playtennis"
MAX_UPLOAD_MB = 50  # keep equal to server.maxUploadSize in .streamlit/config.toml
#: File name endings the uploaders take: text tables, UCI's ``.data`` among them.
UPLOAD_TYPES = ["csv", "tsv", "txt", "data", "dat"]


@dataclass(frozen=True)
class Upload:
    name: str
    content: bytes
    skip: int = 0        # lines above the table (a title or a count line)
    header: bool = True  # whether the first line read names the columns

    @functools.cached_property  # once per upload: the bytes never change
    def digest(self) -> str:
        return _digest(self.content)


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:16]


@st.cache_data(max_entries=1, show_spinner=False)
def samples() -> dict[str, dict]:
    """The catalog of bundled datasets, by name."""
    return {entry["name"]: entry for entry in list_samples()}


def sources() -> list[str]:
    """Every source the dataset picker offers: the samples, a drawing, an upload."""
    return [*samples(), DRAWN, UPLOAD]


def _own(frame: pd.DataFrame) -> pd.DataFrame:
    """The caller's own view of a cached table: a shallow copy, so adding, dropping or
    changing its columns (copy-on-write) never reaches the table other runs share."""
    return frame.copy(deep=False)


def sample_frame(name: str) -> pd.DataFrame:
    """A bundled table as the app shows it: its classes named where the catalogue names
    them (``class_names``: what each value of the target means), dates with their parts."""
    return _own(_sample(name))


@st.cache_resource(max_entries=32, show_spinner="Loading the dataset…")
def _sample(name: str) -> pd.DataFrame:
    frame = with_date_parts(load_sample(name))
    entry = samples().get(name, {})
    names = entry.get("class_names")
    if names and entry.get("target") in frame.columns:
        return _renamed(frame, f"sample:{name}", entry["target"], tuple(sorted(names.items())))
    return frame


def parse_upload(content: bytes, skip: int = 0, header: bool = True,
                 digest: str | None = None) -> pd.DataFrame:
    """Parse uploaded bytes (with each date's year, month and weekday beside it); cached
    by the bytes' ``digest`` (computed when not given), so the same file is parsed once."""
    return _own(_parsed(content, digest or _digest(content), skip, header))


@st.cache_resource(max_entries=16, show_spinner="Reading your file…")
def _parsed(_content: bytes, digest: str, skip: int, header: bool) -> pd.DataFrame:
    return with_date_parts(load_csv(_content, skip=skip, header=header))


def frame_key() -> str:
    """Names the current raw table (:func:`current_frame`) for the caches derived from
    it: the sample, or the upload's digest and how it was read."""
    upload = current_upload()
    if source() == UPLOAD and upload is not None:
        return f"upload:{upload.digest}:{upload.skip}:{upload.header}"
    if source() == DRAWN:
        return f"drawn:{_digest(drawn_text().encode())}"
    return f"sample:{source()}"


def schema_of(frame: pd.DataFrame) -> pd.DataFrame:
    """The inferred schema of ``frame``, the current raw table (cached by :func:`frame_key`)."""
    return _schema(frame, frame_key())


@st.cache_data(max_entries=64, show_spinner=False)
def _schema(_frame: pd.DataFrame, key: str) -> pd.DataFrame:
    return infer_schema(_frame)


@st.cache_resource(max_entries=16, show_spinner="Preparing the split…")
def build_dataset(_frame: pd.DataFrame, key: str, target: str,
                  features: tuple[str, ...] | None, kinds: tuple[tuple[str, str], ...],
                  task: str | None, test_size: float, stratify: bool, seed: int) -> Dataset:
    """The Dataset of ``_frame`` (named by ``key``: :func:`frame_key` and the class names
    given), shared by every session that asks for the same one."""
    return Dataset(_frame, target, features=list(features) if features is not None else None,
                   kinds=dict(kinds) or None, task=task, test_size=test_size,
                   stratify=stratify, random_state=seed)


def current_upload() -> Upload | None:
    return st.session_state.get("gb_upload")


def set_upload(name: str, content: bytes, skip: int = 0, header: bool = True) -> None:
    st.session_state["gb_upload"] = Upload(name, content, skip, header)


def drawn_text() -> str:
    """The text of the points drawn on the Data page (``engine.drawing``)."""
    return st.session_state.get(POINTS) or ""


@st.cache_data(max_entries=32, show_spinner=False)
def drawn_frame(text: str) -> pd.DataFrame:
    """The table of the drawing ``text``: cached by the text, which is the drawing."""
    return drawing.to_frame(drawing.decode(text))


def source() -> str:
    """``upload``, ``drawn`` or the name of the chosen sample."""
    return st.session_state.get("data") or DEFAULT_SAMPLE


def source_title() -> str:
    name = source()
    if name == UPLOAD:
        upload = current_upload()
        return f"Your file: {upload.name}" if upload else "Your file (not uploaded yet)"
    if name == DRAWN:
        return "Your drawing"
    return samples().get(name, {}).get("title", name)


def current_frame() -> pd.DataFrame | None:
    """The raw table of the current source, or None when an upload is needed.

    Raises DataError when an uploaded file cannot be read.
    """
    name = source()
    if name == DRAWN:
        return drawn_frame(drawn_text())
    if name != UPLOAD:
        return sample_frame(name)
    upload = current_upload()
    return None if upload is None else parse_upload(upload.content, upload.skip, upload.header,
                                                   upload.digest)


def source_key() -> str:
    """A stable id of the current source, for per-source settings."""
    upload = current_upload()
    return f"upload:{upload.digest}" if source() == UPLOAD and upload else f"sample:{source()}"


def default_target(frame: pd.DataFrame) -> str:
    return target_guess(frame)[0]


def target_guess(frame: pd.DataFrame) -> tuple[str, str]:
    """The target a new view starts with, and why: the catalogue's for a bundled dataset,
    ``guess_target``'s for an upload."""
    entry = samples().get(source(), {})
    if entry.get("target") in frame.columns:
        return entry["target"], "the column its source predicts"
    if source() == DRAWN:
        return drawing.COLUMNS[-1], "the class you gave each point"
    return _guess(frame, frame_key())


@st.cache_data(max_entries=64, show_spinner=False)
def _guess(_frame: pd.DataFrame, key: str) -> tuple[str, str]:
    try:
        return data.guess_target(_frame, _schema(_frame, key))
    except ValueError:
        return str(_frame.columns[-1]), "no column looks like an outcome; it is the last column"


def offer_classification_target(what: str) -> None:
    """For a page that classifies, shown on a numeric target: one sentence, and a button
    that picks the column a person would classify instead (when the data has one)."""
    frame = current_frame()
    try:
        column, why = data.guess_target(frame, schema_of(frame), classes=True)
    except ValueError:
        st.info(f"{what} This table has no column of a few classes: choose another dataset "
                "in the sidebar.")
        return
    st.info(f"{what} **{column}** has a few classes ({why}).")
    st.button(f"Predict {column} instead", icon=":material/swap_horiz:", type="primary",
              on_click=st.session_state.__setitem__, args=("target", column))


def preset() -> dict | None:
    """The bundled dataset's textbook settings while they are on: ``note`` (as in whom),
    ``pages`` (where they apply) and ``values`` (control key → the source's value, used
    as that control's default by ``url.bound``). None for uploads and other data."""
    if source() == UPLOAD or not st.session_state.get("textbook", True):
        return None
    return samples().get(source(), {}).get("preset")


#: Classes a user may name on the Data page (more would not fit its table).
MAX_NAMED_CLASSES = 20


def class_names_given(target: str) -> tuple:
    """The names the user gave the target's values on the Data page, as sorted
    (value, name) pairs ("0" → "died"); empty when none are given."""
    names = {v: n for v, n in overrides().get("class_names", {}).get(target, {}).items() if n}
    return tuple(sorted(names.items()))


def named_classes(frame: pd.DataFrame, target: str) -> pd.DataFrame:
    """``frame`` (the current raw table) with the target's values replaced by the names
    the user gave them on the Data page; the frame itself when none are given."""
    names = class_names_given(target)
    return _own(_renamed(frame, frame_key(), target, names)) if names else frame


@st.cache_resource(max_entries=8, show_spinner=False)
def _renamed(_frame: pd.DataFrame, key: str, target: str, names: tuple) -> pd.DataFrame:
    """A copy of ``_frame`` (named by ``key``) whose target values (as text) are replaced
    by ``names`` ((value, name) pairs); values without a name stay as they are."""
    lookup = dict(names)
    out = _frame.copy()
    out[target] = out[target].map(lambda v: lookup.get(str(v), v))
    return out


def overrides() -> dict:
    """Per-column choices of the Data page for the current source (features, kinds)."""
    return st.session_state.setdefault("gb_overrides", {}).setdefault(source_key(), {})


def default_features(frame: pd.DataFrame, target: str) -> list[str]:
    if source() == DRAWN:  # both axes, even where the points make one look constant or a code
        return [c for c in drawing.COLUMNS if c != target and c in frame.columns]
    excluded = set(samples().get(source(), {}).get("exclude", [])) if source() != UPLOAD else set()
    return [c for c in data.default_features(schema_of(frame), target) if c not in excluded]


def current_target(frame: pd.DataFrame) -> str:
    """The column the user predicts in ``frame``: the one chosen, else the guessed one."""
    target = st.session_state.get("target") or default_target(frame)
    return target if target in frame.columns else default_target(frame)


def current_dataset() -> Dataset | None:
    """The Dataset every model page trains on, or None (after showing why)."""
    try:
        frame = current_frame()
    except DataError as error:
        st.error(f"**Your file could not be read.** {error}")
        return None
    if frame is None:
        # A link never carries the file, and a file lives in the server process that
        # received it: a restart, or a page moved to another process when its own was lost
        # (deploy/), comes back without it.
        st.info("This view uses an uploaded file that this server no longer holds: a link "
                "does not carry the file, and a server restart forgets it. "
                "Upload it again on the **Data** page.", icon=":material/upload_file:")
        return None
    if source() == DRAWN and frame[drawing.COLUMNS[-1]].nunique() < 2:
        st.info(f"**Draw points of at least two classes** on the **Data** page: a classifier "
                f"learns to tell classes apart. The drawing has {len(frame)} "
                f"point{'' if len(frame) == 1 else 's'}"
                f"{' of one class' if len(frame) else ''}.", icon=":material/draw:")
        return None
    target = current_target(frame)
    chosen = overrides()
    features = chosen.get("features") or default_features(frame, target)
    features = tuple(c for c in features if c != target and c in frame.columns)
    kinds = tuple(sorted((chosen.get("kinds") or {}).items()))
    key = f"{frame_key()} names {class_names_given(target)!r}"
    frame = named_classes(frame, target)
    task = st.session_state.get("task") or None
    if task == "auto":
        task = None
    try:
        return build_dataset(frame, key, target, features, kinds, task,
                             float(st.session_state.get("test", 0.25)),
                             bool(st.session_state.get("strat", True)),
                             int(st.session_state.get("seed", 0)))
    except DataError as error:
        st.error(f"**This data cannot be used as it is.** {error}")
        return None


def presentation() -> bool:
    return bool(st.session_state.get("present", False))


def style() -> Style:
    """The figure style of this session: presentation mode or normal."""
    return Style.presentation() if presentation() else Style()



class PageStopped(Exception):
    """Raised by :func:`stop`; app.py catches it after the page."""


def stop() -> None:
    """End the page here, after the message it has shown.

    Pages call this rather than ``st.stop()``: after that nothing more can be drawn or
    written in the run, and app.py still writes the URL and the link after the page.
    """
    raise PageStopped
