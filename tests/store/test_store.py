"""The class store on SQLite and PostgreSQL: counts, isolation, expiry, restarts, many
writers at once, refused input, migrations, rate limiting, the CSV export."""
from __future__ import annotations

import csv
import io
import multiprocessing
import sqlite3
import threading
import time
from contextlib import closing

import pytest

from store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DATA_DIR_ENV,
    DATABASE_URL_ENV,
    FAILED_JOIN_WINDOW_S,
    MAX_CHOICE,
    MAX_FAILED_JOINS,
    MAX_QUESTION,
    MAX_STUDENT,
    MAX_VIEW,
    MIGRATIONS,
    ClassState,
    Store,
    StoreError,
    open_store,
)
from store._validate import new_code

from .conftest import FakeClock


def _rows(store: Store, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows of a raw query: what is really in the database, past the public API."""
    return store._backend.run(lambda tx: tx.execute(sql, params).fetchall(), write=False)


def _count(store: Store, table: str) -> int:
    return _rows(store, f"SELECT COUNT(*) FROM {table}")[0][0]


def _class_with(store: Store, answers: dict[str, str], question: str = "q1",
                ttl_hours: float = 24) -> str:
    """A new class whose students (the keys) have joined and answered ``question``."""
    code = store.create_class(ttl_hours)
    for student, choice in answers.items():
        assert store.join(code, student) is True
        store.answer(code, question, student, choice)
    return code


def test_create_join_answer_tally(store, store_url):
    assert store.backend_name in store_url
    code = store.create_class()
    assert store.n_members(code) == 0
    assert store.tally(code, "q1") == {}
    for student in ("s1", "s2", "s3", "s4"):
        assert store.join(code, student) is True
    assert store.join(code, "s2") is False
    assert store.n_members(code) == 4
    for student, choice in [("s1", "left"), ("s2", "right"), ("s3", "left")]:
        store.answer(code, "q1", student, choice)
    store.answer(code, "q2", "s4", "right")
    assert store.tally(code, "q1") == {"left": 2, "right": 1}
    assert list(store.tally(code, "q1")) == ["left", "right"]
    assert store.tally(code, "q2") == {"right": 1}
    assert _count(store, "answers") == 4


def test_the_last_answer_counts(store):
    code = _class_with(store, {"s1": "a", "s2": "a", "s3": "b"})
    store.answer(code, "q1", "s1", "b")
    store.answer(code, "q1", "s1", "c")
    store.answer(code, "q1", "s2", "b")
    assert store.tally(code, "q1") == {"b": 2, "c": 1}
    assert sum(store.tally(code, "q1").values()) == store.n_members(code) == 3
    assert _rows(store, "SELECT choice FROM answers WHERE student = ?", ("s1",)) == [("c",)]


def test_a_students_own_answer_reads_back(store):
    code = _class_with(store, {"s1": "left", "s2": "right"})
    store.answer(code, "q1", "s1", "right")
    assert store.choice_of(code, "q1", "s1") == "right"
    assert store.choice_of(code, "q1", "s2") == "right"
    assert store.choice_of(code, "q2", "s1") is None
    assert store.choice_of(code, "q1", "s9") is None
    other = _class_with(store, {"s1": "up"})
    assert store.choice_of(other, "q1", "s1") == "up"  # one class never sees another's


def test_only_members_answer(store):
    code = store.create_class()
    with pytest.raises(StoreError, match="Join the class"):
        store.answer(code, "q1", "stranger", "a")
    assert store.tally(code, "q1") == {}


def test_two_classes_never_see_each_other(store):
    first = _class_with(store, {"s1": "x", "s2": "x"})
    second = _class_with(store, {"s3": "y", "s1": "z"})
    assert store.tally(first, "q1") == {"x": 2}
    assert store.tally(second, "q1") == {"y": 1, "z": 1}
    assert store.n_members(first) == store.n_members(second) == 2
    with pytest.raises(StoreError, match="Join the class"):
        store.answer(second, "q1", "s2", "y")
    store.show(first, "page=tree", "q1")
    store.reveal(first, "q1")
    assert store.state(second) == ClassState(second, None, None, False,
                                             store.state(second).expires_at)
    store.answer(second, "q1", "s3", "w")
    assert store.tally(first, "q1") == {"x": 2}
    assert "y" not in store.export_csv(first) and "x" not in store.export_csv(second)


def test_show_and_reveal_move_the_whole_class(store, clock):
    code = _class_with(store, {"s1": "a", "s2": "b"})
    assert store.state(code) == ClassState(code, None, None, False, clock() + 24 * 3600)
    store.show(code, "page=forest&trees=10", "q1")
    assert store.state(code) == ClassState(code, "page=forest&trees=10", "q1", False,
                                           clock() + 24 * 3600)
    with pytest.raises(StoreError, match="on screen"):
        store.reveal(code, "q2")
    store.reveal(code, "q1")
    assert store.state(code).revealed is True
    store.show(code, "page=forest&trees=10", "q1")
    assert store.state(code).revealed is True
    with pytest.raises(StoreError, match="closed"):
        store.answer(code, "q1", "s2", "a")
    assert store.tally(code, "q1") == {"a": 1, "b": 1}
    store.answer(code, "q2", "s2", "a")
    store.show(code, "page=forest&trees=20", "q2")
    assert store.state(code) == ClassState(code, "page=forest&trees=20", "q2", False,
                                           clock() + 24 * 3600)
    assert store.is_revealed(code, "q1") and not store.is_revealed(code, "q2")
    store.show(code, "page=forest&trees=10", "q1")  # back to a revealed question
    assert store.state(code).revealed is True
    with pytest.raises(StoreError, match="closed"):
        store.answer(code, "q1", "s2", "a")
    store.show(code, "", None)
    assert (store.state(code).view, store.state(code).question) == ("", None)


def test_an_expired_class_is_gone_and_expire_deletes_its_rows(store, clock):
    short = _class_with(store, {"s1": "a", "s2": "b"}, ttl_hours=1)
    store.create_class(ttl_hours=1)
    long = _class_with(store, {"s9": "c"}, ttl_hours=3)
    clock.advance(hours=1)
    assert store.state(short) is None and store.state(long) is not None
    for refused in (lambda: store.tally(short, "q1"), lambda: store.n_members(short),
                    lambda: store.join(short, "s3"), lambda: store.answer(short, "q1", "s1", "b"),
                    lambda: store.show(short, "", "q1"), lambda: store.reveal(short, "q1"),
                    lambda: store.export_csv(short)):
        with pytest.raises(StoreError, match="No class"):
            refused()
    assert [_count(store, t) for t in ("classes", "members", "answers")] == [3, 3, 3]
    assert store.expire() == 2
    assert [_count(store, t) for t in ("classes", "members", "answers")] == [1, 1, 1]
    assert store.expire() == 0
    assert store.tally(long, "q1") == {"c": 1}
    clock.now -= 3600
    assert store.state(short) is None
    assert store.expire(now=clock() + 3 * 3600) == 1
    assert [_count(store, t) for t in ("classes", "members", "answers")] == [0, 0, 0]


def test_starting_a_class_sweeps_the_expired_ones(store, clock):
    old = _class_with(store, {"s1": "a"})
    clock.advance(hours=25)
    new = store.create_class()
    assert [row[0] for row in _rows(store, "SELECT code FROM classes")] == [new]
    assert (_count(store, "members"), _count(store, "answers")) == (0, 0)
    clock.now -= 25 * 3600
    assert store.state(old) is None


def test_a_restart_keeps_every_class_and_answer(store_url, clock):
    with open_store(store_url, clock=clock) as first:
        code = _class_with(first, {"s1": "a", "s2": "b", "s3": "a"})
        first.show(code, "page=tree&depth=2", "q1")
        first.reveal(code, "q1")
        expected = (first.tally(code, "q1"), first.n_members(code), first.state(code))
    assert expected[:2] == ({"a": 2, "b": 1}, 3)
    with pytest.raises(StoreError, match="closed"):
        first.tally(code, "q1")
    with open_store(store_url, clock=clock) as second:
        assert (second.tally(code, "q1"), second.n_members(code), second.state(code)) == expected
        assert second.state(code) == ClassState(code, "page=tree&depth=2", "q1", True,
                                                clock() + 24 * 3600)


def _choice_of(student: str) -> str:
    return "left" if int(student.rsplit("-", 1)[1]) % 4 == 0 else "right"


def _answer_for(url: str, code: str, students: list[str], clock, start) -> None:
    """Each student joins, answers wrong first, then changes to their real choice."""
    with open_store(url, clock=clock) as own:
        start()
        for student in students:
            own.join(code, student)
            own.answer(code, "q1", student, "undecided")
            own.answer(code, "q1", student, _choice_of(student))


def test_a_hundred_students_at_once_through_separate_stores(store, store_url, clock):
    code = store.create_class()
    store.show(code, "page=tree", "q1")
    students = [f"student-{i:03d}" for i in range(100)]
    n_threads = 10
    barrier = threading.Barrier(n_threads, timeout=60)
    errors: list[BaseException] = []

    def run(group: list[str]) -> None:
        try:
            _answer_for(store_url, code, group, clock, barrier.wait)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(students[i::n_threads],))
               for i in range(n_threads)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # The bound: a hundred answers within ten seconds on a 2-core server.
    assert time.perf_counter() - started < 10
    assert errors == []
    assert store.n_members(code) == 100
    assert store.tally(code, "q1") == {"right": 75, "left": 25}


def test_one_store_shared_by_many_threads(store):
    code = store.create_class()
    students = [f"student-{i:03d}" for i in range(48)]
    errors: list[BaseException] = []

    def run(group: list[str]) -> None:
        try:
            for student in group:
                store.join(code, student)
                store.answer(code, "q1", student, _choice_of(student))
                assert store.tally(code, "q1")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(students[i::16],)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.tally(code, "q1") == {"right": 36, "left": 12}


def test_several_processes_write_one_sqlite_file(tmp_path, clock):
    url = f"sqlite://{tmp_path}/class.db"
    with open_store(url, clock=clock) as store:
        code = store.create_class()
        students = [f"student-{i:03d}" for i in range(100)]
        fork = multiprocessing.get_context("fork")
        start = fork.Event()
        workers = [fork.Process(target=_answer_for, args=(url, code, students[i::4], clock,
                                                          lambda: start.wait(60)))
                   for i in range(4)]
        for worker in workers:
            worker.start()
        start.set()
        for worker in workers:
            worker.join(60)
        assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
        assert store.n_members(code) == 100
        assert store.tally(code, "q1") == {"right": 75, "left": 25}


def _open_and_close(url: str) -> None:
    open_store(url).close()


def test_processes_opening_a_new_sqlite_file_at_once_migrate_it_once(tmp_path):
    url = f"sqlite://{tmp_path}/class.db"
    fork = multiprocessing.get_context("fork")
    workers = [fork.Process(target=_open_and_close, args=(url,)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
    with open_store(url) as store:
        assert _rows(store, "SELECT version FROM schema_version ORDER BY version") == [
            (v,) for v in range(1, len(MIGRATIONS) + 1)]


@pytest.fixture
def code(store):
    return store.create_class()


#: Calls the store must refuse, with the words its message must hold.
REFUSED = [
    (lambda s, c: s.join("ABC", "s1"), "not a class code"),
    (lambda s, c: s.join("ABCDEFG0", "s1"), "not a class code"),
    (lambda s, c: s.join("ABCDEFGI", "s1"), "not a class code"),
    (lambda s, c: s.join(c + "2", "s1"), "not a class code"),
    (lambda s, c: s.state(12345678), "not a class code"),
    (lambda s, c: s.tally(None, "q1"), "not a class code"),
    (lambda s, c: s.join(c, ""), "student id is empty"),
    (lambda s, c: s.join(c, "   "), "student id is empty"),
    (lambda s, c: s.join(c, "s" * (MAX_STUDENT + 1)), "student id is too long"),
    (lambda s, c: s.join(c, 42), "student id must be text"),
    (lambda s, c: s.join(c, "s1", client="k" * 65), "client key is too long"),
    (lambda s, c: s.answer(c, "", "s1", "a"), "question key is empty"),
    (lambda s, c: s.answer(c, "q" * (MAX_QUESTION + 1), "s1", "a"), "question key is too long"),
    (lambda s, c: s.answer(c, "q1", "s1", ""), "answer is empty"),
    (lambda s, c: s.answer(c, "q1", "s1", "x" * (MAX_CHOICE + 1)), "answer is too long"),
    (lambda s, c: s.answer(c, "q1", "s1", "a\x00b"), "control characters"),
    (lambda s, c: s.answer(c, "q1", "s1", "line\nbreak"), "control characters"),
    (lambda s, c: s.answer(c, "q1", "s1", ["a"]), "answer must be text"),
    (lambda s, c: s.show(c, "v" * (MAX_VIEW + 1), "q1"), "view link is too long"),
    (lambda s, c: s.show(c, "page=tree", ""), "question key is empty"),
    (lambda s, c: s.reveal(c, "q" * 1_000_000), "question key is too long"),
    (lambda s, c: s.create_class(ttl_hours=0), "A class lasts"),
    (lambda s, c: s.create_class(ttl_hours=-1), "A class lasts"),
    (lambda s, c: s.create_class(ttl_hours=float("inf")), "A class lasts"),
    (lambda s, c: s.create_class(ttl_hours=24 * 8), "A class lasts"),
    (lambda s, c: s.create_class(ttl_hours="24"), "A class lasts"),
]


@pytest.mark.parametrize("call, words", REFUSED)
def test_malformed_and_oversized_input_is_refused(store, code, call, words):
    with pytest.raises(StoreError, match=words):
        call(store, code)
    assert (_count(store, "members"), _count(store, "answers")) == (0, 0)


class _NoQueries:
    """A back-end that fails any test reaching it."""

    name = "none"

    def run(self, work, *, write):
        raise AssertionError("input reached the database")


@pytest.mark.parametrize("call, words", REFUSED)
def test_input_is_refused_before_any_query(call, words):
    with pytest.raises(StoreError, match=words):
        call(Store(_NoQueries()), "ABCDEFGH")


def test_the_longest_accepted_values_come_back_unchanged(store, code):
    student, question = "é" * MAX_STUDENT, "ü" * MAX_QUESTION
    choice, view = "∑ x ≤ 2.5, y" * (MAX_CHOICE // 12) + "." * (MAX_CHOICE % 12), "v" * MAX_VIEW
    assert len(choice) == MAX_CHOICE
    store.join(code, student)
    store.answer(code, question, student, choice)
    store.show(code, view, question)
    assert store.tally(code, question) == {choice: 1}
    assert (store.state(code).view, store.state(code).question) == (view, question)


def test_an_unknown_code_is_refused_with_a_sentence(store):
    code = store.create_class()
    unknown = next(c for c in iter(new_code, None) if c != code)
    with pytest.raises(StoreError, match=f"No class with the code {unknown} is running"):
        store.join(unknown, "s1")
    assert store.state(unknown) is None


def test_codes_are_random_unambiguous_and_read_as_typed(store):
    codes = {store.create_class() for _ in range(40)}
    assert len(codes) == 40
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert not set("01ILO") & set(CODE_ALPHABET)
    assert len(CODE_ALPHABET) ** CODE_LENGTH > 5e11
    code = codes.pop()
    assert store.join(f" {code[:4].lower()}-{code[4:]} ", "s1") is True
    assert store.n_members(code.lower()) == 1


def test_guessing_codes_is_rate_limited(store, clock):
    code = store.create_class()
    guesses = [c for c in (new_code() for _ in range(MAX_FAILED_JOINS + 5)) if c != code]
    for _ in range(MAX_FAILED_JOINS + 5):
        with pytest.raises(StoreError, match="not a class code"):
            store.join("WRONG", "guesser", client="tab-1")
    for guess in guesses[:MAX_FAILED_JOINS]:
        with pytest.raises(StoreError, match="No class"):
            store.join(guess, "guesser", client="tab-1")
    with pytest.raises(StoreError, match="Too many wrong codes"):
        store.join(code, "guesser", client="tab-1")
    with pytest.raises(StoreError, match="Too many wrong codes"):
        store.join(code, "another-student", client="tab-1")
    assert store.n_members(code) == 0
    assert store.join(code, "guesser", client="tab-2") is True
    clock.advance(minutes=FAILED_JOIN_WINDOW_S / 60 - 1)
    with pytest.raises(StoreError, match="Too many wrong codes"):
        store.join(code, "another-student", client="tab-1")
    clock.advance(minutes=1, hours=1 / 3600)
    assert store.join(code, "another-student", client="tab-1") is True
    assert store.n_members(code) == 2
    assert store.expire() == 0
    assert _count(store, "failed_joins") == 0


def test_export_csv_reads_back_as_the_counts(store):
    code = _class_with(store, {"s1": "a", "s2": "a", "s3": "b, or c"})
    store.answer(code, "q2", "s1", "=HYPERLINK(1)")
    store.answer(code, "q2", "s2", 'say "yes"')
    store.answer(code, "Q0", "s3", "-1")
    rows = list(csv.reader(io.StringIO(store.export_csv(code))))
    assert rows == [["question", "choice", "count"],
                    ["Q0", "'-1", "1"],
                    ["q1", "a", "2"],
                    ["q1", "b, or c", "1"],
                    ["q2", "'=HYPERLINK(1)", "1"],
                    ["q2", 'say "yes"', "1"]]
    empty = store.create_class()
    assert list(csv.reader(io.StringIO(store.export_csv(empty)))) == [
        ["question", "choice", "count"]]


def test_migrations_run_once(store_url, clock):
    for _ in range(3):
        with open_store(store_url, clock=clock) as store:
            versions = _rows(store, "SELECT version FROM schema_version ORDER BY version")
            assert versions == [(v,) for v in range(1, len(MIGRATIONS) + 1)]
            clock.advance(hours=1)
    with open_store(store_url, clock=clock) as store:
        assert _rows(store, "SELECT applied_at FROM schema_version") == (
            [(FakeClock().now,)] * len(MIGRATIONS))


def test_a_version_one_database_is_upgraded_with_its_classes(store_url, clock):
    """A database left by the first release (migration 1 only) gains the later columns
    and keeps every class and answer."""
    from store._backends import open_backend
    from store._schema import SCHEMA_VERSION_TABLE

    backend = open_backend(store_url)

    def first_release(tx):
        tx.execute(SCHEMA_VERSION_TABLE)
        for statement in MIGRATIONS[0]:
            tx.execute(statement)
        tx.execute("INSERT INTO schema_version (version, applied_at) VALUES (1, ?)", (clock(),))
        tx.execute("INSERT INTO classes (code, created_at, expires_at, current_question, "
                   "revealed) VALUES (?, ?, ?, ?, ?)", ("ABCDEFGH", clock(), clock() + 3600,
                                                        "q1", 1))
        tx.execute("INSERT INTO members (code, student, joined_at) VALUES (?, ?, ?)",
                   ("ABCDEFGH", "s1", clock()))
        tx.execute("INSERT INTO answers VALUES (?, ?, ?, ?, ?)",
                   ("ABCDEFGH", "q1", "s1", "left", clock()))

    backend.run(first_release, write=True)
    backend.close()
    with open_store(store_url, clock=clock) as store:
        assert _rows(store, "SELECT MAX(version) FROM schema_version") == [(len(MIGRATIONS),)]
        assert store.tally("ABCDEFGH", "q1") == {"left": 1}
        assert store.is_teacher("ABCDEFGH", "any key") is False  # it had none
        store.show("ABCDEFGH", "", "q2")
        store.show("ABCDEFGH", "", "q1")
        assert store.state("ABCDEFGH").revealed is True  # its reveal was carried over
        with pytest.raises(StoreError, match="closed"):
            store.answer("ABCDEFGH", "q1", "s1", "right")


def test_only_the_teacher_key_runs_the_class(store, clock):
    code = store.create_class(teacher_key="k" * 43)
    other = store.create_class(teacher_key="j" * 43)
    assert store.is_teacher(code, "k" * 43) is True
    assert store.is_teacher(code, "j" * 43) is False
    assert store.is_teacher(other, "k" * 43) is False
    assert store.is_teacher(store.create_class(), "k" * 43) is False  # started without one
    assert "k" * 43 not in str(_rows(store, "SELECT * FROM classes"))  # only its hash is kept
    clock.advance(hours=25)
    assert store.is_teacher(code, "k" * 43) is False  # an expired class has no teacher


def test_stores_opened_at_once_migrate_once(store_url, clock):
    barrier = threading.Barrier(6, timeout=60)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait()
            open_store(store_url, clock=clock).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with open_store(store_url, clock=clock) as store:
        assert _count(store, "schema_version") == len(MIGRATIONS)


def test_a_newer_schema_is_refused(store, store_url, clock):
    newer = len(MIGRATIONS) + 1
    store._backend.run(lambda tx: tx.execute(
        "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (newer, 0.0)),
        write=True)
    with pytest.raises(StoreError, match=f"schema version {newer}"):
        open_store(store_url, clock=clock)


def test_open_store_picks_the_back_end(monkeypatch, tmp_path, clock):
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    with open_store(clock=clock) as store:
        code = store.create_class()
        assert store.backend_name == "sqlite"
        assert _rows(store, "PRAGMA foreign_keys") == [(1,)]
        assert _rows(store, "PRAGMA busy_timeout") == [(5000,)]
    default = tmp_path / "data" / "glassbox.db"
    with closing(sqlite3.connect(default)) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert raw.execute("SELECT code FROM classes").fetchall() == [(code,)]
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite://{tmp_path}/from-env.db")
    with open_store(clock=clock) as store:
        assert store.state(code) is None
    assert (tmp_path / "from-env.db").is_file()
    with open_store(f"sqlite://{default}", clock=clock) as store:
        assert store.state(code) is not None
    monkeypatch.setenv(DATABASE_URL_ENV, "mysql://teacher:secret@db.example/glassbox")
    with pytest.raises(StoreError, match="postgresql://") as refused:
        open_store(clock=clock)
    assert "secret" not in str(refused.value)
