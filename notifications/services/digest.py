"""The daily digest of notifications: one email per user and day with their notifications whose
delivery is DAILY, planned, claimed, sent and finished as a digest delivery
(notifications.services.deliveries, the mechanism the feed's digests use too).

Beat's daily run (notification_digests_queue) records a delivery (category
kinds.DAILY_DIGEST_SCOPE, period daily, keyed by the run's UTC date) for every user with a
notification waiting, and queues one task per chunk of deliveries after commit. Claiming a
delivery binds to it the user's waiting notifications created by the run's clock (its window's
end); sending it marks them emailed in the statement that finishes it. So:

- a notification is in one digest only: it is bound once (a conditional UPDATE), and marked
  emailed when its digest finishes;
- none is lost: one created after the clock, or whose transaction commits after the claim, is
  left unbound and waits for the next day's digest; a digest that could not be sent (no
  address, email switched off) unbinds its notifications for the next one; a run that dies
  leaves its delivery claimed, and the next run takes it over after the lease, with the same
  notifications;
- a user gets one daily digest per day: a second run the same day plans nobody twice (the
  delivery's unique key) and finds the first run's delivery finished.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from bzpeer.queueing import task_enqueue_on_commit
from notifications.kinds import DAILY_DIGEST_SCOPE, Delivery
from notifications.models import DigestPeriod, Notification
from notifications.selectors import digest_deliveries_pending

from .deliveries import (
    DeliveryPlan,
    DigestChunkOutcome,
    deliveries_plan_insert,
    digest_chunks,
    digest_deliveries_claimed,
)
from .emails import absolute_url, optional_email_build

logger = logging.getLogger(__name__)

# The email lists this many; the rest are counted and linked ("and N more").
DIGEST_ITEMS_SHOWN = 50
# Finished deliveries are kept this long (and a day), for the record of who was sent what.
DELIVERIES_KEPT = timedelta(days=60)

_NOTIFICATIONS = Notification._meta.db_table

# Users with a notification waiting for the digest, not yet bound to a digest, created by the
# clock: the partial index notification_digest_due_idx holds only the waiting rows. The period
# key is the run's UTC date.
_DUE_SQL = f"""
SELECT u.id AS user_id, (%(clock)s::timestamptz AT TIME ZONE 'UTC') AS local_clock
FROM users_user u
WHERE u.is_active AND u.email <> ''
  AND u.id IN (
      SELECT n.user_id FROM {_NOTIFICATIONS} n
      WHERE n.email_delivery = '{Delivery.DAILY.value}' AND n.emailed_at IS NULL
        AND n.digest_delivery_id IS NULL AND n.created_at <= %(clock)s::timestamptz
  )
"""


def notification_digests_plan(*, clock: datetime, user_id: int | None = None) -> DeliveryPlan:
    """Record today's (the UTC date of `clock`) daily digest of every user with notifications
    waiting (or of `user_id` only), and list every delivery of the digest still to send
    (including those of runs that died). Idempotent; not inside a transaction."""
    planned = 0
    if settings.NOTIFICATIONS_EMAIL_ENABLED:
        due_sql, due_params = _DUE_SQL, {}
        if user_id is not None:
            due_sql, due_params = f"{_DUE_SQL} AND u.id = %(user_id)s", {"user_id": user_id}
        planned = deliveries_plan_insert(
            category=DAILY_DIGEST_SCOPE,
            period=DigestPeriod.DAILY,
            clock=clock,
            due_sql=due_sql,
            due_params=due_params,
            window_limit=DELIVERIES_KEPT,
        )
    pending = digest_deliveries_pending(category=DAILY_DIGEST_SCOPE, user_id=user_id)
    return DeliveryPlan(
        category=DAILY_DIGEST_SCOPE,
        period=DigestPeriod.DAILY.value,
        clock=clock,
        planned=planned,
        pending=pending,
    )


def notification_digests_queue(*, clock: datetime) -> int:
    """Plan the day's digests and queue, once the transaction commits, one task per chunk of
    deliveries still to send; the number of deliveries queued."""
    plan = notification_digests_plan(clock=clock)
    chunks = digest_chunks(plan.pending)
    for chunk in chunks:
        task_enqueue_on_commit("notifications.tasks.notification_digest_deliveries_send", chunk)
    logger.info(
        "daily notification digests at %s: %s planned, %s queued in %s chunks",
        clock.isoformat(),
        plan.planned,
        len(plan.pending),
        len(chunks),
    )
    return len(plan.pending)


def notification_digest_deliveries_send(*, delivery_ids: Sequence[int]) -> DigestChunkOutcome:
    """Claim these daily-digest deliveries (those not finished nor held by another run) and
    email each user the notifications their delivery carries, in one message; a delivery whose
    notifications were all turned off since is finished unsent. Not inside a transaction."""
    with digest_deliveries_claimed(category=DAILY_DIGEST_SCOPE, delivery_ids=delivery_ids) as run:
        carried: dict[int, list[Notification]] = defaultdict(list)
        for notification in Notification.objects.filter(
            digest_delivery_id__in=[delivery.id for delivery in run.deliveries],
            emailed_at__isnull=True,
            email_delivery=Delivery.DAILY,
        ).order_by("created_at", "id"):
            if notification.digest_delivery_id is not None:  # always, by the filter
                carried[notification.digest_delivery_id].append(notification)
        notifications_url = absolute_url(reverse("notifications:list"))
        for delivery in run.deliveries:
            items = carried.get(delivery.id)
            if not items:
                run.skip(delivery)
                continue
            context: dict[str, Any] = {
                "user": delivery.user,
                "items": [
                    {"notification": item, "url": absolute_url(item.url)}
                    for item in items[:DIGEST_ITEMS_SHOWN]
                ],
                "count": len(items),
                "more": max(len(items) - DIGEST_ITEMS_SHOWN, 0),
                "notifications_url": notifications_url,
            }
            message = optional_email_build(
                user=delivery.user,
                category=DAILY_DIGEST_SCOPE,
                subject=render_to_string("notifications/email/digest_subject.txt", context),
                text_body=render_to_string("notifications/email/digest.txt", context),
                html_body=render_to_string("notifications/email/digest.html", context),
            )
            run.send(delivery, message, items=len(items))
            logger.info(
                "daily digest %s of %s notifications sent to user %s",
                delivery.id,
                len(items),
                delivery.user.pk,
            )
    return run.outcome


def notification_digest_send(*, user_id: int, clock: datetime | None = None) -> int:
    """Email the user their daily digest of the day of `clock` (now by default) if it has not
    gone out yet, and any of theirs a run that died left behind; the number of notifications
    it carried (0: nothing sent). Not to be called inside a transaction."""
    plan = notification_digests_plan(clock=clock or timezone.now(), user_id=user_id)
    if not plan.pending:
        return 0
    return notification_digest_deliveries_send(delivery_ids=plan.pending).items


def notification_digests_resend_pending() -> int:
    """Queue again the chunks of daily-digest deliveries still to send (a periodic sweep,
    hourly): those whose task message was lost (the broker down or emptied), or whose run died
    and whose lease has passed. The daily run would find them only the next day. A delivery
    another run holds, or that is sent meanwhile, is left alone by the chunk's claim, so a
    chunk queued twice sends nothing twice. Returns the number of deliveries queued."""
    pending = digest_deliveries_pending(category=DAILY_DIGEST_SCOPE)
    for chunk in digest_chunks(pending):
        task_enqueue_on_commit("notifications.tasks.notification_digest_deliveries_send", chunk)
    if pending:
        logger.info("daily notification digests owed: %d deliveries queued again", len(pending))
    return len(pending)
