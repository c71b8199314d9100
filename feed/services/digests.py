"""The feed's email digests (issue 14): who is due, each digest exactly once, and the email.

A run (`manage.py send_digests`, or beat's hourly feed.tasks.digests_send) has two steps:

1. digests_plan: one INSERT ... SELECT records a DigestDelivery for every user due in the hour
   that contains the run's clock: digest on (their stored choice, or the default, weekly for
   someone who follows something), an address and an active account, and the clock at 08:xx in
   their own time zone (and a Monday, for weekly). PostgreSQL does the time zone arithmetic per
   user (`clock AT TIME ZONE users_user.time_zone`). The unique (user, period, period_key)
   constraint and ON CONFLICT DO NOTHING make planning idempotent: a second run in the same
   period, or two at once, plan nobody twice. It returns the ids of every delivery of the period
   still to send, including any that a run which died left behind.
2. digest_deliveries_send, per chunk of those ids (a Celery task each, or inline with --sync):
   claim the chunk's rows with a conditional UPDATE ... RETURNING, read every window of the
   chunk in one statement (feed.selectors.digest_windows: the feed's rules, set-based) and what
   the emails show of their works once, then per user build, send, and mark the row finished
   at once.

Exactly once, and the trade-off. The claim is committed before anything is sent and the
finished mark right after each send. Two live runs never both send a row: the claim is a
conditional UPDATE, so whichever commits first takes the row and the other's UPDATE finds it
taken (at most once, while the claim is fresh). A run killed part way leaves rows claimed and
unfinished; the next run takes them over once the claim is older than the lease
(settings.FEED_DIGEST_LEASE_SECONDS), so every due user is sent (at least once). Between the two
lies one gap: a kill after the mail server accepted a message and before its finished mark
committed (one UPDATE, about a millisecond) sends that user the digest twice. At-most-once
(never take a claimed row over) would close the gap at the price of silently dropping, for the
whole period, every user a dead run had claimed and not yet sent; a rare duplicate is the lesser
harm, so this is at-least-once with that millisecond as the only duplicate window. The lease
must outlast a live run's hold on its chunk, or a slow run would lose rows it is still sending:
a chunk's task has a 5-minute time limit against a 15-minute lease, and --sync claims one small
chunk at a time.

The chunk's statements run with synchronous_commit off: a commit then waits for no WAL flush
(0.2 ms instead of 2 ms on the benchmark machine, which decides a 200,000-user run). Its only
risk is a crash of the PostgreSQL server itself losing the last fraction of a second of
commits, whose users could get a second copy; a killed worker loses nothing that committed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import mail
from django.db import DatabaseError, connection

from bzpeer.users.models import User
from feed.selectors import (
    DEFAULT_DELIVERY_SQL,
    DigestWindowRequest,
    digest_deliveries_pending,
    digest_windows,
    digest_works_listed,
)
from notifications.kinds import NotificationCategory
from notifications.models import DigestDelivery, DigestPeriod, NotificationPreference
from notifications.services.emails import can_email

from .digest_emails import DigestFooters, DigestListing, digest_email_build

logger = logging.getLogger(__name__)

# Local hour at which digests go out, and the weekday of the weekly one (ISO: Monday is 1).
SEND_HOUR = 8
WEEKLY_ISO_DAY = 1
# A digest announces works published this recently, so a backfill of old papers announces
# nothing; and no window starts further back (nothing older can pass that filter anyway).
PUBLISHED_WITHIN = timedelta(days=60)
# The email lists this many works; the rest are counted ("and N more") and linked to the feed.
DIGEST_ITEMS_SHOWN = 50

PERIOD_LENGTH = {DigestPeriod.DAILY: timedelta(days=1), DigestPeriod.WEEKLY: timedelta(days=7)}
# period_key in the user's time zone: the local date, or the ISO week ("2026-W49").
_PERIOD_KEY_FORMAT = {DigestPeriod.DAILY: "YYYY-MM-DD", DigestPeriod.WEEKLY: 'IYYY-"W"IW'}

_TABLE = DigestDelivery._meta.db_table

# Who is due in the clock's hour, recorded with the window each digest covers: from the end of
# the user's previous digest (of either period) or, the first time, one period back; never
# further back than PUBLISHED_WITHIN. ON CONFLICT DO NOTHING: planned once per period.
_PLAN_SQL = f"""
WITH due AS (
    SELECT u.id AS user_id,
           (%(clock)s::timestamptz AT TIME ZONE u.time_zone) AS local_clock
    FROM users_user u
    LEFT JOIN {NotificationPreference._meta.db_table} p
           ON p.user_id = u.id AND p.category = %(category)s
    WHERE u.is_active AND u.email <> ''
      AND extract(hour FROM %(clock)s::timestamptz AT TIME ZONE u.time_zone) = %(hour)s
      AND (%(iso_day)s::int IS NULL
           OR extract(isodow FROM %(clock)s::timestamptz AT TIME ZONE u.time_zone)
              = %(iso_day)s::int)
      AND coalesce(p.delivery, {DEFAULT_DELIVERY_SQL}) = %(period)s
)
INSERT INTO {_TABLE} AS d (user_id, period, period_key, window_start, window_end, created_at)
SELECT due.user_id, %(period)s, to_char(due.local_clock, %(key_format)s),
       greatest(
           coalesce(
               (SELECT max(x.window_end) FROM {_TABLE} x
                WHERE x.user_id = due.user_id AND x.window_end <= %(clock)s::timestamptz),
               %(clock)s::timestamptz - %(period_length)s::interval),
           %(clock)s::timestamptz - %(horizon)s::interval),
       %(clock)s::timestamptz, now()
