"""Servers the operations tests start for themselves: PostgreSQL clusters (a primary and a
streaming replica) from the machine's binaries, PgBouncer, and the site under gunicorn.

Each lives in a temporary folder, on a free port, and is stopped and removed by its fixture.
PostgreSQL and PgBouncer refuse to run as root, so as root they run as the postgres OS user.
A missing binary is a skip on a developer's machine and a failure under CI=true.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.conftest import REPO_ROOT

POSTGRES_BIN = Path(os.environ.get("BZPEER_POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))


def missing(what: str) -> None:
    message = f"{what} is not installed on this machine"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(command: Sequence[str]) -> list[str]:
    if os.geteuid() != 0:
        return list(command)
    return ["runuser", "-u", "postgres", "--", *command]


def run_as_server_user(command: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        _as_server_user(command), check=True, capture_output=True, text=True, **kwargs
    )


def popen_as_server_user(command: Sequence[str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen(_as_server_user(command), start_new_session=True, **kwargs)


def server_folder(prefix: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    return folder


def wait_for_port(port: int, *, timeout: float = 30, what: str = "server") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail(f"the {what} did not listen on port {port} within {timeout} s")


class Cluster:
    """A PostgreSQL cluster in `folder`, logging every statement to `folder`/server.log."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "server.log"
        self.port = port

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def configure(self, **settings: str) -> None:
        lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(lines)

    def start(self) -> None:
        run_as_server_user(
            [str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "start"]
        )

    def stop(self) -> None:
        subprocess.run(
            _as_server_user(
                [str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
            ),
            capture_output=True,
        )

    def connect(self, database: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(self.url(database), autocommit=True)

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_since(self, offset: int) -> str:
        with self.log.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")


def common_settings(folder: Path, port: int) -> dict[str, str]:
    return {
        "port": str(port),
        "listen_addresses": "'127.0.0.1'",
        "unix_socket_directories": f"'{folder}'",
        "fsync": "off",
        "full_page_writes": "off",
        "synchronous_commit": "off",
        "log_statement": "'all'",
        "log_line_prefix": "'%m [%p] %d '",
    }


class Site:
    """The site under gunicorn with `environment` (DATABASE_URL, DATABASE_REPLICA_URLS...)."""

    def __init__(self, environment: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.log = log
        self.environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test",
            **environment,
        }
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def manage(self, *arguments: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=REPO_ROOT,
            env=self.environment,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr[-4000:]
        return result.stdout

    def start(self) -> None:
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.process = subprocess.Popen(
            [str(gunicorn), "bzpeer.wsgi", "-b", f"127.0.0.1:{self.port}", "-w", "1"],
            cwd=REPO_ROOT,
            env=self.environment,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.base_url}/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        pytest.fail(f"gunicorn did not start:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)


class RedisServer:
    """A Redis of the test's own on a free port, keeping nothing on disk (as the machines'), so
    a restart starts empty. Never the machine's own Redis on 6379: others use it."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            missing("redis-server")
        self.binary = str(binary)
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def url(self, database: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", str(self.folder)],
            stdout=(self.folder / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_port(self.port, what="Redis")

    def stop(self) -> None:
        """SIGKILL: an outage, not a shutdown (nothing is saved)."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None
