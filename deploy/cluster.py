"""Several Glassbox processes behind nginx on one machine: start, status, stop.

    python deploy/cluster.py start --processes 3 --port 8080
    python deploy/cluster.py status
    python deploy/cluster.py stop
    python deploy/cluster.py render-compose   # after editing nginx.conf.template

``start`` starts N ``streamlit run app.py`` processes on local ports (``--first-port``,
the next ones after it), waits until each answers ``/_stcore/health``, renders
``deploy/nginx.conf.template`` into the run folder, checks it (``nginx -t``) and starts
nginx on ``--port``. What it started is written to ``<run folder>/cluster.json``, which
``status`` and ``stop`` read; ``stop`` quits nginx and ends the processes (SIGTERM, then
SIGKILL after ten seconds). Logs: ``<run folder>/app-<port>.log`` and ``nginx-error.log``.

The processes share the class store: ``GLASSBOX_DATABASE_URL`` (PostgreSQL) if set, as a
department's server should; otherwise the SQLite file under ``GLASSBOX_DATA_DIR`` (or
``var/``), which processes on one machine can share too. They share one
``server.cookieSecret`` (generated per start), so a cookie one process signed is valid on
the others after a process is lost. See docs/deploy.md.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"
STATE = "cluster.json"
#: The form around an uploaded file, on top of Streamlit's own limit (see the template).
UPLOAD_ENVELOPE_MB = 1


@dataclass
class Cluster:
    """What ``start`` started: the proxy's port, the app processes' ports and pids."""

    port: int
    run_dir: str
    app_ports: list[int]
    app_pids: list[int]
    nginx_conf: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def max_upload_mb(config: Path = ROOT / ".streamlit" / "config.toml") -> int:
    """Streamlit's ``server.maxUploadSize`` as the app's config sets it (default 200)."""
    with open(config, "rb") as f:
        return int(tomllib.load(f).get("server", {}).get("maxUploadSize", 200))


def render_nginx(listen: str, servers: list[str], run_dir: str) -> str:
    """The nginx configuration for ``servers`` (``host:port`` each), listening on
    ``listen``, with its pid, logs and temporary files under ``run_dir``."""
    lines = "\n".join(f"        server {s} max_fails=1 fail_timeout=10s;" for s in servers)
    return (TEMPLATE.read_text()
            .replace("@SERVERS@", lines)
            .replace("@LISTEN@", listen)
            .replace("@RUN_DIR@", run_dir)
            .replace("@BODY_MB@", str(max_upload_mb() + UPLOAD_ENVELOPE_MB)))


def compose_nginx() -> str:
    """deploy/nginx.compose.conf: nginx in the compose file, in front of the ``app``
    service's replicas (Docker's DNS gives nginx every replica's address at its start)."""
    return render_nginx("8080", ["app:8501"], "/tmp")


def nginx_binary() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None)
    if found is None:
        raise SystemExit("nginx is not installed (Debian: apt-get install nginx-light)")
    return found


def nginx(conf: Path, *args: str) -> subprocess.CompletedProcess:
    """Run nginx on ``conf`` with ``args`` (``-t``, ``-s quit``, or none to start)."""
    return subprocess.run([nginx_binary(), "-c", str(conf), "-p", str(conf.parent), *args],
                          capture_output=True, text=True, timeout=30)


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def _wait(condition, timeout_s: float, what: str) -> None:
    deadline = time.time() + timeout_s
    while not condition():
        if time.time() > deadline:
            raise RuntimeError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(0.3)


def start_app(port: int, run_dir: Path, secret: str, env: dict[str, str]) -> subprocess.Popen:
    """One app process on ``127.0.0.1:port``, detached from this one (its own session)."""
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
               "--server.port", str(port), "--server.address", "127.0.0.1",
               "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    with open(run_dir / f"app-{port}.log", "a") as log:
        return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                env={**env, "STREAMLIT_SERVER_COOKIE_SECRET": secret},
                                start_new_session=True)


