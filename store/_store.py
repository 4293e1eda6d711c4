"""The class store: classes, their members and their anonymous answers."""
from __future__ import annotations

import csv
import hashlib
import hmac
import io
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.export import escape_cell

from ._backends import Backend, Transaction, open_backend
from ._schema import migrate
from ._validate import (
    DEFAULT_TTL_HOURS,
    MAX_CHOICE,
    MAX_CLIENT,
    MAX_QUESTION,
    MAX_STUDENT,
    MAX_VIEW,
    StoreError,
    check_code,
    check_text,
    check_ttl,
    new_code,
)

#: A client (one browser session) may try this many wrong codes per window, then waits.
MAX_FAILED_JOINS = 20
FAILED_JOIN_WINDOW_S = 600.0
#: Fresh codes tried before giving up; with ~1e12 codes a second try is already rare.
_CODE_ATTEMPTS = 10

_LIVE_CLASS = ("SELECT current_view, current_question, revealed, expires_at FROM classes "
               "WHERE code = ? AND expires_at > ?")


@dataclass(frozen=True)
class ClassState:
    """What every screen of a class follows.

    ``view`` is the link query of the teacher's view (None until the teacher shows one),
    ``question`` the key of the question on screen (or None), ``revealed`` whether its right
    answer is shown, ``expires_at`` the end of the class in UTC seconds.
    """

    code: str
    view: str | None
    question: str | None
    revealed: bool
    expires_at: float


def _hash_key(teacher_key: str) -> str:
    key = check_text("teacher key", teacher_key, MAX_STUDENT)
    return hashlib.sha256(key.encode()).hexdigest()


def _unknown(code: str) -> StoreError:
    return StoreError(f"No class with the code {code} is running: check the code, or ask "
                      "the teacher for the current one (a class ends when its time is up).")


def _require_class(tx: Transaction, code: str, now: float) -> tuple:
    row = tx.execute(_LIVE_CLASS, (code, now)).fetchone()
    if row is None:
        raise _unknown(code)
    return row


