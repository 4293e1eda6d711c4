"""A drawing: points a student places on a plane, each of a class, as a short text and a table.

A drawing is an integer array of shape ``(n_points, 3)``: the column and row of the
point's cell on a ``GRID`` × ``GRID`` plane and its class (0, 1 or 2). Its text, the form a
link carries, is base64url (no padding) of two bytes per point, big-endian, holding
``(class * GRID + row) * GRID + column`` (below 30,000, so 16 bits hold it). Order is kept,
so the last point is the one drawn last. At most ``MAX_POINTS`` points: the text is at
most ``MAX_TEXT`` characters. A text this module did not write (another alphabet, a
length no drawing has, a code past the last cell or class, more points) is refused with
a :class:`~engine.data.DataError` that says why.

As a table (:func:`to_frame`) a drawing has the columns of the bundled two-feature
samples: ``x1``, ``x2`` (the cell divided by 10, so the plane runs from 0 to 9.9) and
``class`` (``A``, ``B``, ``C``).

Examples
--------
>>> points = np.array([[10, 20, 0], [75, 60, 1]])
>>> encode(points)
'B9o-yw'
>>> decode("B9o-yw").tolist()
[[10, 20, 0], [75, 60, 1]]
>>> to_frame(points)
    x1   x2 class
0  1.0  2.0     A
1  7.5  6.0     B
"""
from __future__ import annotations

import base64
import binascii
import re

import numpy as np
import pandas as pd

from engine._csv import DataError

#: Cells per axis: a point's column and row run 0 .. GRID - 1.
GRID = 100
#: Classes a drawing may hold, by the names its table gives them.
CLASS_NAMES = ("A", "B", "C")
MAX_POINTS = 300
#: Characters of the text of MAX_POINTS points (base64 of two bytes each, no padding).
MAX_TEXT = -(-MAX_POINTS * 2 * 4 // 3)
#: The table's columns: the two features, then the class.
COLUMNS = ("x1", "x2", "class")
#: A table's coordinate is the cell divided by this (0 .. 9.9).
SCALE = 10

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")
_CODES = GRID * GRID * len(CLASS_NAMES)


def check(points) -> np.ndarray:
    """``points`` as an int64 array of shape (n, 3), or a ValueError naming what is off."""
    points = np.asarray(points, dtype=np.int64)
    if points.size == 0:
        return np.zeros((0, 3), dtype=np.int64)
    if points.ndim != 2 or points.shape[1] != 3:
        raise DataError(f"A drawing is rows of (column, row, class); got shape {points.shape}.")
    if len(points) > MAX_POINTS:
        raise DataError(f"A drawing holds at most {MAX_POINTS} points; this one has {len(points)}.")
    cells, classes = points[:, :2], points[:, 2]
    if ((cells < 0) | (cells >= GRID)).any():
        raise DataError(f"A point's cell must run from 0 to {GRID - 1} on each axis.")
    if ((classes < 0) | (classes >= len(CLASS_NAMES))).any():
        raise DataError(f"A point's class must be one of 0 to {len(CLASS_NAMES) - 1}.")
    return points


def encode(points) -> str:
    """The text of a drawing (see the module's notes); ``""`` for no points."""
    points = check(points)
    codes = (points[:, 2] * GRID + points[:, 1]) * GRID + points[:, 0]
    raw = codes.astype(">u2").tobytes()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode(text: str) -> np.ndarray:
    """The drawing of ``text``, an int64 array of shape (n, 3) of column, row and class.

    Raises
    ------
    DataError
        When ``text`` is longer than ``MAX_TEXT`` characters or is not a text that
        :func:`encode` writes; the message says which, for the user.
    """
    if len(text) > MAX_TEXT:
        raise DataError(f"it holds about {len(text) * 3 // 8:,} points, and a drawing holds "
                        f"at most {MAX_POINTS}.")
    damaged = DataError("it is not a drawing this app wrote: part of it may have been cut "
                        "off or changed.")
    if not _ALPHABET.fullmatch(text):
        raise damaged
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise damaged from None
    if len(raw) % 2:
        raise damaged
    codes = np.frombuffer(raw, dtype=">u2").astype(np.int64)
    if (codes >= _CODES).any():
        raise damaged
    points = np.column_stack([codes % GRID, codes // GRID % GRID, codes // (GRID * GRID)])
    if encode(points) != text:  # other trailing bits: a text encode never writes
        raise damaged
    return points


def to_frame(points) -> pd.DataFrame:
    """The table of a drawing: ``x1``, ``x2`` (float, cell / 10) and ``class`` (A, B, C),
    one row per point in the order drawn."""
    points = check(points)
    x1, x2, target = COLUMNS
    return pd.DataFrame({
        x1: points[:, 0] / SCALE,
        x2: points[:, 1] / SCALE,
        target: pd.array([CLASS_NAMES[k] for k in points[:, 2]], dtype="str"),
    })


# --- Starting shapes --------------------------------------------------------------------

#: The shapes a drawing can start from, by name, with what a student sees.
SHAPES = {
    "blobs": "Two blobs",
    "three_blobs": "Three blobs",
    "xor": "XOR",
    "circles": "Circles",
    "moons": "Two moons",
}


def starting_shape(name: str, *, random_state: int = 0) -> np.ndarray:
    """A drawing to start from (``SHAPES``): 60 or so points, the same for the same seed.

    Examples
    --------
    >>> shape = starting_shape("xor")
    >>> shape.shape, sorted(set(shape[:, 2].tolist()))
    ((60, 3), [0, 1])
    """
    rng = np.random.default_rng(random_state)
    make = {"blobs": _blobs, "three_blobs": _three_blobs, "xor": _xor,
            "circles": _circles, "moons": _moons}
    if name not in make:
        raise ValueError(f"No starting shape {name!r}; choose one of {sorted(SHAPES)}.")
    xy, classes = make[name](rng)
    cells = np.clip(np.rint(xy), 0, GRID - 1).astype(np.int64)
    return np.column_stack([cells, classes]).astype(np.int64)


def _around(rng, centres, n: int, spread: float):
    """``n`` Gaussian points around each centre, class k around centre k."""
    xy = np.concatenate([rng.normal(centre, spread, size=(n, 2)) for centre in centres])
    return xy, np.repeat(np.arange(len(centres)), n)


def _blobs(rng):
    return _around(rng, [(32, 35), (68, 65)], 30, 9)


def _three_blobs(rng):
    return _around(rng, [(28, 30), (72, 32), (50, 72)], 20, 8)


def _xor(rng):
    xy = rng.uniform(8, 92, size=(120, 2))
    xy = xy[np.abs(xy - 50).min(axis=1) > 5][:60]  # a gap along the two middle lines
    return xy, ((xy[:, 0] > 50) ^ (xy[:, 1] > 50)).astype(int)


def _circles(rng):
    n = 30
    angle = rng.uniform(0, 2 * np.pi, size=2 * n)
    radius = np.repeat([14.0, 36.0], n) + rng.normal(0, 2.5, size=2 * n)
    xy = 50 + radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    return xy, np.repeat([0, 1], n)


def _moons(rng):
    n = 30
    angle = rng.uniform(0, np.pi, size=n)
    upper = np.column_stack([np.cos(angle), np.sin(angle)])
    lower = np.column_stack([1 - np.cos(angle), 0.5 - np.sin(angle)])
    xy = np.concatenate([upper, lower]) + rng.normal(0, 0.08, size=(2 * n, 2))
    return 50 + 27 * (xy - [0.5, 0.25]), np.repeat([0, 1], n)
