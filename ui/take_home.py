""""Take it home": the fitted model as a JSON file, test-set predictions as a safe CSV,
predictions for new rows (uploaded or typed), and a check of a saved model file.

Any model page calls :func:`take_home` once; it draws an expander (its open state is in
the URL) and computes nothing while that is closed. Downloads are built only when the
button is pressed. A bad upload shows a message inside the expander; nothing else on
the page is lost.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.data import DataError, Dataset, load_csv
from engine.export import align_new_rows, predictions_csv, predictions_table
from engine.persist import ModelFileError, describe, model_from_json, model_to_json, summary
from ui.nb_controls import typed_row

from . import state, tables, url
from .markdown import literal

MODES = {"upload": "Upload a CSV", "type": "Type one row"}


@st.cache_data(max_entries=16, show_spinner="Reading your file…")
def _parse(content: bytes) -> pd.DataFrame:
    """New rows from uploaded bytes; cached by content (each session's bytes are its own)."""
    return load_csv(content)


def take_home(model, dataset: Dataset, features: list[str], key_prefix: str) -> None:
    """The whole "Take it home" section for ``model``, fitted on ``dataset[features]``.

    ``model`` may also be a function returning it, called only when the section is
    opened (pages whose model is fitted on demand pass one).
    """
    box = url.bound(st.expander, "Take it home: model file, predictions, new rows",
                    icon=":material/download:", key=f"{key_prefix}_home")
    if not box.open:
        return
    with box:
        model = model() if callable(model) and not hasattr(model, "predict") else model
        _downloads(model, dataset, features, key_prefix)
        st.divider()
        _new_rows(model, dataset, features, key_prefix)
        st.divider()
        _check_model_file(key_prefix)


def _downloads(model, dataset: Dataset, features: list[str], prefix: str) -> None:
    name = type(model).__name__
    row = st.container(horizontal=True)
    row.download_button(
        "Model as JSON", lambda: model_to_json(model), file_name=f"glassbox-{name}.json",
        mime="application/json", key=f"{prefix}_get_model", on_click="ignore",
        icon=":material/data_object:",
        help="An open format (docs/model-format.md): numbers and names only, no code. "
             "Load it back with engine.persist.model_from_json.")
    row.download_button(
        "Test-set predictions (CSV)",
        lambda: predictions_csv(_with_predictions(model, dataset.X_test[features],
                                                  dataset.y_test)),
        file_name=f"glassbox-{name}-test-predictions.csv", mime="text/csv",
        key=f"{prefix}_get_predictions", on_click="ignore", icon=":material/table:",
        help="Each test row with its true value, the prediction and (for classes) "
             "P(class | x). Text cells that start with = + - @ get a leading ' so a "
             "spreadsheet shows them instead of running them.")


def _with_predictions(model, X: pd.DataFrame, truth: pd.Series | None = None) -> pd.DataFrame:
    """Predictions first (they are what the reader came for), then the row's values."""
    table = predictions_table(model, X)
    if truth is not None:
        table.insert(0, f"true {truth.name}", truth.to_numpy())
    return pd.concat([table, X], axis=1)


def _new_rows(model, dataset: Dataset, features: list[str], prefix: str) -> None:
    st.markdown("**Predict new rows** with this model")
    mode = url.bound(st.segmented_control, "New rows", list(MODES), format_func=MODES.get,
                     default="upload", key=f"{prefix}_new_mode", label_visibility="collapsed")
    if mode == "type":
        st.caption("Edit any cell of this row (it starts as the first test row); an empty "
                   "cell is a missing value.")
        frame = typed_row(dataset, dataset.X_test[features].iloc[[0]], key=f"{prefix}_home_row")
    else:
        upload = st.file_uploader(
            "CSV with the model's columns (other columns are ignored)", type=state.UPLOAD_TYPES,
            key=f"{prefix}_new_file",
            help=f"Columns used: {', '.join(features)}. An empty cell is a missing value.")
        if upload is None:
            return
        try:
            frame = _parse(upload.getvalue())
        except DataError as error:
            st.error(f"**This file cannot be read.** {literal(error)}")
            return
    _show_predictions(model, frame, prefix, echo=mode != "type")


def _show_predictions(model, frame: pd.DataFrame, prefix: str, echo: bool) -> None:
    """Predictions for ``frame`` (with its values after them if ``echo``), or why not."""
    try:
        rows, notices = align_new_rows(frame, model)
        table = _with_predictions(model, rows) if echo else predictions_table(model, rows)
    except (DataError, ValueError) as error:
        st.error(f"**These rows cannot be predicted.** {literal(error)}")
        return
    if notices:
        st.info("\n".join(f"- {literal(n)}" for n in notices), icon=":material/info:")
    tables.show(table, hide_index=True)
    st.download_button("These predictions (CSV)", predictions_csv(table),
                       file_name="glassbox-new-predictions.csv", mime="text/csv",
                       key=f"{prefix}_get_new", on_click="ignore")


def _check_model_file(prefix: str) -> None:
    st.markdown("**Check a saved model file**")
    upload = st.file_uploader("A Glassbox model (.json)", type=["json"], key=f"{prefix}_model_file",
                              help="Shows what the file holds. It is checked field by field and "
                                   "never run: a tampered file is refused with the reason.")
    if upload is None:
        return
    try:
        loaded = model_from_json(upload.getvalue())
    except ModelFileError as error:
        st.error(literal(error))
        return
    facts = summary(loaded)  # the class name comes from the whitelist: safe as markdown
    members = f", {facts['members']} member models" if "members" in facts else ""
    st.success(f"A valid Glassbox model: **{facts['model']}** on {len(facts['columns'])} "
               f"column(s){members}.", icon=":material/verified:")
    facts_table = {"columns": ", ".join(facts["columns"])}
    if "classes" in facts:
        facts_table["classes"] = ", ".join(facts["classes"])
    tables.show(pd.concat([pd.DataFrame(facts_table.items(), columns=["parameter", "value"]),
                            describe(loaded)]), hide_index=True)
