"""SQLite and PostgreSQL behind one small interface: run a function in one transaction.

:meth:`Backend.run` takes a connection from a small pool, begins a transaction, calls
``work(tx)`` and commits, or rolls back if ``work`` raises. ``tx.execute`` takes SQL with
``?`` placeholders on both back-ends (:meth:`Transaction.execute` is the one place that
turns them into psycopg's ``%s``). Rules:

* One writer at a time. A write begins with ``BEGIN IMMEDIATE`` on SQLite (the write lock
  is taken at once, so two writers never both read and then fail to upgrade); SQLite
  waits up to ``BUSY_TIMEOUT_MS`` for it, and a transaction that still meets SQLITE_BUSY
  is run again from the start, up to ``ATTEMPTS`` times. On PostgreSQL a write is a
  READ COMMITTED transaction; a serialization failure or deadlock is retried the same way.
* A read sees one snapshot: deferred ``BEGIN`` on SQLite (WAL readers never block the
  writer), ``REPEATABLE READ, READ ONLY`` on PostgreSQL.
* A connection serves one thread at a time: Streamlit calls from many threads, and each
  call borrows a pooled connection for the length of one transaction (at most
  ``POOL_SIZE`` at once per store; further callers wait).
"""
from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ._validate import StoreError

T = TypeVar("T")

DATABASE_URL_ENV = "GLASSBOX_DATABASE_URL"
DATA_DIR_ENV = "GLASSBOX_DATA_DIR"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1] / "var"
DATABASE_FILE = "glassbox.db"

BUSY_TIMEOUT_MS = 5_000
ATTEMPTS = 5
RETRY_PAUSE_S = 0.05
POOL_SIZE = 4
#: Key of the PostgreSQL advisory lock that serialises migrations ("GLASBOX" in ASCII).
SCHEMA_LOCK_KEY = 0x474C4153424F58


class Transaction:
    """What a unit of work sees: :meth:`execute` with ``?`` placeholders."""

    def __init__(self, connection: Any, placeholder: str):
        self._connection = connection
        self._placeholder = placeholder

    def execute(self, sql: str, params: tuple = ()) -> Any:
        """Run one statement; returns the DB-API cursor (``fetchone``, ``rowcount``)."""
        if self._placeholder != "?":
            sql = sql.replace("%", "%%").replace("?", self._placeholder)
        return self._connection.execute(sql, params)


class Backend(ABC):
    """A pool of connections to one database and the transaction rules above."""

    name = ""
    placeholder = "?"

    def __init__(self, pool_size: int = POOL_SIZE):
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._closed = False

    @abstractmethod
    def _connect(self) -> Any:
        """A new connection to the database."""

    @abstractmethod
    def _begin(self, write: bool) -> str:
        """The statement that begins a write or a read transaction."""

    @abstractmethod
    def _is_transient(self, exc: Exception) -> bool:
        """Whether ``exc`` is a lock or serialization conflict worth running the work again for."""

    @abstractmethod
    def _reusable(self, connection: Any) -> bool:
        """Whether ``connection`` may go back to the pool after a failed transaction."""

    def lock_schema(self, tx: Transaction) -> None:
        """Hold the migration lock until the end of ``tx`` (the write lock suffices on SQLite)."""
        return  # the write transaction already excludes other writers

    def run(self, work: Callable[[Transaction], T], *, write: bool) -> T:
        """``work(tx)`` in one transaction, committed; retried whole on a transient failure."""
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return self._run_once(work, write)
            except Exception as exc:
                if attempt == ATTEMPTS or not self._is_transient(exc):
                    raise
                time.sleep(RETRY_PAUSE_S * attempt * (1 + random.random()))
        raise AssertionError("unreachable")

    def _run_once(self, work: Callable[[Transaction], T], write: bool) -> T:
        with self._connection() as connection:
            connection.execute(self._begin(write))
            try:
                result = work(Transaction(connection, self.placeholder))
                connection.execute("COMMIT")
            except BaseException:
                try:
                    connection.execute("ROLLBACK")
                except Exception:
                    connection.close()
                raise
            return result

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        if self._closed:
            raise StoreError("This class store is closed.")
        with self._slots:
            with self._lock:
                connection = self._idle.pop() if self._idle else None
            if connection is None:
                connection = self._connect()
            try:
                yield connection
            finally:
                self._give_back(connection)

    def _give_back(self, connection: Any) -> None:
        with self._lock:
            if not self._closed and self._reusable(connection):
                self._idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        """Close the idle connections; connections in use close when their work ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


class SQLiteBackend(Backend):
    """A database file, created on first use with its folder; WAL journal, foreign keys on."""

    name = "sqlite"

    def __init__(self, path: Path, pool_size: int = POOL_SIZE):
        super().__init__(pool_size)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions, run() issues BEGIN and COMMIT.
        # check_same_thread=False: the pool hands a connection to one thread at a time.
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA foreign_keys = ON")
            # WAL is a property of the file: set by the first connection, kept by the rest.
            connection.execute("PRAGMA journal_mode = WAL")
        except BaseException:
            connection.close()
            raise
        return connection

    def _begin(self, write: bool) -> str:
        return "BEGIN IMMEDIATE" if write else "BEGIN"

    def _is_transient(self, exc: Exception) -> bool:
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        return isinstance(exc, sqlite3.OperationalError) and code in (
            sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)

    def _reusable(self, connection: sqlite3.Connection) -> bool:
        try:
            return not connection.in_transaction
        except sqlite3.ProgrammingError:
            return False


class PostgresBackend(Backend):
    """A PostgreSQL database through psycopg 3, imported only when one is asked for."""

    name = "postgresql"
    placeholder = "%s"

    def __init__(self, url: str, pool_size: int = POOL_SIZE):
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(f"{DATABASE_URL_ENV} names a PostgreSQL database, but psycopg is "
                             "not installed: pip install 'psycopg[binary]>=3.1,<4'.") from exc
        super().__init__(pool_size)
        self._psycopg = psycopg
        self._url = url

    def _connect(self) -> Any:
        return self._psycopg.connect(self._url, autocommit=True)

    def _begin(self, write: bool) -> str:
        return "BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"

    def _is_transient(self, exc: Exception) -> bool:
        return isinstance(exc, self._psycopg.errors.TransactionRollback)

    def _reusable(self, connection: Any) -> bool:
        idle = self._psycopg.pq.TransactionStatus.IDLE
        return (not connection.closed and not connection.broken
                and connection.info.transaction_status == idle)

    def lock_schema(self, tx: Transaction) -> None:
        tx.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK_KEY,))


def data_dir() -> Path:
    """The folder of the default SQLite file: ``GLASSBOX_DATA_DIR``, else ``var/``."""
    return Path(os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR)


def open_backend(url: str | None = None) -> Backend:
    """The back-end ``url`` names, else ``GLASSBOX_DATABASE_URL``, else the SQLite file.

    ``postgresql://…`` (or ``postgres://…``) is a libpq connection URL;
    ``sqlite://PATH`` is a file (``sqlite:///srv/class.db`` is ``/srv/class.db``).
    """
    url = url or os.environ.get(DATABASE_URL_ENV) or None
    if url is None:
        return SQLiteBackend(data_dir() / DATABASE_FILE)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresBackend(url)
    if url.startswith("sqlite://") and len(url) > len("sqlite://"):
        return SQLiteBackend(Path(url.removeprefix("sqlite://")))
    # The URL itself is not repeated: it may hold a password.
    raise StoreError(f"{DATABASE_URL_ENV} must start with postgresql:// or sqlite://.")
