"""Streamlit glue of the Decision Tree page: its controls and its cached computations.

Every control's key starts with ``dt_`` and is bound to the URL query parameter of the
same name, so a link reopens the same tree. Fitted models are cached by the dataset's
content hash and the parameters (bounded caches: a classroom server's memory stays
bounded); everything heavier than a diagram is cached too and computed only when its
tab is open.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.inspection import split_candidates
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor, cut_to_depth, prune_to_alpha
from engine.tree._prune import choose_ccp_alpha_cv
from ui.fitting import compute_once, fitted_model, prefetch
from viz import tree_figures as tf
from viz.tree_dot import node_title

from . import data_controls as dc
from . import state, tables, url
from .axes import axis_pair, default_pair
from .params import Control, cache_key, classification, draw_controls

CLASSIFICATION_CRITERIA = ["gini", "entropy", "misclassification", "gain_ratio"]
CHI2_LEVELS = ["off", "0.05", "0.01", "0.001"]


def tree_features(dataset: Dataset) -> list[str]:
    """Features a tree can split on: numeric and categorical (text columns are left out)."""
    return [c for c in dataset.features if dataset.feature_kinds.get(c) != "text"]


def _chi2_alpha(level: str) -> float | None:
    """The χ² level chosen as the estimator's ``chi2_alpha`` ("off": None)."""
    return None if level == "off" else float(level)


#: The tree's parameters, in the sidebar's order (see ``ui.params``).
CONTROLS = (
    Control("criterion", st.selectbox, "Criterion", "dt_criterion", (CLASSIFICATION_CRITERIA,),
            applies=classification, otherwise="squared_error",
            note="Criterion: squared error, I(t) = (1/n) Σ (y_i − ȳ_t)² (numeric target).",
            help="Impurity I(t) of a node with class shares π_q. **gini**: 1 − Σ π_q² (CART). "
                 "**entropy**: −Σ π_q log₂ π_q (ID3). **misclassification**: 1 − max π_q. "
                 "**gain_ratio** (C4.5): Δ_H / SplitInfo with SplitInfo = −Σ_k (n_k/n) "
                 "log₂(n_k/n). The split chosen maximises Δ = I(t) − Σ_k (n_k/n) I(t_k)."),
    Control("max_depth", st.number_input, "Max depth", "dt_max_depth", (1, 60),
            {"value": None, "placeholder": "no limit"},
            help="Nodes at this depth become leaves (the root has depth 0). Empty: no limit."),
    Control("min_samples_leaf", st.number_input, "Min samples per leaf", "dt_min_leaf",
            (1, 10_000, 1),
            help="A split is a candidate only if every child keeps at least this many "
                 "training rows: n_k ≥ min_samples_leaf."),
    Control("min_samples_split", st.number_input, "Min samples to split", "dt_min_split",
            (2, 10_000, 2),
            help="A node with fewer training rows than this is not split: split only if "
                 "n_t ≥ min_samples_split."),
    Control("max_leaf_nodes", st.number_input, "Max leaves", "dt_max_leaves", (2, 10_000),
            {"value": None, "placeholder": "no limit"},
            help="Grow best-first: always split the leaf with the largest weighted "
                 "decrease (n_t/N)·Δ, until there are this many leaves. Empty: no limit."),
    Control("categorical_split", st.radio, "Categorical splits", "dt_cat_split",
            (["binary", "multiway"],), {"horizontal": True},
            help="**binary**: categories sorted by the share of class 1 (or by mean target), "
                 "best prefix goes left: x ∈ S. **multiway** (ID3): one branch per category, "
                 "the attribute is used up below."),
    Control("ccp_alpha", st.number_input, "Pruning α (cost-complexity)", "dt_ccp",
            (0.0, 10.0, 0.0), {"step": 0.001, "format": "%.4f"},
            help="Cost-complexity pruning: keep the subtree T minimising "
                 "R_α(T) = Σ_leaves (N_t/N)·I(t) + α·|leaves(T)|. 0: no pruning."),
    Control("chi2_alpha", st.selectbox, "χ² pruning level", "dt_chi2", (CHI2_LEVELS,),
            applies=classification, otherwise=None, disable=True, convert=_chi2_alpha,
            help="χ² pruning (Quinlan 1986): a split whose children are leaves is removed "
                 "unless χ² = Σ_k Σ_q (n_kq − n̂_kq)²/n̂_kq with n̂_kq = n_q·n_k/n is "
                 "significant at this level (df = (K−1)(Q−1))."),
)


