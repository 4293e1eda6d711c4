"""Plotly figures of the decision-tree page: the working behind a split, impurity
functions, results and complexity.

Compute-then-draw: functions named ``*_curve`` / ``*_table`` compute small DataFrames
from fitted models; functions named ``*_figure`` only draw.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.inspection import grid_axis, grid_output, target_codes
from engine.tree._criteria import entropy, gini, misclassification

from ._points import grid_ranges, point_adder, spread, true_values_hover
from ._text import plain, plain_all, value_list
from .style import Style

#: Column of ``split_candidates`` per criterion and its label in the app.
CRITERION_COLUMNS = {
    "misclassification": ("error_decrease", "error decrease"),
    "entropy": ("info_gain", "information gain (bits)"),
    "gini": ("gini_decrease", "Gini decrease"),
    "gain_ratio": ("gain_ratio", "gain ratio"),
}


#: The candidate table's columns as a student reads them (engine name → header).
CANDIDATE_HEADERS = {
    "feature": "Feature", "split": "Split", "threshold": "Threshold t", "categories": "Values",
    "branch_counts": "Rows per branch", "missing_to": "Missing values go", "errors": "Errors",
    "error_decrease": "Error decrease", "info_gain": "Information gain (bits)",
    "gain_ratio": "Gain ratio", "gini_decrease": "Gini decrease", "chi2": "χ²",
    "chi2_p_value": "χ² p-value", "chosen": "Chosen",
}
_SPLIT_WORDS = {"threshold": "x ≤ t", "subset": "x ∈ values", "multiway": "a branch per value"}
#: The candidate table's score columns each criterion is read from (the rest are others').
CRITERION_SCORES = {
    "misclassification": ("errors", "error_decrease"), "entropy": ("info_gain",),
    "gini": ("gini_decrease",), "gain_ratio": ("info_gain", "gain_ratio"),
}
_SCORES = ("errors", "error_decrease", "info_gain", "gain_ratio", "gini_decrease", "chi2",
           "chi2_p_value")


def candidate_display(table: pd.DataFrame, classes=(), criterion: str | None = None) -> pd.DataFrame:
    """The candidate table of :func:`engine.inspection.split_candidates` in words: the
    headers of ``CANDIDATE_HEADERS``, a split's kind as its rule, a long list of values
    abbreviated, the rows per branch as ``3 / 2 | 3 / 4`` (class counts in the order the
    header names, branches left to right), and empty cells where a criterion or a
    threshold does not apply. A column empty in every row (no thresholds among
    categories, no missing values) is left out; with ``criterion``, so are the scores of
    the other criteria.

    >>> table = pd.DataFrame({"feature": ["Price"], "split": ["subset"], "threshold": [None],
    ...     "categories": [("$$$",)], "branch_counts": [((2.0, 1.0), (4.0, 5.0))],
    ...     "missing_to": [None], "info_gain": [0.02], "gini_decrease": [0.01],
    ...     "chosen": [True]})
    >>> candidate_display(table, ["No", "Yes"], "entropy").iloc[0].to_dict()
    {'Feature': 'Price', 'Split': 'x ∈ values', 'Values': '$$$', 'Rows per branch (No / Yes)': '2 / 1 | 4 / 5', 'Information gain (bits)': 0.02, 'Chosen': '✓'}
    """
    others = set(_SCORES) - set(CRITERION_SCORES.get(criterion, _SCORES))
    shown = table[[c for c in CANDIDATE_HEADERS if c in table.columns and c not in others]].copy()
    shown["split"] = shown["split"].map(lambda s: _SPLIT_WORDS.get(s, s))
    if "threshold" in shown:  # t = +inf: the rows with a value go left, the missing right
        present = np.isinf(pd.to_numeric(shown["threshold"], errors="coerce").to_numpy(float))
        shown.loc[present, "split"] = "x present"
        shown["threshold"] = shown["threshold"].astype(object).where(~present, None)
    shown["categories"] = shown["categories"].map(
        lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v)) else value_list(v))
    shown["branch_counts"] = shown["branch_counts"].map(_counts_text)
    if "missing_to" in shown:
        shown["missing_to"] = shown["missing_to"].map(lambda v: "" if v is None else str(v))
    shown["chosen"] = shown["chosen"].map(lambda v: "✓" if v else "")
    blank = shown.isna() | shown.astype(str).eq("")
    shown = shown.loc[:, ~blank.all() | shown.columns.isin(["feature", "split", "chosen"])]
    headers = dict(CANDIDATE_HEADERS)
    if len(classes):
        headers["branch_counts"] += f" ({value_list(classes, limit=4).replace(', ', ' / ')})"
    return shown.rename(columns=headers)


def _counts_text(branches) -> str:
    if branches is None:
        return ""
    return " | ".join(" / ".join(f"{c:g}" for c in np.atleast_1d(b)) for b in branches)


#: Up to this many thresholds a gain curve marks each one; beyond, the marks merge into the
#: line and cost the browser a shape each (15,000 rows of a measurement: 15,000 per curve).
MARKED_THRESHOLDS = 300


def threshold_curve_figure(table: pd.DataFrame, feature: str, criterion: str,
                           style: Style = Style()) -> go.Figure:
    """Every criterion's gain against the threshold of one numeric feature.

    Parameters
    ----------
    table : DataFrame from ``engine.inspection.split_candidates``
    feature : str
        A numeric feature of ``table``; its ``threshold`` rows are drawn (the
        "present vs missing" candidate, threshold +inf, is left out).
    criterion : str
        The tree's criterion: its curve is drawn thick and its best threshold marked.
    """
    rows = table[(table["feature"] == feature) & (table["split"] == "threshold")]
    rows = rows[np.isfinite(rows["threshold"].astype(float))].sort_values("threshold")
    name_shown = plain(feature)
    fig = go.Figure()
    drawn = []
    mode = "lines+markers" if len(rows) <= MARKED_THRESHOLDS else "lines"
    for position, (name, (column, label)) in enumerate(CRITERION_COLUMNS.items()):
        if name == "gain_ratio" and criterion != "gain_ratio":
            continue
        drawn.append(column)
        mine = name == criterion
        fig.add_scatter(x=rows["threshold"], y=rows[column], name=label, mode=mode,
                        line=dict(width=style.line_width * (1.6 if mine else 0.7),
                                  color=style.color(position)),
                        marker=dict(size=style.marker_size * (0.8 if mine else 0.5)))
    if len(rows) and criterion in CRITERION_COLUMNS:
        column = CRITERION_COLUMNS[criterion][0]
        best = rows.loc[rows[column].idxmax()]
        fig.add_vline(x=float(best["threshold"]), line_dash="dash", line_color=style.text_color,
                      annotation_text=f"best: {name_shown} ≤ {best['threshold']:.4g}")
    fig.update_layout(xaxis_title=f"threshold t of {name_shown} ≤ t", yaxis_title="gain Δ",
                      legend_title_text="criterion")
    style.apply(fig, title=f"Gain of every threshold on {name_shown}")
    gains = rows[drawn].to_numpy(dtype=float)
    gains = gains[np.isfinite(gains)]
    y_range = (float(gains.min()), float(gains.max())) if gains.size else (0.0, 1.0)
    # the legend under the plot: at the right, in a projector's large type on a 1024-pixel
    # screen, it would take two fifths of the width and meet the best threshold's label
    return style.legend_below(style.reserve_margins(fig, y_range=y_range), plot_height=300)


def category_order_table(table: pd.DataFrame, feature: str) -> pd.DataFrame:
    """The categories of ``feature`` in the order the binary split sorts them.

    Reads the "subset" candidates of ``split_candidates`` (each adds one category to
    the left side) and returns ``category``, ``count``, ``share`` (of the class the
    order is by: class 1 for two classes, else the node's majority) and ``prefix``
    (position of the cut after this category).
    """
    rows = table[(table["feature"] == feature) & (table["split"] == "subset")]
    rows = rows.assign(size=rows["categories"].map(len)).sort_values("size")
    if rows.empty:
        return pd.DataFrame(columns=["category", "count", "share", "prefix"])
    left = np.array([np.asarray(c, dtype=float) for c in rows["left_counts"]])
    last_right = np.asarray(rows["right_counts"].iloc[-1], dtype=float)
    per_category = np.vstack([left[:1], np.diff(left, axis=0), last_right[None]])
    parent = per_category.sum(axis=0)
    focus = 1 if len(parent) == 2 else int(np.argmax(parent))
    longest = tuple(rows["categories"].iloc[-1])
    order = list(longest) + [_last_category(table, feature, longest)]
    totals = per_category.sum(axis=1)
    return pd.DataFrame({
        "category": [str(c) for c in order], "count": totals,
        "share": per_category[:, focus] / np.where(totals > 0, totals, 1.0),
        "prefix": np.arange(1, len(order) + 1),
    })


def _last_category(table: pd.DataFrame, feature: str, longest: tuple):
    """The present category not in the longest prefix: the last of the order."""
    multiway = table[(table["feature"] == feature) & (table["split"] == "multiway")]
    if multiway.empty:
        return "(rest)"
    values, counts = multiway["categories"].iloc[0], multiway["branch_counts"].iloc[0]
    rest = [v for v, c in zip(values, counts, strict=True) if sum(c) > 0 and v not in set(longest)]
    return rest[0] if rest else "(rest)"


def category_order_figure(order: pd.DataFrame, feature: str, class_name: str,
                          best_prefix: int | None, style: Style = Style()) -> go.Figure:
    """Bars: share of ``class_name`` per category, sorted; the best cut is a dashed line."""
    fig = go.Figure(go.Bar(x=plain_all(order["category"]), y=order["share"],
                           marker_color=style.color(1),
                           text=[f"n={c:g}" for c in order["count"]], textposition="outside"))
    if best_prefix is not None and 0 < best_prefix < len(order):
        fig.add_vline(x=best_prefix - 0.5, line_dash="dash", line_color=style.text_color,
                      annotation_text="best cut")
    feature = plain(feature)
    fig.update_layout(xaxis_title=f"{feature} (sorted by share)",
                      yaxis_title=f"share of {plain(class_name)}")
    fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0, 1.15], tickformat=".0%")
    return style.apply(fig, title=f"Optimal binary split on {feature}: categories in order")


def impurity_curves(p_marked: float | None = None, *, scaled_entropy: bool = True) -> pd.DataFrame:
    """Gini, entropy and misclassification of a two-class node against p = share of class 1."""
    p = np.linspace(0.0, 1.0, 201)
    counts = np.stack([1 - p, p], axis=1)
    h = entropy(counts) / (2.0 if scaled_entropy else 1.0)
    return pd.DataFrame({"p": p, "gini": gini(counts), "entropy": h,
                         "misclassification": misclassification(counts)})


def impurity_figure(curves: pd.DataFrame, p_root: float | None, *, scaled_entropy: bool = True,
                    style: Style = Style()) -> go.Figure:
    """The three impurity functions (Hastie et al. 2009, Fig. 9.3) with the root's p marked."""
    fig = go.Figure()
    labels = {"gini": "Gini 2p(1−p)",
              "entropy": "entropy ÷ 2 (through (½, ½))" if scaled_entropy else "entropy (bits)",
              "misclassification": "misclassification 1 − max(p, 1−p)"}
    for position, column in enumerate(labels):
        fig.add_scatter(x=curves["p"], y=curves[column], name=labels[column], mode="lines",
                        line=dict(width=style.line_width, color=style.color(position)))
    if p_root is not None:
        fig.add_vline(x=p_root, line_dash="dash", line_color=style.text_color,
                      annotation_text=f"root: p = {p_root:.2f}")
    fig.update_layout(xaxis_title="p (share of the second class)", yaxis_title="impurity")
    return style.apply(fig, title="Impurity of a two-class node")


def importance_figure(names, importances, style: Style = Style(), top: int = 20,
                      title: str = "Feature importances") -> go.Figure:
    """Horizontal bars of the largest feature importances, largest on top."""
    order = np.argsort(importances)[::-1][:top][::-1]
    fig = go.Figure(go.Bar(x=np.asarray(importances)[order], y=[plain(names[i]) for i in order],
                           orientation="h", marker_color=style.color(0)))
    fig.update_layout(xaxis_title="importance (share of impurity decrease)",
                      height=max(260, 60 + (style.font_size + 12) * len(order)))
    fig.update_yaxes(type="category")
    return style.apply(fig, title=title)


def confusion_figure(matrix: np.ndarray, class_names, style: Style = Style(),
                     rows: str = "test rows") -> go.Figure:
    """Heatmap of a confusion matrix: rows true class, columns predicted, counts written in;
    ``rows`` names the rows counted (the test rows, or every row when all are fitted)."""
    labels = plain_all(class_names)
    fig = go.Figure(go.Heatmap(z=matrix, x=labels, y=labels, colorscale="Blues", showscale=False,
                               text=matrix, texttemplate="%{text}",
                               textfont=dict(size=style.font_size + 2),
                               hovertemplate="true %{y}<br>predicted %{x}<br>%{z} rows"
                                             "<extra></extra>"))
    fig.update_layout(xaxis_title="predicted class", yaxis_title="true class",
                      height=max(300, 120 + 50 * len(labels)))
    fig.update_xaxes(type="category", side="bottom")
    fig.update_yaxes(type="category", autorange="reversed")
    style.apply(fig, title=f"Confusion matrix ({rows})")
    return style.reserve_margins(fig, y_labels=labels)


def depth_curve(model, X_train, y_train, X_test, y_test) -> pd.DataFrame:
    """Training and test error of the fitted tree cut at every depth.

    Cutting a level-wise grown tree at depth d gives the tree ``max_depth=d`` would
    grow, so one fit serves every depth. Error is the misclassification rate for a
    classifier, the mean squared error for a regressor.

    A row's leaf in the tree cut at depth d is its node at depth d on its path (its leaf
    if that is shallower), and a cut keeps every node's value: so each row walks down
    once, and the cuts, deepest first, move each row up to its parent where it is
    deeper than the cut (one step a depth, not one walk of every row a depth).
    """
    tree = model.tree_
    truths = [target_codes(model, y, unseen_as_error=True) for y in (y_train, y_test)]
    nodes = [tree.apply(model.encoder_.transform(X)) for X in (X_train, X_test)]
    leaf = tree.children_left < 0
    rows = []
    for depth in range(tree.max_depth, -1, -1):
        for at in nodes:
            deeper = np.flatnonzero(tree.depth[at] > depth)
            at[deeper] = tree.parent[at[deeper]]
        train, test = (_error(model, tree.value[at], truth)
                       for at, truth in zip(nodes, truths, strict=True))
        n_leaves = int(np.count_nonzero((tree.depth == depth) | leaf & (tree.depth < depth)))
        rows.append({"depth": depth, "n_leaves": n_leaves, "train": train, "test": test})
    return pd.DataFrame(rows[::-1])


def _error(model, value: np.ndarray, truth: np.ndarray) -> float:
    """Misclassification rate or mean squared error of the leaf values ``value`` against
    ``truth`` (:func:`engine.inspection.target_codes`)."""
    if not len(truth):
        return float("nan")
    if getattr(model, "_estimator_type", None) == "classifier":
        return float(np.mean(model.class_index(value) != truth))
    return float(np.mean((truth - value[:, 0]) ** 2))


def depth_curve_figure(curve: pd.DataFrame, *, x: str = "depth", error_name: str = "error",
                       current: int | None = None, style: Style = Style()) -> go.Figure:
    """Training and test error against depth (or number of leaves)."""
    fig = go.Figure()
    for position, split in enumerate(("train", "test")):
        fig.add_scatter(x=curve[x], y=curve[split], name=f"{split}ing error" if split == "train"
                        else "test error", mode="lines+markers",
                        line=dict(width=style.line_width, color=style.color(position)),
                        marker=dict(size=style.marker_size))
    if current is not None:
        fig.add_vline(x=current, line_dash="dot", line_color=style.text_color,
                      annotation_text="this tree")
    fig.update_layout(xaxis_title="depth" if x == "depth" else "number of leaves",
                      yaxis_title=error_name)
    return style.apply(fig, title=f"Error against {'depth' if x == 'depth' else 'tree size'}")


def ccp_figure(table: pd.DataFrame, best_alpha: float, *, error_name: str = "error",
               style: Style = Style()) -> go.Figure:
    """Cross-validated error of every subtree of the pruning path against its size.

    ``table`` is the second result of ``choose_ccp_alpha_cv``; the chosen subtree is
    marked with a star (Breiman et al. 1984: the tree chosen by cross-validation).
    """
    fig = go.Figure(go.Scatter(
        x=table["n_leaves"], y=table["cv_error"], mode="lines+markers", name="CV error",
        error_y=dict(type="data", array=table["cv_error_std"], visible=True),
        line=dict(width=style.line_width, color=style.color(0)),
        marker=dict(size=style.marker_size), customdata=table["alpha"],
        hovertemplate="leaves %{x}<br>CV error %{y:.4f}<br>α = %{customdata:.5f}<extra></extra>"))
    best = table.loc[np.isclose(table["alpha"], best_alpha)].iloc[0]
    fig.add_scatter(x=[best["n_leaves"]], y=[best["cv_error"]], mode="markers",
                    name=f"chosen: α = {best_alpha:.4g}, {int(best['n_leaves'])} leaves",
                    marker=dict(symbol="star", size=style.marker_size * 2.2, color=style.color(5)))
    fig.update_layout(xaxis_title="number of leaves (subtrees of the pruning path)",
                      yaxis_title=f"cross-validated {error_name}")
    fig.update_xaxes(type="log")
    return style.apply(fig, title="Cost-complexity pruning: cross-validated error")


def decision_grid(model, X: pd.DataFrame, resolution: int = 150, stages: bool = False) -> dict:
    """Predictions of a tree fitted on the two columns of ``X`` over a grid of their range.

    Returns ``x``, ``y`` (grid coordinates, shape (resolution,)), and ``z`` (shape
    (resolution, resolution)): class index for a classifier, prediction for a regressor.
    With ``stages``, a classifier forest's grid also keeps ``stages``, the class of the
    forest of its first b trees at every point (``grid_stage_classes``), from which
    :func:`first_trees_grid` draws that forest's grid.
    """
    xs, ys = (grid_axis(X.iloc[:, j], resolution) for j in (0, 1))
    found = getattr(model, "grid_stage_classes", None) if stages else None
    if found is not None and (classes := found(xs, ys)) is not None:
        return _grid(xs, ys, classes[-1], classes)
    out = grid_output(model, X.columns, xs, ys)
    z = model.class_index(out) if getattr(model, "_estimator_type", None) == "classifier" else out
    return _grid(xs, ys, z)


def first_trees_grid(grid: dict, n_trees: int) -> dict | None:
    """The grid of the forest of the first ``n_trees`` trees of the forest whose
    :func:`decision_grid` with ``stages`` is ``grid``; None when it has no stages or
    fewer trees."""
    stages = grid.get("stages")
    if stages is None or not 0 < n_trees <= len(stages):
        return None
    return _grid(grid["x"], grid["y"], stages[n_trees - 1], stages[:n_trees])


def _grid(xs, ys, z, stages=None) -> dict:
    grid = {"x": xs, "y": ys, "z": np.reshape(z, (len(ys), len(xs))).astype(float)}
    return grid if stages is None else {**grid, "stages": stages}


def boundary_figure(grid: dict, train: pd.DataFrame, y_train, test: pd.DataFrame | None, y_test,
                    class_names, style: Style = Style(), *,
                    title: str = "Decision regions of a tree on two features") -> go.Figure:
    """Axis-parallel regions of a two-feature tree, training points filled, test hollow
    (``test`` None: no test rows to draw, as when every row is fitted)."""
    fig = go.Figure()
    hover = true_values_hover(train.columns)
    if test is None:
        test, y_test = train.iloc[:0], np.asarray(y_train)[:0]
    (train, real_train), (test, real_test) = ((spread(f), f.to_numpy()) for f in (train, test))
    parts = [("train", train, y_train, False)] + ([("test", test, y_test, True)] if len(test) else [])
    add_points = point_adder(fig, len(train) + len(test))
    if class_names is not None:
        k = len(class_names)
        scale = [[q / k + e / k, style.color(q)] for q in range(k) for e in (0.0, 1.0)]
        fig.add_heatmap(x=grid["x"], y=grid["y"], z=grid["z"] + 0.5, zmin=0, zmax=k,
                        colorscale=_stepped(scale), opacity=0.3, showscale=False, hoverinfo="skip")
        for q, name in enumerate(class_names):
            for part, frame, labels, hollow in parts:
                mask = np.asarray(labels).astype(str) == str(name)
                real = real_train if frame is train else real_test
                add_points(x=frame.iloc[mask, 0], y=frame.iloc[mask, 1], mode="markers",
                           name=f"{plain(name)} ({part})", marker=_marker(style, q, hollow),
                           customdata=real[mask], hovertemplate=hover)
    else:
        fig.add_heatmap(x=grid["x"], y=grid["y"], z=grid["z"], colorscale="Viridis",
                        opacity=0.6, colorbar=dict(title="prediction"))
        for part, frame, _, hollow in parts:
            real = real_train if frame is train else real_test
            add_points(x=frame.iloc[:, 0], y=frame.iloc[:, 1], mode="markers", name=part,
                       marker=_marker(style, 0, hollow), customdata=real, hovertemplate=hover)
    fig.update_layout(xaxis_title=plain(train.columns[0]), yaxis_title=plain(train.columns[1]),
                      height=560)
    grid_ranges(fig, grid["x"], grid["y"])
    style.apply(fig, title=title)
    shown = [t.name for t in fig.data if t.type != "heatmap"] if class_names is not None else []
    return style.reserve_margins(fig, y_range=(grid["y"][0], grid["y"][-1]), legend_names=shown)


def _stepped(scale: list) -> list:
    """Plotly colorscale with hard steps (z = class index + 0.5 maps into its band)."""
    return [[min(max(v, 0.0), 1.0), c] for v, c in scale]


def _marker(style: Style, q: int, hollow: bool) -> dict:
    color = style.color(q)
    if hollow:
        return dict(size=style.marker_size, color="rgba(0,0,0,0)",
                    line=dict(color=color, width=max(1.5, style.line_width * 0.8)))
    # a little transparent: where classes overlap, the one drawn last does not hide the rest
    return dict(size=style.marker_size, color=color, opacity=0.75,
                line=dict(color="white", width=0.5))
