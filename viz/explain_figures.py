"""Figures of "why this prediction?": one row's output as a waterfall of feature parts,
a booster's score round by round, partial dependence with ICE curves, and a Naive Bayes
nomogram.

Compute-then-draw: the engine computes (``engine.inspection.contributions``,
``engine._explain.round_contributions``, ``partial_dependence``, a Naive Bayes model's
``log_likelihood_contributions``); the ``*_figure`` functions draw one row or one
feature of it. :func:`nomogram_points` is the one computation here: a row's Naive Bayes
ledger turned into log-odds points.

Names from the data (features, values, classes) and the caller's labels are plain text:
escaped, and cut to :data:`MAX_LABEL_CHARS` with "…" where they label a bar or an axis.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._text import MAX_VALUE_CHARS, plain, plain_all
from .style import Style

NORMAL = Style()  # the default style (frozen: safe as a default argument)

#: A name on a bar or an axis is cut to this many characters (with "…"), so a long
#: column name cannot squeeze the plot; the hover carries up to HOVER_CHARS of it.
MAX_LABEL_CHARS = 40
HOVER_CHARS = 200
#: Palette positions of a part that raises the output and one that lowers it
#: (blue and vermilion: apart under every colour-vision deficiency).
UP, DOWN = 0, 5
#: Totals, and the "other classes" side of a nomogram with more than two classes.
NEUTRAL = "#8c8c8c"


def _cut(text, limit: int = MAX_LABEL_CHARS) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _label(text, limit: int = MAX_LABEL_CHARS) -> str:
    """``text`` cut, then escaped (cutting after escaping could split an entity)."""
    return plain(_cut(text, limit))


def _feature_labels(names, values, limit: int) -> list[str]:
    """"name = value" (or the name alone) for each feature, cut and escaped."""
    if values is None:
        return [_label(n, limit) for n in names]
    return [f"{_label(n, limit)} = {_label(v, MAX_VALUE_CHARS)}"
            for n, v in zip(names, values, strict=True)]


def _number(value: float, spec: str) -> str:
    """``value`` formatted, with the minus sign plotly's axes use (−, not -)."""
    return format(value, spec).replace("-", "−")


def _row_height(style: Style) -> int:
    """Pixels per bar of a horizontal bar chart: one line of type and a gap."""
    return round(1.25 * style.font_size + 4)


def _top_parts(parts: np.ndarray, names, values, top: int):
    """The ``top`` parts largest in size, largest first, then the rest summed as one
    "N other features" step (only when N >= 2: one more feature is shown by name).

    Returns (bar labels, hover labels, amounts).
    """
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}.")
    if len(names) != len(parts) or (values is not None and len(values) != len(parts)):
        raise ValueError(f"{len(parts)} parts need as many names (got {len(names)})"
                         + ("" if values is None else f" and values (got {len(values)})") + ".")
    order = np.argsort(-np.abs(parts), kind="stable")
    shown = order if len(order) <= top + 1 else order[:top]
    names = [names[j] for j in shown]
    values = None if values is None else [values[j] for j in shown]
    labels = _feature_labels(names, values, MAX_LABEL_CHARS)
    hovers = _feature_labels(names, values, HOVER_CHARS)
    amounts = list(parts[shown])
    if len(shown) < len(order):
        rest = order[len(shown):]
        labels.append(f"{len(rest)} other features")
        hovers.append(f"{len(rest)} other features, summed")
        amounts.append(float(parts[rest].sum()))
    return labels, hovers, np.array(amounts, dtype=np.float64)


def _padded_range(ends: np.ndarray, share: float = 0.2) -> list[float]:
    """An axis range around ``ends`` with room for the numbers written past the bars."""
    low, high = float(np.min(ends)), float(np.max(ends))
    pad = share * (high - low) if high > low else 0.1 * max(abs(high), 1.0)
    return [low - pad, high + pad]


