"""Celery tasks of the feed: the email digests and the follower counts check. Thin: they take ids and plain values and call
feed.services.digests, whose deliveries (notifications' digest deliveries, claimed under a
lease) make every task safe to run twice.
"""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.utils import timezone

from bzpeer.task_connections import ConnectionKeepingTask
from feed.services import digests as digest_services
from feed.services import follower_counts as follower_count_services

# SMTP hiccups are retried with backoff (the failed chunk released its unsent rows first).
_MAIL_ERRORS = (smtplib.SMTPException, ConnectionError)


# Five minutes: a chunk of 500 users is seconds of work even through a slow mail server, and
# the limit must stay under the claim's lease (settings.DIGEST_LEASE_SECONDS, 15 minutes) so
# that no other run takes over rows a live task still holds. It keeps its database connection
# for the next chunk (bzpeer.task_connections): a new session per chunk cost a backend's start
# and cold caches every 500 users, and the chunk leaves its session as it found it (DigestRun
# resets the synchronous_commit it sets).
@shared_task(
    name="feed.tasks.digest_deliveries_send",
    base=ConnectionKeepingTask,
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=5 * 60,
)
def digest_deliveries_send(delivery_ids: list[int]) -> int:
    outcome = digest_services.digest_deliveries_send(delivery_ids=delivery_ids)
    return outcome.emailed


# Hourly, by beat, once per period: planning is one INSERT ... SELECT, a minute is ample; the
# chunks are queued after commit (digests_queue).
@shared_task(name="feed.tasks.digests_send", time_limit=5 * 60)
def digests_send(period: str) -> int:
    return digest_services.digests_queue(period=period, clock=timezone.now()).chunks


# Daily, by beat: one aggregate over each follow table and an UPDATE of the few records that
# drifted; minutes even for millions of follows, and safe to overlap (rows locked in id order).
@shared_task(name="feed.tasks.follower_counts_recompute", time_limit=30 * 60)
def follower_counts_recompute() -> int:
    return follower_count_services.follower_counts_recompute(fix=True).total_fixed
