"""Compare page: every model on the same split, one table, one bar chart, learning and ROC curves."""
import streamlit as st

from ui import compare_controls as cc
from ui import data_controls, heading, state, url
from viz import compare_figures as cf

#: Test error (%) on spambase reported by Hastie, Tibshirani & Friedman (2009), ch. 9 and 15.
SPAM_ESL = {"Decision tree": 9.3, "Bagging": 5.4, "Random forest": 4.9}

heading.show("Compare", "compare")
if state.source() == "spambase":
    st.caption("Every model on the same training and test rows. On this spam data Hastie et "
               "al. (2009) report a tree erring on 9.3% of the test emails, bagging on 5.4%, "
               "a random forest on 4.9%.")
else:
    st.caption("Every model on the same training and test rows of this data.")
dataset = state.current_dataset()
if dataset is None:
    state.stop()
data_controls.leak_notice(dataset)
style, classify = state.style(), dataset.task == "classification"
chosen, settings = cc.controls(dataset)
if not cc.available(dataset)[1:]:
    st.caption("Only Naive Bayes reads text; the tree models need numeric or categorical "
               "columns, which this data does not have.")
if not chosen:
    st.info("Choose at least one model above to compare.")
    state.stop()
problems = st.container()  # above the tabs, filled once every model has been tried
views = url.bound(st.tabs, ["Table", "Learning curves", "ROC curves"], key="cmp_view")
bar_place, table_place = st.container(), None  # the progress bar's place
if views[0].open:
    with views[0]:
        bar_place, table_place = st.container(), st.empty()


def show_so_far(entries) -> None:
    """The table of the models fitted so far, while the next one fits."""
    with table_place.container():
        cc.show_table(cc.results(dataset, entries, settings), key=f"cmp_table_{len(entries)}")
        st.caption(f"{len(entries)} of {len(chosen)} models so far; the others are fitting.")


with bar_place:
    entries, failures = cc.fit_all(dataset, chosen, settings,
                                   show_so_far if table_place is not None else None)
if table_place is not None:
    table_place.empty()
with problems:
    for name, why in failures.items():
        st.error(f"**{name} could not be fitted.** {why} Remove it from the models or change "
                 "the data on the **Data** page.")
if not entries:
    state.stop()
key = cc.roc_key([i for i in chosen if cc.MODELS[i] not in failures], settings)

with views[0]:
    if views[0].open:
        table = cc.results(dataset, entries, settings)
        cc.show_table(table, key="cmp_table")
        if classify and state.source() == "spambase":
            here = dict(zip(table["model"], 100 * table["test error"], strict=True))
            st.markdown("On this split: " + ", ".join(
                f"{name} **{here[name]:.1f}%** (Hastie et al. 2009: {ref}%)"
                for name, ref in SPAM_ESL.items() if name in here) + ".")
        st.plotly_chart(cf.error_bars_figure(table, dataset.task, style), width="stretch")
        st.caption("Training time is the wall time of the first fit (pruning: its "
                   "cross-validation included). OOB error: each training row scored by the "
                   "trees whose bootstrap sample left it out, a test error for free.")

with views[1]:
    if views[1].open:
        error_name = "test / training error" if classify else "mean squared error"
        bar_place, curve_place = st.container(), st.empty()
        with bar_place:
            curves = cc.learning_curves(
                dataset, chosen, entries, settings,
                lambda so_far: curve_place.plotly_chart(
                    cf.learning_curve_figure(so_far, error_name, style), width="stretch",
                    key=f"cmp_curves_{so_far['model'].nunique()}"))
        curve_place.plotly_chart(cf.learning_curve_figure(curves, error_name, style),
                                 width="stretch", key="cmp_curves")
        st.caption("Each point refits the model on the first n training rows (class shares "
                   "kept, same seed) and scores it on those rows (dashed) and on the test "
                   "rows (solid). A gap between the two that does not close is variance.")

with views[2]:
    if views[2].open:
        if not classify:
            st.info(f"ROC curves are drawn for two-class targets; **{dataset.target}** is a "
                    "number to predict (regression). The **Table** compares MSE and R².")
        elif len(dataset.class_names) != 2:
            st.info(f"ROC curves are drawn for two-class targets; **{dataset.target}** has "
                    f"{len(dataset.class_names)} classes. Pick a two-class target in the sidebar.")
        else:
            table = cc.roc(dataset, key, entries)
            st.plotly_chart(cf.roc_figure(table, dataset.class_names[1], style),
                            width="stretch")
            st.caption("Each curve sweeps a threshold t over the model's P(positive | x): "
                       "TPR = TP / P against FPR = FP / N. AUC is the chance that a random "
                       "positive row scores above a random negative one.")

cc.prefetch_roc(dataset, key, entries)
