"""Which Celery tasks keep their database connection (bzpeer.task_connections), through the
handlers the worker runs at each task's start and end, on the real connection. The digests'
chunks keep theirs through a real worker: tests/feed/test_digest_runs.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import connection

from bzpeer.celery import app as celery_app
from bzpeer.task_connections import connections_after_task, connections_before_task
from feed import tasks as feed_tasks
from notifications import tasks as notification_tasks

# Transactional: the handlers close the connection, which a test inside a transaction cannot.
pytestmark = pytest.mark.django_db(transaction=True)


def a_task(*, keeps: bool, eager: bool = False) -> SimpleNamespace:
    return SimpleNamespace(keeps_db_connection=keeps, request=SimpleNamespace(is_eager=eager))


def open_connection() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_task_that_does_not_keep_it_ends_with_its_connection_closed():
    open_connection()
    connections_after_task(sender=a_task(keeps=False))
    assert connection.connection is None


def test_a_task_that_keeps_it_leaves_it_open_for_the_next_task():
    # A session of its own: one an earlier test opened may already be older than CONN_MAX_AGE,
    # which the handlers rightly close.
    connection.close()
    session = open_connection()
    connections_after_task(sender=a_task(keeps=True))
    connections_before_task(sender=a_task(keeps=False))
    assert connection.connection is not None
    assert open_connection() == session


def test_a_kept_connection_older_than_conn_max_age_is_closed(settings):
    connection.close()
    connection.settings_dict["CONN_MAX_AGE"] = 0
    try:
        open_connection()
        connections_after_task(sender=a_task(keeps=True))
        assert connection.connection is None
    finally:
        connection.settings_dict["CONN_MAX_AGE"] = settings.DATABASES["default"]["CONN_MAX_AGE"]
        connection.close()


def test_a_kept_connection_left_inside_a_transaction_is_closed():
    open_connection()
    connection.set_autocommit(False)
    try:
        connections_after_task(sender=a_task(keeps=True))
        assert connection.connection is None
    finally:
        connection.set_autocommit(True)


def test_a_task_run_eagerly_leaves_the_callers_connection_alone():
    session = open_connection()
    connections_after_task(sender=a_task(keeps=False, eager=True))
    assert open_connection() == session


def test_the_digests_chunks_keep_their_connection_and_other_tasks_do_not():
    assert feed_tasks.digest_deliveries_send.keeps_db_connection is True
    assert notification_tasks.notification_digest_deliveries_send.keeps_db_connection is True
    assert not getattr(feed_tasks.digests_send, "keeps_db_connection", False)
    # Celery's fixup closes nothing per task itself; these handlers do.
    assert celery_app.conf.get("CELERY_DB_REUSE_MAX")
