"""Any Graphviz diagram as a file to download: DOT text in, SVG or PNG bytes out.

The browser draws DOT with Graphviz compiled to WebAssembly, but a file to put on a
slide or in a report needs the ``dot`` program (apt package ``graphviz``). When it is
not installed, :func:`render_dot` returns None and a page offers the DOT text alone,
saying why (:func:`unavailable_reason`).

``dot`` is run as a subprocess with a time limit, and only on DOT up to a size limit,
so one student's 3,000-node tree cannot hold the classroom's server.
"""
from __future__ import annotations

import functools
import logging
import shutil
import subprocess

#: Formats a page offers, with their MIME types.
FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
#: Longest DOT text rendered (characters); a 500-node tree with long labels is ~300,000.
MAX_DOT_CHARS = 400_000
#: Seconds ``dot`` may take before it is stopped.
TIMEOUT = 20.0
#: Pixels per inch of a PNG: 2 × a screen's 96, sharp on a projector and on paper.
PNG_DPI = 192


def dot_binary() -> str | None:
    """Path of Graphviz's ``dot`` program, or None when it is not installed."""
    return shutil.which("dot")


def unavailable_reason(dot: str, format: str = "svg") -> str | None:
    """Why ``dot`` cannot become a ``format`` file here (one sentence), or None when it can.

    PNG is a bitmap of the whole diagram, so it gets a quarter of the size limit of SVG.
    """
    if dot_binary() is None:
        _warn_no_dot()
        return ("SVG and PNG downloads are not available on this server; the diagram itself "
                "still shows in your browser, and the DOT file opens in any Graphviz tool.")
    limit = MAX_DOT_CHARS // (4 if format == "png" else 1)
    if len(dot) > limit:
        return (f"This diagram is too large to turn into {format.upper()} here; draw fewer "
                "levels, or open the DOT file in a Graphviz tool.")
    return None


@functools.cache
def _warn_no_dot() -> None:
    """Tell the server's log, once, how to enable the downloads; students never see this."""
    logging.getLogger(__name__).warning(
        "Graphviz's dot program is not on PATH: SVG and PNG downloads are off. "
        "Install it (apt-get install graphviz) to offer them.")


def render_dot(dot: str, format: str = "svg", *, timeout: float = TIMEOUT,
               dpi: int = PNG_DPI) -> bytes | None:
    """Render DOT text with Graphviz's ``dot`` program.

    Parameters
    ----------
    dot : str
        A complete DOT graph (``digraph … { … }``).
    format : {"svg", "png"}
    timeout : float
        Seconds before ``dot`` is stopped.
    dpi : int
        Resolution of a PNG (SVG is resolution-free and ignores it).

    Returns
    -------
    bytes or None
        The file's bytes; None when ``dot`` is not installed, the DOT exceeds the size
        limit, ``dot`` fails, or it runs out of time.

    Examples
    --------
    >>> svg = render_dot('digraph { a -> b }')
    >>> svg is None or b"<svg" in svg
    True
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {sorted(FORMATS)}, got {format!r}.")
    if unavailable_reason(dot, format) is not None:
        return None
    # A file lands on slides of any colour: white behind it, not the page's transparency.
    command = [dot_binary(), f"-T{format}", "-Gbgcolor=white"]
    command += [f"-Gdpi={dpi}"] if format == "png" else []
    try:
        done = subprocess.run(command, input=dot.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 and done.stdout else None


#: Pixels a browser draws per inch of a Graphviz layout.
PX_PER_INCH = 96


def drawn_width(dot: str, *, timeout: float = 5.0) -> float | None:
    """Width in pixels the browser will draw ``dot`` at its natural size, from Graphviz's
    own layout (``dot -Tplain``); None when ``dot`` is not installed, the DOT is over the
    size limit, or the layout fails.

    >>> width = drawn_width('digraph { a -> b }')
    >>> width is None or 40 < width < 100
    True
    """
    if unavailable_reason(dot) is not None:
        return None
    try:
        done = subprocess.run([dot_binary(), "-Tplain"], input=dot.encode("utf-8"),
                              capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = done.stdout.split(b"\n", 1)[0].split()
    if done.returncode != 0 or len(first) < 4 or first[0] != b"graph":
        return None
    return float(first[2]) * float(first[1]) * PX_PER_INCH
