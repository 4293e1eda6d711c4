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
