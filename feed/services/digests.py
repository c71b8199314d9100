"""The feed's email digests (issue 14): what a digest holds, through the digest deliveries of
notifications (notifications.services.deliveries), the mechanism the daily digest of
notifications uses too.

A run (`manage.py send_digests`, or beat's hourly feed.tasks.digests_send) has two steps:

1. digests_plan: notifications records a DigestDelivery (category "digest") for every user due
   in the hour that contains the run's clock: digest on (their stored choice, or the default
   this app gives as SQL, DEFAULT_DELIVERY_SQL: weekly for someone who follows something), an
   address and an active account, and the clock at 08:xx in their own time zone (and a Monday,
   for weekly); once per user and period, whoever runs it. It returns the ids of every delivery
   of the period still to send, including any that a run which died left behind.
2. digest_deliveries_send, per chunk of those ids (a Celery task each, queued after commit by
   digests_queue, or inline with --sync): notifications claims the chunk's rows (a conditional
   UPDATE under a lease); this module reads every window of the chunk in one statement
   (feed.selectors.digest_windows: the feed's rules, set-based) and what the emails show of
   their works once, builds each user's email (digest_emails), and hands it back to the run,
   which sends it and marks the row finished at once.

How exactly-once holds (and its one millisecond of at-least-once) is told in
notifications.services.deliveries.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bzpeer.queueing import task_enqueue_on_commit
from feed.selectors import (
    DEFAULT_DELIVERY_SQL,
    DigestWindowRequest,
    digest_windows,
    digest_works_listed,
)
from notifications.kinds import NotificationCategory
from notifications.services.deliveries import (
    DeliveryPlan,
    DigestChunkOutcome,
    digest_chunks,
    digest_deliveries_claimed,
    digest_deliveries_plan_by_preference,
)

from .digest_emails import DigestFooters, DigestListing, digest_email_build

logger = logging.getLogger(__name__)

# A digest announces works published this recently, so a backfill of old papers announces
# nothing; and no window starts further back (nothing older can pass that filter anyway).
PUBLISHED_WITHIN = timedelta(days=60)
# The email lists this many works; the rest are counted ("and N more") and linked to the feed.
DIGEST_ITEMS_SHOWN = 50

_CATEGORY = NotificationCategory.DIGEST.value

# The plan of a run: notifications' (what was planned, what is still to send).
DigestPlan = DeliveryPlan

__all__ = [
    "DIGEST_ITEMS_SHOWN",
    "PUBLISHED_WITHIN",
    "DigestChunkOutcome",
    "DigestPlan",
    "DigestsQueued",
    "digest_chunks",
    "digest_deliveries_send",
    "digests_plan",
    "digests_queue",
]


def digests_plan(*, period: str, clock: datetime) -> DigestPlan:
    """Record the digests of `period` due in the hour that contains `clock` (aware), and list
    every delivery of the period still to send. Idempotent; not inside a transaction (the rows
    must be visible to the workers that send them)."""
    return digest_deliveries_plan_by_preference(
        category=_CATEGORY,
        period=period,
        clock=clock,
        default_delivery_sql=DEFAULT_DELIVERY_SQL,
        window_limit=PUBLISHED_WITHIN,
    )


@dataclass(frozen=True)
class DigestsQueued:
    plan: DigestPlan
    chunks: int


def digests_queue(*, period: str, clock: datetime) -> DigestsQueued:
    """Plan the digests due at `clock` and queue, once the transaction commits, one task per
    chunk of deliveries still to send (feed.tasks.digest_deliveries_send)."""
    plan = digests_plan(period=period, clock=clock)
    chunks = digest_chunks(plan.pending)
    for chunk in chunks:
        task_enqueue_on_commit("feed.tasks.digest_deliveries_send", chunk)
    logger.info("%s digests: %s chunks queued", period, len(chunks))
    return DigestsQueued(plan=plan, chunks=len(chunks))


def digest_deliveries_send(*, delivery_ids: Sequence[int]) -> DigestChunkOutcome:
    """Claim these deliveries (those not finished nor held by another run), then for each user
    send the digest of its window if it holds anything; each row is marked finished right
    after its email (notifications.services.deliveries.DigestRun).

    Not to be called inside a transaction: each claim and mark must commit at once to be seen
    by other runs. If sending fails, every row of the chunk not yet sent is released for the
    next attempt and the error is raised (the task retries mail errors).
    """
    with digest_deliveries_claimed(category=_CATEGORY, delivery_ids=delivery_ids) as run:
        # First every window of the chunk (one statement), then what the emails show of their
        # works, once for the chunk: a week's works are in many users' digests.
        requests = [
            DigestWindowRequest(
                delivery_id=delivery.id,
                user_id=delivery.user.pk,
                arrived_after=delivery.window_start,
                arrived_until=delivery.window_end,
                published_since=(delivery.window_end - PUBLISHED_WITHIN).date(),
            )
            for delivery in run.deliveries
        ]
        windows = digest_windows(requests, limit=DIGEST_ITEMS_SHOWN)
        works = digest_works_listed(
            entry.work_id for entries in windows.entries.values() for entry in entries
        )
        listing = DigestListing(windows=windows, works=works)
        footers = DigestFooters()
        for delivery in run.deliveries:
            entries = windows.entries.get(delivery.id)
            # Nothing new; or every work of the window was deleted meanwhile.
            message = (
                digest_email_build(
                    user=delivery.user,
                    period=delivery.period,
                    entries=entries,
                    total=windows.totals[delivery.id],
                    listing=listing,
                    footers=footers,
                )
                if entries
                else None
            )
            if message is None:
                run.skip(delivery)
                continue
            run.send(delivery, message, items=windows.totals[delivery.id])
    return run.outcome
