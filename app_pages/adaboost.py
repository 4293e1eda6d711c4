"""AdaBoost page: Freund & Schapire's algorithm round by round, its error against T, every stump."""
import numpy as np
import streamlit as st

from ui import adaboost_controls as ac
from ui import data_controls, heading, limits, results, state, tables, url, why
from ui.params import cache_key
from ui.take_home import take_home
from viz import adaboost_figures as af
from viz import tree_figures as tf

heading.show("AdaBoost", "adaboost")
st.caption("Notation: f̂_t is round t's weak learner and ŵ_t its weight; α_i is "
           "the weight of training point i. Each round fits f̂_t to the α-weighted points, "
           "then raises the α_i of the points it got wrong.")
dataset = state.current_dataset()
if dataset is None:
    state.stop()
data_controls.leak_notice(dataset)
if dataset.task != "classification":
    state.offer_classification_target(
        f"AdaBoost counts wrong answers, so it predicts a class, and **{dataset.target}** is a "
        "number to predict (regression); Gradient Boosting fits numbers, each new tree to the "
        "residuals.")
    st.page_link("app_pages/gradient_boosting.py", label="Open Gradient Boosting",
                 icon=":material/trending_down:", query_params=url.shared_query())
    state.stop()
features = ac.boost_features(dataset)
if not features:
    st.error("**AdaBoost needs numeric or categorical features**; this data has only text "
             "columns. Choose other features on the **Data** page.")
    state.stop()

style = state.style()
with st.sidebar:
    st.subheader("Boosting parameters")
    params = ac.controls(dataset)
    dataset = data_controls.fit_rows(dataset, "ab_all_rows")
    params["binning"] = data_controls.binning(dataset, "ab_binned")
too_much = limits.check_work(len(dataset.y_train), params["n_estimators"], "adaboost")
if too_much:
    st.error(too_much)
    state.stop()
ac.prefetch_pair(dataset, params, features)
try:
    model = ac.fit(dataset, params, features)
except ValueError as error:
    st.error(f"**AdaBoost cannot be fitted with these settings.** {error} Try a deeper weak "
             "learner, or a target whose classes the features can tell apart.")
    state.stop()
key = cache_key(dataset, params)
K, n_rounds = len(model.classes_), len(model.estimators_)

notes = [f"{n_rounds} rounds · {K} classes · {data_controls.rows_note(dataset)}"]
if n_rounds < params["n_estimators"]:
    notes.append("boosting stopped early: " + ("a learner made no weighted error"
                 if model.estimator_errors_[-1] == 0 else "the next learner was no better than chance"))
st.caption(" · ".join(notes))
data_controls.binning_note(params["binning"])
if K > 2:
    st.info(f"**{K} classes: SAMME.** A learner is useful when ε_t < 1 − 1/K = {1 - 1 / K:.3f}, "
            f"and every model weight gains ½ ln(K − 1) = {0.5 * np.log(K - 1):.4f}: "
            "ŵ_t = ½ ln((1 − ε_t)/ε_t) + ½ ln(K − 1). The ensemble predicts the class with the "
            "largest total weight Σ_t ŵ_t 1{f̂_t(x) = k}.")

views = url.bound(st.tabs, ["Round by round", "Error vs rounds", "All stumps", "Results",
                           "Why this prediction?"],
                  key="ab_view")

with views[0]:
    if views[0].open:
        ac.round_view(dataset, model, params, features, style)

with views[1]:
    if views[1].open:
        train, test = ac.error_curves(model, dataset, params, features)
        shown_round = st.session_state.get("ab_round")  # the round stepped to, if any
        curves = st.empty()

        def draw_curves(single: dict) -> None:
            curves.plotly_chart(af.error_curve_figure(train, test, single, current=shown_round,
                                                      style=style), width="stretch")
        if (single := ac.grown_tree_errors(dataset, params, features)) is None:
            draw_curves({})  # the curves at once; the single trees' lines once grown
            single = ac.tree_errors(dataset, params, features)
        draw_curves(single)
        best = int(np.argmin(test)) + 1
        st.caption(f"Lowest test error {test[best - 1]:.1%} after T = {best} "
                   f"rounds; after all {n_rounds}: training {train[-1]:.1%}, test {test[-1]:.1%}. "
                   "T is a hyperparameter: choose it on held-out data, not on the training error.")
        st.plotly_chart(af.weight_curve_figure(model, style), width="stretch")

with views[2]:
    if views[2].open:
        missing = bool(dataset.X_train[features].isna().any().any())
        table = af.stump_table(model, note_missing=missing)
        if params["max_depth"] > 1:
            st.caption(f"The weak learners are trees of depth {params['max_depth']}: each row "
                       "gives the root question and the majority class on each side of it.")
        tables.show(table, hide_index=True, height=min(38 + 35 * len(table), 640),
                     column_config={"ε_t": st.column_config.NumberColumn(format="%.4f"),
                                    "ŵ_t": st.column_config.NumberColumn(format="%.4f")})
        st.caption("ε_t: weighted error of round t. ŵ_t = ½ ln((1 − ε_t)/ε_t)"
                   + (", + ½ ln(K − 1) (SAMME)" if K > 2 else "")
                   + (f", × η = {params['learning_rate']:g}" if params["learning_rate"] != 1 else "")
                   + ". The ensemble: F̂(x) = sign(Σ_t ŵ_t f̂_t(x)).")
        st.download_button("Download the table (CSV)", table.to_csv(index=False),
                           "adaboost_learners.csv", "text/csv", on_click="ignore")

with views[3]:
    if views[3].open:
        importance = results.show(
            dataset, model, results.predicted(model, dataset, features, ("ab", *key)), style,
            layout="halves",
            accuracy_help="Share of {rows} whose predicted class sign(Σ ŵ_t f̂_t(x)) is right.")
        importance.plotly_chart(tf.importance_figure(features, model.feature_importances_, style),
                                width="stretch")
        importance.caption("Importance: each learner's impurity decrease, averaged with "
                           "weights ŵ_t.")

with views[4]:
    if views[4].open:
        why.view(model, dataset, features, "ab", "score", key, style, rounds=True, pdp=True)

ac.prefetch_views(model, dataset, params, features)  # after the open view: not in its way
take_home(model, dataset, features, "ab")
