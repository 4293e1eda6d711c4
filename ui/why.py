"""Why this prediction: one row, what the model says of it, and why; change a value and see.

The "Why this prediction?" tab of the tree-based pages. A test row is picked (its number
is in the URL), the student edits any of its values, and below the editor, for the row
as edited: the prediction with its class probabilities, the changed values marked, the
path contributions as a waterfall (``engine.inspection.contributions``), on the boosting
pages how each round moved the row's score, and on the forest and boosting pages the
partial dependence of the prediction on one feature, with ICE curves; on the Decision
Tree page the edited row's path down the tree.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.inspection import contributions, partial_dependence, round_contributions
from engine.tree_code import tree_to_python, tree_to_sql
from viz import explain_figures as ef
from viz.tree_dot import tree_to_dot

from . import data_controls as dc
from . import tables, url
from . import tree_diagram as td
from .fitting import compute_once
from .markdown import literal
from .nb_controls import typed_row
from .sidebar import refresh_link

#: Rows a partial dependence averages over: a seeded sample of the training rows.
PDP_ROWS = 300
#: ICE curves drawn over the average.
ICE_ROWS = 40
#: Lines of a tree's Python shown on the page (the download holds them all).
CODE_LINES = 300
#: The round each boosting page's stepper shows (its URL key): marked on the round chart.
ROUND_KEYS = {"ab": "ab_round", "gb": "gb_round"}


def edited_row(dataset: Dataset, features: list[str], prefix: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The picked test row and the row as the student edited it (one row each)."""
    X_test = dataset.X_test[features]
    last = max(len(X_test) - 1, 0)
    row = url.bound(st.number_input, f"Start from {dc.scored_row(dataset)} (0–{last})", 0, last,
                    value=0, key=f"{prefix}_why_row",
                    help="Edit any value in the table below: the prediction and its "
                         "explanation follow. An emptied cell is a missing value.")
    start = X_test.iloc[[min(int(row), last)]]
    # one editor per starting row: picking another row starts again from its values
    return start, typed_row(dataset, start, key=f"{prefix}_why_edit_{row}")


def changed_columns(start: pd.DataFrame, edited: pd.DataFrame) -> list[str]:
    """The columns whose value the student changed (a missing value equals a missing one)."""
    out = []
    for column in start.columns:
        a, b = start[column].iloc[0], edited[column].iloc[0]
        if not ((pd.isna(a) and pd.isna(b)) or (not pd.isna(a) and not pd.isna(b) and a == b)):
            out.append(column)
    return out


def _marked(frame: pd.DataFrame, changed: list[str]):
    """The start and edited rows, the changed cells marked."""
    def mark(column: pd.Series) -> list[str]:
        colour = "background-color: #fde68a; font-weight: 600"
        return [colour if column.name in changed and i == 1 else "" for i in range(len(column))]
    return frame.style.apply(mark, axis=0).format(precision=4, na_rep="missing")


def show_changes(start: pd.DataFrame, edited: pd.DataFrame, changed: list[str]) -> None:
    if not changed:
        st.caption("No value changed yet: this is the test row as it is.")
        return
    both = pd.concat([start, edited], ignore_index=True)
    both.index = ["test row", "your row"]
    tables.show(both[changed], style=lambda f: _marked(f, changed))


def show_prediction(model, edited: pd.DataFrame, predicted, before, classify: bool) -> None:
    """The prediction for the edited row (and the test row's, when it differs)."""
    if classify:
        changed = "" if predicted == before else f" (the test row: {before})"
        st.markdown(f"Predicted: **{literal(predicted)}**{literal(changed)}")
        proba = model.predict_proba(edited)[0]
        shares = pd.DataFrame([proba], columns=[str(c) for c in model.classes_],
                              index=["probability"])
        tables.show(shares, style=lambda f: f.style.format("{:.3f}"))
    else:
        changed = "" if predicted == before else f" (the test row: {before:.4g})"
        st.markdown(f"Predicted: **{predicted:.4g}**{changed}")


def _explained(model, edited: pd.DataFrame, output: str,
               k: int | None) -> tuple[float, np.ndarray, str]:
    """(start, parts per feature, what the output is) of the edited row; ``k`` the class
    it is predicted (classifiers)."""
    bias, contrib = contributions(model, edited)
    if contrib.ndim == 3:  # one column per class: the predicted class's
        label = f"P({model.classes_[k]})" if output == "proba" else f"score of {model.classes_[k]}"
        return float(bias[0, k]), contrib[0, :, k], label
    if output == "score":  # two classes, one score: the second class's
        return (float(bias[0]), contrib[0],
                f"score of {model.classes_[1]} (against {model.classes_[0]})")
    return float(bias[0]), contrib[0], "predicted value"


