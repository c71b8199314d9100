"""Reads of the feed: a page of the newest arrivals of what a user follows, the count of new
items for the header, the user's follows, and the works of one record for its Atom feed.

The page is one SQL statement whatever the number of follows, so the feed view's query count
does not grow with them. Arrival is Work.created_at, set by the writer on insert and never
changed (an old paper imported today is new), copied onto each authorship and work topic
(publications migration 0007) and indexed as (researcher_id, work_created_at, work_id) and
(topic_id, ...); works themselves are indexed by (created_at, id) (feed migration 0003). The
statement takes one of two paths, so that it stays fast with thousands of follows:

- Path A, the arrival scan, for users who follow ARRIVAL_SCAN_FROM_FOLLOWS records or more:
  the newest works below the cursor, newest first, each kept if one of its authors or topics is
  an unmuted follow (one probe of the follow's unique (user, record) index per author and
  topic), until a page is found. Its cost is the works read, which with many follows is a few
  hundred for a page (5,000 follows: about 80 works on the benchmark corpus), whatever the
  number of follows. It reads at most ARRIVAL_SCAN_BUDGET works per follow; a scan that finds
  less than a page within that (quiet follows, or the feed's last page) gives way to path B.
- Path B, the per-follow probes, otherwise:
  Step 1: per followed researcher (and topic) one index probe, LIMIT 1, gives its newest
  arrival below the cursor (F probes for F follows, from the index alone).
  Step 2: the page-th newest of those distinct works is a floor: at least a page of works lies
  at or above it, so no work below it can be on the page.
  Step 3: only the records whose newest arrival reaches the floor (about a page of them) read
  their works between the floor and the cursor, at most a page each; the union is deduplicated
  (a work two followed coauthors wrote is one item) and cut to the page.
  Few follows make few probes; thousands of follows made this path cost 20 ms and more (one
  probe each), which is why path A exists.
Either way, only then are the page's works read, with their bylines, topics and the "because" of
each (one probe of the follow's unique (user, record) index per author and topic). So a page
never scans works or authorships; the yardstick, a JOIN ... DISTINCT of follows and
authorships, reads every authorship of every followed researcher and sorts them all.

Institutions do not feed the page: a byline names its institutions in an array (GIN-indexed),
which cannot hand out an institution's works newest first, so a large institution would cost
a read and sort of all its authorships per page. Following an institution counts and lists it;
the feed covers researchers and topics.

Paging is by keyset on (arrival, work id), newest first, with an opaque signed cursor: works
that arrive while someone pages sort above the first page, so later pages never repeat or skip
an item, and nothing is counted.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

from django.core import signing
from django.db import connection

from bzpeer.users.models import User
from publications.selectors import LISTED_WORK_COLUMNS

PAGE_SIZE = 20
# The header shows at most this many new items, then "50+": counting stops at one more.
NEW_COUNT_CAP = 50
_CURSOR_SALT = "feed.cursor"
# The first page starts above every arrival, so page 1 and page 2 run the same statement.
_TOP = (datetime(9999, 12, 31, tzinfo=UTC), 2**63 - 1)


class InvalidCursor(ValueError):
    """The cursor was not made by this site (or by this version of it)."""


@dataclass(frozen=True, slots=True)
class FeedItem:
    """A work in the feed, with what _work_item.html shows (the ListedWork fields) and why it
    is there: `because_researchers` ({"slug", "name"}) and `because_topics` ({"id", "name"})
    are the user's unmuted follows it matches."""

    arrived_at: datetime
    pk: int
    title: str
    type: str
    publication_year: int | None
    abstract: str
    doi: str | None
    arxiv_id: str | None
    code_url: str
    cited_by_count: int
    authors_count: int
    source_short_name: str | None
    listed_authors: list[dict[str, Any]]
    listed_topics: list[dict[str, Any]]
    publication_date: Any
    publication_date_precision: str
    listed_institution: dict[str, Any] | None
    own_author: dict[str, Any] | None
    because_researchers: list[dict[str, Any]]
    because_topics: list[dict[str, Any]]
    is_new: bool

    @property
    def reasons(self) -> list[tuple[str, Any, str]]:
        """(kind, slug or id, name) of each follow that put the work here, researchers first."""
        return [("researcher", r["slug"], r["name"]) for r in self.because_researchers] + [
            ("topic", t["id"], t["name"]) for t in self.because_topics
        ]


@dataclass(frozen=True, slots=True)
class FeedPage:
    items: list[FeedItem]
    next_cursor: str | None
    read_through: datetime