def controls(dataset: Dataset) -> dict:
    """Draw the parameter controls; returns the estimator's keyword arguments."""
    return draw_controls(CONTROLS, dataset)


def training_rows(dataset: Dataset) -> tuple[pd.DataFrame, pd.Series]:
    return dataset.X_train[tree_features(dataset)], dataset.y_train


def _estimator(task: str, params: dict):
    cls = DecisionTreeRegressor if task == "regression" else DecisionTreeClassifier
    return cls(**params)


def _grown_deeper(kind: str, dataset: Dataset, params: tuple, *extra):
    """The tree of ``kind`` with these parameters but no depth limit, if it is fitted
    already and a cut of it is the tree ``params`` asks for (``cut_to_depth``: no leaf
    limit, no pruning); else None."""
    wanted = dict(params)
    if (wanted["max_depth"] is None or wanted["max_leaf_nodes"] is not None
            or wanted["ccp_alpha"] or wanted["chi2_alpha"] is not None):
        return None
    return fitted_model((kind, *cache_key(dataset, {**wanted, "max_depth": None}), *extra))


def _grown_unpruned(kind: str, dataset: Dataset, params: tuple, *extra):
    """The tree of ``kind`` with these parameters but not pruned, if it is fitted
    already and ``params`` asks for pruning (cost-complexity, χ² or both), which
    ``_pruned`` then applies to it; else None."""
    wanted = dict(params)
    if not wanted["ccp_alpha"] and wanted["chi2_alpha"] is None:
        return None
    unpruned = {**wanted, "ccp_alpha": 0.0, "chi2_alpha": None}
    return fitted_model((kind, *cache_key(dataset, unpruned), *extra))


def _pruned(whole, params: tuple):
    """``whole`` (see :func:`_grown_unpruned`) pruned as ``params`` ask."""
    wanted = dict(params)
    return prune_to_alpha(whole, float(wanted["ccp_alpha"]), chi2_alpha=wanted["chi2_alpha"])


def fit_tree(dataset: Dataset, content_hash: str, params: tuple):
    """The fitted tree, once per (dataset hash, parameters) and shared. A depth limit on
    a tree whose full-depth version is grown already cuts that one (``cut_to_depth``:
    the same tree), and a pruning α on a tree grown already unpruned prunes that one
    (``prune_to_alpha``, χ² too), instead of growing it again. Raises ValueError."""
    wanted = dict(params)
    full = _grown_deeper("tree", dataset, params)
    if full is not None:
        return compute_once(("tree", content_hash, params),
                            lambda: cut_to_depth(full, int(wanted["max_depth"])),
                            "Cutting the tree")
    whole = _grown_unpruned("tree", dataset, params)
    if whole is not None:
        return compute_once(("tree", content_hash, params), lambda: _pruned(whole, params),
                            "Pruning the tree")

    def grow():
        X, y = training_rows(dataset)
        return _estimator(dataset.task, wanted).fit(X, y)
    return compute_once(("tree", content_hash, params), grow, "Growing the tree")


def _pair(dataset: Dataset, content_hash: str, params: tuple, pair: tuple[str, str]):
    """The key and the computation of a tree with the same parameters on just two
    columns (for the decision boundary): a cut of the full-depth one or a pruning of
    the unpruned one where that is fitted, as :func:`fit_tree` does."""
    pair = tuple(pair)

    def fit():
        full = _grown_deeper("tree-pair", dataset, params, pair)
        if full is not None:
            return cut_to_depth(full, int(dict(params)["max_depth"]))
        whole = _grown_unpruned("tree-pair", dataset, params, pair)
        if whole is not None:
            return _pruned(whole, params)
        return _estimator(dataset.task, dict(params)).fit(dataset.X_train[list(pair)],
                                                          dataset.y_train)
    return ("tree-pair", content_hash, params, pair), fit


def fit_pair(dataset: Dataset, content_hash: str, params: tuple, pair: tuple[str, str]):
    """:func:`_pair`'s tree, fitted once and shared (see :func:`prefetch_views`).
    Raises ValueError."""
    return compute_once(*_pair(dataset, content_hash, params, pair),
                        "Fitting a tree on the two features")


def _root_candidates(model, dataset: Dataset, content_hash: str, params: tuple):
    """The key and the computation of the root's candidate table (see :func:`candidates`).

    The root holds every training row and splits alike at every depth limit (growth
    is level by level), so the table is kept by the parameters but ``max_depth``: a
    new depth reuses it."""
    def compute() -> pd.DataFrame:
        X, y = training_rows(dataset)
        return split_candidates(model, 0, X, y)
    any_depth = tuple((k, v) for k, v in params if k != "max_depth")
    return ("candidates", content_hash, any_depth, 0), compute


