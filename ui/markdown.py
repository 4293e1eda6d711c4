"""Text from a user's file made literal in Streamlit's Markdown.

Column names, category values and error messages that quote them come from the data:
a column called ``price_$`` or ``**total**`` must show as typed, not as maths or bold.
"""
from __future__ import annotations

import re


def literal(text) -> str:
    """``text`` with every ASCII punctuation mark backslash-escaped, so that st.markdown,
    st.info and friends show it character for character."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", str(text))
