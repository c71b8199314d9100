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
from typing import Any

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