@st.cache_data(max_entries=32, show_spinner="Scoring every candidate split…")
def _node_candidates(_model, _dataset: Dataset, content_hash: str, params: tuple,
                     node: int) -> pd.DataFrame:
    X, y = training_rows(_dataset)
    return split_candidates(_model, node, X, y)


def candidates(model, dataset: Dataset, content_hash: str, params: tuple,
               node: int) -> pd.DataFrame:
    """Every split ``node`` of the tree could make, scored on the training rows; read-only.

    The root's table, where "Show your working" opens, is kept with the fitted models and
    made ahead by :func:`prefetch_views`; another node's is computed when it is chosen and
    kept in a bounded cache.
    """
    if node == 0:
        return compute_once(*_root_candidates(model, dataset, content_hash, params),
                            "Scoring every candidate split")
    return _node_candidates(model, dataset, content_hash, params, node)


def prefetch_views(model, dataset: Dataset, content_hash: str, params: tuple) -> None:
    """Start in the background what the "Decision boundary" and "Show your working" tabs
    open on: the tree on the default pair of numeric features (the shorter job), then
    the root's candidate table (classification trees; a regression tree has none)."""
    jobs = []
    if len(numeric := _numeric(dataset)) >= 2:
        jobs.append(_pair(dataset, content_hash, params, default_pair(dataset, numeric)))
    if dataset.task == "classification":
        jobs.append(_root_candidates(model, dataset, content_hash, params))
    if jobs:
        prefetch(*jobs)


@st.cache_data(max_entries=16, show_spinner="Cross-validating the pruning path (5 folds)…")
def ccp_cv(_dataset: Dataset, content_hash: str, params: tuple):
    """``choose_ccp_alpha_cv`` on the training rows: (best α, table)."""
    X, y = training_rows(_dataset)
    unpruned = {**dict(params), "ccp_alpha": 0.0, "chi2_alpha": None}
    whole = fitted_model(("tree", *cache_key(_dataset, unpruned)))  # the path's, if grown
    return choose_ccp_alpha_cv(_estimator(_dataset.task, unpruned), X, y, cv=5,
                               random_state=0, full=whole)


def node_choice(model) -> int:
    """The node whose candidate splits are shown, in the URL as ``dt_node=<id>``; the
    chooser lists each node by its question."""
    tree = model.tree_
    internal = [int(i) for i in np.flatnonzero(tree.children_left >= 0)] or [0]
    return url.bound(st.selectbox, "Node", internal, key="dt_node",
                     format_func=lambda i: node_title(model, i),
                     help="An internal node: every split it could make is scored.")


#: Rows of the candidate table drawn, best first: a large table has a threshold between
#: every two values of every feature, more than a browser table can show at once.
CANDIDATES_SHOWN = 500


def candidate_view(table: pd.DataFrame, criterion: str, categorical_split: str, style) -> None:
    """The candidate table (winner highlighted) and the curve or the category order."""
    # Only the kind of categorical split this tree may make competes for the node.
    full = table
    table = table[table["split"] != ("multiway" if categorical_split == "binary" else "subset")]
    if table.empty:
        st.info("No training rows reach this node, so there is nothing to split.")
        return
    score, score_name = tf.CRITERION_COLUMNS[criterion]
    every = url.bound(st.toggle, "Score by every criterion", not state.presentation(),
                      key="dt_every_score",
                      help="Also the scores the other criteria give each split (the table "
                           "grows wide: on a projector it starts with the tree's own).")
    st.markdown(f"Every split the learner could make here, scored by "
                f"{'every criterion' if every else 'the tree’s criterion'}. The tree "
                f"({criterion}) took the highlighted row: the largest **{score_name}**.")
    ordered = table.sort_values(score, ascending=False, kind="stable").reset_index(drop=True)
    shown = tf.candidate_display(ordered.head(CANDIDATES_SHOWN), full.attrs.get("classes", []),
                                 None if every else criterion)
    tables.show(shown, style=_highlighted, hide_index=True, height=320)
    if len(ordered) > CANDIDATES_SHOWN:
        st.caption(f"The {CANDIDATES_SHOWN:,} best of {len(ordered):,} candidates; the chart "
                   "below scores every threshold of one feature.")
    chosen = table[table["chosen"]]
    feature = chosen["feature"].iloc[0] if len(chosen) else table["feature"].iloc[0]
    names = table["feature"].unique().tolist()  # in order of appearance
    if st.session_state.get("dt_work_feature") not in names:
        st.session_state.pop("dt_work_feature", None)  # another node or dataset: start afresh
    feature = url.bound(st.selectbox, "Feature to look at", names, index=names.index(feature),
                        key="dt_work_feature",
                        help="Its gain Δ against the threshold, or its categories in order.")
    kind = table.loc[table["feature"] == feature, "kind"].iloc[0]
    if kind == "numeric":
        st.plotly_chart(tf.threshold_curve_figure(table, feature, criterion, style),
                        width="stretch")
        return
    order = tf.category_order_table(full, feature)
    subset = full[(full["feature"] == feature) & (full["split"] == "subset")]
    best = int(subset[score].to_numpy().argmax()) + 1 if len(subset) else None
    classes = full.attrs.get("classes", [])
    focus = classes[1] if len(classes) == 2 else "the node's majority class"
    st.plotly_chart(tf.category_order_figure(order, feature, str(focus), best, style),
                    width="stretch")
    st.caption("Sorted by that share, the best binary split is one of the cuts between "
               "neighbours (Breiman et al. 1984), so k categories need k − 1 tries, not "
               "2^(k−1) − 1.")


