"""The servers of the fault drill (scripts/chaos.py): a PostgreSQL cluster and a Redis of its
own on free ports, and the site's processes, each in its own process group."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
POSTGRES_BIN = Path(os.environ.get("BZPEER_POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"nothing listened on port {port} within {timeout} s")


def as_server_user(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Postgres:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _ctl(self, *arguments: str) -> None:
        subprocess.run(  # noqa: S603 - the machine's PostgreSQL binaries
            as_server_user([str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), *arguments]),
            check=True,
            capture_output=True,
        )

    def create(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(  # noqa: S603
            as_server_user(
                [str(POSTGRES_BIN / "initdb"), "-D", str(self.data), "-U", "postgres"]
                + ["--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]
            ),
            check=True,
            capture_output=True,
        )
        settings = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.folder}'",
            "fsync": "off",
            "full_page_writes": "off",
            "max_connections": "100",
        }
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("".join(f"{name} = {value}\n" for name, value in settings.items()))
        self.start()

    def start(self) -> None:
        self._ctl("-l", str(self.folder / "server.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop")


class Redis:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise SystemExit("redis-server is not installed")
        self.process = subprocess.Popen(  # noqa: S603
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", str(self.folder)],
            stdout=(self.folder / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_port(self.port)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own executables
        command,
        cwd=REPO_ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, sig)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def manage(env: dict[str, str], *arguments: str) -> str:
    result = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *arguments],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"manage.py {arguments[0]} failed:\n{result.stderr[-4000:]}")
    return result.stdout
