"""The live class on the projector: how many students chose each answer."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from ._text import plain_all
from .style import Style

DEFAULT_STYLE = Style()
#: Bars of an answer not yet known to be right or wrong, of the right one, of the others.
OPEN_COLOR, RIGHT_COLOR, WRONG_COLOR = "#0072B2", "#009E73", "#b9bec8"


def tally_figure(options: Sequence[str], counts: Mapping[str, int], *,
                 right: int | None = None, style: Style = DEFAULT_STYLE) -> go.Figure:
    """One horizontal bar per option, in the options' order (top to bottom), its count
    written at its end; once ``right`` (an index into ``options``) is given the right bar
    turns green and the others grey. Answers that are not among the options (a student's
    screen showed an older question) are left out: the chart counts this question's.

    Examples
    --------
    >>> fig = tally_figure(["left", "right"], {"right": 3, "left": 1, "old": 2}, right=1)
    >>> list(fig.data[0].x), list(fig.data[0].y)
    ([1, 3], ['left', 'right'])
    """
    values = [int(counts.get(option, 0)) for option in options]
    if right is None:
        colors = [OPEN_COLOR] * len(options)
    else:
        colors = [RIGHT_COLOR if i == right else WRONG_COLOR for i in range(len(options))]
    labels = plain_all(options)
    fig = go.Figure(go.Bar(
        x=values, y=labels, orientation="h", marker_color=colors, text=values,
        textposition="outside", cliponaxis=False, textfont=dict(size=style.font_size + 6),
        hovertemplate="%{y}: %{x}<extra></extra>"))
    top = max(values, default=0)
    fig.update_layout(height=90 + 2.6 * (style.font_size + 14) * len(options), showlegend=False,
                      bargap=0.25)
    fig.update_xaxes(range=[0, max(1, top) * 1.15], dtick=1 if top <= 8 else None,
                     tickformat=",d", title="students")
    fig.update_yaxes(type="category", autorange="reversed",
                     tickfont=dict(size=style.font_size + 4))
    style.apply(fig)
    fig.update_yaxes(tickfont=dict(size=style.font_size + 4))  # bigger than the axis default
    return fig