def waterfall_figure(bias: float, parts: np.ndarray, names: Sequence[str], output_label: str,
                     style: Style = NORMAL, top: int = 10, value_format: str = ".3f",
                     values: Sequence[str] | None = None,
                     start_label: str = "start: training average") -> go.Figure:
    """One row's output as a walk from the start (bias) through each feature's part.

    Parameters
    ----------
    bias : float
        Where the walk starts: the model's output before any split (a tree's root value,
        a forest's average of them, a booster's mean training score).
    parts : ndarray, shape (n_features,)
        Each feature's part in this row's output (one row, one output column of
        ``contributions``).
    names : list of str, one per feature
    output_label : str
        What the output is, with its unit: "P(setosa) (probability)", "score (log-odds)".
    top : int, default=10
        Features drawn by name: the largest parts in size; the rest are summed into one
        "N other features" bar.
    value_format : str, default=".3f"
        Format of the numbers written on the bars.
    values : list of str, optional
        This row's value of each feature: a bar reads "petal length = 4.7".
    start_label : str, default="start: training average"

    Notes
    -----
    The bars are a plotly ``Waterfall`` with measures ``absolute`` (the start),
    ``relative`` (the parts, largest first) and ``total`` (the end): the end is
    ``bias + parts.sum()``, this row's output.
    """
    parts = np.asarray(parts, dtype=np.float64).ravel()
    labels, hovers, amounts = _top_parts(parts, list(names), values, top)
    total = float(bias + parts.sum())
    running = bias + np.cumsum(np.concatenate([[0.0], amounts]))
    running = np.append(running, total)
    amounts = np.concatenate([[bias], amounts, [total]])
    labels = [_label(start_label), *labels, "this row's output"]
    hovers = [_label(start_label), *hovers, "this row's output"]
    text = [_number(bias, value_format),
            *(_number(a, "+" + value_format) for a in amounts[1:-1]), _number(total, value_format)]
    positions = np.arange(len(labels))
    fig = go.Figure(go.Waterfall(
        orientation="h", y=positions, x=amounts, base=0,
        measure=["absolute"] + ["relative"] * (len(labels) - 2) + ["total"],
        text=text, textposition="outside", cliponaxis=False,
        customdata=np.column_stack([hovers, text, [_number(r, value_format) for r in running]]),
        hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>"
                      "running total %{customdata[2]}<extra></extra>",
        increasing=dict(marker=dict(color=style.color(UP))),
        decreasing=dict(marker=dict(color=style.color(DOWN))),
        totals=dict(marker=dict(color=NEUTRAL, line=dict(color=style.text_color, width=1))),
        connector=dict(line=dict(color=style.grid_color, width=1)), showlegend=False))
    fig.update_yaxes(tickvals=positions, ticktext=labels, autorange="reversed", showgrid=False,
                     zeroline=False)
    # the numbers past the bars take room in proportion to the type (large on a projector)
    room = 0.2 * style.font_size / NORMAL.font_size
    fig.update_xaxes(range=_padded_range(running, room), title_text=_label(output_label))
    fig.update_layout(height=90 + 3 * style.font_size + len(labels) * _row_height(style))
    return style.apply(fig, title="Contributions to this row's output")