def show_waterfall(model, edited: pd.DataFrame, output: str, k: int | None, style) -> None:
    try:
        start, parts, label = _explained(model, edited, output, k)
    except (ValueError, TypeError) as error:
        st.warning(f"**This row cannot be explained.** {literal(error)}")
        return
    names = list(edited.columns)
    values = [_shown(edited[c].iloc[0]) for c in names]
    st.plotly_chart(ef.waterfall_figure(start, parts, names, label, style, values=values),
                    width="stretch")
    st.caption("From the training average (the root) to this row's output: each bar is what "
               "one feature's splits along the row's path added or took away (Saabas 2014). "
               "The bars add up to the output exactly.")


def show_path(model, dataset: Dataset, features: list[str], edited: pd.DataFrame,
              changed: list[str], style) -> None:
    """The tree drawn along the edited row's path (the other branches folded), the nodes
    that ask about a changed value named below it."""
    path = td.path_of(model, td.Followed(edited, "Your row"))
    if path is None:
        return
    missing = [j for j, c in enumerate(features) if dataset.X_train[c].isna().any()]
    tree_style = td.diagram_style(style)
    st.markdown("**Its path down the tree**")
    td.diagram(tree_to_dot(model, style=tree_style, highlight_path=path, path_only=True,
                           missing_features=missing), tree_style, place="path")
    asked = {features[int(model.tree_.feature[n])] for n in path[:-1]}
    moved = [c for c in changed if c in asked]
    note = (f" The path asks about what you changed: {literal(', '.join(moved))}."
            if moved else " The path asks about none of the values you changed." if changed
            else "")
    st.caption("The row's path is drawn thick; each branch it does not take is folded into "
               f"a box.{note}")


def _shown(value) -> str:
    if pd.isna(value):
        return "missing"
    return f"{value:.4g}" if isinstance(value, (float, np.floating)) else str(value)


def show_rounds(model, edited: pd.DataFrame, prefix: str, output: str, k: int | None,
                style) -> None:
    """How each boosting round moved the edited row's score (the round on screen marked)."""
    start, parts = round_contributions(model, edited)
    if parts.ndim == 3:  # K scores: the predicted class's
        start, parts = np.ravel(start)[0] if np.ndim(start) < 2 else start[0, k], parts[0, :, k]
    else:  # one score: the second class's (or the value)
        k, start, parts = 1, np.ravel(start)[0], parts[0]
    if prefix == "ab":
        label = f"weighted votes for {model.classes_[k]}"
    else:
        label = "predicted value" if output == "value" else f"score of {model.classes_[k]}"
    current = st.session_state.get(ROUND_KEYS[prefix])
    if current is not None and not 0 <= int(current) <= len(parts):
        current = None  # a round of another model
    st.plotly_chart(ef.rounds_figure(float(start), parts, style, current=current,
                                     output_label=label), width="stretch")
    step = ("ŵ_t·f̂_t(x), round t's weighted vote (the score divides their sum by Σ ŵ_t)"
            if prefix == "ab" else "ν·tree_t(x), round t's tree times the learning rate")
    st.caption(f"Each bar is one round's step for this row: {step}; the line is the running "
               "total. The round the round-by-round view shows is marked.")


def _pdp_rows(dataset: Dataset, features: list[str]) -> pd.DataFrame:
    """The rows a partial dependence averages over: at most PDP_ROWS training rows, seeded."""
    X = dataset.X_train[features]
    return X.sample(PDP_ROWS, random_state=0) if len(X) > PDP_ROWS else X


def show_pdp(model, dataset: Dataset, features: list[str], prefix: str, output: str, key: tuple,
             k: int | None, style) -> None:
    """The mean prediction as one feature varies, all else as in the data (with ICE)."""
    picked, second_slot, centred_slot = st.columns([3, 3, 2], vertical_alignment="bottom")
    strongest = int(np.argmax(model.feature_importances_))  # opens on the most important
    feature = url.bound(picked.selectbox, "Partial dependence on", features, index=strongest,
                        key=f"{prefix}_pdp",
                        help="Each training row (a sample of at most "
                             f"{PDP_ROWS}) is predicted with this feature set to each value "
                             "of a grid; the thick line is their mean (partial dependence), "
                             "the thin ones single rows (ICE).")
    second = url.bound(second_slot.selectbox, "… and a second feature",
                       ["none"] + [f for f in features if f != feature], key=f"{prefix}_pdp2",
                       help="Two features: the mean prediction over both grids, as a map.")
    pair = second != "none"
    centred = url.bound(centred_slot.toggle, "Centred", key=f"{prefix}_pdp_centred",
                        disabled=pair,
                        help="Centre the curves: every one starts at 0, so their shapes "
                             "are easier to compare.")
    rows = _pdp_rows(dataset, features)
    if pair:
        pdp = compute_once(("pdp", key, feature, second),
                           lambda: partial_dependence(model, rows, (feature, second)),
                           "Predicting every row on the grid…")
    else:
        pdp = compute_once(("pdp", key, feature),
                           lambda: partial_dependence(model, rows, feature, kind="individual"),
                           "Predicting every row on the grid…")
    if output == "value":
        label = "predicted value"
    elif len(model.classes_) == 2:
        label, k = f"P({model.classes_[1]})", None
    else:  # the class the row above is predicted, as in its waterfall
        label = f"P({model.classes_[k]})"
    if pair:
        st.plotly_chart(ef.pdp_figure(pdp, (feature, second), label, style, class_index=k),
                        width="stretch")
        st.caption(f"The mean over {len(rows):,} of {len(dataset.X_train):,} training rows "
                   "with both features set to each pair of grid values (Friedman 2001).")
        return
    st.plotly_chart(ef.pdp_figure(pdp, feature, label, style, ice_rows=ICE_ROWS,
                                  centred=centred, class_index=k), width="stretch")
    st.caption(f"{len(rows):,} of {len(dataset.X_train):,} training rows; {ICE_ROWS} of them "
               "drawn one by one, each row's own curve (ICE; Friedman 2001, Goldstein et al. "
               "2015).")


