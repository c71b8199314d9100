"""The connection health check (CONN_HEALTH_CHECKS): before the first query of a request, an
idle persistent connection stays in use and one the server has closed (a restart, a terminated
backend) is replaced, so the request does not fail."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _check_as_a_request_starts() -> None:
    # Django's test client leaves out the request signals that run this, so it is run here.
    connection.health_check_done = False
    connection.close_if_health_check_failed()


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_replaced():
    old_pid = _backend_pid()
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [old_pid])
    time.sleep(0.2)  # for the server's goodbye to reach our socket

    _check_as_a_request_starts()

    assert _backend_pid() != old_pid


@pytest.mark.django_db(transaction=True)
def test_an_idle_connection_stays_in_use():
    pid = _backend_pid()

    _check_as_a_request_starts()

    assert _backend_pid() == pid
