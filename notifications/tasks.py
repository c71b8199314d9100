"""Celery tasks of notifications: thin, they take ids and call notifications.services.

Each is safe to run twice: an immediate email is claimed by a conditional UPDATE of emailed_at
before it is sent, and a daily digest is a delivery claimed the same way
(notifications.services.deliveries), so a task delivered again, or two digest runs at once,
never send an item twice.
"""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.utils import timezone

from bzpeer.task_connections import ConnectionKeepingTask

# Modules, not names: the services queue these tasks and import this module, so whichever of
# the two is imported first finds the other half-built; attributes are read at call time.
from notifications.services import digest as digest_services
from notifications.services import notifications as notification_services

logger = logging.getLogger(__name__)

# SMTP hiccups are retried with backoff; a minute per attempt is far more than one email needs.
_MAIL_ERRORS = (smtplib.SMTPException, ConnectionError)


@shared_task(
    name="notifications.tasks.notification_email_send",
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=60,
)
def notification_email_send(notification_id: int) -> None:
    if not notification_services.notification_email_deliver(notification_id=notification_id):
        logger.info("notification %s: no email (gone, sent, or not wanted now)", notification_id)


# One user's digest of today (and any of theirs a dead run left behind); the daily run queues
# chunks instead (notification_digest_deliveries_send).
@shared_task(
    name="notifications.tasks.notification_digest_send",
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=60,
)
def notification_digest_send(user_id: int) -> None:
    digest_services.notification_digest_send(user_id=user_id)


# Five minutes: a chunk of 500 users is seconds of work even through a slow mail server, and
# the limit must stay under the claim's lease (settings.DIGEST_LEASE_SECONDS, 15 minutes) so
# that no other run takes over deliveries a live task still holds. A failed chunk released its
# unsent deliveries before the retry. Like the feed's chunks, it keeps its database connection
# for the next chunk (bzpeer.task_connections).
@shared_task(
    name="notifications.tasks.notification_digest_deliveries_send",
    base=ConnectionKeepingTask,
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=5 * 60,
)
def notification_digest_deliveries_send(delivery_ids: list[int]) -> int:
    return digest_services.notification_digest_deliveries_send(delivery_ids=delivery_ids).emailed


# Daily, by beat: records the day's deliveries (one INSERT ... SELECT over a partial index) and
# queues one task per chunk after commit; five minutes is ample.
@shared_task(name="notifications.tasks.notification_digests_queue", time_limit=5 * 60)
def notification_digests_queue() -> int:
    return digest_services.notification_digests_queue(clock=timezone.now())


# Every five minutes (beat): immediate emails whose task message was lost are queued again.
@shared_task(name="notifications.tasks.notification_emails_owed_send", time_limit=5 * 60)
def notification_emails_owed_send() -> int:
    return notification_services.notification_emails_owed_send()


# Hourly (beat): daily-digest deliveries whose chunk message was lost, or whose run died.
@shared_task(name="notifications.tasks.notification_digests_resend_pending", time_limit=5 * 60)
def notification_digests_resend_pending() -> int:
    return digest_services.notification_digests_resend_pending()
