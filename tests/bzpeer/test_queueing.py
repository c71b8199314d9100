"""bzpeer.queueing: a service queues a Celery task by its name, once the transaction commits."""

from __future__ import annotations

import pytest
from django.db import transaction

from bzpeer.celery import app as celery_app
from bzpeer.queueing import UnknownTask, registered_task, task_enqueue_on_commit
from notifications.services import notification_create
from tests.support.celery_broker import celery_broker_pointed_at
from tests.support.people import make_member

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[tuple[tuple, dict]]:
    """What reaches the broker: apply_async of the named task, recorded instead of sent."""
    calls: list[tuple[tuple, dict]] = []
    task = registered_task("notifications.tasks.notification_email_send")
    monkeypatch.setattr(
        task, "apply_async", lambda args=(), kwargs=None, **options: calls.append((args, kwargs))
    )
    return calls


def test_a_task_is_sent_once_after_the_transaction_commits(
    sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        task_enqueue_on_commit("notifications.tasks.notification_email_send", 41)
        assert sent == []  # not before the commit

    assert len(callbacks) == 1
    assert sent == [((41,), {})]


def test_nothing_is_sent_when_the_transaction_rolls_back(sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            task_enqueue_on_commit("notifications.tasks.notification_email_send", 42)
            transaction.set_rollback(True)

    assert callbacks == []
    assert sent == []


def test_an_unknown_task_name_fails_when_it_is_queued_not_later():
    with pytest.raises(UnknownTask, match="notifications.tasks.no_such_task"):
        task_enqueue_on_commit("notifications.tasks.no_such_task", 1)


def test_a_service_queues_its_task_by_name_and_the_task_runs(
    settings, mailoutbox, django_capture_on_commit_callbacks
):
    """notification_create queues notifications.tasks.notification_email_send by its name; run
    in-process (task_always_eager), the email goes out once the transaction commits."""
    settings.NOTIFICATIONS_EMAIL_ENABLED = True
    user = make_member("alice@example.org", display_name="Alice Liddell")
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            notification = notification_create(
                user=user,
                category="claims",
                kind="claim_approved",
                subject="Your claim was approved",
                message="You are now the verified owner of this record.",
                url="/researchers/alice-liddell/",
            )
            assert mailoutbox == []
    finally:
        celery_app.conf.task_always_eager = previous

    assert [message.to for message in mailoutbox] == [["alice@example.org"]]
    notification.refresh_from_db()
    assert notification.emailed_at is not None


UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def broker_unreachable():
    """The Celery app's broker pointed at a port where nothing listens, with pools of its own;
    the app's own configuration and pools are put back untouched afterwards."""
    with celery_broker_pointed_at(UNREACHABLE_BROKER):
        yield


def test_an_unreachable_broker_never_fails_the_committed_request(
    broker_unreachable, django_capture_on_commit_callbacks, caplog
):
    alice = make_member("alice-broker@example.org", display_name="Alice Broker")
    # robust=False in the service: still no error once the transaction has committed.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        notification = notification_create(
            user=alice,
            category="claims",
            kind="test",
            subject="Hello",
            message="A message",
            url="/",
        )

    assert len(callbacks) == 1
    assert notification.pk is not None
    assert "broker unavailable, notifications.tasks.notification_email_send" in caplog.text


def test_pointing_the_broker_elsewhere_and_back_leaves_the_configuration_as_it_was():
    """The broker_write_url Celery derives from broker_url is not pinned on the way back (it
    was, and a later test's worker on a Redis of its own never got the messages sent to it)."""
    conf = celery_app.conf
    before = (dict(conf.changes), celery_app._pool, celery_app.amqp._producer_pool)
    with celery_broker_pointed_at(UNREACHABLE_BROKER, queue="elsewhere"):
        assert conf.broker_write_url == UNREACHABLE_BROKER
        assert conf.task_default_queue == "elsewhere"

    assert (dict(conf.changes), celery_app._pool, celery_app.amqp._producer_pool) == before
    with celery_broker_pointed_at("redis://127.0.0.1:2/0"):
        # What a later test points the app at is where it writes: nothing stayed pinned.
        assert conf.broker_write_url == conf.broker_read_url == "redis://127.0.0.1:2/0"
