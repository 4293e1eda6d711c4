"""Text from the data, made safe to hand to plotly.

plotly.js reads a subset of HTML in every string it draws (tick labels, trace names,
hover text, titles, annotations): a class called ``<b>yes</b>`` would show as a bold
"yes", and ``<a href>`` would become a link. Escaping ``&``, ``<`` and ``>`` as
entities, which plotly.js decodes back to the characters, shows such text verbatim.
Labels written by the app itself (``S<sub>t</sub>``) are left as markup.
"""
from __future__ import annotations

import html
from collections.abc import Iterable


def plain(value) -> str:
    """``value`` as a string that plotly.js draws character for character.

    Examples
    --------
    >>> plain("<b>yes</b> & no")
    '&lt;b&gt;yes&lt;/b&gt; &amp; no'
    >>> plain(3)
    '3'
    """
    return html.escape(str(value), quote=False)


def plain_all(values: Iterable) -> list[str]:
    """:func:`plain` of each value, e.g. the categories of an axis."""
    return [plain(v) for v in values]


#: At most this many values are named in a label; the rest are counted.
MAX_NAMED_VALUES = 5
#: A named value longer than this is cut with "…".
MAX_VALUE_CHARS = 24


def value_list(values: Iterable, limit: int = MAX_NAMED_VALUES) -> str:
    """Values for a label: the first ``limit`` (each cut to ``MAX_VALUE_CHARS``), then how
    many more, so a split on a column of many categories stays as wide as its box.

    Examples
    --------
    >>> value_list(["a", "b"])
    'a, b'
    >>> value_list([str(349000 + i) for i in range(19)])
    '349000, 349001, 349002, 349003, 349004, … 14 more'
    """
    values = [str(v) for v in values]
    shown = [v if len(v) <= MAX_VALUE_CHARS else v[:MAX_VALUE_CHARS - 1] + "…"
             for v in values[:limit]]
    rest = len(values) - len(shown)
    return ", ".join(shown) + (f", … {rest} more" if rest else "")
