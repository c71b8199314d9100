"""One migrated database per run (and per set of migrations), copied for each test process.

Without it every xdist process migrated its own test database (111 migrations, 15-30 s of the
two cores at the start of every run), and the benchmark smoke tests migrated one more database
per process. Now the first process to arrive migrates a template under a PostgreSQL advisory
lock, the others wait for it, and each test database is made with `CREATE DATABASE ... TEMPLATE`
(Django's TEST["TEMPLATE"]); Django's own `migrate` then finds nothing to apply. The template's
name carries a digest of every migration file, so a changed migration gets a new template and
an unchanged checkout's next run reuses the one it has.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import django
import psycopg
from psycopg import sql

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/bzpeer"
MIGRATE_TIMEOUT_SECONDS = 600


def _migrations_digest() -> str:
    digest = hashlib.sha1(django.get_version().encode())  # noqa: S324 - a name, not a secret
    for path in sorted(REPO_ROOT.glob("*/migrations/*.py")):
        digest.update(str(path.relative_to(REPO_ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def server_url(database: str = "postgres") -> str:
    parts = urlsplit(os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    return parts._replace(path=f"/{database}").geturl()


def _exists(connection: psycopg.Connection, name: str) -> bool:
    found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
    return found.fetchone() is not None


def migrated_template(test_database_name: str) -> str:
    """The name of a database holding every migration and nothing else, built if missing.

    Safe to call from several processes at once: they take turns under an advisory lock, and a
    template appears under its name only once it is complete (built under another name, then
    renamed), so a run killed half way leaves no half-migrated template behind.
    """
    prefix = f"{test_database_name}_template_"
    name = prefix + _migrations_digest()
    building = f"{name}_building"
    with psycopg.connect(server_url(), autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(hashtext(%s))", [prefix])
        try:
            if _exists(connection, name):
                return name
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(building))
            )
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
            environment = {
                **os.environ,
                "DATABASE_URL": server_url(building),
                "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test",
            }
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                cwd=REPO_ROOT,
                env=environment,
                check=True,
                timeout=MIGRATE_TIMEOUT_SECONDS,
            )
            connection.execute(
                sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                    sql.Identifier(building), sql.Identifier(name)
                )
            )
            # Templates of older migrations are of no further use to this checkout.
            stale = connection.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
                [prefix.replace("_", r"\_") + "%", name],
            ).fetchall()
            for (old,) in stale:
                connection.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(old))
                )
            return name
        finally:
            connection.execute("SELECT pg_advisory_unlock(hashtext(%s))", [prefix])


def template_load_into(target_url: str, *, test_database_name: str, postgres_bin: Path) -> None:
    """Fill an empty database on another cluster (a test's own PostgreSQL server) with the
    migrated template: pg_dump piped into psql takes a second or two where `migrate` took
    10-15 s. `postgres_bin` holds the client programs of the target's version."""
    template = migrated_template(test_database_name)
    dump = subprocess.Popen(
        [str(postgres_bin / "pg_dump"), "--no-owner", "-d", server_url(template)],
        stdout=subprocess.PIPE,
    )
    try:
        subprocess.run(
            [str(postgres_bin / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-d", target_url],
            stdin=dump.stdout,
            stdout=subprocess.DEVNULL,
            check=True,
            timeout=MIGRATE_TIMEOUT_SECONDS,
        )
    finally:
        if dump.stdout is not None:
            dump.stdout.close()
        if dump.wait(timeout=MIGRATE_TIMEOUT_SECONDS) != 0:
            raise RuntimeError(f"pg_dump of {template} failed")
