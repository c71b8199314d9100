"""Fixtures for the notifications tests: alice is notified, bob is another member, charlie has
no part in what alice receives."""

from __future__ import annotations

import pytest

from bzpeer.celery import app as celery_app

SITE = "https://bzpeer.example"
# The categories of notifications. Others may sit beside them (issue 14's feed digest) with
# choices and defaults of their own, so tests compare these three.
NOTIFYING = ("claims", "invitations", "messages")


def only_notifying(deliveries: dict[str, str]) -> dict[str, str]:
    return {category: deliveries[category] for category in NOTIFYING}


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
