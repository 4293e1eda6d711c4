"""Random Forest page: bagged trees that try m of the p features at each split, seen from inside."""
import streamlit as st

from ui import data_controls, heading, limits, results, state, url, why
from ui import forest_controls as fc
from ui import tree_diagram as td
from ui.params import cache_key
from ui.stepper import stepped
from ui.take_home import take_home
from viz import forest_figures as ff
from viz.tree_dot import chart_css, tree_to_dot

heading.show("Random Forest", "random_forest")
dataset = state.current_dataset()
if dataset is None:
    state.stop()
data_controls.leak_notice(dataset)
style, classify = state.style(), dataset.task == "classification"
features = fc.forest_features(dataset)
if not features:
    st.error("**A forest needs numeric or categorical features**; this data has only text "
             "columns. Choose other features on the **Data** page.")
    state.stop()

with st.sidebar:
    st.subheader("Forest parameters")
    params = fc.controls(dataset)
    dataset = data_controls.fit_rows(dataset, "rf_all_rows")
    params["binning"] = data_controls.binning(dataset, "rf_binned")
params["max_samples"] = limits.rows_per_tree(len(dataset.y_train), params["n_estimators"])
too_much = limits.check_work(params["max_samples"] or len(dataset.y_train),
                             params["n_estimators"], "forest")
if too_much:
    st.error(too_much)
    state.stop()
key = cache_key(dataset, params)
p, m, B = len(features), params["max_features"], params["n_estimators"]
X_test, y_test = dataset.X_test[features], dataset.y_test
error_label = ff.error_name(classify)
st.caption(f"{B} trees · m = {m} of p = {p} features per split"
           f"{' (bagging: m = p)' if m == p else ''} · {data_controls.rows_note(dataset)}")
data_controls.binning_note(params["binning"])
if note := limits.rows_per_tree_note(len(dataset.y_train), params["max_samples"]):
    st.caption(note)
views = url.bound(st.tabs, ["OOB error", "Effect of m", "Importance", "Inside the forest",
                           "Results", "Why this prediction?"], key="rf_view")

bar_place = next((view for view in views if view.open), views[0])  # the progress bar's place
if views[0].open:
    with views[0]:
        compare = url.bound(st.toggle, "Compare with bagging (the same trees with m = p)",
                            key="rf_bagging", disabled=m == p)
        bar_place = st.container()  # above the curve: in sight at 1024×768 in large type
        curve_place = st.empty()
        if not fc.is_grown(dataset, params):
            # The curve's axes while the trees grow: the browser fetches the chart code
            # meanwhile instead of after the fit.
            curve_place.plotly_chart(ff.oob_curve_figure({}, error_label=error_label, style=style,
                                                         growing=B), width="stretch")


def draw_growing(partial) -> None:
    """The OOB curve of the trees grown so far, while the others grow."""
    curve = ff.error_curve(partial, None, None).iloc[:fc.trees_shown(B)]
    curve_place.plotly_chart(ff.oob_curve_figure(
        {"random forest" if m < p else "bagging": curve},
        error_label=error_label, style=style, growing=B), width="stretch")


with bar_place:
    try:
        forest = fc.fit_forest(dataset, params, grown=draw_growing
                               if views[0].open and params["bootstrap"] else None)
    except ValueError as error:
        if views[0].open:
            curve_place.empty()
        st.error(f"**This forest cannot be grown with these settings.** {error} "
                 "Change the parameter named above and the forest regrows.")
        state.stop()

# The other tabs' work goes to the worker processes once the open view no longer needs
# them: at once for the OOB curve, drawn here from the grown trees (unless it grows the
# bagging beside them), after the view for every other tab.
prefetch_now = views[0].open and not (compare and m < p)
if prefetch_now:
    fc.prefetch_views(forest, dataset, params)

