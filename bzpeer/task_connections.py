"""The database connections of Celery tasks: closed when a task ends, except for the tasks that
keep theirs (those made with `base=ConnectionKeepingTask`), which then obey CONN_MAX_AGE and the health
checks as a web request's connection does.

Celery's Django fixup closes every connection when a task ends unless CELERY_DB_REUSE_MAX is set.
So each chunk of a digest run (up to 500 emails, a second or two of work) opened a PostgreSQL
session of its own: a backend forked, its catalog caches filled again and psycopg's prepared
statements lost, every task. The settings set CELERY_DB_REUSE_MAX, which leaves the closing to
the handlers here: a task that keeps its connection must leave the session as it found it (no
session-level SET left behind, no session advisory lock, no temporary table), which is why
keeping is chosen per task and not for all of them (graph.services.rebuild sets work_mem for its
session, for one). Any task that follows, of either kind, first drops a connection that is broken,
inside a transaction, errored or older than CONN_MAX_AGE (django.db.close_old_connections), and
DB_CONN_MAX_AGE=0 closes them all after every task, as before. A task run eagerly (in the caller's
process) leaves the caller's connection alone.
"""

from __future__ import annotations

from typing import Any

from celery import Task
from django.db import DatabaseError, InterfaceError, close_old_connections, connections


class ConnectionKeepingTask(Task):
    """The base of a task that keeps its database connection for the next task: one that leaves
    its session as it found it."""

    keeps_db_connection = True


def _eager(task: Any) -> bool:
    return bool(getattr(getattr(task, "request", None), "is_eager", False))


def _keeps_connection(task: Any) -> bool:
    return bool(getattr(task, "keeps_db_connection", False))


def connections_before_task(sender: Any = None, **_: Any) -> None:
    """task_prerun: a connection left by a task that kept it is dropped if it is of no more use."""
    if sender is not None and not _eager(sender):
        close_old_connections()


def connections_after_task(sender: Any = None, **_: Any) -> None:
    """task_postrun: every connection closed, unless the task keeps it (and it is still good)."""
    if sender is None or _eager(sender):
        return
    if _keeps_connection(sender):
        close_old_connections()
        return
    for connection in connections.all(initialized_only=True):
        # As Celery's fixup does: a connection the server already closed has nothing to close.
        try:
            connection.close()
        except InterfaceError:
            pass
        except DatabaseError as error:
            if "closed" not in str(error) and "not connected" not in str(error):
                raise
