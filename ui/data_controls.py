"""Upload handling and the per-column schema editor of the Data page, and the rows every
model page fits and scores: the split, or all rows ("Fit on all rows") and the words for
each case."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from engine import data
from engine.data import DataError
from engine.inspection import GRID_TAIL
from engine.tree import DEFAULT_MAX_BINS

from . import limits, state, url

KINDS = ["numeric", "categorical", "text"]
BINNING_HELP = (f"On: each numeric feature with more than {DEFAULT_MAX_BINS} values is cut "
                f"into {DEFAULT_MAX_BINS} bins of about equal counts (quantiles), and only cuts "
                "between bins are tried: much faster on large data, about as accurate. Off: a "
                "threshold between every two adjacent values, as the textbooks do.")
ALL_ROWS_HELP = ("Fit on every row, test rows too, as a textbook's worked example does "
                 "(Mitchell's 14 PlayTennis days, Russell & Norvig's 12 restaurant examples). "
                 "Scores are then measured on rows the model has seen: they show how well it "
                 "fits, not how well it predicts new rows. On from the start for tables of "
                 "fewer than 30 rows, too few to hold a quarter out.")
#: Tables with fewer rows start fitted on every row: a quarter held out would be a handful
#: of rows whose score says little, and a textbook's table is fitted whole.
SMALL_TABLE = 30
SEEN = "every one seen in fitting"
UPLOAD_KEY = "data_upload"


def on_upload() -> None:
    """Callback of the file uploader: parse first, switch to the file only if it reads.

    A bad file leaves the current dataset on screen and records a message to show.
    """
    file = st.session_state.get(UPLOAD_KEY)
    st.session_state.pop("gb_upload_error", None)
    if file is None:
        return
    _use(file.name, file.getvalue())


def _use(name: str, content: bytes, skip: int = 0, header: bool = True) -> None:
    """Switch to the file read so, or record why it cannot be (and the readings that can)."""
    st.session_state.pop("gb_upload_error", None)
    try:
        frame = state.parse_upload(content, skip, header)
    except DataError as error:
        readings = data.other_readings(content) if (skip, header) == (0, True) else []
        st.session_state["gb_upload_error"] = (name, str(error), content, readings)
        return
    if frame.shape[1] < 2:
        st.session_state["gb_upload_error"] = (
            name, "It was read as a single column, and a model needs at least one feature "
                  "and a target. If its values are separated by spaces, save it again with "
                  "commas, semicolons or tabs between the values.", content, [])
        return
    state.set_upload(name, content, skip, header)
    st.session_state["data"] = state.UPLOAD
    st.session_state["target"] = state.default_target(frame)


def schema_editor(frame: pd.DataFrame, target: str) -> None:
    """Editable table of the inferred schema; writes the user's choice to the overrides."""
    schema = state.schema_of(frame)
    chosen = state.overrides()
    features = set(chosen.get("features") or state.default_features(frame, target))
    kinds = chosen.get("kinds") or {}
    table = pd.DataFrame({
        "column": [str(c) for c in schema.index],
        "use": [c in features and c != target for c in schema.index],
        "kind": [kinds.get(c, _editable_kind(schema.loc[c, "kind"])) for c in schema.index],
        "detected": schema["kind"].to_numpy(),
        "distinct": schema["n_distinct"].to_numpy(),
        "missing": schema["n_missing"].to_numpy(),
        "note": ["target" if c == target else schema.loc[c, "reason"] for c in schema.index],
    })
    edited = st.data_editor(
        table, key=f"data_schema_{state.source_key()}_{target}", hide_index=True,
        width="stretch", disabled=["column", "detected", "distinct", "missing", "note"],
        # on a projector the notes need the room; "kind" shows what was detected anyway
        column_order=[c for c in table.columns
                      if not (state.presentation() and c == "detected")],
        column_config={
            "use": st.column_config.CheckboxColumn("use", help="Use this column as a feature."),
            "kind": st.column_config.SelectboxColumn(
                "kind", options=KINDS, required=True,
                help="numeric: split by thresholds / Gaussian; categorical: one value per "
                     "category; text: bag of words (Naive Bayes)."),
        },
    )
    use = edited["use"] & (edited["column"] != target)
    chosen["features"] = edited.loc[use, "column"].tolist()
    chosen["kinds"] = {
        c: k for c, k, d in zip(edited["column"], edited["kind"], edited["detected"], strict=True)
        if k != _editable_kind(d)
    }


