"""Figures of the gradient-boosting page: the strong model round by round, shrinkage,
importances and the boundary after round t.

Compute-then-draw: ``one_feature_stages``, ``loss_curves``, ``staged_errors`` and
``staged_grids`` compute every round once (the page caches them); the ``*_figure``
functions only draw one round of what they computed.

Notation (after Friedman 2001): the strong model :math:`S_t` after t trees is updated by
:math:`S_{t+1} = S_t - ν w_t`, with :math:`w_t` fitted to the gradient
:math:`\\partial L(y, S_t) / \\partial S_t`. The engine fits the tree :math:`f_{t+1}` to the
negative gradient (the pseudo-residuals) and adds it: :math:`S_{t+1} = S_t + ν f_{t+1}`,
the same update with :math:`f_{t+1} = -w_t`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.inspection import grid_axis, grid_rows, staged_error_curve
from engine.metrics import log_loss

from ._points import point_adder
from ._text import plain, plain_all
from .style import Style
from .tree_figures import boundary_figure

NORMAL = Style()  # the default style (frozen: safe as a default argument)


@dataclass
class OneFeatureStages:
    """Every round of a one-feature gradient-boosting regressor, ready to draw.

    Attributes
    ----------
    x, y : ndarray, shape (n_samples,)
        The training rows drawn (feature value, target): every row, or a sample of them.
    S : ndarray, shape (n_rounds + 1, n_samples)
        :math:`S_t(x_i)` for t = 0..T (row 0 is the constant start :math:`S_0`).
    pseudo : ndarray, shape (n_rounds, n_samples)
        The pseudo-residuals :math:`-\\partial L / \\partial S_t` tree t + 1 was fitted to.
    edges : ndarray, shape (n_segments + 1,)
        The x range cut at every threshold any tree uses: on each segment every
        :math:`S_t` is constant.
    S_grid : ndarray, shape (n_rounds + 1, n_segments)
        :math:`S_t` on each segment.
    feature, target : str
        Axis names.
    learning_rate : float
    squared : bool
        True for the squared-error loss (pseudo-residuals equal the residuals).
    probability : bool
        True for a classifier of a 0/1 target with the log loss: :math:`S_t` is a
        log-odds, the picture draws :math:`p_t = \\sigma(S_t)`, and the pseudo-residuals
        :math:`y - p_t` are the residuals in probability.
    losses : ndarray, shape (n_rounds + 1,)
        The loss the model minimises after t rounds, over every training row: the mean
        squared residual, or a classifier's mean log loss.
    n_rows : int
        Training rows the model was fitted on (``len(x)`` when every row is drawn).

    Examples
    --------
    >>> from engine.ensemble import GradientBoostingRegressor
    >>> X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> model = GradientBoostingRegressor(n_estimators=2, learning_rate=0.5, max_depth=1)
    >>> stages = one_feature_stages(model.fit(X, [1.0, 1.0, 5.0, 5.0]), X, [1.0, 1.0, 5.0, 5.0])
    >>> stages.edges.tolist(), stages.S_grid.tolist()  # S_0 = 3, then half of each step
    ([1.0, 2.5, 4.0], [[3.0, 3.0], [2.0, 4.0], [1.5, 4.5]])
    >>> stages.tree_step(0).tolist()  # f_1: the mean residual on each side of 2.5
    [-2.0, 2.0]
    """

    x: np.ndarray
    y: np.ndarray
    S: np.ndarray
    pseudo: np.ndarray
    edges: np.ndarray
    S_grid: np.ndarray
    feature: str
    target: str
    learning_rate: float
    squared: bool
    losses: np.ndarray
    n_rows: int
    probability: bool = False

    @property
    def n_rounds(self) -> int:
        return len(self.S) - 1

    def fitted(self, t: int, values: np.ndarray | None = None) -> np.ndarray:
        """What the picture draws of :math:`S_t` (at the rows, or at ``values`` of it):
        itself, or :math:`p_t = \\sigma(S_t)` for a classifier."""
        S = self.S[t] if values is None else values
        return 1.0 / (1.0 + np.exp(-S)) if self.probability else S

    def tree_step(self, t: int) -> np.ndarray:
        """:math:`f_{t+1}` on each segment: what round t + 1 adds, before shrinkage ν."""
        return (self.S_grid[t + 1] - self.S_grid[t]) / self.learning_rate


def _thresholds(model) -> np.ndarray:
    """Every numeric threshold of every tree of a one-feature model, sorted, unique."""
    cuts = [tree.tree_.threshold[tree.tree_.children_left >= 0]
            for tree in model.estimators_[:, 0]]
    cuts = np.concatenate(cuts) if cuts else np.zeros(0)
    return np.unique(cuts[np.isfinite(cuts)])


def _is_classifier(model) -> bool:
    return getattr(model, "_estimator_type", None) == "classifier"


def _stages(model, X: pd.DataFrame):
    """The constant start, then the model after each round, one array of n_samples at a
    time (a classifier's log-odds, a regressor's prediction)."""
    yield np.full(len(X), float(model.init_[0]))
    yield from (model.staged_decision_function(X) if _is_classifier(model) else
                model.staged_predict(X))


def _pseudo_residuals(model, X: pd.DataFrame, y: np.ndarray) -> np.ndarray:
    """(n_rounds, n_rows) what each round's tree was fitted to, at these rows (a
    classifier's ``y`` is its 0/1 class indicator)."""
    labels = y.astype(model.classes_.dtype) if _is_classifier(model) else y
    return np.array([r[:, 0] for r in model.staged_pseudo_residuals(X, labels)]).reshape(-1, len(y))


