"""Where a row's point is drawn on a two-feature picture."""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.data import FEW_VALUES

from ._text import plain

#: Jitter is uniform within ± this share of the smallest gap between a column's values:
#: well inside half the gap, so no point crosses a threshold halfway between two values.
JITTER = 0.2


#: A picture of more points than this draws them with WebGL (plotly's ``scattergl``).
#: SVG costs the browser about 0.1 ms a marker; a WebGL context costs 0.4–1.3 s to
#: create where the browser has no GPU (it is then drawn by the processor, as on
#: many classroom machines), so below several thousand points SVG draws sooner.
WEBGL_POINTS = 4_000


def point_adder(fig, n_points: int, *, stepped: bool = False):
    """``fig``'s method adding a trace of markers, for a picture of ``n_points`` points in
    all (one kind for every trace of the picture, so they draw in one layer).

    A ``stepped`` picture, redrawn at every step of a stepper, stays SVG: a browser
    without a GPU creates a WebGL context on the processor at every redraw, which costs
    more than the SVG markers of a drawn sample (at most a few thousand) and competes
    with a fit running beside the step.
    """
    return fig.add_scattergl if n_points > WEBGL_POINTS and not stepped else fig.add_scatter


def spread(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a little jitter on each column of at most ``FEW_VALUES`` distinct
    numbers, so the rows at one value do not hide one another; other columns as they are.

    The jitter is the same on every draw (a fixed seed per column), so stepping through
    rounds does not make the points dance.
    """
    out = frame.astype(float)
    for j, column in enumerate(out.columns):
        values = np.unique(out[column].dropna().to_numpy())
        if len(values) < 2 or len(values) > FEW_VALUES:
            continue
        gap = float(np.diff(values).min())
        noise = np.random.default_rng(j).uniform(-JITTER, JITTER, len(out)) * gap
        out[column] = out[column].to_numpy() + noise
    return out


def is_spread(frame: pd.DataFrame) -> bool:
    """Whether :func:`spread` moves any column of ``frame`` (a caption should say so)."""
    return any(1 < frame[c].nunique() <= FEW_VALUES for c in frame.columns)


def true_values_hover(columns) -> str:
    """A hover template naming a point's true values, passed as its ``customdata``
    (the drawn position may be jittered)."""
    return (f"{plain(columns[0])} = %{{customdata[0]:.4g}}<br>"
            f"{plain(columns[1])} = %{{customdata[1]:.4g}}<extra>%{{fullData.name}}</extra>")


def grid_ranges(fig, xs, ys, zero_room: float = 0.0) -> None:
    """Axes of a boundary picture that end where its grid ``xs`` × ``ys`` does (see
    :func:`engine.inspection.grid_axis`): points of a long tail it leaves out are off
    the picture, not stretching it. An axis whose grid starts at 0 (counts, not widened
    below) starts ``zero_room`` × its span lower, so that markers at 0 are whole."""
    for update, axis in ((fig.update_xaxes, xs), (fig.update_yaxes, ys)):
        low, high = float(axis[0]), float(axis[-1])
        update(range=[-zero_room * (high - low) if low == 0.0 else low, high])
