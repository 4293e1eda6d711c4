"""The plane a student draws on: the drawn points, over one clickable marker per cell.

A click on empty space of a plotly chart sends no event, so the plane holds a marker that
cannot be seen on every ``CLICK_STEP``-th cell of each axis (``cell_trace``); a click
selects the one under the pointer (the nearest within plotly's hover distance), and its
coordinates are the new point's.
The drawn points take no clicks (``hoverinfo="skip"``), so a click on a point adds another
there rather than selecting it.

The plane is drawn in cells (0 .. ``GRID`` - 1), sent as one byte each (a float would be
eight times the bytes on every click); its ticks name the table's values (cell / 10).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.drawing import CLASS_NAMES, COLUMNS, GRID, SCALE, check

from .style import Style

#: Each class's marker: colour and shape both differ, for colour-blind readers.
SYMBOLS = ("circle", "square", "diamond")
#: The index of the clickable cells' trace: a selection on it is a click on the plane.
CELL_TRACE = 0
#: Clicks land on every second cell (0, 2, …, 98; steps of 0.2 in the table): a chart of
#: 2,500 SVG markers redraws after each click several times faster than one of 10,000,
#: and a hand on a projected plane is not finer than that. Starting shapes use every cell.
CLICK_STEP = 2


def cell_trace() -> go.Scatter:
    """A marker on every ``CLICK_STEP``-th cell, uint8 coordinates, drawn transparent:
    what a click selects."""
    cells = np.arange(0, GRID, CLICK_STEP, dtype=np.uint8)
    columns, rows = np.tile(cells, len(cells)), np.repeat(cells, len(cells))
    return go.Scatter(
        x=columns, y=rows, mode="markers", name="cells", showlegend=False,
        marker=dict(size=4, color="rgba(0,0,0,0)"), hoverinfo="none",
        selected=dict(marker=dict(opacity=0)), unselected=dict(marker=dict(opacity=0)))


def drawing_figure(points, style: Style, *, height: int = 520) -> go.Figure:
    """The drawing ``points`` (rows of column, row, class) on the plane, ready to click.

    Examples
    --------
    >>> fig = drawing_figure([[10, 20, 0], [75, 60, 1], [80, 62, 1]], Style())
    >>> [trace.name for trace in fig.data]
    ['cells', 'A', 'B']
    >>> fig.data[2].x.tolist()
    [75, 80]
    """
    points = check(points)
    fig = go.Figure([cell_trace()])
    for k, name in enumerate(CLASS_NAMES):
        mine = points[points[:, 2] == k]
        if len(mine):
            fig.add_trace(go.Scatter(
                x=mine[:, 0].astype(np.uint8), y=mine[:, 1].astype(np.uint8), mode="markers",
                name=name, hoverinfo="skip",
                marker=dict(size=style.marker_size * 1.6, color=style.color(k),
                            symbol=SYMBOLS[k], line=dict(color="white", width=1)),
                unselected=dict(marker=dict(opacity=1))))
    style.apply(fig)
    ticks = np.arange(0, GRID + 1, 2 * SCALE)
    x1, x2, _ = COLUMNS
    for update, title in ((fig.update_xaxes, x1), (fig.update_yaxes, x2)):
        update(range=[-1.5, GRID + 0.5], fixedrange=True, tickvals=ticks,
               ticktext=[f"{t // SCALE}" for t in ticks], title=title, zeroline=False,
               showline=True, linecolor=style.grid_color, mirror=True)
    fig.update_xaxes(constrain="domain")  # a square plane: the wider axis gives up room,
    fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain")  # not range
    fig.update_layout(height=height, dragmode=False, hovermode="closest", clickmode="event+select",
                      legend=dict(title="class", orientation="h", yanchor="bottom", y=1.01,
                                  x=0, itemclick=False, itemdoubleclick=False))
    return fig
