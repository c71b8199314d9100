"""The daily digest of notifications as a digest delivery (issue 23, item 3): one per user and
day whatever the number of runs, each notification in exactly one digest, one that arrives
after a run's clock in the next one, and the same table and mechanism as the feed's digests."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core import mail
from django.utils import timezone

from feed import services as feed_services
from notifications import services
from notifications.kinds import DAILY_DIGEST_SCOPE, Delivery, NotificationCategory
from notifications.models import DigestDelivery, Notification
from tests.feed.digest_support import MONDAY_8, following, member, recent_work, researcher

from .conftest import SITE

CLAIMS = NotificationCategory.CLAIMS
DAY = datetime.timedelta(days=1)
HOUR = datetime.timedelta(hours=1)

pytestmark = pytest.mark.django_db


def a_run_clock() -> datetime.datetime:
    """A daily run's clock after every notification a test makes now, with hours left in its
    UTC day (noon tomorrow): `now + 1 hour` late in the evening would be tomorrow already, and
    two runs an hour apart would fall on two days."""
    return (
        (timezone.now() + DAY)
        .astimezone(datetime.UTC)
        .replace(hour=12, minute=0, second=0, microsecond=0)
    )


def daily(user):
    services.notification_preference_set(user=user, category=CLAIMS, delivery=Delivery.DAILY)
    return user


def notify(user, subject, *, at=None):
    notification = services.notification_create(
        user=user, category=CLAIMS, kind="k", subject=subject, message=f"About {subject}."
    )
    if at is not None:
        Notification.objects.filter(pk=notification.pk).update(created_at=at)
    return notification


def subjects_in(message) -> list[str]:
    return [line.removeprefix("* ") for line in message.body.splitlines() if line.startswith("* ")]


def test_a_digest_run_twice_for_the_same_day_sends_once(alice):
    daily(alice)
    clock = a_run_clock()
    notify(alice, "First")
    assert services.notification_digest_send(user_id=alice.pk, clock=clock) == 1
    # Later the same day, with something new meanwhile: the day's digest went out.
    notify(alice, "Second")
    assert services.notification_digest_send(user_id=alice.pk, clock=clock + HOUR) == 0
    assert len(mail.outbox) == 1
    (row,) = DigestDelivery.objects.filter(user=alice)
    assert (row.category, row.period, row.period_key) == (
        DAILY_DIGEST_SCOPE,
        "daily",
        clock.astimezone(datetime.UTC).date().isoformat(),
    )
    assert row.emailed and row.finished_at is not None and row.items_count == 1
    # The next day's digest carries what came since, and only that.
    assert services.notification_digest_send(user_id=alice.pk, clock=clock + DAY) == 1
    assert subjects_in(mail.outbox[-1]) == ["Second"]
    assert not Notification.objects.filter(user=alice, emailed_at__isnull=True).exists()


def test_the_daily_run_twice_the_same_day_plans_and_sends_once(alice, bob, commit):
    daily(alice)
    daily(bob)
    notify(alice, "For Alice")
    notify(bob, "For Bob")
    clock = a_run_clock()
    with commit():
        assert services.notification_digests_queue(clock=clock) == 2
    with commit():
        assert services.notification_digests_queue(clock=clock + HOUR) == 0
    assert sorted(message.to[0] for message in mail.outbox) == sorted([alice.email, bob.email])
    assert DigestDelivery.objects.filter(category=DAILY_DIGEST_SCOPE).count() == 2


def test_the_chunks_are_queued_only_when_the_transaction_commits(alice, commit):
    daily(alice)
    notify(alice, "First")
    with commit() as callbacks:
        assert services.notification_digests_queue(clock=a_run_clock()) == 1
        assert mail.outbox == []
    assert len(callbacks) == 1 and len(mail.outbox) == 1


def test_a_notification_that_arrives_after_the_runs_clock_goes_into_the_next_digest(alice):
    daily(alice)
    clock = a_run_clock()
    notify(alice, "Before the run")
    notify(alice, "During the run", at=clock + datetime.timedelta(seconds=1))
    assert services.notification_digest_send(user_id=alice.pk, clock=clock) == 1
    assert subjects_in(mail.outbox[-1]) == ["Before the run"]
    late = Notification.objects.get(subject="During the run")
    assert late.emailed_at is None and late.digest_delivery_id is None
    assert services.notification_digest_send(user_id=alice.pk, clock=clock + DAY) == 1
    assert subjects_in(mail.outbox[-1]) == ["During the run"]


def test_a_digest_that_cannot_go_out_leaves_its_notifications_for_the_next_one(alice, settings):
    daily(alice)
    clock = a_run_clock()
    waiting = notify(alice, "Waiting")
    # Planned while email was on, sent after it was switched off: finished unsent, unbound.
    plan = services.notification_digests_plan(clock=clock, user_id=alice.pk)
    settings.NOTIFICATIONS_EMAIL_ENABLED = False
    outcome = services.notification_digest_deliveries_send(delivery_ids=plan.pending)
    assert (outcome.claimed, outcome.emailed, outcome.empty) == (1, 0, 1)
    waiting.refresh_from_db()
    assert waiting.emailed_at is None and waiting.digest_delivery_id is None
    settings.NOTIFICATIONS_EMAIL_ENABLED = True
    assert services.notification_digest_send(user_id=alice.pk, clock=clock + DAY) == 1
    assert mail.outbox[-1].to == [alice.email]


def test_a_failed_send_releases_the_delivery_with_its_notifications(alice, settings):
    daily(alice)
    clock = a_run_clock()
    notify(alice, "First")
    settings.EMAIL_BACKEND = "tests.notifications.backends.FailingBackend"
    with pytest.raises(OSError):
        services.notification_digest_send(user_id=alice.pk, clock=clock)
    row = DigestDelivery.objects.get(user=alice)
    assert row.claimed_at is None and row.finished_at is None
    # Still bound to the day's delivery: the retry sends the same notification.
    assert Notification.objects.get(user=alice).digest_delivery_id == row.pk
    notify(alice, "After the failure", at=clock + HOUR)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert services.notification_digest_send(user_id=alice.pk, clock=clock) == 1
    assert subjects_in(mail.outbox[-1]) == ["First"]


def test_a_live_claim_is_not_taken_and_a_dead_runs_claim_is_taken_over_after_the_lease(
    alice, settings
):
    daily(alice)
    clock = a_run_clock()
    notify(alice, "First")
    plan = services.notification_digests_plan(clock=clock, user_id=alice.pk)
    # What a run killed (or stalled) after its claim leaves: the delivery claimed, its
    # notification bound.
    with services.digest_deliveries_claimed(
        category=DAILY_DIGEST_SCOPE, delivery_ids=plan.pending
    ) as dead_run:
        (held,) = dead_run.deliveries
        assert Notification.objects.get(user=alice).digest_delivery_id == held.id
        assert services.notification_digests_plan(clock=clock).pending == []
        assert services.notification_digest_send(user_id=alice.pk, clock=clock) == 0
        # A notification of the same day arriving meanwhile is not the dead run's.
        notify(alice, "Meanwhile", at=clock + HOUR)
        # Past the lease (the claim made older, not waited for), the next run takes it over.
        DigestDelivery.objects.filter(pk=held.id).update(
            claimed_at=timezone.now()
            - datetime.timedelta(seconds=settings.DIGEST_LEASE_SECONDS + 1)
        )
        assert services.notification_digest_send(user_id=alice.pk, clock=clock) == 1
        assert subjects_in(mail.outbox[-1]) == ["First"]
        # The run that lost its claim ends here (it was only slow): it finishes nothing of
        # the row another run took over and finished.
        dead_run.skip(held)
    assert len(mail.outbox) == 1
    assert DigestDelivery.objects.get(pk=held.id).emailed is True
    assert services.notification_digest_send(user_id=alice.pk, clock=clock + DAY) == 1
    assert subjects_in(mail.outbox[-1]) == ["Meanwhile"]


def test_both_digests_are_deliveries_of_one_table_each_once_a_period(alice):
    ada = researcher("Ada Lovelace")
    reader = following(daily(member("reader")), ada)
    recent_work(ada, arrived=MONDAY_8 - DAY, title="On the analytical engine")
    notify(reader, "A claim decision", at=MONDAY_8 - HOUR)
    assert feed_services.digests_plan(period="weekly", clock=MONDAY_8).planned == 1
    feed_plan = feed_services.digests_plan(period="weekly", clock=MONDAY_8)
    assert feed_plan.planned == 0
    feed_services.digest_deliveries_send(delivery_ids=feed_plan.pending)
    assert services.notification_digest_send(user_id=reader.pk, clock=MONDAY_8) == 1
    assert services.notification_digest_send(user_id=reader.pk, clock=MONDAY_8) == 0
    rows = DigestDelivery.objects.filter(user=reader).order_by("category")
    assert [(row.category, row.period, row.emailed) for row in rows] == [
        (DAILY_DIGEST_SCOPE, "daily", True),
        ("digest", "weekly", True),
    ]
    feed_digest, notification_digest = mail.outbox
    assert feed_digest.extra_headers["List-Id"] == "bzpeer digest <digest.bzpeer.invalid>"
    assert notification_digest.extra_headers["List-Id"] == (
        "bzpeer daily-digest <daily-digest.bzpeer.invalid>"
    )
    for message in (feed_digest, notification_digest):
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert message.extra_headers["List-Unsubscribe"].startswith(
            f"<{SITE}/notifications/unsubscribe/"
        )
        assert message.alternatives[0][1] == "text/html"


def test_the_model_and_its_content_type_are_the_notifications_apps():
    content_type = ContentType.objects.get_for_model(DigestDelivery)
    assert content_type.app_label == "notifications"
    assert DigestDelivery._meta.db_table == "feed_digestdelivery"
    assert not ContentType.objects.filter(app_label="feed", model="digestdelivery").exists()
