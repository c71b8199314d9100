"""Digest deliveries: the one mechanism of both email digests (issue 23, item 3).

A digest is one email per user and period. The daily digest of notifications
(notifications.services.digest) and the feed's digests of new works (feed.services.digests)
both go through the three steps here, on the same table (DigestDelivery, one row per user,
digest, period and period key); the feed supplies only its content, calling down into this
module, which knows nothing of follows or works.

1. Plan: one INSERT ... SELECT ... ON CONFLICT DO NOTHING records a delivery for every user due,
   with its window: from the end of the user's previous delivery of the same digest or, the
   first time, one period back. The unique (user, category, period, period_key) constraint makes
   planning idempotent: a second run in the same period, or two at once, plan nobody twice.
   Who is due is the digest's: for a digest a user chooses per period (the feed's), users whose
   choice is the period and for whom it is SEND_HOUR in their time zone
   (digest_deliveries_plan_by_preference); for the daily digest of notifications, users with
   notifications waiting (its own statement in notifications.services.digest, through
   deliveries_plan_insert).
2. Claim, per chunk of deliveries (a Celery task each, queued after commit): a conditional
   UPDATE ... RETURNING takes the rows not finished and not held by a live run
   (digest_deliveries_claimed). For the daily digest of notifications the same statement binds
   the user's waiting notifications created by the window's end to the delivery, so a delivery
   taken over sends the same notifications and no other delivery (another period's, planned
   while this one was held) takes them.
3. Send and finish: per delivery, the caller builds the email (text and HTML, with the list and
   one-click unsubscribe headers of notifications.services.emails), DigestRun.send sends it and
   marks the row finished at once (and, for the notifications' digest, its notifications
   emailed, in the same statement). A delivery with nothing to send is finished unsent.

Exactly once, and the trade-off. The claim is committed before anything is sent and the
finished mark right after each send. Two live runs never both send a row: the claim is a
conditional UPDATE, so whichever commits first takes the row and the other's UPDATE finds it
taken (at most once, while the claim is fresh). A run killed part way leaves rows claimed and
unfinished; the next run takes them over once the claim is older than the lease
(settings.DIGEST_LEASE_SECONDS), so every due user is sent (at least once). Between the two lies
one gap: a kill after the mail server accepted a message and before its finished mark committed
(one UPDATE, about a millisecond) sends that user the digest twice. At-most-once (never take a
claimed row over) would close the gap at the price of silently dropping, for the whole period,
every user a dead run had claimed and not yet sent (and, for the notifications' digest, their
notifications for good); a rare duplicate is the lesser harm, so this is at-least-once with that
millisecond as the only duplicate window. The lease must outlast a live run's hold on its chunk,
or a slow run would lose rows it is still sending: a chunk's task has a 5-minute time limit
against a 15-minute lease, and `send_digests --sync` claims one small chunk at a time.

A chunk's statements run with synchronous_commit off: a commit then waits for no WAL flush
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
from types import TracebackType
from typing import Any

from django.conf import settings
from django.core import mail
from django.core.mail import EmailMessage
from django.db import DatabaseError, connection

from bzpeer.users.models import User
from notifications.kinds import DAILY_DIGEST_SCOPE, DELIVERIES_BY_CATEGORY, Delivery
from notifications.models import DigestDelivery, DigestPeriod, Notification, NotificationPreference
from notifications.selectors import digest_deliveries_pending

from .emails import can_email

logger = logging.getLogger(__name__)

# Local hour at which a digest chosen per period goes out, and the weekday of the weekly one
# (ISO: Monday is 1).
SEND_HOUR = 8
WEEKLY_ISO_DAY = 1

PERIOD_LENGTH = {DigestPeriod.DAILY: timedelta(days=1), DigestPeriod.WEEKLY: timedelta(days=7)}
# period_key from the user's local clock: the local date, or the ISO week ("2026-W49").
PERIOD_KEY_FORMAT = {DigestPeriod.DAILY: "YYYY-MM-DD", DigestPeriod.WEEKLY: 'IYYY-"W"IW'}

_TABLE = DigestDelivery._meta.db_table
_NOTIFICATIONS = Notification._meta.db_table
_DAILY = Delivery.DAILY.value

# Records a delivery for every row of `due` (user_id, local_clock), whatever selected them, with
# its window: from the end of the user's previous delivery of this digest or, the first time,
# one period back; never further back than window_limit. Planned once per period.
_PLAN_INSERT_SQL = f"""
WITH due AS ({{due}})
INSERT INTO {_TABLE} AS d
    (user_id, category, period, period_key, window_start, window_end, created_at)
