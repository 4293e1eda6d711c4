"""The deployment's files agree with the app and with nginx: the rendered configuration
passes ``nginx -t``, its upload limit follows Streamlit's, the compose file's copy is the
template's rendering, and the container follows Streamlit's recipe.

nginx is Debian's package (``.ci/run`` installs it); without it the nginx checks skip
locally and fail under ``CI=true``.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from deploy import cluster

DEPLOY = cluster.ROOT / "deploy"


def need_nginx() -> None:
    if shutil.which("nginx") or Path("/usr/sbin/nginx").exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail("nginx is not installed (.ci/run installs Debian's nginx-light)")
    pytest.skip("nginx is not installed")


def test_the_upload_limit_follows_streamlits():
    config = cluster.render_nginx("127.0.0.1:8080", ["127.0.0.1:8601"], "/tmp/x")
    limit = re.search(r"client_max_body_size (\d+)m;", config)
    assert cluster.max_upload_mb() == 50  # .streamlit/config.toml's server.maxUploadSize
    assert int(limit.group(1)) == cluster.max_upload_mb() + cluster.UPLOAD_ENVELOPE_MB


def test_every_process_is_an_upstream_with_sticky_routing():
    servers = ["127.0.0.1:8601", "127.0.0.1:8602", "127.0.0.1:8603"]
    config = cluster.render_nginx("127.0.0.1:8080", servers, "/tmp/x")
    upstream = re.search(r"upstream glassbox \{(.*?)\n    \}", config, re.S).group(1)
    assert re.findall(r"server (\S+) ", upstream) == servers
    assert "hash $glassbox_route consistent;" in upstream
    assert "proxy_set_header Upgrade $http_upgrade;" in config  # websockets pass through
    assert not re.search(r"@[A-Z_]+@", config)  # every placeholder filled


def test_the_rendered_configuration_passes_nginx_t(tmp_path):
    need_nginx()
    conf = tmp_path / "nginx.conf"
    conf.write_text(cluster.render_nginx("127.0.0.1:1", ["127.0.0.1:2", "127.0.0.1:3"],
                                         str(tmp_path)))
    checked = cluster.nginx(conf, "-t")
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr


def test_the_compose_files_nginx_configuration_is_the_templates_rendering():
    assert (DEPLOY / "nginx.compose.conf").read_text() == cluster.compose_nginx(), (
        "run: python deploy/cluster.py render-compose")


def test_the_container_follows_streamlits_recipe():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.\d+-slim$", dockerfile, re.M)
    assert re.search(r"^USER (?!root)\w+$", dockerfile, re.M)
    assert re.search(r"^HEALTHCHECK .*\n.*/_stcore/health", dockerfile, re.M)
    assert "--server.address=0.0.0.0" in dockerfile
    compose = (DEPLOY / "compose.yaml").read_text()
    assert "GLASSBOX_DATABASE_URL: postgresql://" in compose
    assert "./nginx.compose.conf:/etc/nginx/nginx.conf" in compose
