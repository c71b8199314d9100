"""notification_create: always in the app; its email by the user's delivery for the category,
from a task after commit, at most once."""

from __future__ import annotations

import smtplib

import pytest
from django.core import mail

from notifications import services, tasks
from notifications.kinds import Delivery, NotificationCategory
from notifications.models import Notification

pytestmark = pytest.mark.django_db

CLAIMS = NotificationCategory.CLAIMS


def notify(user, *, category=CLAIMS, subject="Your claim on Alice Liddell was approved"):
    return services.notification_create(
        user=user,
        category=category,
        kind="claim_approved",
        subject=subject,
        message="A moderator approved your claim at L4.",
        url="/researchers/alice-liddell/",
    )


def test_it_emails_at_once_by_default_after_the_transaction_commits(alice, commit):
    with commit() as callbacks:
        notification = notify(alice)
        assert mail.outbox == []  # nothing leaves before the commit
    assert len(callbacks) == 1
    (message,) = mail.outbox
    assert message.to == [alice.email]
    assert message.subject == "[bzpeer] Your claim on Alice Liddell was approved"
    assert "https://bzpeer.example/researchers/alice-liddell/" in message.body
    assert "A moderator approved your claim at L4." in message.alternatives[0][0]
    notification.refresh_from_db()
    assert notification.category == CLAIMS
    assert notification.email_delivery == Delivery.IMMEDIATELY
    assert notification.emailed_at is not None
    assert notification.read_at is None


def test_the_email_waits_for_the_commit(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        notify(alice)
    # The task is queued by an on-commit callback; until it runs, nothing is sent.
    assert len(callbacks) == 1 and mail.outbox == []


def test_a_daily_category_waits_for_the_digest(alice, commit):
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.DAILY)
    with commit() as callbacks:
        notification = notify(alice)
    assert callbacks == [] and mail.outbox == []
    notification.refresh_from_db()
    assert notification.email_delivery == Delivery.DAILY and notification.emailed_at is None


def test_a_category_turned_off_sends_no_email_but_still_notifies_in_the_app(alice, commit):
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.OFF)
    with commit():
        notification = notify(alice)
    assert mail.outbox == []
    assert notification.email_delivery == Delivery.OFF
    assert Notification.objects.filter(user=alice).count() == 1


def test_each_category_has_its_own_delivery(alice, commit):
    services.notification_preference_set(
        user=alice, category=NotificationCategory.MESSAGES, delivery=Delivery.OFF
    )
    with commit():
        notify(alice, category=NotificationCategory.MESSAGES, subject="A message")
        notify(alice, category=NotificationCategory.INVITATIONS, subject="An invitation")
    assert [message.subject for message in mail.outbox] == ["[bzpeer] An invitation"]


def test_the_site_switch_turns_every_notification_email_off(alice, commit, settings):
    settings.NOTIFICATIONS_EMAIL_ENABLED = False
    with commit():
        notification = notify(alice)
    assert mail.outbox == []
    # Off for good: the digest never picks it up once email is switched on again.
    assert notification.email_delivery == Delivery.OFF


def test_it_refuses_a_category_that_does_not_exist(alice):
    with pytest.raises(ValueError, match="not a notification category"):
        notify(alice, category="feed")


def test_a_user_without_an_email_address_is_notified_in_the_app_only(alice, commit):
    alice.email = ""
    alice.save(update_fields=["email"])
    with commit():
        notify(alice)
    assert mail.outbox == [] and Notification.objects.filter(user=alice).exists()


def test_the_task_delivered_twice_sends_the_email_once(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        notification = notify(alice)
    tasks.notification_email_send(notification.pk)
    tasks.notification_email_send(notification.pk)
    assert len(mail.outbox) == 1


def test_the_task_of_a_deleted_notification_returns_quietly(alice):
    tasks.notification_email_send(987654321)
    assert mail.outbox == []


def test_a_user_who_chose_the_digest_since_gets_it_in_the_digest(
    alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        notification = notify(alice)
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.DAILY)
    tasks.notification_email_send(notification.pk)
    assert mail.outbox == []
    notification.refresh_from_db()
    assert notification.email_delivery == Delivery.DAILY and notification.emailed_at is None
    assert services.notification_digest_send(user_id=alice.pk) == 1


def test_a_failed_send_is_not_marked_emailed_so_a_retry_sends_it(
    alice, django_capture_on_commit_callbacks, settings
):
    with django_capture_on_commit_callbacks(execute=False):
        notification = notify(alice)
    settings.EMAIL_BACKEND = "tests.notifications.backends.FailingBackend"
    with pytest.raises(smtplib.SMTPException):
        services.notification_email_deliver(notification_id=notification.pk)
    notification.refresh_from_db()
    assert notification.emailed_at is None
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert services.notification_email_deliver(notification_id=notification.pk) is True
    assert len(mail.outbox) == 1


def test_mark_read_marks_only_the_users_own_notifications(alice, bob):
    mine = [notify(alice), notify(alice)]
    theirs = notify(bob)
    assert (
        services.notifications_mark_read(user=alice, notification_ids=[mine[0].pk, theirs.pk]) == 1
    )
    assert services.notifications_mark_read(user=alice) == 1
    assert Notification.objects.filter(user=alice, read_at__isnull=True).count() == 0
    theirs.refresh_from_db()
    assert theirs.read_at is None
