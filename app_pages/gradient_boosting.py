"""Gradient Boosting page: the strong model S_t round by round, shrinkage, importances."""
import streamlit as st

from ui import data_controls, heading, limits, results, state, tables, url, why
from ui import gb_controls as gc
from ui.params import cache_key
from ui.take_home import take_home
from viz import gb_figures as gf
from viz import tree_figures as tf

heading.show("Gradient Boosting", "gradient_boosting")
st.caption("Friedman (2001): weak trees are added one at a time, each fitted to the gradient "
           "of the loss at the current strong model: Sₜ₊₁ = Sₜ − ν wₜ.")
dataset = state.current_dataset()
if dataset is None:
    state.stop()
data_controls.leak_notice(dataset)
style, classify = state.style(), dataset.task == "classification"
features = gc.features(dataset)
if not features:
    st.error("**Boosting needs numeric or categorical features**; this data has only text "
             "columns. Choose other features on the **Data** page.")
    state.stop()

with st.sidebar:
    st.subheader("Boosting parameters")
    params, loss = gc.controls(dataset)
    dataset = data_controls.fit_rows(dataset, "gb_all_rows")
    params["binning"] = data_controls.binning(dataset, "gb_binned")
too_much = limits.check_work(len(dataset.y_train), params["n_estimators"], "boosting")
if too_much:
    st.error(too_much)
    state.stop()
model_params = gc.model_params(dataset.task, params, loss)
key = cache_key(dataset, model_params)
T = params["n_estimators"]
st.caption(f"{T} rounds · trees of depth {params['max_depth']} · "
           f"{data_controls.rows_note(dataset)}")
data_controls.binning_note(params["binning"])


def full_model(partial=None):
    """The model on every feature, fitted with a progress bar (cached); ``partial``: see
    ``gc.fit_model``."""
    try:
        return gc.fit_model(dataset, key, partial=partial)
    except ValueError as error:
        st.error(f"**These settings cannot be fitted.** {error} Change the parameter named "
                 "above in the sidebar.")
        state.stop()


views = url.bound(st.tabs, ["Round by round (one feature)", "Shrinkage", "Importance",
                           "Classification", "Results", "Why this prediction?"], key="gb_view")

with views[0]:
    if views[0].open:
        gc.round_view(dataset, params, loss, style)

with views[1]:
    if views[1].open:
        nus = gc.shrinkage_values(params["learning_rate"])
        loss_name = ("log loss (mean −ln p̂ of the true class)" if classify
                     else "mean squared error")
        st.markdown(f"The same model ({T} rounds, depth {params['max_depth']}) with "
                    f"ν = {', '.join(f'{nu:g}' for nu in nus)}. Dashed: training, solid: test; "
                    f"the loss is the {loss_name}.")
        if url.bound(st.toggle, "Fit the three models and draw their loss", key="gb_shrink",
                     help="Three fits of T rounds each; cached once done."):
            curves = gc.shrinkage_curves(dataset, model_params)
            st.plotly_chart(gf.shrinkage_figure(curves, loss_name, style), width="stretch")
            tables.show(gf.shrinkage_table(curves), hide_index=True)
            st.caption("A large ν drives the training loss down fastest and reaches its best "
                       "test loss early, then overfits; a small ν needs more rounds for the "
                       "same training loss and usually reaches a lower test loss (ESL §10.12).")

with views[2]:
    if views[2].open:
        model = full_model(partial=gc.importance_so_far(features, style))
        st.plotly_chart(tf.importance_figure(features, model.feature_importances_, style),
                        width="stretch")
        st.caption(gc.IMPORTANCE_CAPTION.format(trees="all trees"))
        if url.bound(st.toggle, "Permutation importance on the test set", key="gb_perm",
                     help=gc.HELP["permutation"]):
            table = gc.permutation(model, dataset, *key)
            st.plotly_chart(gf.permutation_figure(table, style), width="stretch")
            st.caption(f"Bars: mean drop of the test {'accuracy' if classify else 'R²'} over "
                       f"{gc.n_repeats(dataset)} shuffles of the column; whiskers ± one "
                       "standard deviation." + gc.permutation_note(dataset))

with views[3]:
    if views[3].open and not classify:
        st.info(f"This view is classification-only: **{dataset.target}** is a number. For a "
                "numeric target see **Round by round** (the fit S_t on one feature) and "
                "**Shrinkage** (training and test mean squared error against rounds).")
    elif views[3].open:
        gc.classification_view(dataset, full_model(), key, style)

with views[4]:
    if views[4].open:
        model = full_model()
        predicted = results.predicted(model, dataset, features, ("gb", *key))
        results.show(dataset, model, predicted, style, layout="compact",
                     extra=[] if classify else [results.mse(dataset, predicted)],
                     r2_help="R² = 1 − Σ(y − S_T)² / Σ(y − ȳ)² on {rows}.")
        if not classify:
            st.plotly_chart(gf.prediction_figure(dataset.y_test, predicted, style),
                            width="stretch")

with views[5]:
    if views[5].open:
        why.view(full_model(), dataset, features, "gb", "score" if classify else "value", key,
                 style, rounds=True, pdp=True)

if views[0].open or views[1].open:  # after the view is drawn: the other tabs' model
    gc.prefetch_model(dataset, key)
take_home(full_model, dataset, features, "gb")