def _loss(S: np.ndarray, y: np.ndarray, probability: bool) -> float:
    """The mean squared residual of S, or the mean log loss of p = σ(S) on a 0/1 y."""
    if not probability:
        return float(np.mean((y - S) ** 2))
    p = np.clip(1.0 / (1.0 + np.exp(-S)), 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def one_feature_stages(model, X: pd.DataFrame, y, target: str = "y",
                       rows: np.ndarray | None = None) -> OneFeatureStages:
    """Compute :class:`OneFeatureStages` of a regressor fitted on the one column of ``X``.

    Parameters
    ----------
    model : GradientBoostingRegressor, or GradientBoostingClassifier of a 0/1 target,
        fitted on ``X`` (n_samples, 1), no missing values
    X : DataFrame, shape (n_samples, 1)
    y : array-like, shape (n_samples,), the target it was fitted on
    target : str, the target's name for the axis
    rows : int array or None
        Positions of the rows to keep for drawing (None: every row). The losses and the
        x range are still those of every row.
    """
    x, y = X.iloc[:, 0].to_numpy(dtype=float), np.asarray(y, dtype=float)
    rows = np.arange(len(x)) if rows is None else np.asarray(rows)
    probability = _is_classifier(model)
    cuts = _thresholds(model)
    # Every tree compares x with its thresholds only, so rows with the same thresholds at
    # or above their x get the same S_t: each such region's stages once, then a lookup.
    region = np.searchsorted(cuts, x, side="left")
    at = np.append(cuts, np.nextafter(cuts[-1], np.inf) if len(cuts) else 0.0)
    S, losses = [], []
    for stage in _stages(model, pd.DataFrame({X.columns[0]: at})):
        stage = stage[region]
        S.append(stage[rows])
        losses.append(_loss(stage, y, probability))
    low, high = float(x.min()), float(x.max())
    edges = np.concatenate([[low], cuts[(cuts > low) & (cuts < high)], [high]])
    mids = (edges[:-1] + edges[1:]) / 2 if len(edges) > 1 else edges
    grid = pd.DataFrame({X.columns[0]: mids})
    return OneFeatureStages(
        x=x[rows], y=y[rows], S=np.vstack(S), pseudo=_pseudo_residuals(model, X.iloc[rows], y[rows]),
        edges=edges, S_grid=np.vstack(list(_stages(model, grid))), feature=str(X.columns[0]),
        target=target, learning_rate=float(model.learning_rate),
        squared=model.loss == "squared_error", probability=probability,
        losses=np.array(losses), n_rows=len(x))


def _step_line(edges: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of a step function for ``line_shape="hv"``: each value holds to the next edge."""
    if len(edges) == 1:
        return np.array([edges[0], edges[0]]), np.repeat(values[:1], 2)
    return edges, np.append(values, values[-1])


def round_figure(stages: OneFeatureStages, t: int, style: Style = NORMAL) -> go.Figure:
    """Round t: the data with :math:`S_t` above, the residuals and tree :math:`f_{t+1}` below.

    At t = T (every tree is in) the lower panel shows the residuals that are left.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        row_heights=[0.55, 0.45])
    add = point_adder(fig, 2 * len(stages.x), stepped=True)
    points = dict(size=style.marker_size * 0.7, opacity=0.55, color=style.color(0))
    add(x=stages.x, y=stages.y, mode="markers", marker=points, name="training rows (x, y)",
        row=1, col=1)
    ex, ey = _step_line(stages.edges, stages.fitted(t, stages.S_grid[t]))
    drawn = f"p<sub>{t}</sub>(x) = σ(S<sub>{t}</sub>(x))" if stages.probability else \
        f"S<sub>{t}</sub>(x)"
    fig.add_scatter(x=ex, y=ey, mode="lines", line_shape="hv", name=f"{drawn}, after {t} trees",
                    line=dict(color=style.color(5), width=style.line_width * 1.5), row=1, col=1)
    residual = stages.y - stages.fitted(t)
    left = f"y − p<sub>{t}</sub>" if stages.probability else f"y − S<sub>{t}</sub>"
    add(x=stages.x, y=residual, mode="markers", marker=points, showlegend=False,
        name=f"residual {left}", row=2, col=1)
    if t < stages.n_rounds:
        _add_next_tree(fig, stages, t, style)
    fig.add_hline(y=0, line_color=style.text_color, line_width=1, row=2, col=1)
    fig.update_xaxes(title_text=plain(stages.feature), row=2, col=1)
    fig.update_yaxes(title_text=plain(stages.target), row=1, col=1)
    fig.update_yaxes(title_text=left, row=2, col=1)
    fig.update_layout(height=560 + 10 * style.font_size,
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    # No title: a wrapped legend above the plot pushes the margin, a title would collide.
    return style.apply(fig)


#: What a student may think tree t + 1 is fitted to, in the order :func:`fit_choices`
#: returns them; the first is right.
FIT_CHOICES = ("residual", "target", "prediction")


def fit_choices(stages: OneFeatureStages, t: int) -> dict[str, np.ndarray]:
    """Three things tree t + 1 could be fitted to, at the drawn rows: the pseudo-residuals
    it is fitted to, the target y itself, and the current model S_t (p_t for a classifier)."""
    return {"residual": stages.pseudo[t], "target": stages.y, "prediction": stages.fitted(t)}


def fit_choices_figure(stages: OneFeatureStages, t: int, order: Sequence[str],
                       style: Style = NORMAL) -> go.Figure:
    """The :func:`fit_choices` side by side, as plots A, B, C in ``order`` (a permutation of
    ``FIT_CHOICES``), against x; no y-axis title, which would name the answer."""
    values = fit_choices(stages, t)
    fig = make_subplots(rows=1, cols=len(order), horizontal_spacing=0.08,
                        subplot_titles=[f"Plot {chr(65 + i)}" for i in range(len(order))])
    points = dict(size=style.marker_size * 0.6, opacity=0.55, color=style.color(0))
    for i, name in enumerate(order, start=1):
        fig.add_scatter(x=stages.x, y=values[name], mode="markers", marker=points,
                        showlegend=False, hoverinfo="skip", row=1, col=i)
        fig.add_hline(y=0, line_color=style.text_color, line_width=1, row=1, col=i)
        fig.update_xaxes(title_text=plain(stages.feature), row=1, col=i)
    fig.update_layout(height=260 + 8 * style.font_size)
    return style.apply(fig)


def round_loss(stages: OneFeatureStages, t: int) -> tuple[str, float]:
    """The loss the model minimises at round t over every training row, named: the mean
    log loss of a classifier, the mean squared residual
    :math:`\\frac1n \\sum_i (y_i - S_t(x_i))^2` otherwise."""
    return ("log loss" if stages.probability else "mean squared residual"), float(stages.losses[t])


def _add_next_tree(fig: go.Figure, stages: OneFeatureStages, t: int, style: Style) -> None:
    # the tree splits on the pseudo-residuals; its leaves take the loss's step. For the
    # log loss they are the residuals y − p_t already drawn.
    if not stages.squared and not stages.probability:
        fig.add_scatter(x=stages.x, y=stages.pseudo[t], mode="markers",
                        name="pseudo-residual −∂L/∂S<sub>t</sub>", row=2, col=1,
                        marker=dict(size=style.marker_size * 0.6, symbol="x",
                                    color=style.color(3)))
    ex, ey = _step_line(stages.edges, stages.tree_step(t))
    fig.add_scatter(x=ex, y=ey, mode="lines", line_shape="hv", row=2, col=1,
                    name=f"tree f<sub>{t + 1}</sub>(x): the next step, before ν"
                    + (" (in log-odds)" if stages.probability else ""),
                    line=dict(color=style.color(2), width=style.line_width * 1.5))


def loss_curves(model, X_train, y_train, X_test, y_test) -> pd.DataFrame:
    """Training and test loss after each round 1..T (log loss or mean squared error).

    Both are measured on every row of their part (``train_score_`` holds the in-bag
    loss instead when ``subsample < 1``).

    Returns
    -------
    DataFrame with columns ``round``, ``train``, ``test``; n_rounds rows.
    """
    train, test = (_staged_loss(model, X, y) for X, y in ((X_train, y_train), (X_test, y_test)))
    return pd.DataFrame({"round": np.arange(1, len(train) + 1), "train": train, "test": test})


def _staged_loss(model, X, y) -> np.ndarray:
    if getattr(model, "_estimator_type", None) == "classifier":
        return np.array([log_loss(y, p, labels=model.classes_)
                         for p in model.staged_predict_proba(X)])
    target = np.asarray(y, dtype=float)
    return np.array([np.mean((p - target) ** 2) for p in model.staged_predict(X)])


def shrinkage_figure(curves: dict, loss_name: str, style: Style = NORMAL) -> go.Figure:
    """Training (dashed) and test (solid) loss against rounds, one colour per ν."""
    fig = go.Figure()
    for i, (nu, curve) in enumerate(curves.items()):
        for part, dash in (("train", "dash"), ("test", "solid")):
            fig.add_scatter(x=curve["round"], y=curve[part], mode="lines",
                            name=f"ν = {nu:g}, {'training' if part == 'train' else 'test'}",
                            line=dict(color=style.color(i), dash=dash, width=style.line_width))
    fig.update_layout(xaxis_title="round t (number of trees)", yaxis_title=loss_name)
    style.apply(fig, title="Shrinkage: loss against rounds for three ν")
    return style.legend_below(fig, plot_height=380)


def shrinkage_table(curves: dict) -> pd.DataFrame:
    """Per ν: the lowest test loss, the round it is reached, and the final losses."""
    rows = []
    for nu, curve in curves.items():
        best = int(np.argmin(curve["test"].to_numpy()))
        rows.append({"ν": nu, "lowest test loss": curve["test"].iloc[best],
                     "at round": int(curve["round"].iloc[best]),
                     "final training loss": curve["train"].iloc[-1],
                     "final test loss": curve["test"].iloc[-1]})
    return pd.DataFrame(rows)


def permutation_figure(table: pd.DataFrame, style: Style = NORMAL, top: int = 20) -> go.Figure:
    """Horizontal bars of permutation importance (mean drop) with ± one standard deviation."""
    order = np.argsort(table["importance_mean"].to_numpy())[::-1][:top][::-1]
    rows = table.iloc[order]
    fig = go.Figure(go.Bar(x=rows["importance_mean"], y=plain_all(rows["feature"]),
                           orientation="h", marker_color=style.color(1),
                           error_x=dict(type="data", array=rows["importance_std"], visible=True,
                                        thickness=style.line_width * 0.75)))
    fig.update_layout(xaxis_title="drop of the test score when the column is shuffled",
                      height=max(260, 60 + (style.font_size + 12) * len(rows)))
    fig.update_yaxes(type="category")
    return style.apply(fig, title="Permutation importance on the test set")


def staged_errors(model, X_train, y_train, X_test, y_test) -> pd.DataFrame:
    """Training and test misclassification rate after each round 1..T (a classifier)."""
    train, test = (staged_error_curve(model, X, y) for X, y in ((X_train, y_train),
                                                                   (X_test, y_test)))
    return pd.DataFrame({"round": np.arange(1, len(train) + 1), "train": train, "test": test})


def staged_error_figure(errors: pd.DataFrame, style: Style = NORMAL) -> go.Figure:
    """Training and test misclassification rate against rounds."""
    fig = go.Figure()
    for i, (part, name) in enumerate((("train", "training error"), ("test", "test error"))):
        fig.add_scatter(x=errors["round"], y=errors[part], mode="lines", name=name,
                        line=dict(color=style.color(i), width=style.line_width))
    fig.update_layout(xaxis_title="round t", yaxis_title="misclassification rate")
    style.apply(fig, title="Error against rounds")
    return style.legend_below(fig, plot_height=280)


def staged_grids(model, X2: pd.DataFrame, resolution: int = 120) -> dict:
    """Predicted class on a grid over two features after every round t = 0..T.

    Returns ``x``, ``y`` (grid coordinates, shape (resolution,)) and ``z`` (int8 class
    index, shape (n_rounds + 1, resolution, resolution)); ``z[0]`` is the start
    :math:`S_0` (the class priors), ``z[t]`` the model after t trees.
    """
    axes = [grid_axis(X2.iloc[:, j], resolution) for j in (0, 1)]
    shape, grid = grid_rows(X2.columns, *axes)
    start = model.loss_.proba(np.tile(model.init_, (len(grid), 1)))
    stages = [start, *model.staged_predict_proba(grid)]
    z = np.stack([np.argmax(p, axis=1).reshape(shape) for p in stages]).astype(np.int8)
    return {"x": axes[0], "y": axes[1], "z": z}


def grid_at(grids: dict, t: int) -> dict:
    """The grid of round t in the form ``viz.tree_figures.boundary_figure`` draws."""
    return {"x": grids["x"], "y": grids["y"], "z": grids["z"][t].astype(float)}


def boundary_round_figure(grids: dict, t: int, train: pd.DataFrame, y_train, test: pd.DataFrame,
                          y_test, class_names, style: Style = NORMAL) -> go.Figure:
    """Decision regions of the two-feature model after round t, with the rows on top."""
    fig = boundary_figure(grid_at(grids, t), train, y_train, test, y_test, class_names, style)
    return style.apply(fig, title=f"Decision regions after round {t}")


def prediction_figure(y_true, y_pred, style: Style = NORMAL) -> go.Figure:
    """Predicted against true value of the test rows, with the diagonal ŷ = y."""
    y_true, y_pred = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)
    low, high = float(min(y_true.min(), y_pred.min())), float(max(y_true.max(), y_pred.max()))
    fig = go.Figure(go.Scatter(x=y_true, y=y_pred, mode="markers", name="test rows",
                               marker=dict(size=style.marker_size, color=style.color(0),
                                           opacity=0.7)))
    fig.add_scatter(x=[low, high], y=[low, high], mode="lines", name="S_T = y",
                    line=dict(color=style.text_color, dash="dot", width=style.line_width * 0.6))
    fig.update_layout(xaxis_title="true value y", yaxis_title="prediction S<sub>T</sub>(x)",
                      height=460 + 6 * style.font_size)
    return style.apply(fig, title="Test rows: prediction against truth")