def recover_columns() -> None:
    """Below the message of a table that was read but cannot be trained on as it is (no
    feature left, say), the Columns editor, so that the columns the message asks for can
    be included here and now."""
    if state.source() == state.DRAWN:
        return
    try:
        frame = state.current_frame()
    except DataError:  # unreadable: its own message says so
        return
    if frame is None:
        return
    st.markdown("**Columns** — tick one to use it as a feature; change its kind if the "
                "guess is wrong.")
    chosen = state.overrides()

    def choice() -> tuple:
        return list(chosen.get("features") or []), dict(chosen.get("kinds") or {})
    before = choice()
    schema_editor(frame, state.current_target(frame))
    if choice() != before:  # the message above was made without this choice: run again
        st.rerun()


def _editable_kind(detected: str) -> str:
    return detected if detected in KINDS else "categorical"


def show_upload_error() -> None:
    failed = st.session_state.get("gb_upload_error")
    if failed:
        name, message, content, readings = failed
        st.error(f"**{name} could not be used.** {message} "
                 "The dataset shown below is unchanged.")
        if readings:
            st.markdown("Its first line does not fit the rows below it. Read it another way:")
        for label, skip, header in readings:
            st.button(label, key=f"data_reading_{skip}_{header}", on_click=_use,
                      args=(name, content, skip, header))


def _leaks(frame: pd.DataFrame, dataset) -> list:
    """The leaking features of the current raw table ``frame``, found once per table,
    target and features: they read the whole table, not the split, so a new seed or
    test share finds them where the last one left them (keyed by
    :func:`ui.state.frame_key`, so a page run does not hash the whole table again)."""
    return _leaks_of(frame, state.frame_key(), dataset.target, tuple(dataset.features))


@st.cache_data(max_entries=32, show_spinner=False)
def _leaks_of(_frame: pd.DataFrame, table_key: str, target: str,
              features: tuple[str, ...]) -> list:
    return data.leaky_features(_frame, target, list(features), state.schema_of(_frame))


def leak_warning(frame: pd.DataFrame, dataset) -> None:
    """A feature that alone predicts the target almost perfectly: say so, offer to drop it."""
    if dataset.task != "classification":
        return
    for column, share in _leaks(frame, dataset):
        st.warning(f"**{column}** alone predicts **{dataset.target}** for {share:.1%} of the "
                   "rows. A column that knows the answer (recorded after the outcome, or "
                   "derived from it) makes every model look perfect and teaches nothing.",
                   icon=":material/warning:")
        st.button(f"Leave {column} out", key=f"data_leak_{column}", on_click=_leave_out,
                  args=(column, list(dataset.features)))


def leak_notice(dataset) -> None:
    """On a model page: one line per leaking feature, with the same one-click way out
    as the Data page (a model that looks perfect there is a lookup of the answer). The
    button sits under the line, as there: beside it, a long column name (or presentation
    mode's large type) would cut its label short."""
    if dataset.task != "classification":
        return
    frame = state.current_frame()
    for column, share in _leaks(frame, dataset):
        st.warning(f"**{column}** alone predicts **{dataset.target}** for {share:.1%} of the "
                   "rows: this model may only be looking the answer up.",
                   icon=":material/warning:")
        st.button(f"Leave {column} out", key=f"page_leak_{column}", on_click=_leave_out,
                  args=(column, list(dataset.features)))