def cursor_encode(arrived_at: datetime, work_id: int) -> str:
    micros = int(arrived_at.timestamp()) * 1_000_000 + arrived_at.microsecond
    return signing.dumps([micros, work_id], salt=_CURSOR_SALT, compress=False)


def cursor_decode(cursor: str) -> tuple[datetime, int]:
    try:
        micros, work_id = signing.loads(cursor, salt=_CURSOR_SALT)
        seconds, rest = divmod(int(micros), 1_000_000)
        return datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=rest), int(work_id)
    except (signing.BadSignature, TypeError, ValueError, OverflowError, OSError) as error:
        raise InvalidCursor("This feed link is not valid; start again from the first page.") from (
            error
        )


_FOLLOWED = """
followed_researchers AS MATERIALIZED (
    SELECT researcher_id AS id FROM researchers_follow WHERE user_id = %(user_id)s AND NOT muted
),
followed_topics AS MATERIALIZED (
    SELECT topic_id AS id FROM feed_topicfollow WHERE user_id = %(user_id)s AND NOT muted
),
watermark AS MATERIALIZED (
    SELECT coalesce(
        (SELECT read_through FROM feed_feedstate WHERE user_id = %(user_id)s),
        (SELECT date_joined FROM users_user WHERE id = %(user_id)s)
    ) AS read_through
)"""

# The columns of a listed work (FeedItem's fields from pk to own_author, ListedWork's), for the
# aliases w (publications_work) and s (its source).
# No listed researcher in the feed: no own byline slot, the first author's institution.
_WORK_COLUMNS = LISTED_WORK_COLUMNS.replace("%(own_researcher_id)s", "NULL")

# Why a work is in the user's feed (FeedItem.because_*), for the work id {work_id}.
_BECAUSE_COLUMNS = """       -- Why: the byline's and the topics' unmuted follows, one probe of the follow's unique
       -- (user, record) index each (not a hash of all the user's follows per row; OFFSET 0
       -- keeps the probe a subplan, see _FOLLOWED_WORK_CONDITION).
       (SELECT coalesce(json_agg(json_build_object('slug', r.slug, 'name', r.display_name)
                   ORDER BY r.display_name, r.id), '[]')
        FROM researchers_researcher r
        WHERE r.id IN (SELECT a.researcher_id FROM publications_authorship a
                       WHERE a.work_id = {work_id} AND EXISTS (
                           SELECT 1 FROM researchers_follow f
                           WHERE f.user_id = %(user_id)s AND f.researcher_id = a.researcher_id
                             AND NOT f.muted OFFSET 0))),
       (SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name)
                   ORDER BY t.name, t.id), '[]')
        FROM publications_topic t
        WHERE t.id IN (SELECT wt.topic_id FROM publications_worktopic wt
                       WHERE wt.work_id = {work_id} AND EXISTS (
                           SELECT 1 FROM feed_topicfollow f
                           WHERE f.user_id = %(user_id)s AND f.topic_id = wt.topic_id
                             AND NOT f.muted OFFSET 0)))"""


# The arrival scan (path A of the page statement) is tried for users who follow at least this
# many researchers and topics (unmuted), and reads at most this many works per follow below the
# cursor before it gives way to the per-follow probes (path B). Below the threshold path B's F
# probes cost no more than the scan's reads (a page of 500 researchers' works lies a few hundred
# works away, at five authors each); a scan that finds no full page within its budget (quiet
# follows, or the feed's last page) wasted F works' reads, about five cheap probes each.
ARRIVAL_SCAN_FROM_FOLLOWS = 1000
ARRIVAL_SCAN_BUDGET = 1


# The arrival scans' test of one work w: an author or a topic of it is an unmuted follow of the
# user, each a probe of the follow's unique (user, record) index. OFFSET 0 keeps every EXISTS a
# per-row subplan: without it PostgreSQL may join the work's authors to all of the user's follows
# by hash, which the generic plan of the prepared statement does (it estimates a user's follows
# at the average, a few dozen): at 5,000 follows that read 5,000 rows per work scanned, 250 ms
# a page on the 1M-work corpus instead of 10.
_FOLLOWED_WORK_CONDITION = """    WHERE EXISTS (
            SELECT 1 FROM publications_authorship a
            WHERE a.work_id = w.id AND EXISTS (
                SELECT 1 FROM researchers_follow f
                WHERE f.user_id = %(user_id)s AND f.researcher_id = a.researcher_id
                  AND NOT f.muted OFFSET 0)
            OFFSET 0)
       OR EXISTS (
            SELECT 1 FROM publications_worktopic wt
            WHERE wt.work_id = w.id AND EXISTS (
                SELECT 1 FROM feed_topicfollow f
                WHERE f.user_id = %(user_id)s AND f.topic_id = wt.topic_id
                  AND NOT f.muted OFFSET 0)
            OFFSET 0)
"""


