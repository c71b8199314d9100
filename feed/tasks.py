"""Celery tasks of the feed: the email digests. Thin: they take ids and plain values and call
feed.services.digests, whose claims make every task safe to run twice.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import datetime

from celery import group, shared_task
from django.utils import timezone

from feed.services import digests as digest_services

logger = logging.getLogger(__name__)

# SMTP hiccups are retried with backoff (the failed chunk released its unsent rows first).
_MAIL_ERRORS = (smtplib.SMTPException, ConnectionError)


# Five minutes: a chunk of 500 users is seconds of work even through a slow mail server, and
# the limit must stay under the claim's lease (settings.FEED_DIGEST_LEASE_SECONDS, 15 minutes)
# so that no other run takes over rows a live task still holds.
@shared_task(
    name="feed.tasks.digest_deliveries_send",
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=5 * 60,
)
def digest_deliveries_send(delivery_ids: list[int]) -> int:
    outcome = digest_services.digest_deliveries_send(delivery_ids=delivery_ids)
    return outcome.emailed


@dataclass(frozen=True)
class DigestsQueued:
    plan: digest_services.DigestPlan
    chunks: int


def digests_fan_out(*, period: str, clock: datetime) -> DigestsQueued:
    """Plan the digests due at `clock` and queue one task per chunk of deliveries still to
    send, as a Celery group (the plan is committed first: each statement commits at once)."""
    plan = digest_services.digests_plan(period=period, clock=clock)
    chunks = digest_services.digest_chunks(plan.pending)
    if chunks:
        group(digest_deliveries_send.s(chunk) for chunk in chunks).apply_async()
    logger.info("%s digests: %s chunks queued", period, len(chunks))
    return DigestsQueued(plan=plan, chunks=len(chunks))


# Hourly, by beat, once per period: planning is one INSERT ... SELECT, a minute is ample.
@shared_task(name="feed.tasks.digests_send", time_limit=5 * 60)
def digests_send(period: str) -> int:
    return digests_fan_out(period=period, clock=timezone.now()).chunks
