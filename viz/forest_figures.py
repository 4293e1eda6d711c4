"""Figures of the Random Forest page: OOB curves, the effect of m, importances, votes.

Compute-then-draw: ``*_curve`` / ``*_table`` functions turn fitted forests into small
DataFrames; ``*_figure`` functions only draw them. Notation: B trees :math:`\\hat f_b`,
m of the p features tried at each split, pairwise tree correlation ρ and tree variance σ²,
so that the average of B trees has variance ρσ² + (1−ρ)σ²/B (Hastie et al. 2009,
eq. 15.1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.inspection import StagedErrors, staged_errors

from ._text import plain_all
from .style import Style

DEFAULT_STYLE = Style()  # frozen, so one shared default is safe
OOB_SHARE = float(np.exp(-1.0))  # P(a row is not drawn in n draws from n) → e^{-1}
OOB_COLOR = "#e4e4e4"  # out-of-bag cells: visible on white, quieter than any count


# --------------------------------------------------------------------------- error curves


def error_name(classifier: bool) -> str:
    """What the curves measure: misclassification, or 1 − R² for a regression forest."""
    return "misclassification rate" if classifier else "1 − R² (share of variance left)"


def error_curve(forest, X_test, y_test, staged: StagedErrors | None = None) -> pd.DataFrame:
    """OOB and test error of the first b = 1..B trees, one row per b.

    Columns ``n_trees``, ``oob`` (NaN without bootstrap) and ``test``. Classifiers give
    the misclassification rate, regressors 1 − R² (for the test rows, the mean squared
    error divided by the variance of ``y_test``), so both curves share one axis.
    Both come from one pass over the trees' stacked outputs (running sums), not B
    predictions. ``X_test`` None leaves the test column NaN (a forest still growing
    shows its OOB curve, which its fit has computed already). ``staged``: that pass on
    ``X_test``, if the caller has made it already.
    """
    if X_test is None:
        oob = np.asarray(getattr(forest, "oob_error_curve_", []), dtype=float)
        return pd.DataFrame({"n_trees": np.arange(1, len(oob) + 1), "oob": oob,
                             "test": np.full(len(oob), np.nan)})
    test = (staged or staged_errors(forest, X_test, y_test)).errors
    if getattr(forest, "_estimator_type", None) != "classifier":
        spread = float(np.var(np.asarray(y_test, dtype=float)))
        test = test / spread if spread > 0 else np.full_like(test, np.nan)
    oob = getattr(forest, "oob_error_curve_", None)
    oob = np.full(len(test), np.nan) if oob is None else np.asarray(oob, dtype=float)
    return pd.DataFrame({"n_trees": np.arange(1, len(test) + 1), "oob": oob, "test": test})


def oob_curve_figure(curves: dict[str, pd.DataFrame], *, error_label: str,
                     style: Style = DEFAULT_STYLE, growing: int | None = None) -> go.Figure:
    """OOB error (solid) and test error (dashed) against the number of trees.

    ``curves`` maps a model's name ("random forest", "bagging") to its
    :func:`error_curve`; each model has its own colour. With ``growing`` = B the x
    axis spans 0 to B while the trees grow: empty axes say that B trees are growing,
    and the curve of the first trees is drawn on them.
    """
    fig = go.Figure()
    if growing is not None:
        fig.update_xaxes(range=[0, growing])
    if growing is not None and not curves:
        fig.update_yaxes(showticklabels=False)
        fig.add_annotation(text=f"Growing {growing} trees…", showarrow=False,
                           xref="paper", yref="paper", x=0.5, y=0.5)
    for position, (name, curve) in enumerate(curves.items()):
        for column, dash, what in (("oob", "solid", "OOB"), ("test", "dash", "test")):
            if curve[column].isna().all():
                continue
            fig.add_scatter(x=curve["n_trees"], y=curve[column], mode="lines",
                            name=f"{name}: {what} error",
                            line=dict(width=style.line_width, color=style.color(position),
                                      dash=dash))
    fig.update_layout(xaxis_title="number of trees B", yaxis_title=error_label)
    fig.update_yaxes(rangemode="tozero")
    style.apply(fig, title="Error against the number of trees")
    return style.legend_below(fig, plot_height=340)


# --------------------------------------------------------------------------- effect of m


def m_marks(p: int) -> dict[str, int]:
    """Breiman's default m: ⌊√p⌋ (classification), ⌊p/3⌋ (regression), and p (bagging)."""
    return {"√p": max(1, int(np.sqrt(p) + 1e-9)), "p/3": max(1, p // 3), "p": p}


def effect_of_m_figure(table: pd.DataFrame, p: int, current: int, *, error_label: str,
                       style: Style = DEFAULT_STYLE) -> go.Figure:
    """Left: OOB and test error against m. Right: tree correlation ρ against m.

    ``table`` has columns ``m``, ``oob``, ``test``, ``rho`` (one forest per m); the
    ticks name √p, p/3 and p, and a dashed line marks the current m.
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("Error against m", "Tree correlation ρ against m"))
    for position, (column, label) in enumerate((("oob", "OOB error"), ("test", "test error"))):
        fig.add_scatter(x=table["m"], y=table[column], name=label, mode="lines+markers", row=1,
                        col=1, line=dict(width=style.line_width, color=style.color(position),
                                         dash="solid" if column == "oob" else "dash"),
                        marker=dict(size=style.marker_size))
    fig.add_scatter(x=table["m"], y=table["rho"], name="ρ (mean pairwise)", mode="lines+markers",
                    row=1, col=2, line=dict(width=style.line_width, color=style.color(2)),
                    marker=dict(size=style.marker_size))
    fig.add_vline(x=current, line_dash="dash", line_color=style.text_color,
                  line_width=style.line_width / 2)
    fig.update_xaxes(title_text="m, features tried per split", range=[0.5, p + 0.5],
                     tickvals=list(table["m"]), ticktext=m_tick_labels(table["m"], p))
    fig.update_yaxes(title_text=error_label, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="ρ", row=1, col=2)
    height, top = 440 + 4 * style.font_size, 2 * style.font_size + 20
    below = 5.5 * style.font_size  # two-line tick labels and the axis title
    bottom = int(below + 3 * style.font_size)  # ... and the legend under them
    style.apply(fig)
    fig.update_layout(height=height, margin=dict(t=top, b=bottom),
                      legend=dict(orientation="h", yanchor="top", x=0,
                                  y=-below / (height - top - bottom)))
    fig.update_annotations(font_size=style.font_size)
    return fig


def m_tick_labels(ms, p: int) -> list[str]:
    """Tick text of each m: the number, and under it which default it is (√p, p/3, p)."""
    names: dict[int, list[str]] = {}
    for name, m in m_marks(p).items():
        names.setdefault(m, []).append(name)
    return [f"{m}<br>{' = '.join(names[m])}" if m in names else str(m) for m in ms]


def variance_latex(rho: float, sigma2: float, n_trees: int) -> str:
    """ρσ² + (1−ρ)σ²/B (Hastie et al. 2009, eq. 15.1) with the measured ρ, σ² and B plugged
    in, on three lines (formula, numbers, result) so that it fits a narrow projected screen."""
    total = rho * sigma2 + (1.0 - rho) * sigma2 / n_trees
    return (r"\begin{aligned} & \rho\sigma^2 + \frac{1-\rho}{B}\sigma^2 \\ "
            rf"&= {rho:.3f} \times {sigma2:.4g} + \frac{{1 - {rho:.3f}}}{{{n_trees}}}"
            rf" \times {sigma2:.4g} \\ &= {total:.4g} \end{{aligned}}")


# --------------------------------------------------------------------------- importance


def impurity_importance_table(forest) -> pd.DataFrame:
    """Impurity importance per feature: ``importance_mean`` is the forest's
    ``feature_importances_``; ``importance_std`` the spread of the trees' own
    (normalised) importances around their mean. Single-leaf trees are left out, as in
    the forest's mean."""
    per_tree = np.array([t.feature_importances_ for t in forest.estimators_
                         if t.feature_importances_.any()])
    std = per_tree.std(axis=0) if len(per_tree) else np.zeros(forest.n_features_in_)
    return pd.DataFrame({"feature": [str(n) for n in forest.feature_names_in_],
                         "importance_mean": forest.feature_importances_,
                         "importance_std": std})


def importance_bars_figure(table: pd.DataFrame, *, title: str, x_title: str,
                           highlight: str | None = None, top: int = 20,
                           style: Style = DEFAULT_STYLE) -> go.Figure:
    """Horizontal bars of the ``top`` largest importances, largest on top, ±1 std as
    error bars; the ``highlight`` feature (the noise column) in a second colour."""
    shown = table.sort_values("importance_mean", ascending=False, kind="stable").head(top)
    shown = shown.iloc[::-1]
    colors = [style.color(5) if f == highlight else style.color(0) for f in shown["feature"]]
    fig = go.Figure(go.Bar(
        x=shown["importance_mean"], y=plain_all(shown["feature"]), orientation="h",
        marker_color=colors,
        error_x=dict(type="data", array=shown["importance_std"], visible=True,
                     color=style.text_color, thickness=max(1.0, style.line_width / 2)),
        hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    fig.update_layout(xaxis_title=x_title,
                      height=max(280, 90 + (style.font_size + 12) * len(shown)))
    fig.update_yaxes(type="category")
    return style.apply(fig, title=title)


# --------------------------------------------------------------------------- inside the forest


def inbag_figure(inbag_counts: np.ndarray, *, n_rows: int = 40, n_trees: int = 50,
                 current: int | None = None, style: Style = DEFAULT_STYLE) -> go.Figure:
    """In-bag counts of the first ``n_rows`` training rows in the first ``n_trees`` trees.

    A cell is how many times row i was drawn into tree b's bootstrap sample; 0 (light
    grey) means out of bag. ``current`` (1-based tree number) is outlined.
    """
    counts = np.asarray(inbag_counts)[:n_trees, :n_rows].T.astype(int)
    top = max(3, int(counts.max())) if counts.size else 3
    fig = go.Figure(go.Heatmap(
        z=counts, x=np.arange(1, counts.shape[1] + 1), y=np.arange(counts.shape[0]),
        zmin=0, zmax=top, colorscale=[[0.0, OOB_COLOR], [0.5 / top, OOB_COLOR],
                                      [0.5 / top, "#d6e6f2"], [1.0, style.color(0)]],
        xgap=1, ygap=1, colorbar=dict(title="in-bag count", thickness=14, dtick=1),
        hovertemplate="tree %{x}, row %{y}: drawn %{z}×<extra></extra>"))
    if current is not None and current <= counts.shape[1]:
        fig.add_shape(type="rect", x0=current - 0.5, x1=current + 0.5, y0=-0.5,
                      y1=counts.shape[0] - 0.5, line=dict(color=style.text_color,
                                                           width=style.line_width))
    fig.update_layout(xaxis_title="tree b", yaxis_title="training row",
                      height=max(300, 120 + 10 * counts.shape[0]))
    fig.update_yaxes(autorange="reversed")
    return style.apply(fig, title="Who is in each bootstrap sample (grey: out of bag)")


def vote_table(forest, x_row) -> pd.DataFrame:
    """The trees' outputs for one row.

    Classifier: one row per class with ``votes`` (trees whose leaf's majority is the
    class) and ``mean_proba`` (π, the forest's probability). Regressor: one
    row per tree with ``prediction``.
    """
    outputs = forest.member_outputs(x_row)[:, 0]
    if outputs.ndim == 1:
        return pd.DataFrame({"tree": np.arange(1, len(outputs) + 1), "prediction": outputs})
    votes = np.bincount(np.argmax(outputs, axis=1), minlength=outputs.shape[1])
    return pd.DataFrame({"class": [str(c) for c in forest.classes_], "votes": votes,
                         "mean_proba": outputs.mean(axis=0)})


def vote_figure(votes: pd.DataFrame, *, style: Style = DEFAULT_STYLE) -> go.Figure:
    """Bars: how many trees vote for each class; the text gives the forest's π."""
    fig = go.Figure(go.Bar(
        x=plain_all(votes["class"]), y=votes["votes"],
        marker_color=[style.color(q) for q in range(len(votes))],
        text=[f"π = {p:.2f}" for p in votes["mean_proba"]], textposition="outside",
        textfont=dict(size=style.font_size)))
    fig.update_layout(xaxis_title="class", yaxis_title="trees voting for it", height=400)
    fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0, 1.18 * max(1, int(votes["votes"].max()))])
    return style.apply(fig, title="Votes of the trees for this row")


def tree_predictions_figure(predictions: pd.DataFrame, truth: float | None = None, *,
                            style: Style = DEFAULT_STYLE) -> go.Figure:
    """Histogram of the B trees' predictions for one row, their mean (the forest's
    prediction) and the true value marked."""
    values = predictions["prediction"]
    fig = go.Figure(go.Histogram(x=values, marker_color=style.color(0), opacity=0.8,
                                 name="tree predictions", nbinsx=30))
    fig.add_vline(x=float(values.mean()), line_color=style.color(5), line_width=style.line_width,
                  annotation_text=f"forest: mean = {values.mean():.3g}",
                  annotation_position="top left")
    if truth is not None:
        fig.add_vline(x=float(truth), line_dash="dash", line_color=style.text_color,
                      line_width=style.line_width, annotation_text=f"true {truth:.3g}",
                      annotation_position="top right")
    fig.update_layout(xaxis_title="prediction of one tree", yaxis_title="trees", height=400,
                      showlegend=False)
    return style.apply(fig, title="The trees' predictions for this row")