def _page_path_a_sql(limit: int, scan_from_follows: int, scan_budget: int) -> str:
    """The page statement's follow count and path A (the arrival scan), as CTEs."""
    return f"""\
-- How many records the user follows (unmuted): path A is tried from scan_from_follows on, and
-- reads at most that many works times scan_budget.
follow_count AS MATERIALIZED (
    SELECT (SELECT count(*) FROM followed_researchers)
           + (SELECT count(*) FROM followed_topics) AS n
),
-- Path A, the arrival scan: the newest works below the cursor (feed_work_arrival_idx), newest
-- first, each kept if an author or a topic of it is an unmuted follow (a probe of the follow's
-- unique (user, record) index per author, per topic); it stops at a page. Its cost follows the
-- works read, not the follows: with many follows a page is a few hundred works away. OFFSET 0
-- keeps each check a per-work probe (not a hash of every followed record's works).
scanned AS MATERIALIZED (
    SELECT w.created_at AS work_created_at, w.id AS work_id
    FROM (
        SELECT created_at, id FROM publications_work
        WHERE (SELECT n >= {scan_from_follows} FROM follow_count)
          AND (created_at, id) < (%(before_at)s, %(before_id)s)
        ORDER BY created_at DESC, id DESC
        LIMIT (SELECT n * {scan_budget} FROM follow_count)
    ) w
{_FOLLOWED_WORK_CONDITION}    ORDER BY w.created_at DESC, w.id DESC LIMIT {limit}
),
"""


def _page_path_b_sql(limit: int) -> str:
    """The page statement's path B, steps 1 and 2 (each follow's newest arrival, the floor),
    as CTEs."""
    return f"""\
-- Path B when path A was not tried or found less than a page within its budget.
path_b AS MATERIALIZED (
    SELECT (SELECT count(*) FROM scanned) < {limit} AS needed
),
-- Step 1: each followed record's newest arrival below the cursor (one index probe each).
newest AS MATERIALIZED (
    SELECT 'r' AS kind, f.id, m.work_created_at, m.work_id
    FROM followed_researchers f CROSS JOIN LATERAL (
        SELECT a.work_created_at, a.work_id FROM publications_authorship a
        WHERE a.researcher_id = f.id
          AND (a.work_created_at, a.work_id) < (%(before_at)s, %(before_id)s)
        ORDER BY a.work_created_at DESC, a.work_id DESC LIMIT 1
    ) m
    WHERE (SELECT needed FROM path_b)
    UNION ALL
    SELECT 't', f.id, m.work_created_at, m.work_id
    FROM followed_topics f CROSS JOIN LATERAL (
        SELECT wt.work_created_at, wt.work_id FROM publications_worktopic wt
        WHERE wt.topic_id = f.id
          AND (wt.work_created_at, wt.work_id) < (%(before_at)s, %(before_id)s)
        ORDER BY wt.work_created_at DESC, wt.work_id DESC LIMIT 1
    ) m
    WHERE (SELECT needed FROM path_b)
),
-- Step 2: the page-th newest of those distinct works is a floor: the page holds that many works
-- at or above it, so nothing below it can be on the page. Fewer than a page: no floor.
floor_row AS MATERIALIZED (
    SELECT work_created_at, work_id FROM (SELECT DISTINCT work_created_at, work_id FROM newest) d
    ORDER BY work_created_at DESC, work_id DESC OFFSET {limit} - 1 LIMIT 1
),
bound AS MATERIALIZED (
    SELECT coalesce((SELECT work_created_at FROM floor_row), '-infinity') AS at,
           coalesce((SELECT work_id FROM floor_row), 0) AS id
),
"""


