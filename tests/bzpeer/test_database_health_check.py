"""The connection health check (CONN_HEALTH_CHECKS): before the first query of a request, an
idle persistent connection stays in use and one the server has closed (a restart, a terminated
backend) is replaced, so the request does not fail; and the cached profile page's first query,
which skips the check's round trip, retries on a new connection instead."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection

from pages.selectors import researcher_profile_page_state
from tests.factories import ResearcherFactory


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _check_as_a_request_starts() -> None:
    # Django's test client leaves out the request signals that run this, so it is run here.
    connection.health_check_done = False
    connection.close_if_health_check_failed()


def _terminate(backend_pid: int) -> None:
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend_pid])
    time.sleep(0.2)  # for the server's goodbye to reach our socket


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_replaced():
    old_pid = _backend_pid()
    _terminate(old_pid)

    _check_as_a_request_starts()

    assert _backend_pid() != old_pid


@pytest.mark.django_db(transaction=True)
def test_an_idle_connection_stays_in_use():
    pid = _backend_pid()

    _check_as_a_request_starts()

    assert _backend_pid() == pid


@pytest.mark.django_db(transaction=True)
def test_a_cached_pages_first_query_survives_a_connection_the_server_closed():
    # researcher_profile_page_state skips the health check's round trip and retries instead.
    researcher = ResearcherFactory()
    old_pid = _backend_pid()
    _terminate(old_pid)
    connection.health_check_done = False  # as a new request finds it

    state = researcher_profile_page_state(researcher.slug)

    assert state is not None and state.researcher_id == researcher.pk
    assert _backend_pid() != old_pid
