"""Data page: choose, upload or draw a table, check its schema, pick the target and the split."""
import streamlit as st

from ui import data_controls, drawing_controls, lesson, state, tables, url
from viz.data_charts import class_balance_figure, missing_values_figure, target_histogram

st.title("Data")
st.caption("Pick a bundled dataset in the sidebar, upload your own CSV or draw your own "
           "points. Every model page trains on the table, target and train/test split "
           "chosen here.")
lesson.show()

if state.source() == state.DRAWN:
    st.subheader("Draw your own")
    drawing_controls.show()
else:
    upload, draw = st.columns([2, 1], vertical_alignment="center")  # its whole label in large type too
    upload.file_uploader(
        f"Upload a CSV file (up to {state.MAX_UPLOAD_MB} MB)", type=state.UPLOAD_TYPES,
        key=data_controls.UPLOAD_KEY, on_change=data_controls.on_upload,
        help="Comma, semicolon, tab or pipe separated, or numbers separated by spaces; "
             "UTF-8, UTF-16 or Windows-1252; decimal commas are understood. `?`, `NA` and "
             "empty cells count as missing.")
    draw.button("Draw your own", icon=":material/draw:", on_click=drawing_controls.start,
                key="data_draw_start", width="stretch",
                help="Click points of two or three classes on a plane; every page then "
                     "trains on them.")
    data_controls.show_upload_error()

dataset = state.current_dataset()
if dataset is None:
    data_controls.recover_columns()
    state.stop()
frame = state.current_frame()

entry = state.samples().get(state.source(), {})
st.subheader(state.source_title())
if entry:
    st.markdown(f"{entry['description']}  \n*Source:* {entry['source']} · *Licence:* {entry['licence']}")

rows, cols, classes = st.columns(3)
rows.metric("Rows", f"{len(frame):,}")
cols.metric("Features used", len(dataset.features))
if dataset.task == "classification":
    classes.metric("Classes", len(dataset.class_names))
else:
    classes.metric("Target mean", f"{dataset.y.mean():.4g}")
guessed, why = state.target_guess(frame)
st.markdown(f"Predicting **{dataset.target}** — a **{dataset.task}** task"
            + (f": {why}." if dataset.target == guessed else " (your choice)."))
data_controls.leak_warning(frame, dataset)
if dataset.task == "classification" and state.source() == state.UPLOAD:
    data_controls.class_namer(frame, dataset.target)
for note in frame.attrs.get("notes", []):
    st.info(note)
if dataset.n_dropped:
    st.warning(f"{dataset.n_dropped:,} rows have no value in the target and are left out.")

preview, schema_tab = st.tabs(["Preview", "Columns"])
with preview:
    tables.show(frame.head(500), width="stretch", height=320)
    st.caption(f"The first {min(len(frame), 500):,} of {len(frame):,} rows.")
with schema_tab:
    st.markdown("Untick a column to leave it out; change its kind if the guess is wrong. "
                "Columns a model cannot generalise from start left out, each with its reason: "
                "identifiers and codes, dates, constants, and free text beside other features.")
    data_controls.schema_editor(frame, dataset.target)

st.subheader("Target and split")
task_c, test_c, strat_c = st.columns(3)
# Kept in the URL by ui.url with the sidebar's values: every page trains on this split.
if url.drawn("task"):
    task_c.radio("Task", url.TASKS, key="task", horizontal=True,
                 help="auto: text or few whole-number values → classification; "
                      "many numeric values → regression.")
if url.drawn("test"):
    test_c.slider("Test fraction", 0.1, 0.5, step=0.05, key="test",
                  help="Share of rows held out to measure test error; the rest trains the "
                       "models.")
if url.drawn("strat"):
    strat_c.checkbox("Stratify by class", key="strat",
                     help="Keep each class's share the same in the training and the test rows.")
if dataset.task == "classification" and not dataset.stratified and st.session_state["strat"]:
    st.caption("A class has too few rows to stratify; the split is random instead.")
st.caption(f"Training rows: {len(dataset.y_train):,} · test rows: {len(dataset.y_test):,}")

style = state.style()
if dataset.task == "classification":
    st.plotly_chart(class_balance_figure(dataset.class_balance(), style), width="stretch")
else:
    st.plotly_chart(target_histogram(dataset.y, style), width="stretch")
schema = state.schema_of(frame)
if (schema["n_missing"] > 0).any():
    st.plotly_chart(missing_values_figure(schema, len(frame), style), width="stretch")