def rounds_figure(start: float, parts: np.ndarray, style: Style = NORMAL,
                  current: int | None = None, output_label: str = "score") -> go.Figure:
    """How each boosting round moved one row's score: the running total above, each
    round's change below, against the round number.

    Parameters
    ----------
    start : float
        The score before the first round (gradient boosting's :math:`S_0`; AdaBoost 0).
    parts : ndarray, shape (n_rounds,)
        Each round's term for this row (one row, one class column of
        ``round_contributions``).
    current : int, optional
        The round on screen, 0..n_rounds (0: the start), marked by a dotted line in
        both panels and a point on the running total.
    output_label : str
        What the score is, with its unit: "score (log-odds)", "weighted vote".

    Notes
    -----
    The running total after round t is ``start + parts[:t].sum()``, drawn at x = t
    (x = 0 is the start); round t's bar is ``parts[t - 1]``.
    """
    parts = np.asarray(parts, dtype=np.float64).ravel()
    n_rounds = len(parts)
    if current is not None and not 0 <= current <= n_rounds:
        raise ValueError(f"current must be a round from 0 to {n_rounds}, got {current}.")
    running = start + np.concatenate([[0.0], np.cumsum(parts)])
    label = _label(output_label)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        row_heights=[0.6, 0.4])
    fig.add_scatter(x=np.arange(n_rounds + 1), y=running, name="running total",
                    mode="lines+markers" if n_rounds <= 50 else "lines",
                    line=dict(color=style.text_color, width=style.line_width),
                    marker=dict(size=style.marker_size * 0.6),
                    hovertemplate=f"after round %{{x}}: {label} = %{{y:.4f}}<extra></extra>",
                    row=1, col=1)
    opacity = np.full(n_rounds, 1.0 if current is None else 0.55)
    if current:
        opacity[current - 1] = 1.0
    fig.add_bar(x=np.arange(1, n_rounds + 1), y=parts, name="change this round",
                marker=dict(color=[style.color(UP if p >= 0 else DOWN) for p in parts],
                            opacity=opacity, line=dict(width=0)),
                hovertemplate="round %{x}: %{y:+.4f}<extra></extra>", row=2, col=1)
    if current is not None:
        _mark_round(fig, current, running[current], style)
    fig.update_xaxes(title_text="round t", row=2, col=1)
    fig.update_yaxes(title_text=label, row=1, col=1)
    fig.update_yaxes(title_text="change in round t", row=2, col=1)
    fig.update_layout(height=420 + 8 * style.font_size, showlegend=False, bargap=0.1)
    return style.apply(fig, title="Round by round")


def _mark_round(fig: go.Figure, current: int, value: float, style: Style) -> None:
    fig.add_vline(x=current, row="all", col=1, line_dash="dot", line_color=style.text_color,
                  line_width=max(1.0, style.line_width / 2))
    fig.add_scatter(x=[current], y=[value], mode="markers+text", name=f"after round {current}",
                    text=[f"{value:.3f}"], textposition="top center",
                    marker=dict(size=style.marker_size * 1.5, color=style.color(1),
                                line=dict(color=style.text_color, width=1)),
                    hovertemplate=f"after round {current}: %{{y:.4f}}<extra></extra>",
                    row=1, col=1)


def _output_of(pdp, class_index: int | None):
    """The average and the ICE curves of one output: a regressor's, a binary
    classifier's P(classes[1]) (or 1 - it for class_index 0), or class ``class_index``'s."""
    average, individual = pdp.average, pdp.individual
    extra = average.ndim - len(pdp.grid)
    if extra:
        if class_index is None:
            raise ValueError(f"The model has {average.shape[-1]} classes "
                             f"({list(pdp.classes)}): pick one with class_index.")
        return average[..., class_index], (None if individual is None
                                           else individual[..., class_index])
    if class_index in (None, 1) or pdp.classes is None:
        return average, individual
    if class_index == 0:  # binary: the partial dependence holds P(classes[1])
        return 1.0 - average, None if individual is None else 1.0 - individual
    raise ValueError(f"class_index must be 0 or 1 for two classes, got {class_index}.")


def _is_categorical(axis: np.ndarray) -> bool:
    return np.asarray(axis).dtype.kind not in "fiub"


