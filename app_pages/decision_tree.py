"""Decision Tree page: grow a tree, read it, follow a row down it, see how each split won."""
import streamlit as st

from engine.inspection import node_test_counts
from ui import data_controls, heading, results, state, url, why, your_tree
from ui import tree_controls as tc
from ui import tree_diagram as td
from ui.params import cache_key
from ui.take_home import take_home
from viz import tree_figures as tf
from viz.tree_dot import tree_to_dot

heading.show("Decision Tree", "decision_tree")
dataset = state.current_dataset()
if dataset is None:
    state.stop()
data_controls.leak_notice(dataset)
style, classify = state.style(), dataset.task == "classification"
features = tc.tree_features(dataset)
if not features:
    st.error("A tree needs numeric or categorical features; this data has only text columns. "
             "Choose other features on the **Data** page.")
    state.stop()

with st.sidebar:
    st.subheader("Tree parameters")
    params = tc.controls(dataset)
    dataset = data_controls.fit_rows(dataset, "dt_all_rows")
    params["binning"] = data_controls.binning(dataset, "dt_binned")
key = cache_key(dataset, params)
try:
    model = tc.fit_tree(dataset, *key)
except ValueError as error:
    # the message names a parameter, or the data (a target too large to square)
    st.error(f"**This tree cannot be grown with this data and these settings.** {error} "
             "Change what is named above and the tree regrows.")
    state.stop()
tree = model.tree_
X_fit, y_fit = tc.training_rows(dataset)
X_test, y_test = dataset.X_test[features], dataset.y_test
missing = [j for j, c in enumerate(features) if X_fit[c].isna().any()]
criterion_name = {"squared_error": "squared error"}.get(params["criterion"], params["criterion"])

st.caption(f"{tree.node_count} nodes · {tree.n_leaves} leaves · depth {tree.max_depth} · "
           f"{data_controls.rows_note(dataset)} · criterion {criterion_name}")
data_controls.binning_note(params["binning"])
views = url.bound(st.tabs, ["Tree", "Grow step by step", "Show your working", "Impurity", "Results",
                 "Complexity", "Decision boundary", "Why this prediction?", "Your tree"],
                  key="dt_view")

tree_style = td.diagram_style(style)
with views[0]:
    if views[0].open:
        with td.options("Diagram: depth drawn, a row to follow, size"):
            depth_col, row_col = st.columns([2, 3], vertical_alignment="bottom")
            with depth_col:
                depth_limit = td.display_depth(model, tree_style)
            typed_col, fit_col = st.columns(2)
            followed = td.followed_row(model, dataset, features, row_col, typed_col)
            fit = url.bound(fit_col.toggle, "Shrink to fit", key="dt_fit", help=td.FIT_HELP)
            counted_col, hist_col = st.columns(2)
            counted = url.bound(counted_col.toggle,
                                f"Count {data_controls.scored_rows(dataset)} in each node",
                                key="dt_test_counts",
                                help="Each node also says how many of the scored rows reach it "
                                     "and (classes) how many of those are of its own class.")
            histograms = url.bound(hist_col.toggle, "Histogram in each split", key="dt_node_hist",
                                   help=td.HISTOGRAM_HELP)
        path = td.landing_question(model, followed, td.path_of(model, followed), depth_limit, key)
        counts = node_test_counts(model, X_test, y_test) if counted else None
        hists = td.node_histograms(model, dataset, X_fit, y_fit, depth_limit) if histograms else None
        dot = tree_to_dot(model, style=tree_style, max_depth=depth_limit, highlight_path=path,
                          test_counts=counts, counted_rows=data_controls.scored_rows_tag(dataset),
                          histograms=hists, missing_features=missing)
        td.diagram(dot, tree_style, place="tree", fit=fit)
        if histograms:
            td.histogram_caption(model, len(X_fit))
        td.downloads(dot)
        if path is not None:
            td.explain(model, followed, missing)
        if params["chi2_alpha"] is not None:
            removed = url.bound(st.expander, "What χ² pruning removed", key="dt_chi2_view",
                                on_change="rerun")
            if removed.open:
                with removed:
                    td.chi2_view(dataset, key, params["chi2_alpha"], tree_style,
                                 depth_limit, missing)

with views[1]:
    if views[1].open:
        st.markdown("A tree is grown greedily, one level at a time: every node of a level picks "
                    "its best split without looking ahead. Step through the levels, or play.")
        td.grow_view(model, tree_style, missing, ask=td.grow_question(model, dataset, key))
        td.how_grown()

with views[2]:
    if views[2].open and not classify:
        st.info("The candidate table scores class counts; it is shown for classification "
                "targets. Regression trees minimise the squared error Σ(y − ȳ)² of the children.")
    elif views[2].open:
        node = tc.node_choice(model)
        table = tc.candidates(model, dataset, *key, node)
        tc.candidate_view(table, params["criterion"], params["categorical_split"], style)

with views[3]:
    if views[3].open:
        scaled = url.bound(
            st.toggle, "Scale entropy by ½ (all three curves meet at p = ½)", value=True,
            key="dt_scaled",
            help="Entropy H(p) = −p log₂ p − (1−p) log₂(1−p) peaks at 1 bit; "
                 "H/2 peaks at ½ like Gini 2p(1−p) and misclassification.")
        root = tree.value[0]
        p_root = float(root[-1] / root.sum()) if classify and len(root) == 2 else None
        st.plotly_chart(tf.impurity_figure(tf.impurity_curves(scaled_entropy=scaled), p_root,
                                           scaled_entropy=scaled, style=style), width="stretch")
        if p_root is None:
            st.caption("The root's p is marked for two-class targets.")

with views[4]:
    if views[4].open:
        results.show(dataset, model, results.predicted(model, dataset, features, ("dt", *key)),
                     style)
        st.plotly_chart(tf.importance_figure(features, model.feature_importances_, style),
                        width="stretch")

with views[5]:
    if views[5].open:
        tc.complexity_view(model, dataset, key, style)

with views[6]:
    if views[6].open:
        tc.boundary_view(dataset, key, style)

with views[7]:
    if views[7].open:
        why.view(model, dataset, features, "dt", "proba" if classify else "value", key, style,
                 code=True)

with views[8]:
    if views[8].open:
        your_tree.view(dataset, features, params, style)

tc.prefetch_views(model, dataset, *key)  # after the open view is drawn: not in its way
take_home(model, dataset, features, "dt")