def class_namer(frame: pd.DataFrame, target: str) -> None:
    """For a target of a few coded classes (0 / 1, 1 / 2 / 3): a table to name them, so
    legends, leaves and row pickers say "survived" rather than "1"."""
    values = frame[target].dropna().unique()
    if not 2 <= len(values) <= state.MAX_NAMED_CLASSES:
        return
    chosen = state.overrides().setdefault("class_names", {}).setdefault(target, {})
    with st.expander("Name the classes", expanded=bool(chosen)):
        table = pd.DataFrame({"value": sorted(map(str, values)),
                              "name": [chosen.get(str(v), "") for v in sorted(map(str, values))]})
        edited = st.data_editor(table, key=f"data_classes_{state.source_key()}_{target}",
                                hide_index=True, disabled=["value"], width="stretch")
        names = {str(v): str(n).strip() for v, n in zip(edited["value"], edited["name"],
                                                         strict=True) if str(n).strip()}
        if len(set(names.values())) < len(names):
            st.warning("Two classes have the same name; give each its own.")
            return
        if names != chosen:
            chosen.clear()
            chosen.update(names)
            st.rerun()
        st.caption("Every page shows these names in place of the values.")


def _leave_out(column: str, features: list[str]) -> None:
    state.overrides()["features"] = [c for c in features if c != column]


def fit_rows(dataset, key: str, container=st):
    """A model page's "Fit on all rows" toggle (in the URL as ``key``) and the data the
    page then fits and scores: the split, or every row in both parts."""
    every_row = url.bound(container.toggle, "Fit on all rows", len(dataset.y) < SMALL_TABLE,
                          key=key, help=ALL_ROWS_HELP)
    return dataset.on_all_rows() if every_row else dataset


def binning(dataset, key: str, container=st) -> str:
    """A model page's "Binned search" toggle (in the URL as ``key``): the ``binning`` of
    its trees, "quantile" by default above ``limits.BINNED_ABOVE_ROWS`` training rows."""
    big = len(dataset.y_train) > limits.BINNED_ABOVE_ROWS
    binned = url.bound(container.toggle, f"Binned search ({DEFAULT_MAX_BINS} bins per feature)",
                       big, key=key, help=BINNING_HELP)
    return "quantile" if binned else "exact"


def binning_note(binning: str) -> None:
    """The page's sentence about the binned search (nothing for the exact search)."""
    if binning == "quantile":
        st.caption(f"Thresholds are tried between {DEFAULT_MAX_BINS} quantile bins of each "
                   "feature, as LightGBM does, so that this many rows fit quickly; switch **Binned "
                   "search** off in the sidebar to try every midpoint.")


def scored_on(dataset, what: str) -> str:
    """A score's label: "Test accuracy", or "Accuracy on seen rows" when every row is fitted."""
    return f"{what[:1].upper()}{what[1:]} on seen rows" if dataset.all_rows else f"Test {what}"


def rows_note(dataset) -> str:
    """The rows a page fits, for its caption."""
    if dataset.all_rows:
        return f"all {len(dataset.y):,} rows fitted and scored"
    return f"{len(dataset.y_train):,} training rows, {len(dataset.y_test):,} test rows"


def numeric_of(dataset, columns) -> list[str]:
    """The numeric ones of ``columns`` (a model's features): what a two-feature picture
    can be drawn on."""
    return [c for c in columns if dataset.feature_kinds.get(c) == "numeric"]


#: Training points a two-feature chart draws at most (a third as many test points). Beyond
#: it a seeded sample, each class by its share, is drawn, and the caption says so: the
#: model is fitted on every row, but 150,000 points would slow the browser and bury the
#: boundary under them. 1,500 + 500 SVG markers draw in about a quarter of a second.
POINTS_DRAWN = 1_500
#: Training points at most of a picture that a stepper redraws at every step (a
#: boosting round, Play): fewer, since each step redraws every one of them.
STEPPED_POINTS = 900


