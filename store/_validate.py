"""What the class store accepts: class codes, field limits, lifetimes.

Every check runs before any query, so refused input never reaches a database. Messages are
sentences a student or teacher can act on; they never echo the refused value (it may be
megabytes long, or hostile).
"""
from __future__ import annotations

import math
import secrets

#: Code characters: digits and capitals without the look-alikes 0/O, 1/I/L.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: 31 ** 8 ≈ 8.5e11 codes: a room guessing one code a second for a lecture finds none.
CODE_LENGTH = 8

MAX_QUESTION = 64
MAX_CHOICE = 200
MAX_STUDENT = 64
MAX_CLIENT = 64
MAX_VIEW = 2_000

DEFAULT_TTL_HOURS = 24.0
#: A class lives at most a week; longer belongs to a course, not a lecture.
MAX_TTL_HOURS = 24.0 * 7


class StoreError(ValueError):
    """Input the class store refuses, or a class that is not there, said in one sentence."""


def new_code() -> str:
    """A fresh class code: ``CODE_LENGTH`` characters of ``CODE_ALPHABET`` from ``secrets``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def check_code(code: object) -> str:
    """``code`` as stored: spaces and hyphens dropped, upper case; StoreError if malformed.

    A teacher may write ``abcd-efgh`` on the board; it is the code ``ABCDEFGH``.
    """
    if isinstance(code, str):
        cleaned = code.replace(" ", "").replace("-", "").upper()
        if len(cleaned) == CODE_LENGTH and all(c in CODE_ALPHABET for c in cleaned):
            return cleaned
    raise StoreError(f"That is not a class code: a code is {CODE_LENGTH} characters, letters "
                     "A-Z and digits 2-9 (never 0, 1, I, L or O).")


def check_text(what: str, value: object, limit: int, *, allow_empty: bool = False) -> str:
    """``value`` unchanged if it is text of at most ``limit`` characters, else StoreError.

    Control characters are refused: PostgreSQL cannot store NUL, and no question key,
    answer or link needs a tab or a newline, so both back-ends refuse the same input.
    """
    if not isinstance(value, str):
        raise StoreError(f"The {what} must be text.")
    if not allow_empty and not value.strip():
        raise StoreError(f"The {what} is empty.")
    if len(value) > limit:
        raise StoreError(f"The {what} is too long: {len(value):,} characters, "
                         f"at most {limit:,}.")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise StoreError(f"The {what} holds control characters (such as a tab or a new "
                         "line), which a class does not store.")
    return value


def check_ttl(ttl_hours: object) -> float:
    """``ttl_hours`` as a float if a class may live that long (0 < ttl ≤ a week)."""
    if (isinstance(ttl_hours, int | float) and not isinstance(ttl_hours, bool)
            and math.isfinite(ttl_hours) and 0 < ttl_hours <= MAX_TTL_HOURS):
        return float(ttl_hours)
    raise StoreError(f"A class lasts more than 0 and at most {MAX_TTL_HOURS:g} hours.")
