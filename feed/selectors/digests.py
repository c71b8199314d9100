"""Reads of the email digests: the windows of a chunk of users' feeds that their digests list
(one statement for the chunk), what a digest shows of each work (once per chunk), and a user's
default choice.

Who is due in an hour is selected and recorded in one statement by notifications' digest
deliveries (notifications.services.deliveries.digest_deliveries_plan_by_preference, an
INSERT ... SELECT), to which feed.services.digests.digests_plan gives the default-delivery rule
as the SQL fragment below, the same one digest_default_delivery runs for one user, so the
preferences page and the selection cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db import connection

from bzpeer.users.models import User
from notifications.kinds import Delivery
from publications.selectors import LISTED_AUTHORS

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


# --- The digests of a chunk of users, set-based ---------------------------------------------
#
# A digest run sends thousands of digests whose windows hold mostly the same few thousand
# works (a week's arrivals), so it selects a whole chunk of windows at once rather than running
# the feed page's statement once per user: the chunk's follows are joined once to the arrivals
# in each user's window (one range read of the arrival index per follow), each arrival's work is
# checked against the publication rule once for the chunk, and the rows are deduplicated, ranked
# and counted per delivery by one GROUP BY and one window function. The "because" is what
# matched: the followed researchers and topics whose arrivals brought the work, no further probe.


@dataclass(frozen=True, slots=True)
class DigestWindowRequest:
    """One digest to select: the works that arrived in (arrived_after, arrived_until] and were
    published on or after `published_since`, from what `user_id` follows (unmuted)."""

    delivery_id: int
    user_id: int
    arrived_after: datetime
    arrived_until: datetime
    published_since: date


@dataclass(frozen=True, slots=True)
class DigestEntry:
    """A work of a digest and the ids of the user's follows that brought it (researchers,
    topics; their names are in DigestWindows.researchers and .topics)."""

    work_id: int
    because_researcher_ids: tuple[int, ...]
    because_topic_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DigestWindows:
    """The chunk's windows: per delivery id, the newest `limit` entries (newest first) and the
    number of works the window holds in all; the names of every followed record that brought
    a work (researchers: id -> (slug, display name); topics: id -> name)."""

    entries: dict[int, list[DigestEntry]]
    totals: dict[int, int]
    researchers: dict[int, tuple[str, str]]
    topics: dict[int, str]


# The publication rule (a work known only by its year counts as published on 31 December of
# it; one with neither is never announced, greatest() ignoring the NULL year) is checked once
# per work of the chunk, not once per user and arrival.
_DIGEST_WINDOWS_SQL = """
WITH chunk AS MATERIALIZED (
    SELECT * FROM unnest(%(delivery_ids)s::bigint[], %(user_ids)s::bigint[],
                         %(after)s::timestamptz[], %(until)s::timestamptz[],
                         %(published_since)s::date[])
        AS c(delivery_id, user_id, after_at, until_at, published_since)
),
-- Every arrival in each user's window of each unmuted follow (a range read of the arrival index
-- per follow): a researcher twice on a byline, or two followed coauthors, give the work twice
-- here; the GROUP BY below makes it one item.
arrivals AS MATERIALIZED (
    SELECT c.delivery_id, c.published_since, a.work_id, a.work_created_at, a.researcher_id,
           NULL::bigint AS topic_id
    FROM chunk c
    JOIN researchers_follow f ON f.user_id = c.user_id AND NOT f.muted
    CROSS JOIN LATERAL (
        SELECT a.work_id, a.work_created_at, a.researcher_id FROM publications_authorship a
        WHERE a.researcher_id = f.researcher_id
          AND a.work_created_at > c.after_at AND a.work_created_at <= c.until_at
        -- Not flattened into the join, so the window bounds the index read rather than
        -- filtering a prolific researcher's every arrival.
        OFFSET 0
    ) a
    UNION ALL
    SELECT c.delivery_id, c.published_since, wt.work_id, wt.work_created_at, NULL, wt.topic_id
    FROM chunk c
    JOIN feed_topicfollow f ON f.user_id = c.user_id AND NOT f.muted
    CROSS JOIN LATERAL (
        SELECT wt.work_id, wt.work_created_at, wt.topic_id FROM publications_worktopic wt
        WHERE wt.topic_id = f.topic_id
          AND wt.work_created_at > c.after_at AND wt.work_created_at <= c.until_at
    ) wt
),
published AS MATERIALIZED (
    SELECT w.id, coalesce(w.publication_date,
                          make_date(greatest(w.publication_year, 1), 12, 31)) AS published_on
    FROM publications_work w
    WHERE w.id IN (SELECT DISTINCT work_id FROM arrivals)
),
items AS (
    SELECT m.delivery_id, m.work_id, max(m.work_created_at) AS arrived_at,
           -- Not DISTINCT (a sort per group): a researcher twice on a byline is rare, and
           -- digest_windows drops the repeat.
           (array_agg(m.researcher_id) FILTER (WHERE m.researcher_id IS NOT NULL))::text
               AS researcher_ids,
           (array_agg(m.topic_id) FILTER (WHERE m.topic_id IS NOT NULL))::text AS topic_ids
    FROM arrivals m
    JOIN published p ON p.id = m.work_id
    WHERE p.published_on >= m.published_since
    GROUP BY m.delivery_id, m.work_id
),
ranked AS (
    SELECT i.*,
           row_number() OVER (PARTITION BY i.delivery_id
                              ORDER BY i.arrived_at DESC, i.work_id DESC) AS rank,
           count(*) OVER (PARTITION BY i.delivery_id) AS total
    FROM items i
)
SELECT delivery_id, work_id, researcher_ids, topic_ids, total FROM ranked
WHERE rank <= %(limit)s
ORDER BY delivery_id, rank
"""

_BECAUSE_NAMES_SQL = """
SELECT 'r', id, slug, display_name FROM researchers_researcher WHERE id = ANY(%(researchers)s)
UNION ALL
SELECT 't', id, NULL, name FROM publications_topic WHERE id = ANY(%(topics)s)
"""


def digest_windows(requests: Sequence[DigestWindowRequest], *, limit: int) -> DigestWindows:
    """The digests of a chunk of users at once: for each request the newest `limit` works of
    its window (the feed's rules: deduplicated, unmuted follows only, the publication rule) and
    their total. Two queries whatever the chunk's size (the windows, the names of the follows
    that brought the works); the works' own columns come from digest_works_listed."""
    entries: dict[int, list[DigestEntry]] = {}
    totals: dict[int, int] = {}
    if not requests:
        return DigestWindows(entries=entries, totals=totals, researchers={}, topics={})
    params: dict[str, Any] = {
        "delivery_ids": [r.delivery_id for r in requests],
        "user_ids": [r.user_id for r in requests],
        "after": [r.arrived_after for r in requests],
        "until": [r.arrived_until for r in requests],
        "published_since": [r.published_since for r in requests],
        "limit": limit,
    }
    # The ids come as the text of their arrays ("{12,40}"), parsed once per distinct pair in the
    # chunk (a few thousand, against tens of thousands of rows); and each distinct entry (a work
    # and what brought it: the same for most of its readers in a week) is made once and shared
    # by the windows that list it (it is frozen), the rows being ordered by delivery.
    reasons: dict[tuple[str | None, str | None], tuple[tuple[int, ...], tuple[int, ...]]] = {}
    made: dict[tuple[int, str | None, str | None], DigestEntry] = {}
    with connection.cursor() as db:
        db.execute(_DIGEST_WINDOWS_SQL, params)
        current: int | None = None
        window: list[DigestEntry] = []
        for delivery_id, work_id, researchers, topics, total in db.fetchall():
            key = (work_id, researchers, topics)
            entry = made.get(key)
            if entry is None:
                reason = reasons.get((researchers, topics))
                if reason is None:
                    reason = reasons[researchers, topics] = (_ids(researchers), _ids(topics))
                entry = made[key] = DigestEntry(work_id, *reason)
            if delivery_id != current:
                current = delivery_id
                window = entries[delivery_id] = []
                totals[delivery_id] = total
            window.append(entry)
        researcher_ids = {pk for researchers, _topics in reasons.values() for pk in researchers}
        topic_ids = {pk for _researchers, topics in reasons.values() for pk in topics}
        names_of_researchers: dict[int, tuple[str, str]] = {}
        names_of_topics: dict[int, str] = {}
        if researcher_ids or topic_ids:
            db.execute(
                _BECAUSE_NAMES_SQL,
                {"researchers": sorted(researcher_ids), "topics": sorted(topic_ids)},
            )
            for kind, record_id, slug, name in db.fetchall():
                if kind == "r":
                    names_of_researchers[record_id] = (slug, name)
                else:
                    names_of_topics[record_id] = name
    return DigestWindows(
        entries=entries,
        totals=totals,
        researchers=names_of_researchers,
        topics=names_of_topics,
    )