def start(processes: int, port: int, first_port: int, run_dir: Path,
          env: dict[str, str] | None = None) -> Cluster:
    """Start ``processes`` app processes and nginx in front of them; the Cluster."""
    if (run_dir / STATE).exists():
        raise SystemExit(f"A cluster is running from {run_dir} (stop it first).")
    run_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **(env or {})}
    secret = secrets.token_hex(32)
    ports = [first_port + i for i in range(processes)]
    apps = [start_app(p, run_dir, secret, env) for p in ports]
    cluster = Cluster(port, str(run_dir), ports, [a.pid for a in apps],
                      str(run_dir / "nginx.conf"))
    try:
        for app_port, app in zip(ports, apps, strict=True):
            _wait(lambda u=f"http://127.0.0.1:{app_port}", a=app:
                  healthy(u) or a.poll() is not None, 90, f"the app on port {app_port}")
            if app.poll() is not None:
                raise RuntimeError(f"the app on port {app_port} exited: see "
                                   f"{run_dir / f'app-{app_port}.log'}")
        conf = Path(cluster.nginx_conf)
        conf.write_text(render_nginx(f"127.0.0.1:{port}",
                                     [f"127.0.0.1:{p}" for p in ports], str(run_dir)))
        for check in (nginx(conf, "-t"), nginx(conf)):
            if check.returncode != 0:
                raise RuntimeError(f"nginx: {check.stderr.strip()}")
        _wait(lambda: healthy(cluster.url), 30, "nginx")
    except BaseException:
        _end(cluster)
        raise
    (run_dir / STATE).write_text(json.dumps(asdict(cluster), indent=2))
    return cluster


def load(run_dir: Path) -> Cluster | None:
    try:
        return Cluster(**json.loads((run_dir / STATE).read_text()))
    except FileNotFoundError:
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a child of this process that has ended is a zombie until reaped
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return True


def _end(cluster: Cluster) -> None:
    conf = Path(cluster.nginx_conf)
    if conf.exists() and (conf.parent / "nginx.pid").exists():
        nginx(conf, "-s", "quit")
    for pid in cluster.app_pids:
        try:
            os.killpg(pid, signal.SIGTERM)  # the process and any worker it started
        except ProcessLookupError:
            pass
    deadline = time.time() + 10
    while any(_alive(p) for p in cluster.app_pids) and time.time() < deadline:
        time.sleep(0.2)
    for pid in cluster.app_pids:
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    _wait(lambda: not (conf.parent / "nginx.pid").exists(), 10, "nginx to quit")


def stop(run_dir: Path) -> bool:
    """Stop the cluster started from ``run_dir``; False if none was running."""
    cluster = load(run_dir)
    if cluster is None:
        return False
    _end(cluster)
    (run_dir / STATE).unlink()
    return True


def status(run_dir: Path) -> list[str]:
    cluster = load(run_dir)
    if cluster is None:
        return [f"No cluster runs from {run_dir}."]
    lines = [f"nginx on {cluster.url}: {'healthy' if healthy(cluster.url) else 'DOWN'}"]
    for app_port, pid in zip(cluster.app_ports, cluster.app_pids, strict=True):
        state = "healthy" if healthy(f"http://127.0.0.1:{app_port}") else "DOWN"
        lines.append(f"app on port {app_port} (pid {pid}): {state}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["start", "stop", "status", "render-compose"])
    parser.add_argument("--processes", type=int, default=max(1, os.cpu_count() or 1),
                        help="app processes (default: one per core)")
    parser.add_argument("--port", type=int, default=8080, help="nginx's port (8080)")
    parser.add_argument("--first-port", type=int, default=8601,
                        help="the first app process's port (8601; the others follow)")
    parser.add_argument("--run-dir", type=Path, default=ROOT / "var" / "cluster",
                        help="pids, logs and nginx's files (var/cluster)")
    args = parser.parse_args(argv)
    run_dir = args.run_dir.resolve()
    if args.command == "start":
        if not os.environ.get("GLASSBOX_DATABASE_URL"):
            print("GLASSBOX_DATABASE_URL is not set: the processes share the SQLite class "
                  "store of this machine (PostgreSQL is the store for a department's "
                  "server; see docs/deploy.md).")
        cluster = start(args.processes, args.port, args.first_port, run_dir)
        print(f"Glassbox on {cluster.url}: {len(cluster.app_ports)} processes "
              f"(ports {', '.join(map(str, cluster.app_ports))}) behind nginx.")
    elif args.command == "render-compose":
        (Path(__file__).resolve().parent / "nginx.compose.conf").write_text(compose_nginx())
    elif args.command == "stop":
        print("Stopped." if stop(run_dir) else f"No cluster runs from {run_dir}.")
    else:
        print("\n".join(status(run_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
