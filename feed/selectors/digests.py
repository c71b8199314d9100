"""Reads of the email digests: the window of a user's feed a digest lists, the works' columns
once for many windows, a user's default choice, and the deliveries still to send.

Who is due in an hour is selected and recorded in one statement by
feed.services.digests.digests_plan (an INSERT ... SELECT); its default-delivery rule is the SQL
fragment below, the same one digest_default_delivery runs for one user, so the preferences page
and the selection cannot disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.db import connection

from bzpeer.users.models import User
from feed.models import DigestDelivery
from notifications.kinds import Delivery

# The feed's own statement and its pieces: the digest's window is the feed cut in time.
from .feed import _FOLLOWED, _IN_WINDOW, _TOP, _WINDOW_SQL, _WORK_COLUMNS, FeedItem

# The digest's delivery for the user `u` (users_user) who never chose one: weekly when they
# follow anything (a researcher, topic or institution, muted or not), else off. Each EXISTS is
# one probe of a follow table's unique (user, record) index, whatever the number of follows,
# so this costs three index probes per user and needs nothing kept in step with the follows.
DEFAULT_DELIVERY_SQL = f"""
    CASE WHEN EXISTS (SELECT 1 FROM researchers_follow f WHERE f.user_id = u.id)
           OR EXISTS (SELECT 1 FROM feed_topicfollow f WHERE f.user_id = u.id)
           OR EXISTS (SELECT 1 FROM feed_institutionfollow f WHERE f.user_id = u.id)
         THEN '{Delivery.WEEKLY.value}' ELSE '{Delivery.OFF.value}' END"""


def digest_default_delivery(user: User) -> str:
    """The digest's delivery of a user with no stored choice: weekly if they follow anything,
    else off (registered with notifications by feed.apps). One query."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {DEFAULT_DELIVERY_SQL} FROM users_user u WHERE u.id = %s",  # noqa: S608
            [user.pk],
        )
        row = cursor.fetchone()
    return str(row[0]) if row else Delivery.OFF.value


def digest_deliveries_pending(*, period: str) -> list[int]:
    """Ids of the deliveries of `period` still to send, oldest first: never claimed, or claimed
    longer than the lease ago by a run that did not finish them (it died). The partial index
    digest_delivery_pending_idx holds only unfinished rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {DigestDelivery._meta.db_table}"  # noqa: S608
            " WHERE period = %s AND finished_at IS NULL"
            "   AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => %s))"
            " ORDER BY id",
            [period, settings.FEED_DIGEST_LEASE_SECONDS],
        )
        return [row[0] for row in cursor.fetchall()]


@dataclass(frozen=True, slots=True)
class WindowEntry:
    """A work of a window of the user's feed: when it arrived, and the user's follows that put
    it there ({"slug", "name"} researchers, {"id", "name"} topics)."""

    arrived_at: datetime
    work_id: int
    because_researchers: list[dict[str, Any]]
    because_topics: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class FeedWindow:
    """The newest works of a window of the feed (`entries`, newest first) and how many works
    the window holds in all (`total`; more than len(entries) when the window was cut)."""

    entries: list[WindowEntry]
    total: int


# Every work of the window, counted once (two followed coauthors, or an author and a topic, make
# one work), with the same follows (unmuted) and the same filter as the window's page.
_WINDOW_COUNT_SQL = f"""
WITH {_FOLLOWED}
SELECT count(*) FROM (
    SELECT a.work_id FROM followed_researchers f
    JOIN publications_authorship a ON a.researcher_id = f.id
    WHERE (a.work_created_at, a.work_id) < (%(before_at)s, %(before_id)s){_IN_WINDOW.format(alias="a")}
    UNION
    SELECT wt.work_id FROM followed_topics f
    JOIN publications_worktopic wt ON wt.topic_id = f.id
    WHERE (wt.work_created_at, wt.work_id) < (%(before_at)s, %(before_id)s){_IN_WINDOW.format(alias="wt")}
) works
"""

_WORKS_LISTED_SQL = f"""
SELECT {_WORK_COLUMNS}
FROM publications_work w
LEFT JOIN publications_source s ON s.id = w.source_id
WHERE w.id = ANY(%(work_ids)s)
"""


# FeedItem's fields that _WORK_COLUMNS gives, in its order (pk to listed_topics).
_LISTED_FIELDS = [field.name for field in dataclasses.fields(FeedItem)][1:-3]


def feed_window(
    user: User,
    *,
    arrived_after: datetime,
    arrived_until: datetime,
    published_since: date,
    limit: int,
) -> FeedWindow:
    """The user's feed cut to the works that arrived in (arrived_after, arrived_until] and were
    published on or after `published_since`: the newest `limit` of them with their "because"
    (the feed's own statement and rules: deduplicated, muted follows left out), and their
    total. The works' own columns come from feed_works_listed, once for many windows.

    For the email digest. One query, and a count only when there are more than `limit`.
    """
    params: dict[str, Any] = {
        "user_id": user.pk,
        # Up to and including arrived_until: (arrival, id) below (arrived_until, the largest id).
        "before_at": arrived_until,
        "before_id": _TOP[1],
        "after_at": arrived_after,
        "published_since": published_since,
        "limit": limit + 1,
    }
    with connection.cursor() as db:
        db.execute(_WINDOW_SQL, params)
        entries = [WindowEntry(*row) for row in db.fetchall()]
        if len(entries) <= limit:
            return FeedWindow(entries=entries, total=len(entries))
        db.execute(_WINDOW_COUNT_SQL, params)
        total = int(db.fetchone()[0])
    return FeedWindow(entries=entries[:limit], total=total)


def feed_works_listed(work_ids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    """The listed columns of these works (FeedItem's fields from pk to listed_topics), by id;
    a work deleted meanwhile is missing. One query."""
    with connection.cursor() as db:
        db.execute(_WORKS_LISTED_SQL, {"work_ids": sorted(set(work_ids))})
        return {row[0]: row for row in db.fetchall()}


def feed_window_items(window: FeedWindow, works: Mapping[int, tuple[Any, ...]]) -> list[FeedItem]:
    """The window's entries as feed items, with the works' columns from feed_works_listed."""
    return [
        FeedItem(
            arrived_at=entry.arrived_at,
            **dict(zip(_LISTED_FIELDS, works[entry.work_id], strict=True)),
            because_researchers=entry.because_researchers,
            because_topics=entry.because_topics,
            is_new=False,
        )
        for entry in window.entries
        if entry.work_id in works
    ]
