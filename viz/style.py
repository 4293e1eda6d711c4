"""One style object for every figure: palette, type size and line widths.

Plotly figures and graphviz diagrams read the same :class:`Style`, so a class has the
same colour in a bar chart and in a tree node, and presentation mode is one switch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import plotly.graph_objects as go

#: Colour-blind-safe qualitative palette: Okabe & Ito (2008) first, then Paul Tol's
#: "muted" and "bright" schemes for classes 9-16. Adjacent entries differ in hue and
#: lightness, so neighbouring classes stay apart under deuteranopia and protanopia.
PALETTE: tuple[str, ...] = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#332288",
    "#882255", "#44AA99", "#999933", "#AA4499", "#117733", "#88CCEE", "#DDCC77", "#661100",
)


@dataclass(frozen=True)
class Style:
    """How figures look. ``Style.presentation()`` is the projector version.

    Examples
    --------
    >>> Style().font_size < Style.presentation().font_size
    True
    >>> Style().color(17) == PALETTE[1]
    True
    """

    font_size: int = 14
    line_width: float = 2.0
    marker_size: int = 8
    palette: tuple[str, ...] = PALETTE
    font_family: str = "Source Sans Pro, Helvetica, Arial, sans-serif"
    text_color: str = "#1f2430"
    grid_color: str = "#e3e6ec"
    #: Tree diagrams draw every leaf on one bottom row, the predictions side by side; the
    #: projector version keeps each leaf at its depth, so the first screen holds the top
    #: levels and the early leaves instead of long edges down to the last row.
    leaves_in_a_row: bool = True

    @classmethod
    def presentation(cls) -> Style:
        """Large type (≥ 22 px), thick lines and big markers for a classroom projector."""
        return cls(font_size=24, line_width=4.0, marker_size=14, text_color="#000000",
                   grid_color="#c9ced8", leaves_in_a_row=False)

    def color(self, index: int) -> str:
        """Colour of the class or series at ``index`` (cycles past the palette's end)."""
        return self.palette[index % len(self.palette)]

    def reserve_margins(self, fig: go.Figure, *, y_range: tuple[float, float] | None = None,
                        y_labels=(), legend_names=()) -> go.Figure:
        """Margins wide enough, before the browser measures anything, for the tick
        labels of a y axis spanning ``y_range`` (or of the category labels ``y_labels``),
        both axis titles and a legend of ``legend_names`` at the right.

        Where automargin has to widen the margins, plotly draws the figure a second
        time with the wider ones (for a picture of two thousand points, a third to a
        half of its drawing); with margins wide enough it draws once. Too narrow an
        estimate costs only that second drawing, never a clipped label; too wide a few
        pixels of white.
        """
        em = self.font_size
        # the widest y tick label in ems: about 0.6 an average letter, 0.75 a digit
        ticks = max((0.6 * len(str(label)) for label in y_labels), default=0.0)
        if y_range is not None:
            ticks = max(ticks, 0.75 * _tick_chars(*y_range))
        longest = max((len(name) for name in legend_names), default=0)
        # pixels, at least what automargin asked for in the app (Streamlit's plotly
        # theme) at 14 and 24 px type
        return fig.update_layout(margin=dict(
            l=round(33 + em * (1.7 + ticks)), b=round(33 + 3.1 * em),
            r=round(90 + 0.4 * em * longest) if longest else 10))

    def legend_below(self, fig: go.Figure, *, plot_height: int = 300) -> go.Figure:
        """Put the legend under the figure, anchored to its bottom edge (not the plot's).

        The margin then grows to fit the legend, so it never covers the data, the axis
        title or the title, whatever the font size and however it wraps; the figure grows
        with the type so the plot keeps about ``plot_height`` pixels.
        """
        return fig.update_layout(
            legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0),
            height=plot_height + 16 * self.font_size)

    def apply(self, fig: go.Figure, *, title: str | None = None) -> go.Figure:
        """Set fonts, margins and grid on a plotly figure; returns the same figure."""
        fig.update_layout(
            title=title,
            font=dict(family=self.font_family, size=self.font_size, color=self.text_color),
            margin=dict(l=10, r=10, t=60 if title else 20, b=10),
            plot_bgcolor="white",
            paper_bgcolor="white",
            legend=dict(font=dict(size=self.font_size)),
            colorway=list(self.palette),
        )
        # Streamlit's plotly theme sets its own (smaller, grey) axis fonts, which win over
        # layout.font: set them here so presentation mode reaches the ticks too.
        axis_font = dict(size=self.font_size, color=self.text_color)
        for update in (fig.update_xaxes, fig.update_yaxes):
            update(gridcolor=self.grid_color, zerolinecolor=self.grid_color, automargin=True,
                   tickfont=axis_font, title_font=axis_font)
        return fig


def _tick_chars(low: float, high: float) -> int:
    """Characters of the widest tick label plotly writes on an axis from ``low`` to
    ``high``: its step is a 1, 2 or 5 (2.5 among tenths) times a power of ten, about six
    ticks to the axis, and every label has the step's decimals."""
    low, high = sorted((float(low), float(high)))
    span = high - low
    if not math.isfinite(span):
        return 3
    if span <= 0:
        span = abs(high) or 1.0
    step = span / 6
    power = 10.0 ** math.floor(math.log10(step))
    mantissa = min((m for m in (1, 2, 2.5, 5, 10) if m * power >= step), default=10)
    step = mantissa * power
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) + (mantissa == 2.5)
    return max(len(f"{v:.{decimals}f}") for v in (low, high))
