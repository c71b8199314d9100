"""A transaction PostgreSQL rolls back for a deadlock or a serialization failure (SQLSTATE
40P01, 40001) is run again a few times, and a person who still meets one gets a 503 with
Retry-After and a message, never a 500 (issue 24, item 3). The errors are PostgreSQL's own,
raised by the server (RAISE ... USING ERRCODE), not imitations."""

from __future__ import annotations

import json

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import RequestFactory

from bzpeer.db import LOCK_CONFLICT_ATTEMPTS, lock_conflict_sqlstate, retry_on_lock_conflict
from bzpeer.errors import Busy
from bzpeer.middleware import LockConflictMiddleware
from researchers.models import Researcher
from tests.factories import ResearcherFactory

pytestmark = pytest.mark.django_db(transaction=True)


def raise_from_postgresql(sqlstate: str) -> None:
    assert sqlstate.isalnum()  # a constant of the test, spliced into the statement
    with connection.cursor() as cursor:
        cursor.execute(
            "DO $$ BEGIN RAISE EXCEPTION 'lock conflict under test'"
            f" USING ERRCODE = '{sqlstate}'; END $$"
        )


@pytest.mark.parametrize("sqlstate", ["40P01", "40001"])
def test_a_lock_conflict_is_run_again_and_its_first_attempt_leaves_nothing(sqlstate):
    researcher = ResearcherFactory(tagline="before")
    attempts = []

    @retry_on_lock_conflict
    @transaction.atomic
    def change() -> str:
        attempts.append(1)
        Researcher.objects.filter(pk=researcher.pk).update(tagline=f"attempt {len(attempts)}")
        if len(attempts) == 1:
            raise_from_postgresql(sqlstate)
        return "saved"

    assert change() == "saved"
    assert len(attempts) == 2
    researcher.refresh_from_db()
    assert researcher.tagline == "attempt 2"


def test_a_lock_conflict_that_does_not_pass_becomes_busy():
    attempts = []

    @retry_on_lock_conflict
    @transaction.atomic
    def always_deadlocks() -> None:
        attempts.append(1)
        raise_from_postgresql("40P01")

    with pytest.raises(Busy) as refused:
        always_deadlocks()
    assert len(attempts) == LOCK_CONFLICT_ATTEMPTS
    assert refused.value.status_code == 503 and refused.value.retry_after


def test_other_database_errors_are_not_retried():
    attempts = []

    @retry_on_lock_conflict
    def fails() -> None:
        attempts.append(1)
        raise_from_postgresql("23505")

    with pytest.raises(DatabaseError):
        fails()
    assert len(attempts) == 1


def test_inside_a_callers_transaction_the_outermost_call_retries():
    attempts = []

    @retry_on_lock_conflict
    def inner() -> None:
        attempts.append(1)
        if len(attempts) == 1:
            raise_from_postgresql("40P01")

    @retry_on_lock_conflict
    @transaction.atomic
    def outer() -> None:
        inner()

    outer()
    assert len(attempts) == 2


def lock_conflict() -> DatabaseError:
    try:
        with transaction.atomic():
            raise_from_postgresql("40P01")
    except DatabaseError as error:
        assert lock_conflict_sqlstate(error) == "40P01"
        return error
    raise AssertionError("PostgreSQL raised nothing")


@pytest.mark.parametrize("path", ["/researchers/someone/follow/", "/api/v1/follows/"])
@pytest.mark.parametrize("make_error", [lock_conflict, lambda: Busy("Try again.")])
def test_a_page_or_api_call_that_meets_one_answers_503_with_retry_after(path, make_error):
    request = RequestFactory().post(path)
    middleware = LockConflictMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]

    response = middleware.process_exception(request, make_error())

    assert response is not None
    assert response.status_code == 503 and int(response["Retry-After"]) >= 1
    body = response.content.decode()
    if path.startswith("/api/"):
        assert json.loads(body)["detail"]
    else:
        assert "Try again" in body


def test_other_errors_are_left_alone():
    middleware = LockConflictMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    assert middleware.process_exception(RequestFactory().get("/"), ValueError("no")) is None
