"""Figures and tables of the AdaBoost page (Freund & Schapire 1997).

Notation: :math:`\\hat w_t` is the weight of round t's model :math:`\\hat f_t` and
:math:`\\alpha_i` the weight of training point i. The round-by-round picture draws points
with area proportional to their weight; the error curve shows training and test error
against T, next to a single tree.

Compute-then-draw: ``staged_grid``, ``round_detail`` and the
``*_table`` functions compute arrays and DataFrames from a fitted
``engine.ensemble.AdaBoostClassifier``; the ``*_figure`` functions only draw.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.inspection import grid_axis, grid_rows
from engine.tree import plurality
from engine.tree._tree import NUMERIC

from ._points import grid_ranges, point_adder, spread
from ._text import plain
from .style import Style
from .tree_dot import TreeNames, edge_text, split_text

DEFAULT_STYLE = Style()

#: Largest marker diameter, as a multiple of ``style.marker_size`` (area 36× the mean
#: weight's); heavier points are drawn at this size so they do not hide the others.
MAX_SCALE = 6.0
#: Smallest marker diameter in pixels, so a point of tiny weight stays visible.
MIN_DIAMETER = 2.0
#: Smallest size of a misclassified point's cross, so every mistake can be seen.
MIN_CROSS = 7.0


@dataclass(frozen=True)
class StagedGrid:
    """The ensemble's predicted class on a grid after every round.

    Attributes
    ----------
    xs, ys : ndarray, shape (resolution,)
        Grid coordinates of the two features.
    class_index : ndarray of int8, shape (n_rounds, resolution, resolution)
        Index into ``classes`` of sign(Σ_{s≤t} ŵ_s f̂_s(x)) (argmax for K > 2 classes);
        row t - 1 is round t, ``[:, i, j]`` is the point (xs[j], ys[i]).
    feature_names : tuple of str
    classes : ndarray, shape (n_classes,)
    """

    xs: np.ndarray
    ys: np.ndarray
    class_index: np.ndarray
    feature_names: tuple[str, str]
    classes: np.ndarray


def staged_grid(model, X2: pd.DataFrame, resolution: int = 120,
                margin: float = 0.05) -> StagedGrid:
    """Every round's boundary on a grid, in one pass of ``staged_decision_function``.

    Parameters
    ----------
    model : AdaBoostClassifier fitted on exactly the two columns of ``X2``
    X2 : DataFrame, shape (n_samples, 2)
        The rows whose range the grid spans (widened by ``margin`` × range per side).
    resolution : int, default=120

    Notes
    -----
    The staged vote is a running sum, so all T grids cost one prediction of each
    learner on the grid: stepping through rounds then only slices ``class_index``.
    """
    if list(model.feature_names_in_) != [str(c) for c in X2.columns]:
        raise ValueError("staged_grid needs a model fitted on exactly the columns of X2.")
    xs, ys = (grid_axis(X2.iloc[:, j], resolution, margin) for j in (0, 1))
    shape, points = grid_rows(X2.columns, xs, ys)
    stages = [_class_index(score).reshape(shape)
              for score in model.staged_decision_function(points)]
    return StagedGrid(xs, ys, np.array(stages, dtype=np.int8),
                      (str(X2.columns[0]), str(X2.columns[1])), model.classes_)


def _class_index(score: np.ndarray) -> np.ndarray:
    """The predicted class index from a vote: its sign for two classes, else its argmax."""
    return (score > 0).astype(np.int8) if score.ndim == 1 else np.argmax(score, axis=1)


@dataclass(frozen=True)
class RoundDetail:
    """One round of AdaBoost, with the numbers plugged in.

    Attributes
    ----------
    t : int
        The round, 1-based.
    error : float
        ε_t, the weighted error of f̂_t under ``before``.
    weight : float
        ŵ_t = ½ ln((1 − ε_t)/ε_t), times the learning rate (plus ½ ln(K − 1) for K > 2 classes).
    before, after : ndarray, shape (n_samples,)
        α_i that f̂_t was fitted with, and α_i after the update and normalisation.
    miss : ndarray of bool, shape (n_samples,)
    normaliser : float
        Z_t = Σ_i α_i e^{±ŵ_t}, the sum the update divides by.
    """

    t: int
    error: float
    weight: float
    before: np.ndarray
    after: np.ndarray
    miss: np.ndarray
    normaliser: float

    @property
    def factors(self) -> np.ndarray:
        """e^{ŵ_t} for a misclassified point, e^{−ŵ_t} for a correct one."""
        return np.where(self.miss, np.exp(self.weight), np.exp(-self.weight))


def round_detail(model, t: int) -> RoundDetail:
    """Round ``t`` (1-based) of an AdaBoost fitted here: its weights before the update
    (``staged_sample_weights``) and the rows its learner got wrong (``training_misses_``).

    Notes
    -----
    The update: :math:`\\alpha_i \\leftarrow \\alpha_i e^{\\pm\\hat w_t}`, then
    :math:`\\alpha_i \\leftarrow \\alpha_i / Z_t` with :math:`Z_t = \\sum_j \\alpha_j e^{\\pm\\hat w_t}`;
    the result is the next round's ``staged_sample_weights`` row.
    """
    before = next(islice(model.staged_sample_weights(), t - 1, None))
    miss = model.training_misses_[t - 1]
    weight = float(model.estimator_weights_[t - 1])
    scaled = before * np.where(miss, np.exp(weight), np.exp(-weight))
    normaliser = float(scaled.sum())
    return RoundDetail(t, float(model.estimator_errors_[t - 1]), weight, before,
                       scaled / normaliser, miss, normaliser)


def heaviest_table(detail: RoundDetail, labels, row_names, k: int = 8) -> pd.DataFrame:
    """The ``k`` points heaviest after round t's update: α_i before, the factor, α_i after.

    Parameters
    ----------
    labels : array, shape (n_samples,)
        True class of every training row.
    row_names : array, shape (n_samples,)
        How a row is named (the training frame's index).
    """
    order = np.argsort(-detail.after, kind="stable")[:k]
    return pd.DataFrame({
        "row": np.asarray(row_names)[order],
        "class": [str(c) for c in np.asarray(labels)[order]],
        "f̂_t wrong": detail.miss[order],
        "α_i before": detail.before[order],
        "× e^(±ŵ_t)": detail.factors[order],
        "α_i after (÷ Z_t)": detail.after[order],
    })


def marker_diameters(alpha: np.ndarray, base: float) -> np.ndarray:
    """Marker diameters whose AREA is proportional to α_i; the mean weight gets ``base``.

    ``base`` · sqrt(α_i / mean α), clipped to [``MIN_DIAMETER``, ``MAX_SCALE`` · base].
    """
    alpha = np.asarray(alpha, dtype=float)
    mean = alpha.mean() if len(alpha) and alpha.mean() > 0 else 1.0
    return np.clip(base * np.sqrt(alpha / mean), MIN_DIAMETER, MAX_SCALE * base)


def learner_sides(learner, class_names=None, note_missing: bool = True) -> list[tuple[str, str]]:
    """(edge text, class predicted on that side) for each branch of the learner's root.

    For a stump these are its two leaves; for a deeper tree the majority (by weight) of
    each subtree's training points. A learner that made no split gives one ("all", class).
    ``note_missing``: say which side missing values go to.
    """
    tree, names = learner.tree_, TreeNames(learner, class_names=class_names)
    classes = names.classes or [str(c) for c in learner.classes_]
    if tree.children_left[0] < 0:
        return [("all rows", classes[plurality(tree.value[[0]])[0]])]
    children = np.unique(np.concatenate([[tree.children_left[0], tree.children_right[0]],
                                         tree.children_by_code(0)[tree.children_by_code(0) >= 0]]))
    children = [c for c in children if c >= 0]
    return [(edge_text(tree, 0, c, names, note_missing), classes[plurality(tree.value[[c]])[0]]) for c in children]


def learner_rule(learner) -> str:
    """The root question of a learner, e.g. ``x1 ≤ 0.239`` (plain text)."""
    tree = learner.tree_
    if tree.children_left[0] < 0:
        return "(no split: one leaf)"
    return split_text(tree, 0, TreeNames(learner))


def stump_table(model, note_missing: bool = True) -> pd.DataFrame:
    """Every round's learner as text: feature, rule, what each side predicts, ε_t, ŵ_t.

    Columns ``t``, ``feature``, ``rule``, ``predicts`` (edge → class for each side of the
    root), ``ε_t``, ``ŵ_t``, ``leaves``; one row per round.
    """
    rows = []
    for t, learner in enumerate(model.estimators_, start=1):
        tree = learner.tree_
        split = tree.children_left[0] >= 0
        rows.append({
            "t": t,
            "feature": str(learner.feature_names_in_[tree.feature[0]]) if split else "",
            "rule": learner_rule(learner),
            "predicts": " · ".join(f"{side} → {c}" for side, c in learner_sides(learner, note_missing=note_missing)),
            "ε_t": float(model.estimator_errors_[t - 1]),
            "ŵ_t": float(model.estimator_weights_[t - 1]),
            "leaves": int(tree.n_leaves),
        })
    return pd.DataFrame(rows)


def stump_line(learner, pair: tuple[str, str]) -> tuple[str, float] | None:
    """('x' or 'y', threshold) when the learner's root splits a drawn feature numerically."""
    tree = learner.tree_
    if tree.children_left[0] < 0 or int(tree.split_kind[0]) != NUMERIC:
        return None
    name, threshold = str(learner.feature_names_in_[tree.feature[0]]), float(tree.threshold[0])
    if name not in pair or not np.isfinite(threshold):
        return None
    return ("x" if name == pair[0] else "y", threshold)


def _stepped_scale(k: int, style: Style) -> list:
    """A plotly colorscale with one flat band per class (z = index + 0.5 lands in its band)."""
    return [[min(max(q / k + e / k, 0.0), 1.0), style.color(q)] for q in range(k) for e in (0, 1)]


def round_figure(grid: StagedGrid, t: int, X2: pd.DataFrame, y, detail: RoundDetail,
                 line: tuple[str, float] | None = None, style: Style = DEFAULT_STYLE,
                 rows: np.ndarray | None = None) -> go.Figure:
    """Round ``t`` as a picture: the boundary after t rounds, points sized by α_i.

    Parameters
    ----------
    grid : StagedGrid of the two-feature model (its row t - 1 is the shaded background).
    X2 : DataFrame, shape (n_samples, 2)
        The training rows on the two drawn features (rows with a missing value are left out).
    y : array, shape (n_samples,)
    detail : RoundDetail
        Its ``before`` sets the marker areas; its ``miss`` draws a point as a cross
        (in its class colour, at least ``MIN_CROSS`` px) instead of a circle.
    line : ('x' | 'y', threshold) or None
        Round t's split, drawn as a dashed line.
    rows : int array or None
        Positions of the rows drawn (a sample of a large table); None draws every row.
        Marker areas stay relative to the mean weight of every row.
    """
    k = len(grid.classes)
    fig = go.Figure(go.Heatmap(x=grid.xs, y=grid.ys, z=grid.class_index[t - 1] + 0.5, zmin=0,
                               zmax=k, colorscale=_stepped_scale(k, style), opacity=0.25,
                               showscale=False, hoverinfo="skip"))
    sizes = marker_diameters(detail.before, style.marker_size)
    before, miss = detail.before, detail.miss
    if rows is not None:
        X2, y, sizes, before, miss = X2.iloc[rows], np.asarray(y)[rows], sizes[rows], before[rows], miss[rows]
    labels = np.asarray(y).astype(str)
    drawn = X2.notna().all(axis=1).to_numpy()
    X2 = spread(X2)
    add = point_adder(fig, int(drawn.sum()), stepped=True)
    for q, name in enumerate(grid.classes):
        for wrong in (False, True):  # scalar symbols per trace: per-point strings are slow
            mask = drawn & (labels == str(name)) & (miss == wrong)
            add(x=X2.iloc[mask, 0], y=X2.iloc[mask, 1], mode="markers",
                name=f"{plain(name)} ({'wrong' if wrong else 'right'})",
                marker=dict(size=np.maximum(sizes[mask], MIN_CROSS) if wrong else sizes[mask],
                            symbol="x" if wrong else "circle", color=style.color(q), opacity=0.85,
                            line=dict(color="black" if wrong else "white",
                                      width=1.0 if wrong else 0.5)),
                customdata=before[mask], showlegend=False, legendgroup=plain(name),
                hovertemplate="α_i = %{customdata:.4g}<extra>" + plain(name) + "</extra>")
    for q, name in enumerate(grid.classes):  # legend entries: a plain circle per class
        fig.add_scatter(x=[None], y=[None], mode="markers", name=plain(name),
                        legendgroup=plain(name), marker=dict(size=style.marker_size,
                                                           color=style.color(q)))
    # a legend entry only: the crosses themselves keep their class colour and area
    fig.add_scatter(x=[None], y=[None], mode="markers", name=f"misclassified by f̂_{t}",
                    marker=dict(symbol="x", size=style.marker_size, color="#8a909c",
                                line=dict(color="black", width=1.0)))
    if line is not None:
        _add_split_line(fig, line, style)
    fig.update_layout(xaxis_title=plain(grid.feature_names[0]),
                      yaxis_title=plain(grid.feature_names[1]))
    grid_ranges(fig, grid.xs, grid.ys)
    style.apply(fig, title=f"Round {t}: area ∝ α_i")
    return style.legend_below(fig, plot_height=400)


def _add_split_line(fig: go.Figure, line: tuple[str, float], style: Style) -> None:
    axis, threshold = line
    options = dict(line_dash="dash", line_color=style.text_color, line_width=style.line_width,
                   annotation_text=f"f̂_t splits at {threshold:.4g}",
                   annotation_font_size=style.font_size)
    if axis == "x":
        fig.add_vline(x=threshold, annotation_position="top right", **options)
    else:
        fig.add_hline(y=threshold, annotation_position="top left", **options)


def error_curve_figure(train: np.ndarray, test: np.ndarray, references: dict[str, float],
                       current: int | None = None, style: Style = DEFAULT_STYLE) -> go.Figure:
    """Training and test error against T, single trees as flat lines.

    Parameters
    ----------
    train, test : ndarray, shape (n_rounds,)
        Misclassification rate after 1..n_rounds rounds.
    references : dict name → test error of a single tree (drawn as dashed lines).
    current : the round marked by a dotted vertical line, or None.
    """
    rounds = np.arange(1, len(train) + 1)
    fig = go.Figure()
    for position, (name, values) in enumerate((("training error", train), ("test error", test))):
        fig.add_scatter(x=rounds, y=values, name=name, mode="lines",
                        line=dict(width=style.line_width, color=style.color(position)))
    span = [1, max(len(train), 2)]
    for position, (name, error) in enumerate(references.items(), start=2):
        fig.add_scatter(x=span, y=[error, error], mode="lines", name=f"{name}: {error:.1%}",
                        line=dict(width=style.line_width * 0.8, dash="dash",
                                  color=style.color(position)))
    if current is not None:
        fig.add_vline(x=current, line_dash="dot", line_color=style.text_color)
    fig.update_layout(xaxis_title="number of rounds T", yaxis_title="misclassification rate")
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    style.apply(fig, title="Training and test error against the number of rounds")
    return style.legend_below(fig, plot_height=320)


def weight_curve_figure(model, style: Style = DEFAULT_STYLE) -> go.Figure:
    """ε_t and ŵ_t of every round: the learners grow weaker as the points grow harder."""
    rounds = np.arange(1, len(model.estimator_errors_) + 1)
    fig = go.Figure()
    fig.add_scatter(x=rounds, y=model.estimator_errors_, name="ε_t (weighted error)",
                    mode="lines+markers", line=dict(width=style.line_width, color=style.color(0)),
                    marker=dict(size=style.marker_size * 0.6))
    fig.add_scatter(x=rounds, y=model.estimator_weights_, name="ŵ_t (model weight)",
                    mode="lines+markers",
                    line=dict(width=style.line_width, color=style.color(1)),
                    marker=dict(size=style.marker_size * 0.6))
    fig.update_layout(xaxis_title="round t", yaxis_title="ε_t and ŵ_t")
    fig.update_yaxes(rangemode="tozero")
    style.apply(fig, title="Each round's weighted error and model weight")
    return style.legend_below(fig, plot_height=240)
