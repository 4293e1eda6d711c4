"""A class across several app processes behind nginx, and one process lost mid-lesson.

deploy/cluster.py starts the processes and nginx; the class store is a schema of the
throw-away PostgreSQL cluster (tests/postgres.py). The teacher is a real Chromium page
through nginx; the students are websocket-level (:class:`tests.load.students.Class`),
each with the cookies a browser would hold there: nginx's route and the class's student
id. They open the class link and answer; then the process holding the most students is
killed (SIGKILL, with its workers). Its students' connections drop; each opens its tab
again, as a browser does, through nginx to a process still alive, and must get back the
question with the answer it sent (the URL brings the view, PostgreSQL the answer). Then
the teacher reveals and every student must see the truth; the store must hold every
answer and every student.

Printed: students and memory per process, the slowest and median join, answer receipt,
return after the loss, and reveal. ``GLASSBOX_CLUSTER_PROCESSES`` (2) and
``GLASSBOX_CLUSTER_STUDENTS`` (40) size it; ``GLASSBOX_CLUSTER_KILL=0`` loses no process
(the load measurement of docs/deploy.md: 300 students on 3 processes).
"""
from __future__ import annotations

import os
import random
import re
import signal
import socket
import time
from collections import Counter
from pathlib import Path

import pytest

from deploy import cluster
from store import open_store
from tests.deploy.test_config import need_nginx
from tests.e2e.conftest import exceptions, screenshot
from tests.e2e.test_class_browser import TRUTH, tally
from tests.load.students import Class
from tests.load.test_class_load import _stuck, _summary, start_class
from tests.postgres import new_schema, postgres_server  # noqa: F401 - the fixture, offered here

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROCESSES = int(os.environ.get("GLASSBOX_CLUSTER_PROCESSES", "2"))
STUDENTS = int(os.environ.get("GLASSBOX_CLUSTER_STUDENTS", "40"))
KILL = os.environ.get("GLASSBOX_CLUSTER_KILL", "1") != "0"
WINDOW_S = 10.0
TIMEOUT_S = 300.0