def pdp_figure(pdp, feature_label, output_label: str, style: Style = NORMAL,
               ice_rows: int = 50, centred: bool = False, class_index: int | None = None,
               seed: int = 0) -> go.Figure:
    """Partial dependence: the mean output as one feature varies, with ICE curves; for a
    pair of features, a heatmap of the mean output over their grid.

    Parameters
    ----------
    pdp : engine.inspection.PartialDependence
        One or two features; ICE curves are drawn when it has them (``kind="individual"``).
    feature_label : str, or a pair of str for two features
    output_label : str
        What the output is, with its unit: "P(yes) (probability)", "price (€)".
    ice_rows : int, default=50
        ICE curves drawn at most: a sample of the rows without replacement, drawn from
        ``seed`` (all rows when there are fewer). Each curve's hover names its row, the
        position in the X given to ``partial_dependence``.
    centred : bool, default=False
        Draw each ICE curve, and the average, minus its value at the first grid point
        (c-ICE, Goldstein et al. 2015): every curve starts at 0, so differences in
        shape stand out from differences in level. One feature only.
    class_index : int, optional
        The class whose probability is drawn: needed for more than two classes; for two,
        the partial dependence holds P(classes[1]) and 0 draws 1 minus it.

    Notes
    -----
    A numeric feature: lines over its grid, markers at the grid points. A categorical
    one: a bar per category for the average, a point per ICE row and category.
    """
    average, individual = _output_of(pdp, class_index)
    if len(pdp.grid) == 2:
        labels = [feature_label] if isinstance(feature_label, str) else list(feature_label)
        if len(labels) != 2:
            raise ValueError("A two-feature partial dependence needs two feature labels.")
        return _pdp_pair(pdp.grid, average, labels, output_label, style)
    grid = pdp.grid[0]
    if centred:
        average = average - average[0]
        individual = None if individual is None else individual - individual[:, :1]
    categorical = _is_categorical(grid)
    x = plain_all(grid) if categorical else np.asarray(grid, dtype=np.float64)
    feature, output = _label(feature_label), _label(output_label)
    fig = go.Figure()
    if individual is not None and ice_rows > 0:
        _add_ice(fig, x, individual, feature, output, style, ice_rows, seed, categorical)
    hover = f"{feature} = %{{x}}<br>mean {output} = %{{y:.4g}}<extra></extra>"
    if categorical:
        fig.add_bar(x=x, y=average, name="average (partial dependence)", hovertemplate=hover,
                    marker=dict(color=style.color(DOWN), opacity=0.75))
        fig.update_xaxes(type="category")
    else:
        fig.add_scatter(x=x, y=average, mode="lines+markers", name="average (partial dependence)",
                        line=dict(color=style.color(DOWN), width=style.line_width * 2),
                        marker=dict(size=style.marker_size * 0.7), hovertemplate=hover)
    start = _label(grid[0], MAX_VALUE_CHARS)
    fig.update_layout(xaxis_title=feature, yaxis_title=(
        f"change in {output} from {feature} = {start}" if centred else output))
    style.apply(fig, title="Centred partial dependence" if centred else "Partial dependence")
    return style.legend_below(fig, plot_height=300)


def _add_ice(fig, x, individual, feature, output, style, ice_rows, seed, categorical) -> None:
    """One thin translucent trace per sampled row, its hover naming the row."""
    n_rows = len(individual)
    rows = np.sort(np.random.default_rng(seed).choice(n_rows, min(ice_rows, n_rows),
                                                      replace=False))
    for k, i in enumerate(rows):
        look = (dict(mode="markers", marker=dict(size=style.marker_size * 0.6,
                                                 color=style.color(UP), opacity=0.35))
                if categorical else
                dict(mode="lines", line=dict(color=style.color(UP),
                                             width=max(1.0, style.line_width / 3)), opacity=0.3))
        fig.add_scatter(x=x, y=individual[i], name="ICE: one row each", legendgroup="ice",
                        showlegend=k == 0, meta=int(i), **look,
                        hovertemplate=f"row {i}<br>{feature} = %{{x}}<br>"
                                      f"{output} = %{{y:.4g}}<extra></extra>")