SELECT due.user_id, %(category)s::text, %(period)s::text, to_char(due.local_clock, %(key_format)s),
       greatest(
           coalesce(
               (SELECT max(x.window_end) FROM {_TABLE} x
                WHERE x.user_id = due.user_id AND x.category = %(category)s::text
                  AND x.window_end <= %(clock)s::timestamptz),
               %(clock)s::timestamptz - %(period_length)s::interval),
           %(clock)s::timestamptz - %(window_limit)s::interval),
       %(clock)s::timestamptz, now()
FROM due
ON CONFLICT (user_id, category, period, period_key) DO NOTHING
"""

# Users whose choice for the category is the period (stored, or the default the caller gives
# as SQL over `u`, users_user) and for whom the clock is in SEND_HOUR (on WEEKLY_ISO_DAY for a
# weekly digest) in their own time zone. PostgreSQL does the time zone arithmetic per user.
_DUE_BY_PREFERENCE_SQL = f"""
SELECT u.id AS user_id, (%(clock)s::timestamptz AT TIME ZONE u.time_zone) AS local_clock
FROM users_user u
LEFT JOIN {NotificationPreference._meta.db_table} p
       ON p.user_id = u.id AND p.category = %(category)s::text
WHERE u.is_active AND u.email <> ''
  AND extract(hour FROM %(clock)s::timestamptz AT TIME ZONE u.time_zone) = %(hour)s
  AND (%(iso_day)s::int IS NULL
       OR extract(isodow FROM %(clock)s::timestamptz AT TIME ZONE u.time_zone) = %(iso_day)s::int)
  AND coalesce(p.delivery, {{default_delivery}}) = %(period)s::text
"""

# Finished rows whose window ended before any window can start again are of no more use.
_PRUNE_SQL = f"""
DELETE FROM {_TABLE}
WHERE category = %(category)s AND finished_at IS NOT NULL
  AND window_end < %(clock)s::timestamptz - %(keep)s::interval
"""

# The claim's time is the clock's, not the transaction's (now()): it is also the run's token,
# which its finish and release must match, so a run that lost its rows to a take-over (it
# outlived the lease) finishes or releases nothing of the run that holds them now.
_CLAIM_SQL = f"""
UPDATE {_TABLE} SET claimed_at = (SELECT clock_timestamp())
WHERE id = ANY(%(ids)s) AND category = %(category)s AND finished_at IS NULL
  AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => %(lease)s))
