"""Fixtures for the collaboration tests (services, selectors, API, admin, emails).

alice, bob and charlie each hold an approved L3 claim on a record of their own (healthchecks'
three users: alice owns, bob is the other party, charlie has no access); newcomer has an
account and no claim; moderator is staff with the collaboration report permissions.
Users are made as the claims tests make them (tests.claims.conftest.make_member and
tests.claims.helpers.approved_claimant: the real claim services).
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from bzpeer.celery import app as celery_app
from collaboration.models import Conversation, Invitation
from tests.claims.conftest import client_for, make_member

from .factories import accepted_conversation, invite, verified_researcher


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """A cache key prefix of this test's own (Redis is shared with other suites)."""
    settings.CACHES = {
        "default": {
            **settings.CACHES["default"],
            "KEY_PREFIX": f"bzpeer-test-{uuid.uuid4().hex[:12]}",
        }
    }


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
def alice(db):
    return verified_researcher("alice@example.org", "Alice Liddell", "alice-liddell")


@pytest.fixture
def bob(db):
    return verified_researcher("bob@example.org", "Bob Bobson", "bob-bobson")


@pytest.fixture
def charlie(db):
    return verified_researcher("charlie@example.org", "Charlie Chaplin", "charlie-chaplin")


@pytest.fixture
def newcomer(db):
    """Signed up, email verified, no claim."""
    return make_member("newcomer@example.org", display_name="Nora Newcomer")


@pytest.fixture
def alice_client(alice) -> Client:
    return client_for(alice)


@pytest.fixture
def bob_client(bob) -> Client:
    return client_for(bob)


@pytest.fixture
def charlie_client(charlie) -> Client:
    return client_for(charlie)


@pytest.fixture
def invitation(alice, bob) -> Invitation:
    """Alice's pending invitation to bob."""
    return invite(alice, bob)


@pytest.fixture
def conversation(alice, bob) -> Conversation:
    """The conversation bob's acceptance of alice's invitation opened."""
    return accepted_conversation(alice, bob)


@pytest.fixture
def moderator(db):
    user = make_member("mod@example.org", display_name="Mo Derator", is_staff=True)
    for codename in (
        "view_collaborationreport",
        "change_collaborationreport",
        "view_collaborationsettings",
        "change_collaborationsettings",
        "view_moderationevent",
    ):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


@pytest.fixture
def moderator_client(moderator) -> Client:
    return client_for(moderator)
