"""The live class's memory: class sessions and anonymous answers, kept across restarts.

A teacher starts a class (:meth:`Store.create_class` gives its code), students join with
the code (:meth:`Store.join`) and answer the question on screen (:meth:`Store.answer`), the
projector shows the room's counts (:meth:`Store.tally`) and the teacher moves everyone on
(:meth:`Store.show`, :meth:`Store.reveal`; students read :meth:`Store.state`).

SQLite by default (a file under ``GLASSBOX_DATA_DIR``, default ``var/``), PostgreSQL when
``GLASSBOX_DATABASE_URL=postgresql://…`` is set, for several app processes. Modules:
``_validate`` (codes and limits), ``_backends`` (connections and transactions),
``_schema`` (the migrations), ``_store`` (:class:`Store`). Nothing here imports Streamlit.
"""
from ._backends import DATA_DIR_ENV, DATABASE_URL_ENV
from ._schema import MIGRATIONS
from ._store import FAILED_JOIN_WINDOW_S, MAX_FAILED_JOINS, ClassState, Store, open_store
from ._validate import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DEFAULT_TTL_HOURS,
    MAX_CHOICE,
    MAX_QUESTION,
    MAX_STUDENT,
    MAX_VIEW,
    StoreError,
)

__all__ = [
    "CODE_ALPHABET", "CODE_LENGTH", "DATABASE_URL_ENV", "DATA_DIR_ENV", "DEFAULT_TTL_HOURS",
    "FAILED_JOIN_WINDOW_S", "MAX_CHOICE", "MAX_FAILED_JOINS", "MAX_QUESTION", "MAX_STUDENT",
    "MAX_VIEW", "MIGRATIONS", "ClassState", "Store", "StoreError", "open_store",
]