def _pdp_pair(grid, average, labels, output_label, style: Style) -> go.Figure:
    """Heatmap of the mean output over the grid of two features."""
    axes = [plain_all(g) if _is_categorical(g) else np.asarray(g, dtype=np.float64) for g in grid]
    first, second = (_label(n) for n in labels)
    output = _label(output_label)
    fig = go.Figure(go.Heatmap(
        x=axes[0], y=axes[1], z=np.asarray(average).T, colorscale="Viridis",
        colorbar=dict(title=dict(text=output, side="right")),
        hovertemplate=f"{first} = %{{x}}<br>{second} = %{{y}}<br>"
                      f"mean {output} = %{{z:.4g}}<extra></extra>"))
    for axis, g in zip(("xaxis", "yaxis"), grid, strict=True):
        if _is_categorical(g):
            fig.update_layout({axis: dict(type="category")})
    fig.update_layout(xaxis_title=first, yaxis_title=second, height=460 + 6 * style.font_size)
    return style.apply(fig, title="Partial dependence on two features")


# --------------------------------------------------------------------------- nomogram


@dataclass(frozen=True)
class NomogramPoints:
    """One row's Naive Bayes posterior as log-odds points, class c against the rest.

    Attributes
    ----------
    class_index : int
        c, the class of interest.
    prior : float
        :math:`\\log P(c) - \\sum_r w_r \\log P(r)`.
    features : ndarray, shape (n_features,)
        :math:`\\log P(x_j \\mid c) - \\sum_r w_r \\log P(x_j \\mid r)`.
    spread : float
        :math:`-H(w) = \\sum_r w_r \\log w_r \\le 0`: 0 for two classes.
    log_odds : float
        ``prior + features.sum() + spread`` =
        :math:`\\log P(c \\mid x) - \\log P(\\text{not } c \\mid x)`.
    weights : ndarray, shape (n_classes,)
        :math:`w_r`, 0 at c.
    """

    class_index: int
    prior: float
    features: np.ndarray
    spread: float
    log_odds: float
    weights: np.ndarray


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max())
    return e / e.sum()


def nomogram_class(contributions: np.ndarray, log_prior: np.ndarray) -> int:
    """The class a nomogram is drawn for by default: the second of two classes (the
    positive one), else the row's most probable class."""
    contributions = np.asarray(contributions, dtype=np.float64)
    if len(contributions) == 2:
        return 1
    return int(np.argmax(np.asarray(log_prior) + contributions.sum(axis=1)))


def nomogram_points(contributions: np.ndarray, log_prior: np.ndarray,
                    class_index: int) -> NomogramPoints:
    """Split one row's log posterior odds of class c against the rest into points.

    Parameters
    ----------
    contributions : ndarray, shape (n_classes, n_features)
        :math:`\\log P(x_j \\mid r)`: one row of the first array
        ``model.log_likelihood_contributions(X)`` returns.
    log_prior : ndarray, shape (n_classes,)
        :math:`\\log P(r)`, its second array.
    class_index : int

    Notes
    -----
    With :math:`a_r = \\log P(r) + \\sum_j \\log P(x_j \\mid r)` the log odds are
    :math:`a_c - \\log \\sum_{r \\ne c} e^{a_r}`. Two classes: :math:`a_c - a_r`, a sum of
    per-feature log-likelihood ratios. More: with :math:`w_r = e^{a_r} / \\sum_{s \\ne c}
    e^{a_s}` (the row's posterior among the other classes),
    :math:`\\log \\sum_{r \\ne c} e^{a_r} = \\sum_r w_r a_r + H(w)` exactly, so "the rest"
    is the other classes averaged in log space with the weights w, and the entropy
    :math:`H(w) \\le \\log(K - 1)` is one more (negative) term: being one of several
    classes instead is easier.

    Examples
    --------
    Two classes, two features: :math:`P(x_j \\mid r)` is 0.2, 0.5 for class 0 and 0.4,
    0.3 for class 1; priors 0.25, 0.75.

    >>> ledger = np.log([[0.2, 0.5], [0.4, 0.3]])
    >>> points = nomogram_points(ledger, np.log([0.25, 0.75]), 1)
    >>> round(points.prior, 4), np.round(points.features, 4).tolist(), points.spread
    (1.0986, [0.6931, -0.5108], 0.0)
    >>> round(points.log_odds, 4), round(float(np.log(0.75 * 0.4 * 0.3 / (0.25 * 0.2 * 0.5))), 4)
    (1.2809, 1.2809)
    """
    C = np.asarray(contributions, dtype=np.float64)
    log_prior = np.asarray(log_prior, dtype=np.float64)
    a = log_prior + C.sum(axis=1)
    if not np.isfinite(a).any():
        raise ValueError("Every class has probability 0 for this row (a zero count with "
                         "alpha = 0): the model falls back to the prior; no points to draw.")
    others = np.flatnonzero(np.arange(len(a)) != class_index)
    # The rest's weights; if every other class is impossible, their priors' (the odds are +∞).
    basis = a[others] if np.isfinite(a[others]).any() else log_prior[others]
    weights = np.zeros(len(a))
    weights[others] = _softmax(basis)
    keep = np.flatnonzero(weights > 0)
    w = weights[keep]
    features = C[class_index] - w @ C[keep]
    prior = float(log_prior[class_index] - w @ log_prior[keep])
    spread = float(w @ np.log(w))
    return NomogramPoints(int(class_index), prior, features, spread,
                          prior + float(features.sum()) + spread, weights)


