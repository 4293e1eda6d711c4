"""A throw-away PostgreSQL cluster for the tests that need a real server (the class
store, the live class in a browser, the load tests).

The cluster: ``initdb`` into a fresh temporary folder, ``pg_ctl start`` listening on a
Unix socket in that folder only (no TCP port, so it cannot clash with another server),
durability off (``fsync=off``: the cluster dies with the run), stopped at the end. As root
the server runs as the ``postgres`` user (or ``nobody``) through ``runuser``, since
``initdb`` refuses root.

Without psycopg or PostgreSQL's server binaries the tests that need it skip; under
``CI=true`` they fail instead (``.ci/run`` installs both). A conftest imports
:func:`postgres_server` to offer the fixture.
"""
from __future__ import annotations

import importlib.util
import os
import pwd
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

#: Any port will do: it only names the socket file in the cluster's private folder.
PORT = 5432
SERVER_SETTINGS = ("-c listen_addresses='' -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off -c max_connections=200")


def _need(condition: bool, why: str) -> None:
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL store tests cannot run under CI: {why}")
    pytest.skip(why)


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's ``initdb`` and ``pg_ctl`` (newest Debian version first)."""
    found = shutil.which("initdb")
    if found and (Path(found).resolve().parent / "pg_ctl").exists():
        return Path(found).resolve().parent
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=_version)
    return debian[-1].parent if debian else None


def _version(initdb: Path) -> list[int]:
    """``[15]`` for ``/usr/lib/postgresql/15/bin/initdb``."""
    return [int(n) for n in re.findall(r"\d+", initdb.parent.parent.name)]


def _server_user() -> str | None:
    """Who runs the server: None for the current user, a system user when that is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return None


def _run(argv: list[str], user: str | None, cwd: Path) -> None:
    if user is not None:
        argv = ["runuser", "-u", user, "--", *argv]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="session")
def postgres_server():
    """A running throw-away cluster; yields the URL of its ``postgres`` database."""
    _need(importlib.util.find_spec("psycopg") is not None, "psycopg is not installed")
    bindir = postgres_bin()
    _need(bindir is not None, "PostgreSQL's server (initdb, pg_ctl) is not installed")
    user = _server_user()
    _need(os.geteuid() != 0 or (user is not None and shutil.which("runuser") is not None),
          "running as root, but no postgres/nobody user or runuser to start the server as")
    # tempfile, not tmp_path_factory: pytest's root-owned 0700 base folder would shut the
    # server's user out.
    root = Path(tempfile.mkdtemp(prefix="glassbox-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    if user is not None:
        for path in (root, sockets):
            shutil.chown(path, user)
    pg_ctl = str(bindir / "pg_ctl")
    try:
        _run([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
              "--no-sync", "-E", "UTF8"], user, root)
        _run([pg_ctl, "-D", str(data), "-l", str(root / "server.log"), "-w", "-t", "60",
              "-o", f"-p {PORT} -k {sockets} {SERVER_SETTINGS}", "start"], user, root)
        yield f"postgresql://postgres@/postgres?host={sockets}&port={PORT}"
    finally:
        if (data / "postmaster.pid").exists():
            _run([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], user, root)
        shutil.rmtree(root, ignore_errors=True)


def new_schema(server: str) -> tuple[str, str]:
    """An empty schema in ``server``'s database (much faster to make than a database):
    (its name, a URL whose connections have it first on the search path)."""
    import uuid

    import psycopg

    schema = f"class_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    return schema, f"{server}&options=-csearch_path%3D{schema}"
