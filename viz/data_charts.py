"""Figures of the Data page: class balance, target distribution, missing values."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ._text import plain, plain_all
from .style import Style

SPLIT_ORDER = ("all", "train", "test")


def class_balance_figure(balance: pd.DataFrame, style: Style = Style()) -> go.Figure:
    """Grouped bars: share of each class in the whole set, the training and the test split.

    Parameters
    ----------
    balance : DataFrame with columns ``class``, ``split``, ``count``, ``share``
        As returned by ``engine.data.Dataset.class_balance()``.
    """
    fig = go.Figure()
    classes = plain_all(pd.unique(balance["class"]))
    for position, split in enumerate(s for s in SPLIT_ORDER if s in set(balance["split"])):
        part = balance[balance["split"] == split]
        fig.add_bar(
            name=split,
            x=plain_all(part["class"]),
            y=part["share"],
            text=[f"{n:,}" for n in part["count"]],
            textposition="outside",
            marker_color=style.color(position),
            hovertemplate="class %{x}<br>share %{y:.1%}<br>rows %{text}<extra>" + split + "</extra>",
        )
    fig.update_layout(barmode="group", xaxis_title="class", yaxis_title="share of rows",
                      legend_title_text="split")
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=classes)
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    return style.apply(fig, title="Class balance")


def target_histogram(y: pd.Series, style: Style = Style()) -> go.Figure:
    """Distribution of a numeric (regression) target."""
    fig = go.Figure(go.Histogram(x=y.to_numpy(), marker_color=style.color(0), nbinsx=40))
    fig.update_layout(xaxis_title=plain(y.name), yaxis_title="rows", bargap=0.05)
    return style.apply(fig, title=f"Distribution of {plain(y.name)}")


def missing_values_figure(schema: pd.DataFrame, n_rows: int, style: Style = Style()) -> go.Figure:
    """Horizontal bars: share of missing values per column (columns with none are left out)."""
    missing = schema[schema["n_missing"] > 0]["n_missing"].sort_values()
    fig = go.Figure(go.Bar(
        x=missing.to_numpy() / max(n_rows, 1), y=plain_all(missing.index),
        orientation="h", marker_color=style.color(5),
        text=[f"{n:,}" for n in missing.to_numpy()], textposition="auto",
    ))
    fig.update_layout(xaxis_title="share missing", height=max(220, 40 + 28 * len(missing)))
    fig.update_xaxes(tickformat=".0%", range=[0, 1])
    fig.update_yaxes(type="category")
    return style.apply(fig, title="Missing values")