def _sigmoid(z: float) -> float:
    """σ(z) without overflow for large |z|."""
    if z >= 0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


def _probability_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Log-odds positions and labels of round probabilities inside [low, high], kept
    apart by at least an eighth of the range (0.5 first, then outwards)."""
    probs = [0.5, 0.25, 0.75, 0.1, 0.9, 0.05, 0.95] + [
        p for k in range(2, 7) for p in (10.0 ** -k, 1 - 10.0 ** -k)]
    gap, kept = (high - low) / 8, []
    for p in probs:
        z = float(np.log(p / (1 - p)))
        if low <= z <= high and all(abs(z - k) >= gap for k, _ in kept):
            kept.append((z, f"{p:g}"))
    kept.sort()
    return [z for z, _ in kept], [t for _, t in kept]


def _drawable(values: np.ndarray) -> np.ndarray:
    """±∞ (a zero count with alpha = 0) drawn a little past the finite bars."""
    finite = values[np.isfinite(values)]
    reach = (np.abs(finite).max() if finite.size else 0.0) * 1.3 + 1.0
    return np.clip(values, -reach, reach)


def nomogram_figure(contributions: np.ndarray, log_prior: np.ndarray, names: Sequence[str],
                    classes: Sequence, style: Style = NORMAL, class_index: int | None = None,
                    values: Sequence[str] | None = None, top: int = 10) -> go.Figure:
    """Naive Bayes nomogram of one row: points per feature, summed, read as a posterior.

    Each feature's log-likelihood ratio (class c against the rest; for two classes,
    ``classes[1]`` against ``classes[0]``) is a bar from 0 on one log-odds scale, with
    the prior log odds; the bars sum to the log posterior odds, the last bar. Below,
    that total is read off a scale of the posterior probability :math:`P(c \\mid x)`.

    Parameters
    ----------
    contributions : ndarray, shape (n_classes, n_features)
        The row's :math:`\\log P(x_j \\mid r)`: ``model.log_likelihood_contributions(X)[0][i]``.
    log_prior : ndarray, shape (n_classes,)
        ``model.log_likelihood_contributions(X)[1]`` (= ``class_log_prior_``).
    names : list of str
        ``model.feature_names_in_``.
    classes : ``model.classes_``
    class_index : int, optional
        c. Default: 1 for two classes, else the row's most probable class.
    values : list of str, optional
        This row's value of each feature, shown as "name = value".
    top : int, default=10
        Features drawn by name; the rest summed into one bar.

    Notes
    -----
    The points are :func:`nomogram_points`; with more than two classes a bar "one of K-1
    other classes" holds :math:`-H(w)`. A missing value contributes 0 to every class,
    so its feature has 0 points.
    """
    contributions = np.asarray(contributions, dtype=np.float64)
    if contributions.shape != (len(classes), len(names)):
        raise ValueError(f"contributions must have shape (n_classes, n_features) = "
                         f"({len(classes)}, {len(names)}); got {contributions.shape}.")
    if class_index is None:
        class_index = nomogram_class(contributions, log_prior)
    points = nomogram_points(contributions, log_prior, class_index)
    c = _label(classes[class_index], MAX_VALUE_CHARS)
    rest = (_label(classes[1 - class_index], MAX_VALUE_CHARS) if len(classes) == 2
            else "the rest")
    labels, hovers, amounts = _top_parts(points.features, list(names), values, top)
    labels, hovers = ["prior log odds", *labels], ["prior log odds", *hovers]
    amounts = np.concatenate([[points.prior], amounts])
    if len(classes) > 2:
        labels.append(f"one of {len(classes) - 1} other classes")
        hovers.append("−H(w): the rest is several classes")
        amounts = np.append(amounts, points.spread)
    labels.append("total: log posterior odds")
    hovers.append(f"log P({c} | x) − log P({rest} | x)")
    amounts = np.append(amounts, points.log_odds)
    against = style.color(1 - class_index) if len(classes) == 2 else NEUTRAL
    return _draw_nomogram(amounts, labels, hovers, (c, rest), style,
                          (style.color(class_index), against))


def _draw_nomogram(amounts, labels, hovers, sides: tuple[str, str], style: Style,
                   colors: tuple[str, str]) -> go.Figure:
    """Bars of points from 0 (the total last, outlined) over a posterior-probability scale."""
    (c, rest), (towards, against) = sides, colors
    drawn = _drawable(amounts)
    text = ["−∞" if a == -np.inf else "+∞" if a == np.inf else _number(a, "+.2f")
            for a in amounts]
    bars_px, axis_px = len(labels) * _row_height(style), 20 + 3 * style.font_size
    spacing_px = 10 + 3 * style.font_size
    height = bars_px + axis_px + spacing_px + 40 + 2 * style.font_size
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[bars_px, axis_px],
                        vertical_spacing=spacing_px / height)
    positions = np.arange(len(labels))
    fig.add_bar(y=positions, x=drawn, base=0, orientation="h", text=text,
                textposition="outside", cliponaxis=False, name="points",
                marker=dict(color=[towards if a >= 0 else against for a in drawn],
                            line=dict(color=[NEUTRAL] * (len(labels) - 1) + [style.text_color],
                                      width=[0] * (len(labels) - 1) + [2])),
                customdata=np.column_stack([hovers, text]),
                hovertemplate="%{customdata[0]}<br>%{customdata[1]} points<extra></extra>",
                row=1, col=1)
    total = float(amounts[-1])
    p = _sigmoid(total)
    fig.add_scatter(x=[drawn[-1]], y=[0], mode="markers+text", name="posterior",
                    text=[f"P({c} | x) = {p:.3g}"], textposition="top center",
                    marker=dict(size=style.marker_size * 1.5, color=towards if total >= 0 else against,
                                symbol="diamond", line=dict(color=style.text_color, width=1)),
                    hovertemplate=f"P({c} | x) = {p:.6g}<extra></extra>", row=2, col=1)
    low, high = _padded_range(np.append(drawn, 0.0), share=0.15)
    tickvals, ticktext = _probability_ticks(low, high)
    fig.update_xaxes(range=[low, high])
    fig.update_xaxes(showticklabels=True, title_text=f"points: log-odds of {c} against {rest}",
                     row=1, col=1)
    fig.update_xaxes(tickvals=tickvals, ticktext=ticktext, showgrid=True,
                     title_text=f"posterior probability P({c} | x)", row=2, col=1)
    fig.update_yaxes(tickvals=positions, ticktext=labels, autorange="reversed", showgrid=False,
                     zeroline=False, row=1, col=1)
    fig.update_yaxes(visible=False, range=[-1, 1.5], row=2, col=1)
    fig.add_vline(x=0, line_color=style.text_color, line_width=1, row=1, col=1)
    fig.update_layout(height=height, showlegend=False)
    return style.apply(fig, title=f"Nomogram: {c} against {rest}")