with views[0]:
    if views[0].open:
        curves = {"random forest" if m < p else "bagging": fc.error_curve(forest, dataset, params)}
        if compare and m < p:
            bagging = {**params, "max_features": p}
            curves["bagging"] = fc.error_curve(fc.fit_forest(dataset, bagging, what="bagged trees"),
                                               dataset, bagging)
        curves = fc.oob_question(curves, dataset, params, classify=dataset.task == "classification")
        curve_place.plotly_chart(ff.oob_curve_figure(curves, error_label=error_label, style=style,
                                                     growing=B), width="stretch")
        if params["bootstrap"]:
            st.markdown(f"**Out of bag (OOB)**: the rows a tree did not see. A bootstrap sample "
                        f"of n rows misses each row with probability (1 − 1/n)ⁿ ≈ e⁻¹ ≈ "
                        f"{ff.OOB_SHARE:.1%}, so every training row is scored by the trees "
                        "that never saw it — a free estimate of the test error (Breiman "
                        "2001). When the OOB error stabilises, more trees no longer help.")
        else:
            st.info("Without bootstrap every tree sees every row: there is no OOB error, "
                    "only the test error.")

with views[1]:
    if views[1].open:
        st.markdown("B trees, each of variance σ² and pairwise correlation ρ, average to a "
                    "prediction of variance (Hastie et al. 2009, eq. 15.1)")
        rho, sigma2 = fc.correlation(forest, dataset, params)
        st.latex(ff.variance_latex(rho, sigma2, B))
        st.caption(f"ρ and σ² measured on this forest's predictions over the {len(y_test):,} "
                   "test rows. More trees shrink only the second term; the first, ρσ², stays. "
                   "Drawing m < p features per split makes the trees less alike (smaller ρ).")
        fc.sweep_view(dataset, params, style)

with views[2]:
    if views[2].open:
        fc.importance_view(dataset, params, style)

with views[3]:
    if views[3].open:
        shown, picked = st.columns(2)
        depth = url.bound(shown.number_input, "Draw each tree down to depth", 1, 30, 3,
                          key="rf_show_depth",
                          help="Deeper nodes fold into a dashed “… n more nodes” box.")
        row = url.bound(picked.number_input,
                        f"Votes for {data_controls.scored_row(dataset)} (0–{len(y_test) - 1})", 0,
                        max(len(y_test) - 1, 0), 0, key="rf_row")
        missing = [j for j, c in enumerate(features) if dataset.X_train[c].isna().any()]

        def draw_tree(b: int) -> None:
            tree, counts = forest.estimators_[b - 1], forest.inbag_counts_[b - 1]
            st.caption(f"Tree {b}: {tree.tree_.node_count} nodes, depth {tree.tree_.max_depth};"
                       f" grown on {int((counts > 0).sum()):,} distinct rows, "
                       f"{int((counts == 0).sum()):,} rows out of bag. Class counts in the boxes "
                       "count a row drawn k times k times.")
            st.markdown(chart_css(style), unsafe_allow_html=True)  # numbers only, no user text
            td.graphviz(tree_to_dot(tree, style=style, max_depth=depth,
                                    missing_features=missing), "forest-tree")
            st.plotly_chart(ff.inbag_figure(forest.inbag_counts_, current=b, style=style),
                            width="stretch")
            why.tree_downloads(forest, key, tree=b - 1, name=f"tree {b}")

        stepped(draw_tree, first=1, last=B, key="rf_tree", label="Tree b", interval=1.5)
        votes = ff.vote_table(forest, X_test.iloc[[row]])
        truth = y_test.iloc[row]
        if classify:
            st.plotly_chart(ff.vote_figure(votes, style=style), width="stretch")
            st.caption(f"True class: {truth}. The forest predicts the class of largest π "
                       "(the mean of the trees' leaf class shares), usually the most voted.")
        else:
            st.plotly_chart(ff.tree_predictions_figure(votes, float(truth), style=style),
                            width="stretch")

with views[4]:
    if views[4].open:
        oob = []
        if params["bootstrap"]:
            oob = [results.Number(
                "OOB accuracy" if classify else "OOB R²",
                f"{forest.oob_score_:.1%}" if classify else f"{forest.oob_score_:.3f}",
                "The same score on the training rows, each predicted only by the trees "
                "that did not see it.")]
        results.show(dataset, forest, fc.scored_pass(forest, dataset, params).prediction,
                     style, layout="side", extra=oob)
        fc.boundary_view(dataset, params, style)

with views[5]:
    if views[5].open:
        why.view(forest, dataset, features, "rf", "proba" if classify else "value", key, style,
                 pdp=True)

if not prefetch_now:
    fc.prefetch_views(forest, dataset, params)
take_home(forest, dataset, features, "rf")
