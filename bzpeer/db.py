"""Database helpers shared by the apps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import InterfaceError, OperationalError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

from .db_router import read_alias


def _fetchone(
    connection: BaseDatabaseWrapper, sql: str, params: Sequence[Any]
) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def fetchone_without_health_check(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    """One row of `sql`, for a request whose first query is often its only one.

    Django's connection health check (CONN_HEALTH_CHECKS) would spend a round trip (SELECT 1)
    before it; instead, a connection the server has closed (a restart, a terminated backend)
    makes this query fail, and it runs once more on a new connection, so the request still does
    not fail. Inside a transaction the connection is known to be alive and nothing is retried.
    It reads where the ORM would (a replica in a replica request, see bzpeer.db_router).
    """
    connection = connections[read_alias()]
    if connection.in_atomic_block:
        return _fetchone(connection, sql, params)
    connection.health_check_done = True  # type: ignore[attr-defined]  # Django 5.1+, not in the stubs
    try:
        return _fetchone(connection, sql, params)
    except (OperationalError, InterfaceError):
        connection.close()
        return _fetchone(connection, sql, params)


def read_connection() -> BaseDatabaseWrapper:
    """The connection a raw-SQL read (a selector's cursor) uses: a replica's in a replica
    request, as the ORM's reads (bzpeer.db_router); the primary otherwise."""
    return connections[read_alias()]