def _page_rows_sql(limit: int) -> str:
    """The page statement's path B, step 3 (the works between the floor and the cursor), and
    the page: path A's rows or path B's, as CTEs."""
    return f"""\
-- Step 3: only the records whose newest arrival reaches the floor can have works on the page;
-- each reads its works between the floor and the cursor, at most a page.
candidates AS (
    SELECT c.work_created_at, c.work_id
    FROM newest n CROSS JOIN bound b CROSS JOIN LATERAL (
        -- DISTINCT: one researcher can hold two places on a byline.
        SELECT DISTINCT a.work_created_at, a.work_id FROM publications_authorship a
        WHERE a.researcher_id = n.id
          AND (a.work_created_at, a.work_id) < (%(before_at)s, %(before_id)s)
          AND (a.work_created_at, a.work_id) >= (b.at, b.id)
        ORDER BY a.work_created_at DESC, a.work_id DESC LIMIT {limit}
    ) c
    WHERE n.kind = 'r' AND (n.work_created_at, n.work_id) >= (b.at, b.id)
    UNION ALL
    SELECT c.work_created_at, c.work_id
    FROM newest n CROSS JOIN bound b CROSS JOIN LATERAL (
        SELECT wt.work_created_at, wt.work_id FROM publications_worktopic wt
        WHERE wt.topic_id = n.id
          AND (wt.work_created_at, wt.work_id) < (%(before_at)s, %(before_id)s)
          AND (wt.work_created_at, wt.work_id) >= (b.at, b.id)
        ORDER BY wt.work_created_at DESC, wt.work_id DESC LIMIT {limit}
    ) c
    WHERE n.kind = 't' AND (n.work_created_at, n.work_id) >= (b.at, b.id)
),
page AS MATERIALIZED (
    SELECT work_created_at, work_id FROM scanned WHERE NOT (SELECT needed FROM path_b)
    UNION ALL
    (SELECT DISTINCT work_created_at, work_id FROM candidates
     WHERE (SELECT needed FROM path_b)
     ORDER BY work_created_at DESC, work_id DESC LIMIT {limit})
)
"""


@cache
def _page_sql(limit: int, scan_from_follows: int, scan_budget: int) -> str:
    """The page statement for pages of `limit` rows: path A (the arrival scan) or path B (steps
    1 to 3 of the per-follow probes), then the page's works with their "because". The numbers
    are written into the statement, not passed: a prepared statement's generic plan (no
    planning per run) is only chosen when its costs, which a LIMIT of unknown size inflates,
    are those of the custom plans. Its CTEs, read top to bottom, come from the three functions
    above, in order."""
    final = f"""SELECT p.work_created_at, {_WORK_COLUMNS},
{_BECAUSE_COLUMNS.format(work_id="w.id")},
       (SELECT read_through FROM watermark)
FROM page p
JOIN publications_work w ON w.id = p.work_id
LEFT JOIN publications_source s ON s.id = w.source_id
ORDER BY p.work_created_at DESC, p.work_id DESC
"""
    ctes = (
        _page_path_a_sql(limit, scan_from_follows, scan_budget)
        + _page_path_b_sql(limit)
        + _page_rows_sql(limit)
    )
    return f"""
WITH {_FOLLOWED},
{ctes}{final}"""


def _page_statement(limit: int) -> str:
    return _page_sql(limit, ARRIVAL_SCAN_FROM_FOLLOWS, ARRIVAL_SCAN_BUDGET)


# The statement of a page of PAGE_SIZE (and one more row, to know whether a next page exists).
_PAGE_SQL = _page_statement(PAGE_SIZE + 1)


