"""The one schema, as numbered migrations that SQLite and PostgreSQL both run.

Migration ``n`` is ``MIGRATIONS[n - 1]``, a tuple of statements. ``schema_version`` holds
one row per migration applied. A shipped migration is never edited: a change to the schema
is a new entry at the end. The SQL is the common part of both dialects: ``TEXT``,
``INTEGER`` (0/1 for booleans), ``DOUBLE PRECISION`` (UTC seconds, ``time.time()``),
``ON CONFLICT`` upserts, ``ON DELETE CASCADE``.

Deleting a class deletes its members, and deleting a member deletes their answers, so
:meth:`store.Store.expire` is one ``DELETE FROM classes``.
"""
from __future__ import annotations

from ._backends import Backend, Transaction
from ._validate import StoreError

SCHEMA_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied_at DOUBLE PRECISION NOT NULL
)"""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE classes (
            code TEXT PRIMARY KEY,
            created_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            current_view TEXT,
            current_question TEXT,
            revealed INTEGER NOT NULL DEFAULT 0 CHECK (revealed IN (0, 1))
        )""",
        "CREATE INDEX classes_by_expiry ON classes (expires_at)",
        """CREATE TABLE members (
            code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
            student TEXT NOT NULL,
            joined_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (code, student)
        )""",
        """CREATE TABLE answers (
            code TEXT NOT NULL,
            question TEXT NOT NULL,
            student TEXT NOT NULL,
            choice TEXT NOT NULL,
            answered_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (code, question, student),
            FOREIGN KEY (code, student) REFERENCES members (code, student) ON DELETE CASCADE
        )""",
        # The cascade from members looks answers up by (code, student).
        "CREATE INDEX answers_by_member ON answers (code, student)",
        """CREATE TABLE failed_joins (
            client TEXT NOT NULL,
            failed_at DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX failed_joins_by_client ON failed_joins (client, failed_at)",
    ),
    (
        # The SHA-256 of the teacher's key (hex): whoever shows it runs the class's screen.
        "ALTER TABLE classes ADD COLUMN teacher_key_hash TEXT",
        # Every question ever revealed: going back to one keeps it revealed and closed.
        # classes.revealed stays the state of the question on screen.
        """CREATE TABLE reveals (
            code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
            question TEXT NOT NULL,
            revealed_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (code, question)
        )""",
        "INSERT INTO reveals (code, question, revealed_at) SELECT code, current_question, "
        "created_at FROM classes WHERE revealed = 1 AND current_question IS NOT NULL",
    ),
)


def migrate(backend: Backend, now: float) -> int:
    """Apply the migrations the database lacks, each once; returns the schema version.

    One write transaction under the migration lock, so processes opening the same
    database at once apply each migration exactly once (the others wait, then find it done).
    """

    def work(tx: Transaction) -> int:
        backend.lock_schema(tx)
        tx.execute(SCHEMA_VERSION_TABLE)
        current = tx.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0]
        if current > len(MIGRATIONS):
            raise StoreError(f"The class database has schema version {current}, newer than "
                             f"this Glassbox knows ({len(MIGRATIONS)}): update Glassbox.")
        for version in range(current + 1, len(MIGRATIONS) + 1):
            for statement in MIGRATIONS[version - 1]:
                tx.execute(statement)
            tx.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                       (version, now))
        return len(MIGRATIONS)

    return backend.run(work, write=True)
