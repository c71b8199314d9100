"""The daily digest: one email per user with their notifications whose delivery is daily, each
item in exactly one digest even when runs overlap or repeat."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.utils import timezone

from notifications import services, tasks
from notifications.kinds import Delivery, NotificationCategory
from notifications.models import Notification
from tests.support.concurrency import run_together
from tests.support.people import make_member

from .conftest import SITE

CLAIMS = NotificationCategory.CLAIMS
MESSAGES = NotificationCategory.MESSAGES


def daily(user, *categories):
    services.notification_preferences_set(
        user=user, deliveries=dict.fromkeys(categories or (CLAIMS, MESSAGES), Delivery.DAILY)
    )


def notify(user, subject, category=CLAIMS):
    return services.notification_create(
        user=user,
        category=category,
        kind="k",
        subject=subject,
        message=f"About {subject}.",
        url="/account/",
    )


@pytest.mark.django_db
def test_one_email_per_user_with_their_waiting_items(alice, bob, commit):
    daily(alice)
    daily(bob)
    with commit():
        notify(alice, "First")
        notify(alice, "Second", MESSAGES)
        notify(bob, "For Bob")
    assert mail.outbox == []
    # The chunks' tasks are queued once the run's transaction commits.
    with commit():
        assert tasks.notification_digests_queue() == 2
    by_recipient = {message.to[0]: message for message in mail.outbox}
    assert set(by_recipient) == {alice.email, bob.email}
    alices = by_recipient[alice.email]
    assert alices.subject == "[bzpeer] Your daily notifications (2)"
    assert "First" in alices.body and "Second" in alices.body and "For Bob" not in alices.body
    html = alices.alternatives[0][0]
    assert "About First." in html and f"{SITE}/account/" in html
    assert not Notification.objects.filter(emailed_at__isnull=True).exists()


@pytest.mark.django_db
def test_the_digest_has_list_id_and_one_click_unsubscribe_headers(alice):
    daily(alice)
    notify(alice, "First")
    services.notification_digest_send(user_id=alice.pk)
    (message,) = mail.outbox
    assert message.extra_headers["List-Id"] == "bzpeer daily-digest <daily-digest.bzpeer.invalid>"
    assert message.extra_headers["List-Unsubscribe"].startswith(
        f"<{SITE}/notifications/unsubscribe/"
    )
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert link in message.body and link in message.alternatives[0][0]


@pytest.mark.django_db
def test_a_second_run_sends_nothing(alice):
    daily(alice)
    notify(alice, "First")
    assert services.notification_digest_send(user_id=alice.pk) == 1
    assert services.notification_digest_send(user_id=alice.pk) == 0
    assert tasks.notification_digests_queue() == 0
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_only_daily_items_go_in_the_digest(alice, commit):
    daily(alice, MESSAGES)
    services.notification_preference_set(
        user=alice, category=NotificationCategory.INVITATIONS, delivery=Delivery.OFF
    )
    with commit():
        notify(alice, "Immediate", CLAIMS)
        notify(alice, "Off", NotificationCategory.INVITATIONS)
        notify(alice, "Daily", MESSAGES)
    assert [message.subject for message in mail.outbox] == ["[bzpeer] Immediate"]
    assert services.notification_digest_send(user_id=alice.pk) == 1
    digest = mail.outbox[-1]
    assert "Daily" in digest.body and "Off" not in digest.body and "Immediate" not in digest.body


@pytest.mark.django_db
def test_the_digest_lists_fifty_items_and_counts_the_rest(alice):
    daily(alice)
    for number in range(53):
        notify(alice, f"Item {number:02d}")
    assert services.notification_digest_send(user_id=alice.pk) == 53
    (message,) = mail.outbox
    assert "Item 49" in message.body and "Item 50" not in message.body
    assert "and 3 more" in message.body
    assert not Notification.objects.filter(user=alice, emailed_at__isnull=True).exists()


@pytest.mark.django_db
def test_a_failed_send_leaves_the_items_for_the_retry(alice, settings):
    daily(alice)
    notify(alice, "First")
    settings.EMAIL_BACKEND = "tests.notifications.backends.FailingBackend"
    with pytest.raises(OSError):
        services.notification_digest_send(user_id=alice.pk)
    assert Notification.objects.filter(user=alice, emailed_at__isnull=True).count() == 1
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert services.notification_digest_send(user_id=alice.pk) == 1


@pytest.mark.django_db
def test_nothing_goes_to_a_user_who_is_gone_or_when_email_is_off(alice, settings):
    daily(alice)
    notify(alice, "First")
    settings.NOTIFICATIONS_EMAIL_ENABLED = False
    assert services.notification_digest_send(user_id=alice.pk) == 0
    assert services.notification_digest_send(user_id=987654321) == 0
    assert mail.outbox == []


def test_beat_queues_the_digest_once_a_day():
    entry = django_settings.CELERY_BEAT_SCHEDULE["notifications-daily-digest"]
    assert entry["task"] == "notifications.tasks.notification_digests_queue"
    assert entry["task"] in tasks.notification_digests_queue.app.tasks
    schedule = entry["schedule"]
    assert schedule.hour == {7} and schedule.minute == {0}


@pytest.mark.django_db(transaction=True)
def test_two_overlapping_runs_never_send_an_item_twice(settings):
    # A slow mail server: the second run starts while the first is still sending.
    settings.EMAIL_BACKEND = "tests.notifications.backends.SlowBackend"
    users = [make_member(f"user{number}@example.org") for number in range(3)]
    for user in users:
        daily(user)
    for round_number in range(3):  # the interleavings differ from run to run
        for user in users:
            for number in range(4):
                notify(user, f"Round {round_number} item {number}")
        mail.outbox.clear()
        # Each round is the digest of another day (one digest per user and day).
        clock = timezone.now() + datetime.timedelta(days=round_number)
        results = run_together(
            *[
                (
                    lambda user=user, clock=clock: services.notification_digest_send(
                        user_id=user.pk, clock=clock
                    )
                )
                for user in users
                for _ in range(2)
            ]
        )
        assert not [result for result in results if isinstance(result, Exception)]
        assert sum(results) == 12
        for user in users:
            listed = [
                line.removeprefix("* ")
                for message in mail.outbox
                if message.to == [user.email]
                for line in message.body.splitlines()
                if line.startswith("* ")
            ]
            # Every item in exactly one digest (in practice one run takes all four).
            assert sorted(listed) == [f"Round {round_number} item {n}" for n in range(4)]
    assert not Notification.objects.filter(emailed_at__isnull=True).exists()