def _ids(array_text: str | None) -> tuple[int, ...]:
    return tuple(int(pk) for pk in array_text[1:-1].split(",")) if array_text else ()


@dataclass(frozen=True, slots=True)
class DigestWork:
    """What a digest shows of a work: its title, byline (the first listed authors' names, "et
    al." when the byline is longer), venue and publication date or year."""

    pk: int
    title: str
    byline: str
    venue: str
    published: str


# The byline in SQL (names of the first LISTED_AUTHORS positions, the researcher's display name
# or the byline's raw name), once per work of the chunk.
_DIGEST_WORKS_SQL = f"""
SELECT w.id, w.title, w.authors_count, w.publication_date, w.publication_year,
       coalesce(nullif(s.abbreviated_name, ''), s.name, ''),
       (SELECT array_agg(coalesce(nullif(r.display_name, ''), a.raw_name) ORDER BY a.position)
        FROM publications_authorship a LEFT JOIN researchers_researcher r ON r.id = a.researcher_id
        WHERE a.work_id = w.id AND a.position <= {LISTED_AUTHORS})
FROM publications_work w
LEFT JOIN publications_source s ON s.id = w.source_id
WHERE w.id = ANY(%(work_ids)s)
"""


def digest_works_listed(work_ids: Iterable[int]) -> dict[int, DigestWork]:
    """What the digest shows of these works, by id; a work deleted meanwhile is missing. One
    query."""
    works: dict[int, DigestWork] = {}
    with connection.cursor() as db:
        db.execute(_DIGEST_WORKS_SQL, {"work_ids": sorted(set(work_ids))})
        for pk, title, authors_count, published_on, year, venue, names in db.fetchall():
            shown = [name for name in names or () if name]
            byline = ", ".join(shown)
            if authors_count > len(names or ()):
                byline = f"{byline} et al." if byline else "et al."
            published = published_on or year
            works[pk] = DigestWork(
                pk=pk,
                title=title,
                byline=byline,
                venue=venue,
                published=str(published) if published else "",
            )
    return works
