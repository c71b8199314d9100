"""scripts/create_database.py (what `make migrate`, the Compose stack's migrate step and the
benchmarks go through) creates bzpeer's database with the per-database PostgreSQL settings of
bzpeer/database_settings.py, which every new session then starts with; run again, it keeps
them and changes nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlsplit

import psycopg
import pytest
from django.db import connection
from psycopg import sql

from bzpeer.database_settings import DATABASE_SETTINGS
from tests.conftest import REPO_ROOT
from tests.support.template_database import server_url


@pytest.fixture
def scratch_database_url():
    """A database name no one uses on the test server, dropped afterwards; its URL."""
    name = f"{connection.settings_dict['NAME']}_settings_scratch"

    def drop() -> None:
        with psycopg.connect(server_url(), autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    drop()
    yield server_url(name)
    drop()


def _create_database(url: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts/create_database.py")],
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        check=True,
    )


def _session_settings(url: str) -> dict[str, str]:
    with psycopg.connect(url) as session:
        return {
            name: session.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()[0]
            for name in DATABASE_SETTINGS
        }


def test_the_database_is_created_with_the_settings_and_a_new_session_has_them(
    scratch_database_url,
):
    first = _create_database(scratch_database_url)
    assert "created database" in first.stdout

    assert _session_settings(scratch_database_url) == DATABASE_SETTINGS

    again = _create_database(scratch_database_url)
    assert "created database" not in again.stdout
    assert _session_settings(scratch_database_url) == DATABASE_SETTINGS
    # Stored on this database alone, not on the server or any role.
    with psycopg.connect(server_url()) as admin:
        stored = admin.execute(
            "SELECT coalesce(d.datname, ''), r.setconfig FROM pg_db_role_setting r "
            "LEFT JOIN pg_database d ON d.oid = r.setdatabase WHERE r.setrole = 0"
        ).fetchall()
    expected = sorted(f"{name}={value}" for name, value in DATABASE_SETTINGS.items())
    assert (urlsplit(scratch_database_url).path.lstrip("/"), expected) in [
        (database, sorted(config)) for database, config in stored
    ]
    assert "" not in [database for database, _config in stored]
