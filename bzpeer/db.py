"""Database helpers shared by the apps."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from django.db import DatabaseError, InterfaceError, OperationalError, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from .db_router import read_alias
from .errors import Busy

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")
ModelT = TypeVar("ModelT", bound=Model)

# PostgreSQL's answers to a transaction that lost a lock conflict and was rolled back whole:
# deadlock_detected and serialization_failure. Running it again is safe and usually succeeds.
LOCK_CONFLICT_SQLSTATES = frozenset({"40P01", "40001"})
LOCK_CONFLICT_ATTEMPTS = 3
BUSY_MESSAGE = "Many changes are being saved at this moment and yours could not be. Try again."


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


def lock_conflict_sqlstate(error: BaseException) -> str | None:
    """The SQLSTATE of a deadlock or serialization failure behind `error`, else None."""
    cause = error.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return sqlstate if sqlstate in LOCK_CONFLICT_SQLSTATES else None


def retry_on_lock_conflict(func: Callable[P, R]) -> Callable[P, R]:
    """Run a service's transaction again (up to LOCK_CONFLICT_ATTEMPTS times, after a short
    random pause) when PostgreSQL rolled it back for a deadlock or a serialization failure, and
    refuse with Busy (503, Retry-After) if it still does: a person never gets a 500 from a lock
    conflict. Put it outside @transaction.atomic. Inside a caller's transaction it retries
    nothing (the caller's work was rolled back too) and lets the error through to the
    outermost retry."""

    @wraps(func)
    def with_retries(*args: P.args, **kwargs: P.kwargs) -> R:
        if connection.in_atomic_block:
            return func(*args, **kwargs)
        for attempt in range(1, LOCK_CONFLICT_ATTEMPTS + 1):
            try:
                return func(*args, **kwargs)
            except DatabaseError as error:
                sqlstate = lock_conflict_sqlstate(error)
                if sqlstate is None:
                    raise
                logger.warning(
                    "%s: lock conflict %s (attempt %d of %d)",
                    func.__qualname__,
                    sqlstate,
                    attempt,
                    LOCK_CONFLICT_ATTEMPTS,
                )
                if attempt == LOCK_CONFLICT_ATTEMPTS:
                    raise Busy(BUSY_MESSAGE) from error
                # Jitter, so the two sides of a deadlock do not meet again at the same instant.
                time.sleep(random.uniform(0.01, 0.05) * attempt)  # noqa: S311 - not for secrets
        raise AssertionError("unreachable")  # pragma: no cover

    return with_retries


def array_literal(values: Sequence[int | str]) -> str:
    """An array parameter as PostgreSQL's text form of it (`{1,2,3}`, `{"ab","cd"}`), for a
    placeholder cast to its type (`%s::bigint[]`, `%s::text[]`).

    psycopg dumps a Python list element by element, about 1 ms for a thousand ids (issue 30:
    the works tab sent its thousand candidates twice, a name search its ~1,600 word variants);
    one string is sent as it is, and PostgreSQL parses it in C. Every string is quoted (so
    none is read as NULL) with its quotes and backslashes escaped; no element may be None.
    """
    if values and isinstance(values[0], str):
        return "{" + ",".join(_array_element(str(value)) for value in values) + "}"
    return "{" + ",".join(str(int(value)) for value in values) + "}"


def _array_element(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Instances built from rows a hand-written statement returns, without raw() or a queryset's
# compiling (which cost more than the statements on the busiest pages): a field's converters
# (the JSON fields') found once, as the ORM's compiler finds them for every query, then
# Model.from_db as the ORM itself builds instances.
Converters = list[tuple[int, list[tuple[Any, Any]]]]


def field_converters(
    model: type[Model], fields: Sequence[Field[Any, Any]], alias: str
) -> Converters:
    """(position in `fields`, [(converter, expression)]) for the fields whose values the
    database backend or the field itself converts."""
    connection_ = connections[alias]
    converters: Converters = []
    for position, field in enumerate(fields):
        expression = field.get_col(model._meta.db_table)
        found = connection_.ops.get_db_converters(expression) + [
            *field.get_db_converters(connection_)  # type: ignore[attr-defined]  # not in the stubs
        ]
        if found:
            converters.append((position, [(converter, expression) for converter in found]))
    return converters


def instance_from_row(
    model: type[ModelT], alias: str, attnames: list[str], values: list[Any], converters: Converters
) -> ModelT:
    """An instance of `model` from `values` (in the order of `attnames`, the model's order, as
    Model.from_db reads them); the fields not named are deferred."""
    for position, converters_of_field in converters:
        for converter, expression in converters_of_field:
            values[position] = converter(values[position], expression, connections[alias])
    return model.from_db(alias, attnames, values)