def _highlighted(frame: pd.DataFrame):
    return frame.style.apply(_highlight, axis=1).format(precision=4, na_rep="")


def _highlight(row: pd.Series) -> list[str]:
    color = "background-color: #FFE8A3; font-weight: bold" if row["Chosen"] else ""
    return [color] * len(row)


def complexity_view(model, dataset: Dataset, key: tuple, style) -> None:
    """Error against depth and tree size, and the cross-validated pruning path."""
    X_fit, y_fit = training_rows(dataset)
    features = tree_features(dataset)
    curve = tf.depth_curve(model, X_fit, y_fit, dataset.X_test[features], dataset.y_test)
    error_name = "misclassification rate" if dataset.task == "classification" else "mean squared error"
    # side by side on a wide screen; one under the other in the large type of a projector
    by_depth, by_leaves = (st, st) if state.presentation() else st.columns(2)
    by_depth.plotly_chart(tf.depth_curve_figure(curve, error_name=error_name, style=style,
                                                current=model.tree_.max_depth), width="stretch")
    by_leaves.plotly_chart(tf.depth_curve_figure(curve, x="n_leaves", error_name=error_name,
                                                 style=style), width="stretch")
    st.caption("The fitted tree cut at each depth: training error keeps falling, test error "
               "stops falling (and may rise) once the tree fits noise.")
    if url.bound(st.toggle,
                 "Cross-validate the pruning path (5 folds; a few seconds on large data)",
                 key="dt_run_cv"):
        best, table = ccp_cv(dataset, *key)
        st.plotly_chart(tf.ccp_figure(table, best, error_name=error_name, style=style),
                        width="stretch")
        st.markdown(f"Cross-validation chooses **α = {best:.5g}**: set *Pruning α* to it "
                    "to see that tree.")


def _numeric(dataset: Dataset) -> list[str]:
    """The tree's numeric features, the ones a decision boundary can be drawn on."""
    return dc.numeric_of(dataset, tree_features(dataset))


def boundary_view(dataset: Dataset, key: tuple, style) -> None:
    """A tree on two chosen numeric features: its axis-parallel regions and the points."""
    numeric = _numeric(dataset)
    if len(numeric) < 2:
        st.info("The decision boundary needs two numeric features; this data has fewer.")
        return
    a, b = axis_pair(dataset, numeric, ("dt_bx", "dt_by"),
                     help=("First of the two features the tree is refitted on.",
                           "Second feature (not the x axis)."))
    try:
        model = fit_pair(dataset, key[0], key[1], (a, b))
    except ValueError as error:
        st.error(f"**No tree on these two features.** {error}")
        return
    grid = tf.decision_grid(model, dataset.X_train[[a, b]])
    points = dc.two_feature_points(dataset, [a, b])
    st.plotly_chart(tf.boundary_figure(grid, points.train, points.y_train, points.test,
                                       points.y_test, dataset.class_names, style),
                    width="stretch")
    st.caption(f"A tree refitted on just these two columns, same parameters. "
               f"{points.note} Every boundary is parallel to an axis. "
               f"{points.beyond(grid['x'], grid['y'])}")
