"""Fixtures for the notifications tests: alice is notified, bob is another member, charlie has
no part in what alice receives."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from bzpeer.celery import app as celery_app
from tests.factories import UserFactory

SITE = "https://bzpeer.example"
# The categories of notifications. Others may sit beside them (issue 14's feed digest) with
# choices and defaults of their own, so tests compare these three.
NOTIFYING = ("claims", "invitations", "messages")


def only_notifying(deliveries: dict[str, str]) -> dict[str, str]:
    return {category: deliveries[category] for category in NOTIFYING}


def make_member(email: str, *, display_name: str = ""):
    user = UserFactory(email=email, username=email.split("@")[0], display_name=display_name)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def https_site(settings):
    """Links in emails are absolute and, as in production, https (RFC 8058 requires it)."""
    settings.SITE_URL = SITE
    settings.NOTIFICATIONS_EMAIL_ENABLED = True


@pytest.fixture(autouse=True)
def eager_celery():
    """Tasks enqueued with .delay() run in-process: the task bodies are what is under test."""
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """`with commit():` runs the on_commit callbacks (task enqueues) of what it wraps."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


@pytest.fixture
def alice(db):
    return make_member("alice@example.org", display_name="Alice Liddell")


@pytest.fixture
def bob(db):
    return make_member("bob@example.org", display_name="Bob Bobson")


@pytest.fixture
def charlie(db):
    return make_member("charlie@example.org", display_name="Charlie Chaplin")


@pytest.fixture
def alice_client(alice):
    return client_for(alice)


@pytest.fixture
def bob_client(bob):
    return client_for(bob)


@pytest.fixture
def charlie_client(charlie):
    return client_for(charlie)