def _free_ports(n: int) -> int:
    """The first of ``n`` consecutive free local ports."""
    rng = random.Random()
    for _ in range(200):
        first = rng.randrange(20_000, 40_000)
        try:
            for port in range(first, first + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first
    raise RuntimeError("no free ports")


def connections_to(ports: list[int]) -> dict[int, int]:
    """Established TCP connections to each local port, counted from the connecting side
    (nginx's, one per open websocket)."""
    counts = dict.fromkeys(ports, 0)
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port, state = int(fields[2].split(":")[1], 16), fields[3]
        if state == "01" and remote_port in counts:
            counts[remote_port] += 1
    return counts


def memory_mib(pid: int) -> float:
    """Resident memory of process ``pid`` and the workers of its process group, MiB."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != pid:  # the process group
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        total += int(found.group(1)) if found else 0
    return total / 1024


def cookies(i: int) -> dict[str, str]:
    """Student i's browser: its route through nginx and its id in the class."""
    return {"glassbox_route": f"laptop{i:05d}", "glassbox_student": f"student_{i:012d}"}


def _missing(database: str, code: str, room: Class) -> str:
    """What the store holds when the teacher's chart stalls, and the students whose
    answer it lacks or holds otherwise (their reports)."""
    with open_store(database) as store:
        question = store.state(code).question
        held = store.tally(code, question)
        members = store.n_members(code)
        wrong = [s for i, s in enumerate(room.students)
                 if store.choice_of(code, question, cookies(i)["glassbox_student"])
                 != s.seen.choice]
    return (f"the store holds {held} from {members} members; its answer missing or "
            f"otherwise for " + _stuck(wrong))


def test_a_class_spans_processes_and_survives_losing_one(browser, request, tmp_path):
    need_nginx()
    _, database = new_schema(request.getfixturevalue("postgres_server"))
    first = _free_ports(PROCESSES + 1)
    run_dir = tmp_path / "cluster"
    running = cluster.start(PROCESSES, first, first + 1, run_dir,
                            env={"GLASSBOX_DATABASE_URL": database})
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    teacher = context.new_page()
    try:
        code = start_class(teacher, running.url)
        picks = [random.Random(i).randrange(3) for i in range(STUDENTS)]

        with Class(running.url, "", f"class={code}", picks, WINDOW_S, TIMEOUT_S,
                   cookies=cookies) as room:
            deadline = time.time() + TIMEOUT_S + 30
            while room.answering_from is None and time.time() < deadline:
                time.sleep(0.2)
            assert room.answering_from is not None, "the class never had the question:\n" + (
                _stuck(s for s in room.students if s.seen.joined_s is None))
            time.sleep(max(0.0, room.answering_from + WINDOW_S - time.perf_counter()))
            deadline = time.time() + 60
            while not all(s.answered.is_set() or s.seen.errors for s in room.students) \
                    and time.time() < deadline:
                time.sleep(0.2)
            per_process = connections_to(running.app_ports)
            memory = {p: memory_mib(pid)
                      for p, pid in zip(running.app_ports, running.app_pids, strict=True)}
            for port in running.app_ports:
                print(f"\n[cluster] process on {port}: {per_process[port]} open pages, "
                      f"{memory[port]:.0f} MiB", end="")
            print()
            lost = []
            if KILL:
                victim = max(running.app_ports, key=per_process.get)
                os.killpg(running.app_pids[running.app_ports.index(victim)], signal.SIGKILL)
                deadline = time.time() + TIMEOUT_S
                while time.time() < deadline:
                    lost = [s for s in room.students if s.seen.reconnects]
                    if len(lost) >= per_process[victim] - 1 and all(
                            s.seen.restored_s is not None or s.seen.errors for s in lost):
                        break
                    time.sleep(0.5)
                assert lost, "no student was connected to the process killed"
            try:
                shown = tally(teacher, STUDENTS, timeout_s=TIMEOUT_S)  # back if it was lost
            except AssertionError as stalled:
                raise AssertionError(f"{stalled}\n{_missing(database, code, room)}") from None
            screenshot(teacher, "cluster-tally")
            teacher.get_by_role("button", name="Reveal the answer to everyone").click()
            room.reveal()
        visits = room.visits
        teacher.locator(TRUTH).first.wait_for(timeout=60_000)
        assert exceptions(teacher) == []
    except BaseException:
        screenshot(teacher, "cluster-failed")
        raise
    finally:
        context.close()
        cluster.stop(run_dir)

    assert not any(s.seen.errors for s in room.students), _stuck(
        s for s in room.students if s.seen.errors)
    options, chosen = visits[0].options, Counter(v.choice for v in visits)
    print(f"[cluster] {STUDENTS} students on {PROCESSES} processes behind nginx")
    print("[cluster] " + _summary("join (link to question on screen)",
                                  [v.joined_s for v in visits]))
    print("[cluster] " + _summary("answer to its receipt", [v.sent_s for v in visits]))
    if KILL:
        print("[cluster] " + _summary("process lost to the question and answer back",
                                      [s.seen.restored_s for s in lost]))
    print("[cluster] " + _summary("reveal to the truth on screen",
                                  [v.revealed_s for v in visits]))
    assert all(s.seen.restored_s is not None for s in lost)  # every lost page came back
    assert dict(zip(shown["y"], shown["x"], strict=True)) == {o: chosen.get(o, 0) for o in options}
    with open_store(database) as store:  # no answer lost with the process
        question = store.state(code).question
        assert store.tally(code, question) == dict(chosen)
        assert store.n_members(code) == STUDENTS
    assert cluster.load(run_dir) is None  # stopped: nothing left running
    assert not any(cluster._alive(pid) for pid in running.app_pids)
