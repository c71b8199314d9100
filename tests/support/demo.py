"""The demo data (demo/openalex) for tests that read it, built once per test process.

The first test that asks imports the snapshot through the real pipeline (`import_openalex
--sync`) and drains the coauthor edges, as `make run` does; the rows that left in each table are
kept as PostgreSQL COPY data and the tables emptied again. Every test that asks then gets the
same rows copied into its own transaction (milliseconds instead of an import), and they go
with the test's rollback.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from bzpeer.celery import app as celery_app
from tests.conftest import REPO_ROOT

DEMO_SNAPSHOT = REPO_ROOT / "demo" / "openalex"

# Rows every migrated database holds whatever the test: they are not the demo's.
NOT_DEMO_TABLES = frozenset({"django_content_type", "auth_permission", "django_site"})


@dataclass(frozen=True)
class TableRows:
    table: str
    copy_data: bytes
    # The table's id sequence, moved past the copied ids so a test's own rows never collide.
    id_sequence: str | None


def _tables_holding_rows() -> list[str]:
    names = [
        name
        for name in connection.introspection.django_table_names(only_existing=True)
        if name not in NOT_DEMO_TABLES
    ]
    probes = " UNION ALL ".join(
        f"(SELECT {index} FROM {connection.ops.quote_name(name)} LIMIT 1)"
        for index, name in enumerate(names)
    )
    with connection.cursor() as cursor:
        cursor.execute(probes)
        return [names[index] for (index,) in cursor.fetchall()]


def _rows_of(table: str) -> TableRows:
    quoted = connection.ops.quote_name(table)
    with connection.cursor() as cursor:
        data = bytearray()
        with cursor.cursor.copy(f"COPY {quoted} TO STDOUT") as copy:
            for block in copy:
                data += block
        columns = connection.introspection.get_table_description(cursor, table)
        sequence = None
        if any(column.name == "id" for column in columns):
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [quoted])
            (sequence,) = cursor.fetchone()
    return TableRows(table=table, copy_data=bytes(data), id_sequence=sequence)


@pytest.fixture(scope="session")
def demo_rows(django_db_setup: None, django_db_blocker: Any) -> list[TableRows]:
    """The demo's rows, table by table, imported once per test process."""
    with django_db_blocker.unblock():
        call_command("import_openalex", str(DEMO_SNAPSHOT), sync=True, no_progress=True)
        from graph import services as graph_services

        graph_services.coauthor_edges_drain()
        rows = [_rows_of(table) for table in _tables_holding_rows()]
        with connection.cursor() as cursor:
            tables = ", ".join(connection.ops.quote_name(r.table) for r in rows)
            cursor.execute(f"TRUNCATE {tables} CASCADE")
    # The import also queued an edge drain for the graph's queue, which no worker here reads.
    with celery_app.connection_for_write() as broker:
        broker.default_channel.queue_purge(settings.GRAPH_QUEUE)
    return rows


@pytest.fixture
def demo_data(db: None, demo_rows: list[TableRows]) -> Iterator[None]:
    """The demo's rows in this test's transaction (rolled back with it)."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        for rows in demo_rows:
            quoted = connection.ops.quote_name(rows.table)
            with cursor.cursor.copy(f"COPY {quoted} FROM STDIN") as copy:
                copy.write(rows.copy_data)
            if rows.id_sequence:
                cursor.execute(
                    f"SELECT setval(%s, GREATEST((SELECT max(id) FROM {quoted}), 1))",
                    [rows.id_sequence],
                )
        # Foreign keys are checked now, not at a commit that never comes.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    yield