class Store:
    """Class sessions and anonymous answers, in SQLite or PostgreSQL.

    Rules every method keeps:

    * An expired class is absent: every read and write treats it as an unknown code, and
      :meth:`expire` deletes it with its members and answers.
    * Input is checked before any query (:class:`StoreError`, a sentence for the user).
    * Students are opaque ids chosen by the caller; the store keeps no names.
    * A student answers a question once: a new answer replaces the old one.
    * Times are UTC seconds from ``clock`` (``time.time`` unless a test injects one).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = open_store(f"sqlite://{folder.name}/class.db")
    >>> code = store.create_class()
    >>> for student, choice in [("s1", "left"), ("s2", "right"), ("s3", "left")]:
    ...     _ = store.join(code, student)
    ...     store.answer(code, "q1", student, choice)
    >>> store.answer(code, "q1", "s2", "left")
    >>> store.tally(code, "q1"), store.n_members(code)
    ({'left': 3}, 3)
    >>> store.close(); folder.cleanup()
    """

    def __init__(self, backend: Backend, *, clock: Callable[[], float] = time.time):
        self._backend = backend
        self._clock = clock

    @property
    def backend_name(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._backend.name

    def create_class(self, ttl_hours: float = DEFAULT_TTL_HOURS, *,
                     teacher_key: str | None = None) -> str:
        """Start a class that lasts ``ttl_hours``; returns its code.

        ``teacher_key``, a secret the teacher's browser keeps, later proves who runs the
        class (:meth:`is_teacher`); only its SHA-256 is stored. Starting a class also
        deletes the expired ones, so a server that only ever starts classes still keeps no
        class past its time.
        """
        ttl_s = check_ttl(ttl_hours) * 3600.0
        key_hash = None if teacher_key is None else _hash_key(teacher_key)

        def work(tx: Transaction) -> str:
            now = self._clock()
            self._delete_expired(tx, now)
            for _ in range(_CODE_ATTEMPTS):
                code = new_code()
                inserted = tx.execute(
                    "INSERT INTO classes (code, created_at, expires_at, teacher_key_hash) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (code) DO NOTHING",
                    (code, now, now + ttl_s, key_hash)).rowcount
                if inserted == 1:
                    return code
            raise RuntimeError("no free class code found; the code space is exhausted")

        return self._backend.run(work, write=True)

    def is_teacher(self, code: str, teacher_key: str) -> bool:
        """Whether ``teacher_key`` is the key class ``code`` was started with (False for a
        class without one, or not running)."""
        code = check_code(code)
        key_hash = _hash_key(teacher_key)
        row = self._backend.run(lambda tx: tx.execute(
            "SELECT teacher_key_hash FROM classes WHERE code = ? AND expires_at > ?",
            (code, self._clock())).fetchone(), write=False)
        return bool(row and row[0]) and hmac.compare_digest(row[0], key_hash)

    def join(self, code: str, student: str, *, client: str | None = None) -> bool:
        """Add ``student`` to class ``code``; True if new, False if already a member.

        ``client`` names who is typing codes (the browser session; the student id if
        None). A client that tried ``MAX_FAILED_JOINS`` unknown codes within
        ``FAILED_JOIN_WINDOW_S`` is refused every join, right code or not, until its
        oldest failure leaves the window: guessing stays under 20 codes in 10 minutes.
        A malformed code is refused before this count and does not add to it. (On
        PostgreSQL, attempts arriving at the same instant may each pass the count: a few
        over the limit at most.)
        """
        code = check_code(code)
        student = check_text("student id", student, MAX_STUDENT)
        client = student if client is None else check_text("client key", client, MAX_CLIENT)

        def work(tx: Transaction) -> bool | StoreError:
            now = self._clock()
            failures = tx.execute(
                "SELECT COUNT(*) FROM failed_joins WHERE client = ? AND failed_at > ?",
                (client, now - FAILED_JOIN_WINDOW_S)).fetchone()[0]
            if failures >= MAX_FAILED_JOINS:
                return StoreError("Too many wrong codes from this browser: wait ten minutes, "
                                  "then type the code again.")
            if tx.execute(_LIVE_CLASS, (code, now)).fetchone() is None:
                tx.execute("INSERT INTO failed_joins (client, failed_at) VALUES (?, ?)",
                           (client, now))
                return _unknown(code)
            return tx.execute(
                "INSERT INTO members (code, student, joined_at) VALUES (?, ?, ?) "
                "ON CONFLICT (code, student) DO NOTHING", (code, student, now)).rowcount == 1

        # The failure is committed before it is raised, so it counts.
        outcome = self._backend.run(work, write=True)
        if isinstance(outcome, StoreError):
            raise outcome
        return outcome

    def answer(self, code: str, question: str, student: str, choice: str) -> None:
        """Record ``student``'s ``choice`` for ``question``; it replaces their earlier one.

        The student must have joined. Once a question is revealed its answers are closed,
        for good: a choice made after seeing the right answer would skew the room's count.
        """
        code = check_code(code)
        question = check_text("question key", question, MAX_QUESTION)
        student = check_text("student id", student, MAX_STUDENT)
        choice = check_text("answer", choice, MAX_CHOICE)

        def work(tx: Transaction) -> None:
            now = self._clock()
            _require_class(tx, code, now)
            if tx.execute("SELECT 1 FROM reveals WHERE code = ? AND question = ?",
                          (code, question)).fetchone() is not None:
                raise StoreError("The right answer to this question is already shown: "
                                 "answers to it are closed.")
            if tx.execute("SELECT 1 FROM members WHERE code = ? AND student = ?",
                          (code, student)).fetchone() is None:
                raise StoreError("Join the class with its code before answering.")
            tx.execute(
                "INSERT INTO answers (code, question, student, choice, answered_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, question, student) "
                "DO UPDATE SET choice = excluded.choice, answered_at = excluded.answered_at",
                (code, question, student, choice, now))

        self._backend.run(work, write=True)

    def choice_of(self, code: str, question: str, student: str) -> str | None:
        """``student``'s answer to ``question`` (None if none): a screen redrawn after a
        reload or a restart shows the student what they chose."""
        code = check_code(code)
        question = check_text("question key", question, MAX_QUESTION)
        student = check_text("student id", student, MAX_STUDENT)

        def work(tx: Transaction) -> str | None:
            _require_class(tx, code, self._clock())
            row = tx.execute("SELECT choice FROM answers WHERE code = ? AND question = ? "
                             "AND student = ?", (code, question, student)).fetchone()
            return None if row is None else row[0]

        return self._backend.run(work, write=False)

    def tally(self, code: str, question: str) -> dict[str, int]:
        """How many students chose each answer to ``question``: most chosen first, ties in
        code-point order of the answer."""
        code = check_code(code)
        question = check_text("question key", question, MAX_QUESTION)

        def work(tx: Transaction) -> dict[str, int]:
            _require_class(tx, code, self._clock())
            rows = tx.execute(
                "SELECT choice, COUNT(*) FROM answers WHERE code = ? AND question = ? "
                "GROUP BY choice", (code, question)).fetchall()
            # Sorted here, not by ORDER BY: PostgreSQL's collation may order text unlike
            # SQLite's, and both back-ends must give the same result.
            return {choice: count for choice, count in sorted(rows, key=lambda r: (-r[1], r[0]))}

        return self._backend.run(work, write=False)

    def n_members(self, code: str) -> int:
        """How many students have joined class ``code``."""
        code = check_code(code)

        def work(tx: Transaction) -> int:
            _require_class(tx, code, self._clock())
            return tx.execute("SELECT COUNT(*) FROM members WHERE code = ?",
                              (code,)).fetchone()[0]

        return self._backend.run(work, write=False)

    def show(self, code: str, view: str, question: str | None) -> None:
        """Move the class to ``view`` (a link query, may be empty) and ``question`` (or None).

        A question revealed before (on screen now or earlier) stays revealed; any other
        starts hidden.
        """
        code = check_code(code)
        view = check_text("view link", view, MAX_VIEW, allow_empty=True)
        if question is not None:
            question = check_text("question key", question, MAX_QUESTION)

        def work(tx: Transaction) -> None:
            updated = tx.execute(
                "UPDATE classes SET current_view = ?, current_question = ?, "
                "revealed = CASE WHEN EXISTS (SELECT 1 FROM reveals r WHERE r.code = "
                "classes.code AND r.question = ?) THEN 1 ELSE 0 END "
                "WHERE code = ? AND expires_at > ?",
                (view, question, question, code, self._clock())).rowcount
            if updated != 1:
                raise _unknown(code)

        self._backend.run(work, write=True)

    def reveal(self, code: str, question: str) -> None:
        """Show everyone the right answer to ``question``, which must be the one on screen."""
        code = check_code(code)
        question = check_text("question key", question, MAX_QUESTION)

        def work(tx: Transaction) -> None:
            now = self._clock()
            if _require_class(tx, code, now)[1] != question:
                raise StoreError("Only the question on screen can be revealed: "
                                 "show it to the class first.")
            tx.execute("INSERT INTO reveals (code, question, revealed_at) VALUES (?, ?, ?) "
                       "ON CONFLICT (code, question) DO NOTHING", (code, question, now))
            tx.execute("UPDATE classes SET revealed = 1 WHERE code = ?", (code,))

        self._backend.run(work, write=True)

    def is_revealed(self, code: str, question: str) -> bool:
        """Whether ``question`` has been revealed in class ``code`` (on screen now or not)."""
        code = check_code(code)
        question = check_text("question key", question, MAX_QUESTION)

        def work(tx: Transaction) -> bool:
            _require_class(tx, code, self._clock())
            return tx.execute("SELECT 1 FROM reveals WHERE code = ? AND question = ?",
                              (code, question)).fetchone() is not None

        return self._backend.run(work, write=False)

    def state(self, code: str) -> ClassState | None:
        """What class ``code`` shows now; None if no such class is running."""
        code = check_code(code)
        row = self._backend.run(
            lambda tx: tx.execute(_LIVE_CLASS, (code, self._clock())).fetchone(), write=False)
        if row is None:
            return None
        view, question, revealed, expires_at = row
        return ClassState(code, view, question, bool(revealed), float(expires_at))

    def expire(self, now: float | None = None) -> int:
        """Delete the classes over at ``now`` (default: the clock), with their members and
        answers, and forget failed joins older than the window; returns how many classes."""
        now = self._clock() if now is None else float(now)
        return self._backend.run(lambda tx: self._delete_expired(tx, now), write=True)

    @staticmethod
    def _delete_expired(tx: Transaction, now: float) -> int:
        tx.execute("DELETE FROM failed_joins WHERE failed_at <= ?",
                   (now - FAILED_JOIN_WINDOW_S,))
        return tx.execute("DELETE FROM classes WHERE expires_at <= ?", (now,)).rowcount

    def export_csv(self, code: str) -> str:
        """The class's answer counts as CSV: a ``question,choice,count`` header, then one
        row per question and answer given, in code-point order of question, then answer.

        Text cells a spreadsheet would run as a formula get a leading ``'``
        (:func:`engine.export.escape_cell`).
        """
        code = check_code(code)

        def work(tx: Transaction) -> list[tuple]:
            _require_class(tx, code, self._clock())
            return tx.execute(
                "SELECT question, choice, COUNT(*) FROM answers WHERE code = ? "
                "GROUP BY question, choice", (code,)).fetchall()

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(["question", "choice", "count"])
        for question, choice, count in sorted(self._backend.run(work, write=False)):
            writer.writerow([escape_cell(question), escape_cell(choice), count])
        return out.getvalue()

    def close(self) -> None:
        """Release the database connections; the store refuses work afterwards."""
        self._backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_store(url: str | None = None, *, clock: Callable[[], float] = time.time) -> Store:
    """The store at ``url``, else ``GLASSBOX_DATABASE_URL``, else ``var/glassbox.db``.

    ``postgresql://…`` uses PostgreSQL (psycopg 3); ``sqlite://PATH`` or nothing uses a
    SQLite file, created with its folder on first use (the folder is ``GLASSBOX_DATA_DIR``
    when set). Missing migrations are applied before the store is returned.
    """
    backend = open_backend(url)
    try:
        migrate(backend, clock())
    except BaseException:
        backend.close()
        raise
    return Store(backend, clock=clock)