@dataclass(frozen=True)
class Points:
    """The rows a two-feature chart draws: training rows, test rows (None when every row
    is fitted: they would be the training points again) and the caption's words."""

    train: pd.DataFrame
    y_train: pd.Series
    test: pd.DataFrame | None
    y_test: pd.Series | None
    sampled: str  # "" when every row is drawn

    @property
    def note(self) -> str:
        """What the points are, and how many are drawn."""
        what = ("Points: every row (all of them fitted)." if self.test is None
                else "Filled points: training rows; hollow: test rows.")
        return f"{what} {self.sampled}".strip()

    def beyond(self, xs, ys) -> str:
        """:func:`beyond_note` of these points on the axes ``xs`` × ``ys``."""
        return beyond_note([f for f in (self.train, self.test) if f is not None], xs, ys)


def beyond_note(frames: list[pd.DataFrame], xs, ys) -> str:
    """The caption's sentence for the drawn points (rows of two-column ``frames``) that
    lie outside a boundary picture's axes ``xs`` × ``ys``, which leave out long tails
    (:func:`engine.inspection.grid_axis`); "" when every drawn point is on the picture."""
    n = 0
    for frame in frames:
        x, y = (frame.iloc[:, j].to_numpy(dtype=float, na_value=np.nan) for j in (0, 1))
        inside = (x >= xs[0]) & (x <= xs[-1]) & (y >= ys[0]) & (y <= ys[-1])
        n += int(np.count_nonzero(np.isfinite(x) & np.isfinite(y) & ~inside))
    if not n:
        return ""
    return (f"{n:,} drawn {'point lies' if n == 1 else 'points lie'} beyond the axes: an axis "
            f"leaves out a long tail of its feature's values (at most {GRID_TAIL:.1%} of the "
            "rows on a side).")


def drawn_rows(dataset, y, limit: int = POINTS_DRAWN) -> np.ndarray:
    """Positions of at most ``limit`` of the rows of ``y`` to draw: a seeded sample that
    keeps each class's share (every row when there are no more than ``limit``)."""
    labels = y if dataset.task == "classification" else None
    return data.stratified_sample(len(y), limit, labels, random_state=0)


def sample_note(drawn: str) -> str:
    """The caption's sentence for a chart that draws a sample; ``drawn`` says how many
    ("1,500 of 150,000 training rows")."""
    return (f"Drawn: {drawn}, a sample with each class's share; the model was fitted on "
            "every training row.")


def two_feature_points(dataset, columns: list[str], limit: int = POINTS_DRAWN, *,
                       test: bool = True) -> Points:
    """At most ``limit`` training and ``limit // 3`` test rows of ``columns`` to draw
    (``test`` False: training rows only, for a chart that draws no test rows)."""
    def drawn(X, y, most):
        rows = drawn_rows(dataset, y, most)
        return X.iloc[rows], y.iloc[rows]

    train, y_train = drawn(dataset.X_train[columns], dataset.y_train, limit)
    with_test, test, y_test = test, None, None
    if with_test and not dataset.all_rows:
        test, y_test = drawn(dataset.X_test[columns], dataset.y_test, max(limit // 3, 1))
    parts = [f"{len(train):,} of {len(dataset.y_train):,} {'' if dataset.all_rows else 'training '}rows"]
    if test is not None and len(test) < len(dataset.y_test):
        parts.append(f"{len(test):,} of {len(dataset.y_test):,} test rows")
    sampled = ""
    if len(train) < len(dataset.y_train) or len(parts) > 1:
        sampled = sample_note(" and ".join(parts))
    return Points(train, y_train, test, y_test, sampled)


def scored_row(dataset) -> str:
    """What a control that picks one scored row calls it: "test row", or "row" when every
    row is fitted (the scored rows are then the whole table)."""
    return "row" if dataset.all_rows else "test row"


def scored_rows(dataset) -> str:
    """The rows a score is measured on, in words: "the test rows" or "all rows (…)"."""
    return f"all rows ({SEEN})" if dataset.all_rows else "the test rows"


def scored_rows_tag(dataset) -> str:
    """The same in a node of a tree diagram: "test" or "all rows"."""
    return "all rows" if dataset.all_rows else "test"


def scored_rows_title(dataset) -> str:
    """The same for a chart's title: "test rows" or "all rows, …"."""
    return f"all rows, {SEEN}" if dataset.all_rows else "test rows"