FROM due
ON CONFLICT (user_id, period, period_key) DO NOTHING
"""

# Finished rows whose window ended before any window can start again are of no more use.
_PRUNE_SQL = f"""
DELETE FROM {_TABLE}
WHERE finished_at IS NOT NULL AND window_end < %(clock)s::timestamptz - %(keep)s::interval
"""

_CLAIM_SQL = f"""
UPDATE {_TABLE} SET claimed_at = now()
WHERE id = ANY(%(ids)s) AND finished_at IS NULL
  AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => %(lease)s))
RETURNING id, user_id, period, window_start, window_end
"""


@dataclass(frozen=True)
class DigestPlan:
    period: str
    clock: datetime
    planned: int  # deliveries recorded by this run (users due in the clock's hour)
    pending: list[int]  # ids of every delivery of the period still to send


@dataclass(frozen=True)
class DigestChunkOutcome:
    claimed: int  # rows this call took (others were finished or held by another run)
    emailed: int
    empty: int  # nothing new, no address any more, or the digest turned off since planning


def digests_plan(*, period: str, clock: datetime) -> DigestPlan:
    """Record the digests of `period` due in the hour that contains `clock` (aware), and list
    every delivery of the period still to send. Idempotent; not inside a transaction (the rows
    must be visible to the workers that send them)."""
    period = DigestPeriod(period)
    params: dict[str, Any] = {
        "clock": clock,
        "category": NotificationCategory.DIGEST.value,
        "hour": SEND_HOUR,
        "iso_day": WEEKLY_ISO_DAY if period == DigestPeriod.WEEKLY else None,
        "period": period.value,
        "key_format": _PERIOD_KEY_FORMAT[period],
        "period_length": PERIOD_LENGTH[period],
        "horizon": PUBLISHED_WITHIN,
    }
    prune: dict[str, Any] = {"clock": clock, "keep": PUBLISHED_WITHIN + timedelta(days=1)}
    with connection.cursor() as cursor:
        cursor.execute(_PRUNE_SQL, prune)
        cursor.execute(_PLAN_SQL, params)
        planned = cursor.rowcount
    pending = digest_deliveries_pending(period=period.value)
    logger.info(
        "%s digests at %s: %s planned, %s to send",
        period.value,
        clock.isoformat(),
        planned,
        len(pending),
    )
    return DigestPlan(period=period.value, clock=clock, planned=planned, pending=pending)


def digest_chunks(delivery_ids: Sequence[int]) -> list[list[int]]:
    """The ids in chunks of settings.FEED_DIGEST_CHUNK_SIZE: one task, one claim, each."""
    size = settings.FEED_DIGEST_CHUNK_SIZE
    return [list(delivery_ids[start : start + size]) for start in range(0, len(delivery_ids), size)]


def _finish(cursor: Any, ids: Sequence[int], *, emailed: bool, works_count: int = 0) -> None:
    cursor.execute(
        f"UPDATE {_TABLE} SET finished_at = now(), emailed = %s, works_count = %s"  # noqa: S608
        " WHERE id = ANY(%s)",
        [emailed, works_count, list(ids)],
    )


def digest_deliveries_send(*, delivery_ids: Sequence[int]) -> DigestChunkOutcome:
    """Claim these deliveries (those not finished nor held by another run), then for each user
    send the digest of its window if it holds anything, marking each row finished right after.

    Not to be called inside a transaction: each claim and mark must commit at once to be seen
    by a concurrent run. If sending fails, the rows not yet finished are released for the next
    attempt and the error is raised (the task retries mail errors).
    """
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")
        try:
            return _send_claimed(cursor, list(delivery_ids))
        finally:
            # A connection that broke under the chunk has nothing left to reset; its error,
            # not this one, is the one to see.
            with suppress(DatabaseError):
                cursor.execute("RESET synchronous_commit")


def _send_claimed(cursor: Any, delivery_ids: list[int]) -> DigestChunkOutcome:
    cursor.execute(_CLAIM_SQL, {"ids": delivery_ids, "lease": settings.FEED_DIGEST_LEASE_SECONDS})
    claimed = cursor.fetchall()
    if not claimed:
        return DigestChunkOutcome(claimed=0, emailed=0, empty=0)
    user_ids = [row[1] for row in claimed]
    users = User.objects.in_bulk(user_ids)
    # A choice changed since planning (unsubscribed, or another period) wins; no stored choice
    # is the default the plan already applied.
    chosen = dict(
        NotificationPreference.objects.filter(
            user_id__in=user_ids, category=NotificationCategory.DIGEST
        ).values_list("user_id", "delivery")
    )
    unfinished = {row[0] for row in claimed}
    empty: list[int] = []
    emailed = 0
    mail_connection = mail.get_connection()
    try:
        # First every window of the chunk (one statement), then what the emails show of their
        # works, once for the chunk: a week's works are in many users' digests.
        requests: list[DigestWindowRequest] = []
        periods: dict[int, tuple[User, str]] = {}
        for delivery_id, user_id, period, window_start, window_end in claimed:
            user = users.get(user_id)
            if user is None or not can_email(user) or chosen.get(user_id, period) != period:
                empty.append(delivery_id)
                continue
            requests.append(
                DigestWindowRequest(
                    delivery_id=delivery_id,
                    user_id=user_id,
                    arrived_after=window_start,
                    arrived_until=window_end,
                    published_since=(window_end - PUBLISHED_WITHIN).date(),
                )
            )
            periods[delivery_id] = (user, period)
        windows = digest_windows(requests, limit=DIGEST_ITEMS_SHOWN)
        empty.extend(
            request.delivery_id
            for request in requests
            if request.delivery_id not in windows.entries
        )
        works = digest_works_listed(
            entry.work_id for entries in windows.entries.values() for entry in entries
        )
        listing = DigestListing(windows=windows, works=works)
        footers = DigestFooters()
        mail_connection.open()
        for delivery_id, entries in windows.entries.items():
            user, period = periods[delivery_id]
            total = windows.totals[delivery_id]
            message = digest_email_build(
                user=user,
                period=period,
                entries=entries,
                total=total,
                listing=listing,
                footers=footers,
            )
            if message is None:  # every work of the window was deleted meanwhile
                empty.append(delivery_id)
                continue
            message.connection = mail_connection
            message.send()
            _finish(cursor, [delivery_id], emailed=True, works_count=total)
            unfinished.discard(delivery_id)
            emailed += 1
    except BaseException:
        # Whatever was not sent goes back for the next attempt (a retry, or the next run).
        _finish(cursor, empty, emailed=False)
        unfinished.difference_update(empty)
        cursor.execute(
            f"UPDATE {_TABLE} SET claimed_at = NULL"  # noqa: S608
            " WHERE id = ANY(%s) AND finished_at IS NULL",
            [sorted(unfinished)],
        )
        logger.exception("digest chunk failed; %s deliveries released", len(unfinished))
        raise
    finally:
        mail_connection.close()
    _finish(cursor, empty, emailed=False)
    return DigestChunkOutcome(claimed=len(claimed), emailed=emailed, empty=len(empty))