def tree_downloads(model, key: tuple, tree: int | None = None, name: str = "the tree") -> str:
    """Download buttons for a fitted tree (or a forest's member ``tree``) as a Python
    function and as a SQL CASE; returns the Python."""
    python = compute_once(("tree-python", key, tree),
                          lambda: tree_to_python(model, tree=tree), "Writing the tree…")
    sql = compute_once(("tree-sql", key, tree), lambda: tree_to_sql(model, tree=tree),
                       "Writing the tree…")
    file = name.replace(" ", "_").removeprefix("the_")
    left, right = st.columns(2)
    left.download_button(f"Download {name} as Python", python, file_name=f"{file}.py",
                         mime="text/x-python", width="stretch", on_click="ignore")
    right.download_button(f"Download {name} as SQL", sql, file_name=f"{file}.sql",
                          mime="text/plain", width="stretch", on_click="ignore")
    return python


def code_downloads(model, prefix: str, key: tuple) -> None:
    """The fitted tree as a Python function and as a SQL CASE, to download and to read."""
    python = tree_downloads(model, key)
    shown = url.bound(st.expander, "Read the tree as Python", key=f"{prefix}_code_view")
    if shown.open:
        with shown:
            lines = python.splitlines()
            st.code("\n".join(lines[:CODE_LINES]) + (
                f"\n# … {len(lines) - CODE_LINES:,} more lines in the download"
                if len(lines) > CODE_LINES else ""), language="python")


def view(model, dataset: Dataset, features: list[str], prefix: str, output: str, key: tuple,
         style, *, rounds: bool = False, pdp: bool = False, code: bool = False) -> None:
    """The whole tab: the row and its editor, the prediction, the changes, the waterfall;
    ``rounds`` (boosting), ``pdp`` (forest, boosting) and ``code`` (a single tree: its
    path and its code) add theirs.
    ``output``: what the explanation is in — "proba" (class probabilities: trees, forests),
    "score" (the boosted score, its decision function) or "value" (regression).

    Drawn in a fragment: an edit of the row reruns this tab only, not the page."""
    @st.fragment
    def tab() -> None:
        _draw(model, dataset, features, prefix, output, key, style, rounds, pdp, code)
        if not url.in_full_run():  # a full run writes the URL at its end
            url.write([f"{prefix}_why_row", f"{prefix}_pdp", f"{prefix}_pdp2",
                       f"{prefix}_pdp_centred", f"{prefix}_code_view"])
            refresh_link()  # the open "Link to this view" box follows

    tab()


def _draw(model, dataset, features, prefix, output, key, style, rounds, pdp, code) -> None:
    start, edited = edited_row(dataset, features, prefix)
    classify = dataset.task == "classification"
    try:
        predicted, before = model.predict(edited)[0], model.predict(start)[0]
    except (ValueError, TypeError) as error:  # a typed value the model cannot read
        st.warning(f"**This row cannot be predicted.** {literal(error)} Change the value named.")
        return
    # the class every view explains: the one the edited row is predicted
    k = int(np.searchsorted(model.classes_, predicted)) if classify else None
    show_prediction(model, edited, predicted, before, classify)
    changed = changed_columns(start, edited)
    show_changes(start, edited, changed)
    show_waterfall(model, edited, output, k, style)
    if code:
        show_path(model, dataset, features, edited, changed, style)
    if rounds:
        show_rounds(model, edited, prefix, output, k, style)
    if pdp:
        show_pdp(model, dataset, features, prefix, output, key, k, style)
    if code:
        code_downloads(model, prefix, key)
