"""Figures and tables of the Naive Bayes page: priors, likelihoods, the evidence ledger.

Compute-then-draw: ``*_table`` / ``*_grid`` / ``*_latex`` functions turn fitted engine
models into small DataFrames or strings; ``*_figure`` functions only draw them. The
notation is the Naive Bayes page's: ``P(c_q | x) = P(c_q) ∏_j P(x_j | c_q) / Σ_r P(c_r) ∏_j P(x_j | c_r)``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.inspection import grid_axis, grid_rows
from engine.text import tokenize

from ._points import grid_ranges, point_adder, spread, true_values_hover
from ._text import plain, plain_all
from .style import Style

LN10 = np.log(10.0)
DEFAULT_STYLE = Style()  # frozen, so one shared default is safe


# --------------------------------------------------------------------------- tables


def feature_views(model) -> dict[str, str]:
    """How each feature's likelihood can be shown: ``table``, ``gaussian``, ``text`` or ``counts``.

    ``table``: a per-value count table (categorical or binned); ``gaussian``: normal
    curves; ``text``: word contributions; ``counts``: one row per feature of a
    multinomial or Bernoulli model (its ``likelihood_table()`` with no argument).
    """
    names = [str(n) for n in model.feature_names_in_]
    kinds = getattr(model, "feature_kinds_", None)
    if kinds is not None:
        return {n: {"categorical": "table", "binned": "table"}.get(kinds[n], kinds[n]) for n in names}
    if hasattr(model, "theta_"):
        return dict.fromkeys(names, "gaussian")
    if hasattr(model, "categories_"):
        return dict.fromkeys(names, "table")
    return dict.fromkeys(names, "counts")


def likelihood_frame(table: pd.DataFrame) -> pd.DataFrame:
    """A ``likelihood_table`` as flat columns, count and θ side by side for each class.

    Parameters
    ----------
    table : DataFrame with columns (statistic, class), statistics ``count`` and
        ``probability``, as returned by the engine's ``likelihood_table``.

    Returns
    -------
    DataFrame with columns ``count (c)`` and ``P(x | c)`` per class c, same index.
    """
    columns = {}
    for cls in table["count"].columns:
        columns[f"count ({cls})"] = table[("count", cls)].to_numpy()
        columns[f"P(x | {cls})"] = table[("probability", cls)].to_numpy()
    return pd.DataFrame(columns, index=pd.Index([str(v) for v in table.index], name="value"))


def style_zero_probabilities(frame: pd.DataFrame):
    """A Styler of :func:`likelihood_frame` that marks θ = 0 (the zero-count problem)."""
    probability = [c for c in frame.columns if c.startswith("P(")]
    counts = [c for c in frame.columns if c.startswith("count")]

    def mark(value):
        return "background-color: #f6c9c0; font-weight: bold" if value == 0 else ""

    return (frame.style.format("{:.3g}", subset=probability)
            .format("{:g}", subset=counts)
            .map(mark, subset=probability))


def word_table(vocabulary, log_prob: np.ndarray, classes, text: str) -> pd.DataFrame:
    """Multinomial: ``log θ_{wq}`` of every word occurrence of ``text`` (0 if never seen).

    Rows are labelled ``"1. the"``, ``"2. sushi"``… so repeated words stay apart.
    """
    words = tokenize(text)
    index = pd.Index(vocabulary.words_).get_indexer(words)
    table = np.column_stack([log_prob, np.zeros(len(classes))])[:, index].T
    labels = [f"{i + 1}. {w}" + ("" if j >= 0 else " (unseen)")
              for i, (w, j) in enumerate(zip(words, index, strict=True))]
    return pd.DataFrame(table.reshape(len(words), len(classes)),
                        index=pd.Index(labels, name="word"), columns=pd.Index(classes, name="class"))


def bernoulli_word_table(vocabulary, model, text: str) -> pd.DataFrame:
    """Bernoulli: ``log θ_{wq}`` of each distinct word present, then one row for all absences.

    The last row, ``"absent words (n)"``, sums ``log(1 − θ_{wq})`` over the vocabulary
    words not in ``text``: in the Bernoulli model an absent word is evidence too.
    The column sums are the text's log-likelihood under the model.
    """
    present = vocabulary.transform([text])[0] > 0
    positions = np.flatnonzero(present)
    rows = model.feature_log_prob_[:, positions].T
    absent = model.neg_feature_log_prob_[:, ~present].sum(axis=1)
    labels = [str(w) for w in vocabulary.words_[positions]] + [f"absent words ({(~present).sum()})"]
    return pd.DataFrame(np.vstack([rows, absent]), index=pd.Index(labels, name="word"),
                        columns=pd.Index(model.classes_, name="class"))


def ledger_steps(ledger: pd.DataFrame, max_features: int = 12) -> pd.DataFrame:
    """The evidence ledger as waterfall steps, one column per class.

    Rows: ``log P(c_q)``; one per feature (the ``max_features`` that differ most between
    classes; the rest summed into ``"other n features"``); ``log joint``;
    ``− log P(x)``; ``log posterior``. Relative rows add up to the totals.
    """
    features = ledger.xs("feature", level="part")
    spread = _spread(features)
    if len(features) > max_features:
        keep = spread.sort_values(ascending=False, kind="stable").index[:max_features]
        rest = features.drop(index=keep)
        features = pd.concat([features.loc[[k for k in features.index if k in set(keep)]],
                              rest.sum().to_frame(f"other {len(rest)} features").T])
    total = ledger.xs("total", level="part")
    rows = [ledger.xs("prior", level="part").rename(index={"log P(c_q)": "log P(c)"}), features,
            total.loc[["log joint"]], -total.loc[["log evidence"]].rename(index={"log evidence": "− log P(x)"}),
            total.loc[["log posterior"]]]
    steps = pd.concat(rows)
    steps.index = pd.Index([str(i) for i in steps.index], name="step")
    return steps


def _spread(features: pd.DataFrame) -> pd.Series:
    values = features.to_numpy()
    finite = np.where(np.isfinite(values), values, np.nan)
    with np.errstate(all="ignore"):
        spread = np.nanmax(finite, axis=1) - np.nanmin(finite, axis=1) if values.size else []
    spread = np.where(np.isneginf(values).any(axis=1), np.inf, np.nan_to_num(spread))
    return pd.Series(spread, index=features.index)


STEP_MEASURES = {"log P(c)": "absolute", "log joint": "total", "log posterior": "total"}


# --------------------------------------------------------------------------- figures


def priors_figure(model, style: Style = DEFAULT_STYLE) -> go.Figure:
    """Bars of the class priors ``π_q = N_q / N``, with the counts written on them."""
    classes = plain_all(model.classes_)
    fig = go.Figure(go.Bar(
        x=classes, y=model.class_prior_, marker_color=[style.color(q) for q in range(len(classes))],
        text=[f"{p:.3f}" for p in model.class_prior_], textposition="auto", textangle=0,
        customdata=model.class_count_,
        hovertemplate="P(%{x}) = %{y:.4f}<br>%{customdata:g} training rows<extra></extra>",
    ))
    fig.update_layout(xaxis_title="class c", yaxis_title="prior P(c)", height=320)
    fig.update_xaxes(type="category")
    fig.update_yaxes(rangemode="tozero")
    return style.apply(fig, title="Priors P(c) = N_c / N")


def gaussian_curves_figure(params: pd.DataFrame, feature: str, value: float | None = None,
                           style: Style = DEFAULT_STYLE) -> go.Figure:
    """One normal density ``N(x; μ_{j,q}, σ²_{j,q})`` per class; the chosen row's value marked.

    Parameters
    ----------
    params : DataFrame indexed by class with columns ``mean`` and ``std``
        (``gaussian_params`` of the engine).
    value : float, optional
        Drawn as a vertical line, with a marker where it meets each class's curve.
    """
    mean, std = params["mean"].to_numpy(float), params["std"].to_numpy(float)
    low, high = (mean - 4 * std).min(), (mean + 4 * std).max()
    if value is not None and np.isfinite(value):
        low, high = min(low, value), max(high, value)
    x = np.linspace(low, high, 400)
    feature = plain(feature)
    fig = go.Figure()
    for q, cls in enumerate(params.index):
        fig.add_scatter(x=x, y=normal_pdf(x, mean[q], std[q]), mode="lines", name=plain(cls),
                        line=dict(color=style.color(q), width=style.line_width))
    if value is not None and np.isfinite(value):
        fig.add_vline(x=value, line=dict(color=style.text_color, dash="dash", width=style.line_width / 2))
        fig.add_scatter(x=[value] * len(mean), y=normal_pdf(value, mean, std), mode="markers",
                        name="this row", marker=dict(size=style.marker_size + 4, symbol="x",
                                                     color=[style.color(q) for q in range(len(mean))]),
                        hovertemplate=f"{feature} = %{{x:.4g}}<br>density %{{y:.4g}}<extra></extra>")
    # the title says P(x | c); a long axis title ran into it in presentation type
    fig.update_layout(xaxis_title=feature, yaxis_title="density", height=340,
                      legend_title_text="class")
    return style.apply(fig, title=f"P({feature} | c): a normal curve per class")


def normal_pdf(x, mean, std):
    """``exp(−(x − μ)² / (2σ²)) / √(2πσ²)``."""
    return np.exp(-0.5 * ((x - mean) / std) ** 2) / (std * np.sqrt(2 * np.pi))


def ledger_figure(steps: pd.DataFrame, style: Style = DEFAULT_STYLE) -> go.Figure:
    """Waterfalls of :func:`ledger_steps`, one per class, ending in the log posterior.

    ``−∞`` (a zero count with ``α = 0``) cannot be drawn: it is shown as a bar to a floor
    below the finite values, labelled ``−∞``.
    """
    values = steps.to_numpy(float)
    finite = values[np.isfinite(values)]
    floor = (finite.min() if finite.size else 0.0) - 10.0
    measures = [STEP_MEASURES.get(s, "relative") for s in steps.index]
    fig = go.Figure()
    for q, cls in enumerate(steps.columns):
        column = values[:, q]
        fig.add_trace(go.Waterfall(
            name=plain(cls), orientation="h", y=plain_all(steps.index), measure=measures,
            x=np.where(np.isfinite(column), column, floor), base=0,
            text=[_log_text(v) for v in column], textposition="auto",
            textfont=dict(size=_ledger_text_size(style)),
            increasing=dict(marker=dict(color=style.color(q))),
            decreasing=dict(marker=dict(color=style.color(q))),
            totals=dict(marker=dict(color=style.color(q), line=dict(color=style.text_color, width=1))),
            connector=dict(line=dict(color=style.grid_color)),
            hovertemplate="%{y}: %{text}<extra>" + plain(cls) + "</extra>",
        ))
    fig.update_traces(cliponaxis=False)  # labels of short bars may sit past the axis
    # plotly shrinks a label to fit its bar; never below the readable size (a label too
    # long for its bar then sits beside it)
    fig.update_layout(uniformtext=dict(minsize=_ledger_text_size(style), mode="show"))
    fig.update_layout(waterfallmode="group", xaxis_title="log probability (natural log)",
                      legend_title_text="class",
                      height=140 + len(steps) * (14 + 12 * len(steps.columns)) * style.font_size // 14)
    fig.update_yaxes(autorange="reversed", type="category")
    return style.apply(fig, title="Evidence ledger: log P(c) + Σ_j log P(x_j | c) − log P(x)")


#: The ledger's numbers are never smaller than this many px (a projector's: 18).
LEDGER_MIN_PX, LEDGER_MIN_PX_PRESENTING = 12, 18


def _ledger_text_size(style: Style) -> int:
    floor = LEDGER_MIN_PX_PRESENTING if style.font_size > DEFAULT_STYLE.font_size else LEDGER_MIN_PX
    return max(floor, round(style.font_size * 0.8))


def _log_text(value: float) -> str:
    return "−∞" if np.isneginf(value) else f"{value:+.3f}"


def word_figure(table: pd.DataFrame, title: str, style: Style = DEFAULT_STYLE) -> go.Figure:
    """Horizontal bars per word and class: ``log θ_{wq}`` minus its average over classes.

    Centering shows what matters for the decision: a bar to the right pushes towards
    that class. The hover gives the raw ``log θ_{wq}``.
    """
    raw = table.to_numpy(float)
    finite = raw[np.isfinite(raw)]
    # θ = 0 (α = 0) has log −∞: drawn as a bar a little past the lowest finite value.
    shown = np.where(np.isfinite(raw), raw, (finite.min() if finite.size else 0.0) - 3.0)
    centred = shown - shown.mean(axis=1, keepdims=True) if shown.size else shown
    fig = go.Figure()
    for q, cls in enumerate(table.columns):
        fig.add_bar(y=plain_all(table.index), x=centred[:, q], orientation="h",
                    name=plain(cls), marker_color=style.color(q),
                    customdata=[_log_text(v) for v in raw[:, q]],
                    hovertemplate="%{y}<br>log θ = %{customdata}<extra>" + plain(cls) + "</extra>")
    # A legend below the axis leaves the plot its full width in a half-width column.
    fig.update_layout(barmode="group", xaxis_title="log θ(w | c) − mean",
                      legend=dict(orientation="h", yanchor="top", y=-0.25, x=0),
                      height=220 + len(table) * (10 + 10 * table.shape[1]))
    fig.update_yaxes(autorange="reversed", type="category")
    return style.apply(fig, title=title)
def decision_grid(model, X: pd.DataFrame, resolution: int = 120) -> dict:
    """The model's prediction on a grid over the range of two numeric columns of X.

    Returns
    -------
    dict with ``x`` (resolution,), ``y`` (resolution,), ``z`` (resolution, resolution)
    class index of the MAP class and ``confidence`` (same shape) its posterior.
    """
    a, b = X.columns[:2]
    # counts stay counts: a non-negative column is not widened below 0 (multinomial refuses < 0)
    xs, ys = (grid_axis(X[c], resolution, nonnegative=True) for c in (a, b))
    shape, rows = grid_rows((a, b), xs, ys)
    proba = model.predict_proba(rows)
    return {"x": xs, "y": ys, "z": proba.argmax(axis=1).reshape(shape),
            "confidence": proba.max(axis=1).reshape(shape), "columns": (str(a), str(b))}


#: Share of a count axis's span shown below 0, where its grid starts (no regions there).
ZERO_ROOM = 0.02


def decision_boundary_figure(grid: dict, X: pd.DataFrame, y: pd.Series, classes,
                             style: Style = DEFAULT_STYLE) -> go.Figure:
    """The MAP class over the plane (coloured, paler where less sure) and the training points."""
    k = len(classes)
    scale = []
    for q in range(k):  # a step colour scale: class index q ↦ its palette colour
        scale += [[q / k, style.color(q)], [(q + 1) / k, style.color(q)]]
    fig = go.Figure(go.Heatmap(x=grid["x"], y=grid["y"], z=grid["z"], zmin=-0.5, zmax=k - 0.5,
                               colorscale=scale, opacity=0.35, showscale=False, hoverinfo="skip"))
    a, b = grid["columns"]
    shown = spread(X[[a, b]])
    add_points = point_adder(fig, len(shown))
    for q, cls in enumerate(classes):
        rows = (y == cls).to_numpy()
        add_points(x=shown.loc[rows, a], y=shown.loc[rows, b], mode="markers", name=plain(cls),
                   customdata=X.loc[rows, [a, b]].to_numpy(),
                   hovertemplate=true_values_hover([a, b]),
                   marker=dict(color=style.color(q), size=style.marker_size, opacity=0.75,
                               line=dict(color="white", width=1)))
    a, b = plain(a), plain(b)
    fig.update_layout(xaxis_title=a, yaxis_title=b, height=480, legend_title_text="class")
    grid_ranges(fig, grid["x"], grid["y"], zero_room=ZERO_ROOM)  # counts' grids start at 0
    return style.apply(fig, title=f"Decision regions on {a} and {b}")


# --------------------------------------------------------------------------- arithmetic


def posterior_latex(ledger: pd.DataFrame, max_factors: int = 6) -> list[str]:
    """Bayes' rule for one row with the numbers filled in, one LaTeX line per class.

    ``P(c | x) = P(c) ∏_j P(x_j | c) / Σ_r P(c_r) ∏_j P(x_j | c_r)``. Beyond
    ``max_factors`` features the product is written as ``exp(Σ_j log P(x_j | c))``.
    Class names are escaped; probabilities are written from their logs, so tiny ones
    (spam, long texts) read as ``a × 10^{b}`` instead of 0.
    """
    prior = ledger.xs("prior", level="part").iloc[0]
    features = ledger.xs("feature", level="part")
    total = ledger.xs("total", level="part")
    denominator = " + ".join(number_from_log(v) for v in total.loc["log joint"])
    lines = []
    for cls in ledger.columns:
        terms = features[cls].to_numpy(float)
        if len(terms) <= max_factors:
            factors = " \\times ".join(number_from_log(v) for v in terms)
        else:
            factors = f"e^{{{_log_text(terms.sum()).replace('−', '-')}}}"
        name = latex_text(cls)
        lines.append(
            f"P({name} \\mid x) = \\frac{{{number_from_log(prior[cls])} \\times {factors}}}"
            f"{{{denominator}}} = {number_from_log(total.loc['log posterior', cls])}")
    return lines


def number_from_log(log_value: float) -> str:
    """``exp(log_value)`` as LaTeX, in scientific notation when it is below 10⁻³."""
    if np.isneginf(log_value):
        return "0"
    exponent = log_value / LN10
    if exponent >= -3:
        return f"{np.exp(log_value):.3g}"
    whole = int(np.floor(exponent))
    return f"{10 ** (exponent - whole):.3g} \\times 10^{{{whole}}}"


LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                 "#": r"\#", "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}"}


def latex_text(value) -> str:
    """A label as ``\\text{…}`` with LaTeX's special characters escaped."""
    escaped = "".join(LATEX_SPECIAL.get(ch, ch) for ch in str(value))
    return f"\\text{{{escaped}}}"
