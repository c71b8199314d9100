"""scripts/tune_postgres.py (`make bench` runs it first; docs/operating.md, "PostgreSQL
settings"): it sizes a server to the machine with ALTER SYSTEM, applies at once what PostgreSQL
can change while running, says what waits for a restart, changes nothing when run again, and
leaves a server alone when its role may not change it. On a server of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bzpeer.database_settings import server_settings_for
from tests.conftest import REPO_ROOT

from .servers import (
    POSTGRES_BIN,
    Cluster,
    common_settings,
    free_port,
    missing,
    run_as_server_user,
    server_folder,
)

pytestmark = pytest.mark.server

MEMORY_GB = 1  # shared_buffers 256MB, effective_cache_size 768MB


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    for binary in ("initdb", "pg_ctl"):
        if not (POSTGRES_BIN / binary).exists():
            missing(f"PostgreSQL's {binary} ({POSTGRES_BIN})")
    folder = server_folder("bzpeer-tuning-test-")
    server = Cluster(folder / "cluster", free_port())
    try:
        run_as_server_user(["mkdir", str(server.folder)])
        run_as_server_user(
            [str(POSTGRES_BIN / "initdb"), "-D", str(server.data), "-U", "postgres"]
            + ["--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]
        )
        server.configure(**common_settings(server.folder, server.port))
        server.start()
        yield server
    finally:
        server.stop()
        run_as_server_user(["rm", "-rf", str(folder)])


def _tune(url: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts/tune_postgres.py"),
            "--memory-gb",
            str(MEMORY_GB),
        ],
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def _running(server: Cluster, *names: str) -> dict[str, str]:
    with server.connect() as connection:
        return {name: connection.execute(f"SHOW {name}").fetchone()[0] for name in names}


def _auto_conf(server: Cluster) -> str:
    return run_as_server_user(["cat", str(server.data / "postgresql.auto.conf")]).stdout


def test_it_applies_what_it_can_at_once_and_shared_buffers_after_a_restart(cluster):
    expected = server_settings_for(MEMORY_GB)
    assert expected["shared_buffers"] == "256MB"

    first = _tune(cluster.url("postgres"))

    assert "shared_buffers: written, in effect after a restart" in first
    assert _running(cluster, "max_wal_size", "maintenance_work_mem", "shared_buffers") == {
        "max_wal_size": "4GB",
        "maintenance_work_mem": "512MB",
        "shared_buffers": "128MB",
    }
    written = _auto_conf(cluster)
    for name, value in expected.items():
        assert f"{name} = '{value}'" in written

    again = _tune(cluster.url("postgres"))

    assert "tuned for" not in again  # nothing written a second time
    assert "shared_buffers: written, in effect after a restart" in again
    assert _auto_conf(cluster) == written

    cluster.stop()
    cluster.start()

    assert _running(cluster, "shared_buffers", "effective_cache_size") == {
        "shared_buffers": "256MB",
        "effective_cache_size": "768MB",
    }
    assert "already tuned" in _tune(cluster.url("postgres"))


def test_a_role_that_may_not_change_the_server_gets_a_message_and_no_change(cluster):
    with cluster.connect() as connection:
        connection.execute("CREATE ROLE site LOGIN")
    before = _auto_conf(cluster)

    output = _tune(f"postgres://site@127.0.0.1:{cluster.port}/postgres")

    assert "not a superuser" in output
    assert _auto_conf(cluster) == before
    assert _running(cluster, "max_wal_size")["max_wal_size"] == "1GB"