RETURNING id, user_id, period, window_start, window_end, claimed_at
"""

# The daily digest of notifications claims its rows and, in the same statement, binds to each
# the user's notifications waiting for the digest and created by the window's end (those
# created later, or committed after this, wait for the next digest). Whichever of two claims
# locks a notification first binds it; the other re-reads it bound and leaves it.
_CLAIM_AND_BIND_SQL = f"""
WITH claimed AS ({_CLAIM_SQL}),
bound AS (
    UPDATE {_NOTIFICATIONS} n SET digest_delivery_id = c.id
    FROM claimed c
    WHERE n.user_id = c.user_id AND n.email_delivery = '{_DAILY}' AND n.emailed_at IS NULL
      AND n.digest_delivery_id IS NULL AND n.created_at <= c.window_end
)
SELECT id, user_id, period, window_start, window_end, claimed_at FROM claimed
"""

_FINISHED_CTE = f"""
WITH finished AS (
    UPDATE {_TABLE} SET finished_at = now(), emailed = %(emailed)s, items_count = %(items)s
    WHERE id = ANY(%(ids)s) AND claimed_at = %(claimed_at)s AND finished_at IS NULL
    RETURNING id
)"""

# A plain UPDATE for the feed's digest: nothing reads its count. The mark after each send is
# of one row, by `id =` and positional parameters: the one-element array of `id = ANY(...)`
# cost about twice the CPU, in Python (dumping it) and in PostgreSQL, of the per-user mark.
_FINISH_SQL = f"""
UPDATE {_TABLE} SET finished_at = now(), emailed = %(emailed)s, items_count = %(items)s
WHERE id = ANY(%(ids)s) AND claimed_at = %(claimed_at)s AND finished_at IS NULL
"""
_FINISH_ONE_SQL = f"""
UPDATE {_TABLE} SET finished_at = now(), emailed = %s, items_count = %s
WHERE id = %s AND claimed_at = %s AND finished_at IS NULL
"""

# The notifications' digest finishes its delivery and marks what it carried emailed in one
# statement (one commit). Unsent, it unbinds them instead: they wait for the next digest.
# Either only for the rows this run still held.
_FINISH_SENT_NOTIFICATIONS_SQL = f"""{_FINISHED_CTE},
marked AS (
    UPDATE {_NOTIFICATIONS} SET emailed_at = now()
    WHERE digest_delivery_id IN (SELECT id FROM finished) AND emailed_at IS NULL
      AND email_delivery = '{_DAILY}'
)
SELECT count(*) FROM finished
"""
_FINISH_UNSENT_NOTIFICATIONS_SQL = f"""{_FINISHED_CTE},
unbound AS (
    UPDATE {_NOTIFICATIONS} SET digest_delivery_id = NULL
    WHERE digest_delivery_id IN (SELECT id FROM finished) AND emailed_at IS NULL
)
SELECT count(*) FROM finished
"""

_RELEASE_SQL = f"""
UPDATE {_TABLE} SET claimed_at = NULL
WHERE id = ANY(%(ids)s) AND claimed_at = %(claimed_at)s AND finished_at IS NULL
"""


@dataclass(frozen=True)
class DeliveryPlan:
    category: str
    period: str
    clock: datetime
    planned: int  # deliveries recorded by this run
    pending: list[int]  # ids of every delivery of the digest and period still to send


@dataclass(frozen=True)
class DigestChunkOutcome:
    claimed: int  # rows this call took (others were finished or held by another run)
    emailed: int
    empty: int  # nothing new, no address any more, or the digest turned off since planning
    items: int = 0  # items (works, notifications) in the windows of the digests emailed


@dataclass(frozen=True, slots=True)
class ClaimedDelivery:
    """A delivery this run holds, to build and send now."""

    id: int
    user: User
    period: str
    window_start: datetime
    window_end: datetime


def deliveries_plan_insert(
    *,
    category: str,
    period: str,
    clock: datetime,
    due_sql: str,
    due_params: dict[str, Any],
    window_limit: timedelta,
) -> int:
    """Record a delivery of `category` and `period` for each row of `due_sql` (a SELECT of
    user_id and local_clock, the user's clock from which the period key is written; its
    parameters are named, pyformat), pruning finished rows older than window_limit and a day.
    The number recorded (0 for those already planned this period). Not inside a transaction:
    the rows must be visible to the workers that send them."""
    period = DigestPeriod(period)
    params: dict[str, Any] = {
        **due_params,
        "clock": clock,
        "category": category,
        "period": period.value,
        "key_format": PERIOD_KEY_FORMAT[period],
        "period_length": PERIOD_LENGTH[period],
        "window_limit": window_limit,
    }
    prune: dict[str, Any] = {
        "clock": clock,
        "category": category,
        "keep": window_limit + timedelta(days=1),
    }
    with connection.cursor() as cursor:
        cursor.execute(_PRUNE_SQL, prune)
        cursor.execute(_PLAN_INSERT_SQL.format(due=due_sql), params)
        return cursor.rowcount


def digest_deliveries_plan_by_preference(
    *,
    category: str,
    period: str,
    clock: datetime,
    default_delivery_sql: str,
    window_limit: timedelta,
) -> DeliveryPlan:
    """Record the deliveries of `category` (a category whose deliveries include the period)
    due in the hour that contains `clock` (aware): users with an address and an active account
    whose choice for the category is `period` (stored, or else `default_delivery_sql`, an SQL
    expression over `u`, the users_user row, giving a delivery value) and for whom it is
    SEND_HOUR in their time zone (and a Monday, for weekly). Lists every delivery of the
    digest and period still to send, including any a run which died left behind. Idempotent;
    not inside a transaction."""
    period = DigestPeriod(period)
    if period not in DELIVERIES_BY_CATEGORY.get(category, ()):
        raise ValueError(f"{category!r} has no {period.value} digest")
    planned = deliveries_plan_insert(
        category=category,
        period=period,
        clock=clock,
        due_sql=_DUE_BY_PREFERENCE_SQL.format(default_delivery=default_delivery_sql),
        due_params={
            "hour": SEND_HOUR,
            "iso_day": WEEKLY_ISO_DAY if period == DigestPeriod.WEEKLY else None,
        },
        window_limit=window_limit,
    )
    pending = digest_deliveries_pending(category=category, period=period)
    logger.info(
        "%s %s digests at %s: %s planned, %s to send",
        category,
        period.value,
        clock.isoformat(),
        planned,
        len(pending),
    )
    return DeliveryPlan(
        category=category, period=period.value, clock=clock, planned=planned, pending=pending
    )


def digest_chunks(delivery_ids: Sequence[int]) -> list[list[int]]:
    """The ids in chunks of settings.DIGEST_CHUNK_SIZE: one task, one claim, each."""
    size = settings.DIGEST_CHUNK_SIZE
    return [list(delivery_ids[start : start + size]) for start in range(0, len(delivery_ids), size)]


class DigestRun:
    """The deliveries of a chunk that this run claimed and that are still wanted, to send.

    Use it as a context manager (digest_deliveries_claimed). For each of `deliveries` the
    caller builds the user's email and calls send(), or skip() when there is nothing to send;
    a delivery left alone is finished unsent when the block ends. If the block raises,
    whatever was not sent is released (claimed_at cleared) for a retry or the next run, the
    skipped ones finished, and the error goes on (the tasks retry mail errors).
    """

    def __init__(self, *, category: str, delivery_ids: Sequence[int]) -> None:
        self.category = category
        self._delivery_ids = list(delivery_ids)
        self._carries_notifications = category == DAILY_DIGEST_SCOPE
        self.deliveries: list[ClaimedDelivery] = []
        self._claimed = 0
        self._unfinished: set[int] = set()
        self._empty: list[int] = []
        self._emailed = 0
        self._items = 0
        self._cursor: Any = None
        self._claimed_at: datetime | None = None
        # Opened at the first send (a chunk with nothing to send never connects), then kept
        # for the chunk's every email.
        self._mail = mail.get_connection()
        self._mail_open = False

    def __enter__(self) -> DigestRun:
        self._cursor = connection.cursor().__enter__()
        self._cursor.execute("SET synchronous_commit TO off")
        try:
            self._claim()
        except BaseException:
            self._close()
            raise
        return self

    def _claim(self) -> None:
        statement = _CLAIM_AND_BIND_SQL if self._carries_notifications else _CLAIM_SQL
        self._cursor.execute(
            statement,
            {
                "ids": self._delivery_ids,
                "category": self.category,
                "lease": settings.DIGEST_LEASE_SECONDS,
            },
        )
        claimed = self._cursor.fetchall()
        self._claimed = len(claimed)
        # One statement, one (SELECT clock_timestamp()): every row of the chunk has the same.
        self._claimed_at = claimed[0][5] if claimed else None
        self._unfinished = {row[0] for row in claimed}
        user_ids = [row[1] for row in claimed]
        users = User.objects.in_bulk(user_ids)
        # A choice changed since planning (unsubscribed, or another period) wins; no stored
        # choice is the default the plan already applied. The notifications' digest has no
        # choice of its own: each notification carries its category's delivery.
        chosen: dict[int, str] = {}
        if self.category in DELIVERIES_BY_CATEGORY:
            chosen = dict(
                NotificationPreference.objects.filter(
                    user_id__in=user_ids, category=self.category
                ).values_list("user_id", "delivery")
            )
        for delivery_id, user_id, period, window_start, window_end, _claimed_at in claimed:
            user = users.get(user_id)
            if user is None or not can_email(user) or chosen.get(user_id, period) != period:
                self._empty.append(delivery_id)
                continue
            self.deliveries.append(
                ClaimedDelivery(delivery_id, user, period, window_start, window_end)
            )

    def send(self, delivery: ClaimedDelivery, message: EmailMessage, *, items: int) -> None:
        """Send the delivery's email (`items`: what its window holds, listed or counted) and
        mark it finished at once."""
        if delivery.id not in self._unfinished or delivery.id in self._empty:
            raise ValueError(f"delivery {delivery.id} is not this run's to send")
        if not self._mail_open:
            self._mail.open()
            self._mail_open = True
        message.connection = self._mail
        message.send()
        self._finish([delivery.id], emailed=True, items=items)
        self._emailed += 1
        self._items += items

    def skip(self, delivery: ClaimedDelivery) -> None:
        """Nothing to send for this delivery (its window is empty, or its items are gone)."""
        if delivery.id in self._unfinished and delivery.id not in self._empty:
            self._empty.append(delivery.id)

    def _finish(self, ids: list[int], *, emailed: bool, items: int = 0) -> None:
        if not ids:
            return
        if self._carries_notifications:
            statement = (
                _FINISH_SENT_NOTIFICATIONS_SQL if emailed else _FINISH_UNSENT_NOTIFICATIONS_SQL
            )
        elif len(ids) == 1:
            self._cursor.execute(_FINISH_ONE_SQL, [emailed, items, ids[0], self._claimed_at])
            self._unfinished.discard(ids[0])
            return
        else:
            statement = _FINISH_SQL
        self._cursor.execute(
            statement,
            {"ids": ids, "emailed": emailed, "items": items, "claimed_at": self._claimed_at},
        )
        self._unfinished.difference_update(ids)

    @property
    def outcome(self) -> DigestChunkOutcome:
        return DigestChunkOutcome(
            claimed=self._claimed, emailed=self._emailed, empty=len(self._empty), items=self._items
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                # Whatever the caller neither sent nor skipped had nothing to send.
                self._empty.extend(
                    delivery.id
                    for delivery in self.deliveries
                    if delivery.id in self._unfinished and delivery.id not in self._empty
                )
                self._finish(list(self._empty), emailed=False)
                return
            # Whatever was not sent goes back for the next attempt (a retry, or the next run).
            self._finish([pk for pk in self._empty if pk in self._unfinished], emailed=False)
            self._cursor.execute(
                _RELEASE_SQL, {"ids": sorted(self._unfinished), "claimed_at": self._claimed_at}
            )
            logger.exception(
                "%s digest chunk failed; %s deliveries released",
                self.category,
                len(self._unfinished),
            )
        finally:
            self._close()

    def _close(self) -> None:
        if self._mail_open:
            self._mail.close()
        # A connection that broke under the chunk has nothing left to reset; its error, not
        # this one, is the one to see.
        with suppress(DatabaseError):
            self._cursor.execute("RESET synchronous_commit")
        self._cursor.__exit__(None, None, None)


def digest_deliveries_claimed(*, category: str, delivery_ids: Sequence[int]) -> DigestRun:
    """Claim these deliveries of the digest `category` (those not finished nor held by another
    run) for a `with` block that sends them (DigestRun). Not to be called inside a
    transaction: each claim and mark must commit at once to be seen by other runs."""
    return DigestRun(category=category, delivery_ids=delivery_ids)
