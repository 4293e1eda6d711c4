"""A ``store`` on each back-end: SQLite in a temporary folder, and PostgreSQL in a
throw-away cluster started for the test session (:mod:`tests.postgres`; without it the
PostgreSQL cases skip, and fail under ``CI=true``). Each test gets a schema of its own,
dropped after it.
"""
from __future__ import annotations

import pytest

from store import open_store
from tests.postgres import new_schema, postgres_server  # noqa: F401 - the fixture, offered here


class FakeClock:
    """A clock the test moves by hand: ``clock()`` is UTC seconds, ``advance(hours=1)``."""

    def __init__(self, now: float = 1_750_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, *, hours: float = 0.0, minutes: float = 0.0) -> None:
        self.now += hours * 3600.0 + minutes * 60.0


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """A URL to an empty database on each back-end (on PostgreSQL, an empty schema of
    the cluster's database, first on the search path: much faster than a database)."""
    if request.param == "sqlite":
        yield f"sqlite://{tmp_path}/class.db"
        return
    import psycopg

    server = request.getfixturevalue("postgres_server")
    schema, url = new_schema(server)
    yield url
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(store_url, clock):
    """An open store on a fresh database, closed after the test."""
    with open_store(store_url, clock=clock) as opened:
        yield opened
