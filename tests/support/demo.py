"""The demo data (demo/openalex) for tests that read it, built once per test process.

The first test that asks imports the snapshot through the real pipeline (`import_openalex
--sync`) and drains the coauthor edges, as `make run` does; the rows that left in each table are
kept as PostgreSQL COPY data and the tables emptied again. Every test that asks then gets the
same rows copied into its own transaction (milliseconds instead of an import), and they go
with the test's rollback.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from bzpeer.celery import app as celery_app
from tests.conftest import REPO_ROOT

from .snapshots import TableRows, snapshot_restore, snapshot_taken

DEMO_SNAPSHOT = REPO_ROOT / "demo" / "openalex"


@pytest.fixture(scope="session")
def demo_rows(django_db_setup: None, django_db_blocker: Any) -> list[TableRows]:
    """The demo's rows, table by table, imported once per test process."""
    with django_db_blocker.unblock():
        call_command("import_openalex", str(DEMO_SNAPSHOT), sync=True, no_progress=True)
        from graph import services as graph_services

        graph_services.coauthor_edges_drain()
        rows = snapshot_taken()
        with connection.cursor() as cursor:
            tables = ", ".join(connection.ops.quote_name(r.table) for r in rows)
            cursor.execute(f"TRUNCATE {tables} CASCADE")
    # The import also queued an edge drain for the graph's queue, which no worker here reads.
    with celery_app.connection_for_write() as broker:
        broker.default_channel.queue_purge(settings.GRAPH_QUEUE)
    return rows


@pytest.fixture
def demo_data(db: None, demo_rows: list[TableRows]) -> None:
    """The demo's rows in this test's transaction (rolled back with it)."""
    snapshot_restore(demo_rows)
