"""The PostgreSQL settings bzpeer's statements are written for, where they differ from the
server's defaults, and how they reach a database.

Two kinds, because PostgreSQL takes them in two places:

- DATABASE_SETTINGS are per session, so they are stored on bzpeer's database itself
  (`ALTER DATABASE ... SET`) and every new connection starts with them, through a pooler too.
  `scripts/create_database.py` applies them, which `make migrate` (so `make run`), the Compose
  stack's migrate step and the benchmarks' databases all go through; on a server you run, run
  it once against your DATABASE_URL (it needs to own the database).
- SERVER_SETTINGS size the server to its machine and need a restart: the Compose stack's
  database gets them on its command line; docs/operating.md ("PostgreSQL settings") shows them
  for a server of your own, as a fraction of its memory.

Each value has its measurement beside it (issue 30; bench/README.md has the runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

# Per database (ALTER DATABASE ... SET), whatever the machine.
DATABASE_SETTINGS: dict[str, str] = {
    # PostgreSQL compiles a statement whose estimated cost passes jit_above_cost, and the
    # search page's statements at 1M works pass it: compiling took longer than running (the
    # works tab's ranked page went from 36-38 to 21 ms at p50 without it; the import's follow-up
    # had already turned it off for its own statements, 1-2 s of compiling each).
    "jit": "off",
    # Starting parallel workers costs milliseconds on two cores, more than a name lookup that
    # reads a few hundred rows takes; the planner's guess of "1% of the table" for the name
    # index made it start them for every name search (the works tab's count of researchers:
    # 42-45 ms at p50 with the default, 18 ms with this). Ten times the default keeps parallel
    # plans for the scans that read a large part of a large table.
    "parallel_setup_cost": "10000",
}
# Tried and left at PostgreSQL's default: random_page_cost 1.1 (for solid-state storage) made
# the works tab slower at 1M works (p50 84 ms against 64 ms without it, back to back).

# For the server, as fractions of its memory (server_settings_for; a restart applies them).
SERVER_SETTING_FRACTIONS: dict[str, float] = {
    # What PostgreSQL caches itself; the rest of the memory is the page cache's.
    "shared_buffers": 0.25,
    # What the planner may assume the page cache and shared_buffers hold together.
    "effective_cache_size": 0.75,
}
# Server settings that do not scale with memory.
SERVER_SETTINGS: dict[str, str] = {
    # Index builds and VACUUM after a bulk load (graph rebuilds set their own).
    "maintenance_work_mem": "512MB",
    # A bulk import writes gigabytes of WAL: checkpoints by size every 1 GB (the default) made
    # them come every few seconds.
    "max_wal_size": "4GB",
}


def server_settings_for(memory_gb: float) -> dict[str, str]:
    """SERVER_SETTINGS with the memory-sized ones computed for a machine of `memory_gb`."""
    sized = {
        name: f"{max(128, int(memory_gb * 1024 * fraction))}MB"
        for name, fraction in SERVER_SETTING_FRACTIONS.items()
    }
    return {**sized, **SERVER_SETTINGS}


def server_settings_apply(connection: psycopg.Connection, settings: dict[str, str]) -> ServerTuning:
    """Write `settings` into the server's postgresql.auto.conf (ALTER SYSTEM) where they differ
    from what it holds, and reload it: those PostgreSQL can change while running apply at
    once, the others (shared_buffers) wait for a restart. Needs a superuser and an autocommit
    connection (ALTER SYSTEM runs outside a transaction). Idempotent: run again, nothing is
    written and nothing is reloaded."""
    wanted = {name: _setting_bytes(connection, value) for name, value in settings.items()}
    changed = [
        name for name, value in settings.items() if _stored_bytes(connection, name) != wanted[name]
    ]
    for name in changed:
        connection.execute(
            sql.SQL("ALTER SYSTEM SET {} = {}").format(
                sql.Identifier(name), sql.Literal(settings[name])
            )
        )
    if changed:
        connection.execute("SELECT pg_reload_conf()")
    # What the server runs with now against what it was given: a setting that only a restart
    # changes still shows its old value (pending_restart is only set once a backend has read
    # the reloaded file, so it is not asked).
    waiting = [
        name
        for name in settings
        if _running_bytes(connection, name) != wanted[name]
        and _context(connection, name) == "postmaster"
    ]
    return ServerTuning(changed=changed, restart_needed=waiting)


@dataclass(frozen=True)
class ServerTuning:
    """What server_settings_apply did: the settings it wrote, and those that a restart of the
    server still has to bring into effect."""

    changed: list[str]
    restart_needed: list[str]


def _setting_bytes(connection: psycopg.Connection, value: str) -> int:
    # Every server setting bzpeer sets is a size ("6016MB", "4GB"): compared as bytes, so
    # "4GB" and the server's "4096MB" are the same value.
    row = connection.execute("SELECT pg_size_bytes(%s)", [value]).fetchone()
    return int(row[0]) if row else 0


def _stored_bytes(connection: psycopg.Connection, name: str) -> int | None:
    """The value postgresql.auto.conf or postgresql.conf gives `name` now (what a restart
    would bring), in bytes; None when neither sets it."""
    row = connection.execute(
        # postgresql.auto.conf is read last: its line, when there is one, is the one in force
        # (marked "could not be applied" while it waits for a restart, and still the stored one).
        "SELECT setting FROM pg_file_settings WHERE name = %s ORDER BY seqno DESC LIMIT 1",
        [name],
    ).fetchone()
    return None if row is None else _setting_bytes(connection, _with_unit(connection, name, row[0]))


def _running_bytes(connection: psycopg.Connection, name: str) -> int:
    return _setting_bytes(connection, _with_unit(connection, name, _running(connection, name)))


def _running(connection: psycopg.Connection, name: str) -> str:
    row = connection.execute("SELECT current_setting(%s)", [name]).fetchone()
    return str(row[0]) if row else ""


def _with_unit(connection: psycopg.Connection, name: str, value: str) -> str:
    """`value` with the setting's unit when it has none ("16384" shared_buffers is 8kB pages,
    as postgresql.conf may write it)."""
    if not value.strip().isdigit():
        return value
    row = connection.execute("SELECT unit FROM pg_settings WHERE name = %s", [name]).fetchone()
    unit = (row[0] if row else None) or "B"
    if unit[0].isdigit():  # "8kB": a multiple of a unit
        multiple, unit = int(unit.rstrip("kMGTB")), unit.lstrip("0123456789")
        return f"{int(value) * multiple}{unit}"
    return f"{value}{unit}"


def _context(connection: psycopg.Connection, name: str) -> str:
    row = connection.execute("SELECT context FROM pg_settings WHERE name = %s", [name]).fetchone()
    return str(row[0]) if row else ""


def database_settings_apply(execute: Callable[..., Any], database: str) -> None:
    """Store DATABASE_SETTINGS on `database`, through `execute` (a psycopg connection's).
    New sessions start with them; sessions already open keep what they had. Idempotent."""
    for name, value in DATABASE_SETTINGS.items():
        # ALTER DATABASE takes no bind parameters: psycopg quotes the name and the value.
        execute(
            sql.SQL("ALTER DATABASE {} SET {} = {}").format(
                sql.Identifier(database), sql.Identifier(name), sql.Literal(value)
            )
        )
