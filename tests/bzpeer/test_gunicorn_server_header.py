"""gunicorn, started as the image starts it (with gunicorn.conf.py), does not name itself in
the Server header: a scanner learns nothing about which server's flaws to try."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.server

GUNICORN = Path(sys.executable).with_name("gunicorn")
CONFIG = REPO_ROOT / "gunicorn.conf.py"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(port: int, path: str, method: str = "GET") -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request(method, path)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def _serve(arguments: list[str], cwd: Path) -> Iterator[int]:
    port = _free_port()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test"}
    server = subprocess.Popen(
        [str(GUNICORN), *arguments, "bzpeer.wsgi", "-w", "1", "-b", f"127.0.0.1:{port}"],
        cwd=cwd,
        env={**environment, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            if server.poll() is not None:
                assert server.stderr is not None
                pytest.fail(f"gunicorn exited: {server.stderr.read().decode()[-2000:]}")
            try:
                _get(port, "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("gunicorn did not answer within 30 seconds")
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def configured_gunicorn() -> Iterator[int]:
    """gunicorn as the Dockerfile runs it: --config gunicorn.conf.py."""
    yield from _serve(["--config", str(CONFIG)], cwd=REPO_ROOT)


@pytest.fixture
def plain_gunicorn_in_the_repository() -> Iterator[int]:
    """`gunicorn bzpeer.wsgi` from the repository root, as docker-compose runs it: gunicorn
    reads ./gunicorn.conf.py by itself."""
    yield from _serve([], cwd=REPO_ROOT)


def _assert_undisclosed(port: int) -> None:
    for method, path in [("GET", "/healthz"), ("GET", "/no-such-page/"), ("HEAD", "/healthz")]:
        server = _get(port, path, method).getheader("Server") or ""
        assert "gunicorn" not in server.lower(), f"{method} {path}: Server: {server}"


def test_it_does_not_name_gunicorn_in_the_server_header(configured_gunicorn):
    _assert_undisclosed(configured_gunicorn)


def test_it_does_not_name_gunicorn_when_started_without_naming_the_config(
    plain_gunicorn_in_the_repository,
):
    _assert_undisclosed(plain_gunicorn_in_the_repository)


def test_the_image_starts_gunicorn_with_the_config():
    command = next(
        line
        for line in (REPO_ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("CMD")
    )
    assert '"gunicorn"' in command and '"gunicorn.conf.py"' in command