@cache
def _new_count_sql(cap: int, scan_from_follows: int, scan_budget: int) -> str:
    """The new-items count, counting up to `cap`: the page's two paths applied above the
    watermark (numbers written in, as in _page_sql)."""
    return f"""
WITH {_FOLLOWED},
follow_count AS MATERIALIZED (
    SELECT (SELECT count(*) FROM followed_researchers)
           + (SELECT count(*) FROM followed_topics) AS n
),
-- Path A, the arrival scan: the works that arrived after the watermark, newest first, each kept
-- if an author or a topic of it is an unmuted follow, up to the cap.
hits AS MATERIALIZED (
    SELECT w.id FROM (
        SELECT created_at, id FROM publications_work
        WHERE (SELECT n >= {scan_from_follows} FROM follow_count)
          AND created_at > (SELECT read_through FROM watermark)
        ORDER BY created_at DESC, id DESC
        LIMIT (SELECT n * {scan_budget} FROM follow_count)
    ) w
{_FOLLOWED_WORK_CONDITION}    LIMIT {cap}
),
-- Path A's count is the answer when it reached the cap, or when it read every work that
-- arrived after the watermark (fewer than its budget; an index-only count, made only then).
path_a AS MATERIALIZED (
    SELECT (SELECT n >= {scan_from_follows} FROM follow_count)
           AND ((SELECT count(*) FROM hits) >= {cap}
                OR (SELECT count(*) FROM (
                        SELECT 1 FROM publications_work
                        WHERE created_at > (SELECT read_through FROM watermark)
                        LIMIT (SELECT n * {scan_budget} FROM follow_count) + 1) arrived)
                   <= (SELECT n * {scan_budget} FROM follow_count)) AS done
),
-- Path B: each followed record's newest arrival after the watermark, if it has one.
newest AS MATERIALIZED (
    SELECT 'r' AS kind, f.id, m.work_id
    FROM followed_researchers f CROSS JOIN watermark wm CROSS JOIN LATERAL (
        SELECT a.work_id FROM publications_authorship a
        WHERE a.researcher_id = f.id AND a.work_created_at > wm.read_through
        ORDER BY a.work_created_at DESC, a.work_id DESC LIMIT 1
    ) m
    UNION ALL
    SELECT 't', f.id, m.work_id
    FROM followed_topics f CROSS JOIN watermark wm CROSS JOIN LATERAL (
        SELECT wt.work_id FROM publications_worktopic wt
        WHERE wt.topic_id = f.id AND wt.work_created_at > wm.read_through
        ORDER BY wt.work_created_at DESC, wt.work_id DESC LIMIT 1
    ) m
)
SELECT CASE
    WHEN (SELECT done FROM path_a) THEN (SELECT count(*) FROM hits)
    -- As many distinct newest works as the cap: enough said, nothing more is read.
    WHEN (SELECT count(*) FROM (SELECT DISTINCT work_id FROM newest LIMIT {cap}) d) >= {cap}
    THEN {cap}
    -- Otherwise only the records with something new are read, each up to the cap.
    ELSE (SELECT count(*) FROM (
        SELECT DISTINCT work_id FROM (
            SELECT c.work_id FROM newest n CROSS JOIN watermark wm CROSS JOIN LATERAL (
                SELECT a.work_id FROM publications_authorship a
                WHERE a.researcher_id = n.id AND a.work_created_at > wm.read_through
                LIMIT {cap}
            ) c WHERE n.kind = 'r'
            UNION ALL
            SELECT c.work_id FROM newest n CROSS JOIN watermark wm CROSS JOIN LATERAL (
                SELECT wt.work_id FROM publications_worktopic wt
                WHERE wt.topic_id = n.id AND wt.work_created_at > wm.read_through
                LIMIT {cap}
            ) c WHERE n.kind = 't'
        ) matched
        LIMIT {cap}
    ) capped)
END
"""


def _new_count_statement() -> str:
    return _new_count_sql(NEW_COUNT_CAP + 1, ARRIVAL_SCAN_FROM_FOLLOWS, ARRIVAL_SCAN_BUDGET)


_NEW_COUNT_SQL = _new_count_statement()


def feed_page(user: User, *, cursor: str | None = None, page_size: int = PAGE_SIZE) -> FeedPage:
    """One page of the user's feed, newest arrival first, below `cursor` (None: the first page).

    Raises InvalidCursor for a cursor this site did not sign. One query.
    """
    before_at, before_id = cursor_decode(cursor) if cursor else _TOP
    params: dict[str, Any] = {"user_id": user.pk, "before_at": before_at, "before_id": before_id}
    with connection.cursor() as db:
        db.execute(_page_statement(page_size + 1), params)
        rows = db.fetchall()
    read_through = rows[0][-1] if rows else None
    items = _feed_items(rows)
    next_cursor = None
    if len(items) > page_size:
        items = items[:page_size]
        next_cursor = cursor_encode(items[-1].arrived_at, items[-1].pk)
    return FeedPage(
        items=items,
        next_cursor=next_cursor,
        read_through=read_through or datetime.min.replace(tzinfo=UTC),
    )


def _feed_items(rows: list[tuple[Any, ...]]) -> list[FeedItem]:
    # Each row is the FeedItem fields but is_new, in order, then the watermark.
    fields = [field.name for field in dataclasses.fields(FeedItem)][:-1]
    return [
        FeedItem(**dict(zip(fields, row[:-1], strict=True)), is_new=row[0] > row[-1])
        for row in rows
    ]


def feed_new_count(user: User) -> int:
    """How many works in the feed arrived after the user's watermark, counted up to
    NEW_COUNT_CAP + 1 (show "50+" above the cap). Before the first "mark all read" the
    watermark is when the user joined. One query."""
    with connection.cursor() as db:
        db.execute(_new_count_statement(), {"user_id": user.pk})
        return int(db.fetchone()[0])


def new_count_label(count: int) -> str:
    return f"{NEW_COUNT_CAP}+" if count > NEW_COUNT_CAP else str(count)
