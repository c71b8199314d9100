"""Fixtures for the collaboration tests (services, selectors, API, admin, emails).

alice, bob and charlie each hold an approved L3 claim on a record of their own (healthchecks'
three users: alice owns, bob is the other party, charlie has no access); newcomer has an
account and no claim; moderator is staff with the collaboration report permissions.
Users are made as the claims tests make them (tests.claims.conftest.make_member and
tests.claims.helpers.approved_claimant: the real claim services).
"""

from __future__ import annotations

import pytest

from bzpeer.celery import app as celery_app
from collaboration.models import Conversation, Invitation

from .factories import accepted_conversation, invite


@pytest.fixture(autouse=True)
def eager_celery():
    """Tasks queued with .delay() run in-process: their bodies are what is under test."""
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """`with commit():` runs the on_commit callbacks (emails, tasks) of what it wraps."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


@pytest.fixture
def person(verified_person):
    """alice, bob and charlie are verified researchers here: only they may invite."""
    return verified_person


@pytest.fixture
def moderator_permissions() -> tuple[str, ...]:
    """The collaboration moderator's permissions: the report queue and its settings."""
    return (
        "view_collaborationreport",
        "change_collaborationreport",
        "view_collaborationsettings",
        "change_collaborationsettings",
        "view_moderationevent",
    )


@pytest.fixture
def invitation(alice, bob) -> Invitation:
    """Alice's pending invitation to bob."""
    return invite(alice, bob)


@pytest.fixture
def conversation(alice, bob) -> Conversation:
    """The conversation bob's acceptance of alice's invitation opened."""
    return accepted_conversation(alice, bob)
