"""Reads of the feed: a page of the newest arrivals of what a user follows, the count of new
items for the header, the user's follows, and the works of one record for its Atom feed.

The page is one SQL statement whatever the number of follows, so the feed view's query count
does not grow with them. How it stays fast with thousands of follows:

- Arrival is Work.created_at, set by the writer on insert and never changed (an old paper
  imported today is new), copied onto each authorship and work topic (publications migration
  0007) and indexed as (researcher_id, work_created_at, work_id) and (topic_id, ...).
- Per followed researcher (and topic), a LATERAL index scan reads at most a page of its newest
  arrivals below the cursor, from the index alone: the global first page is among them, since
  a work among the newest N of the union is among the newest N of every record it belongs to.
  With F follows that is at most F x (N+1) index entries, never a scan of works or authorships;
  the yardstick, a JOIN ... DISTINCT of follows and authorships, reads every authorship of
  every followed researcher and sorts them all.
- The union is deduplicated (a work two followed coauthors wrote is one item) and cut to the
  page; only then are the page's works read, with their bylines, topics and the "because" of
  each (which of the user's unmuted follows it matches).

Institutions do not feed the page: a byline names its institutions in an array (GIN-indexed),
which cannot hand out an institution's works newest first, so a large institution would cost
a read and sort of all its authorships per page. Following an institution counts and lists it;
the feed covers researchers and topics.

Paging is by keyset on (arrival, work id), newest first, with an opaque signed cursor: works
that arrive while someone pages sort above the first page, so later pages never repeat or skip
an item, and nothing is counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core import signing
from django.db import connection
from django.db.models import QuerySet

from bzpeer.users.models import User
from publications.models import Topic, Work
from publications.selectors import LISTED_AUTHORS
from researchers.models import Institution, Researcher

from .models import InstitutionFollow, TopicFollow

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
    publication_date: Any
    abstract: str
    doi: str | None
    arxiv_id: str | None
    code_url: str
    cited_by_count: int
    authors_count: int
    source_short_name: str | None
    listed_authors: list[dict[str, Any]]
    listed_topics: list[dict[str, Any]]
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

_PAGE_SQL = f"""
WITH {_FOLLOWED},
candidates AS (
    SELECT c.work_created_at, c.work_id FROM followed_researchers f CROSS JOIN LATERAL (
        -- DISTINCT: one researcher can hold two places on a byline.
        SELECT DISTINCT a.work_created_at, a.work_id FROM publications_authorship a
        WHERE a.researcher_id = f.id
          AND (a.work_created_at, a.work_id) < (%(before_at)s, %(before_id)s)
        ORDER BY a.work_created_at DESC, a.work_id DESC LIMIT %(limit)s
    ) c
    UNION ALL
    SELECT c.work_created_at, c.work_id FROM followed_topics f CROSS JOIN LATERAL (
        SELECT wt.work_created_at, wt.work_id FROM publications_worktopic wt
        WHERE wt.topic_id = f.id
          AND (wt.work_created_at, wt.work_id) < (%(before_at)s, %(before_id)s)
        ORDER BY wt.work_created_at DESC, wt.work_id DESC LIMIT %(limit)s
    ) c
),
page AS MATERIALIZED (
    SELECT DISTINCT work_created_at, work_id FROM candidates
    ORDER BY work_created_at DESC, work_id DESC LIMIT %(limit)s
)
SELECT p.work_created_at, w.id, w.title, w.type, w.publication_year, w.publication_date,
       w.abstract, w.doi, w.arxiv_id, w.code_url, w.cited_by_count, w.authors_count,
       coalesce(nullif(s.abbreviated_name, ''), s.name),
       (SELECT coalesce(json_agg(json_build_object(
                   'slug', r.slug, 'name', r.display_name, 'raw_name', a.raw_name)
                   ORDER BY a.position), '[]')
        FROM publications_authorship a LEFT JOIN researchers_researcher r ON r.id = a.researcher_id
        WHERE a.work_id = w.id AND a.position <= {LISTED_AUTHORS}),
       (SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'code', t.code)
                   ORDER BY wt.score DESC, t.name), '[]')
        FROM publications_worktopic wt JOIN publications_topic t ON t.id = wt.topic_id
        WHERE wt.work_id = w.id),
       (SELECT coalesce(json_agg(json_build_object('slug', r.slug, 'name', r.display_name)
                   ORDER BY r.display_name, r.id), '[]')
        FROM researchers_researcher r
        WHERE r.id IN (SELECT a.researcher_id FROM publications_authorship a WHERE a.work_id = w.id)
          AND r.id IN (SELECT id FROM followed_researchers)),
       (SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name)
                   ORDER BY t.name, t.id), '[]')
        FROM publications_topic t
        WHERE t.id IN (SELECT wt.topic_id FROM publications_worktopic wt WHERE wt.work_id = w.id)
          AND t.id IN (SELECT id FROM followed_topics)),
       (SELECT read_through FROM watermark)
FROM page p
JOIN publications_work w ON w.id = p.work_id
LEFT JOIN publications_source s ON s.id = w.source_id
ORDER BY p.work_created_at DESC, p.work_id DESC
"""

_NEW_COUNT_SQL = f"""
WITH {_FOLLOWED}
SELECT count(*) FROM (
    SELECT DISTINCT work_id FROM (
        SELECT c.work_id FROM followed_researchers f CROSS JOIN LATERAL (
            SELECT a.work_id FROM publications_authorship a
            WHERE a.researcher_id = f.id
              AND a.work_created_at > (SELECT read_through FROM watermark)
            LIMIT %(cap)s
        ) c
        UNION ALL
        SELECT c.work_id FROM followed_topics f CROSS JOIN LATERAL (
            SELECT wt.work_id FROM publications_worktopic wt
            WHERE wt.topic_id = f.id
              AND wt.work_created_at > (SELECT read_through FROM watermark)
            LIMIT %(cap)s
        ) c
    ) matched
    LIMIT %(cap)s
) capped
"""


def feed_page(user: User, *, cursor: str | None = None, page_size: int = PAGE_SIZE) -> FeedPage:
    """One page of the user's feed, newest arrival first, below `cursor` (None: the first page).

    Raises InvalidCursor for a cursor this site did not sign. One query.
    """
    before_at, before_id = cursor_decode(cursor) if cursor else _TOP
    params = {
        "user_id": user.pk,
        "before_at": before_at,
        "before_id": before_id,
        "limit": page_size + 1,
    }
    with connection.cursor() as db:
        db.execute(_PAGE_SQL, params)
        rows = db.fetchall()
    read_through = rows[0][-1] if rows else None
    items = [FeedItem(*row[:-1], is_new=row[-1] is not None and row[0] > row[-1]) for row in rows]
    next_cursor = None
    if len(items) > page_size:
        items = items[:page_size]
        next_cursor = cursor_encode(items[-1].arrived_at, items[-1].pk)
    return FeedPage(
        items=items,
        next_cursor=next_cursor,
        read_through=read_through or datetime.min.replace(tzinfo=UTC),
    )


def feed_new_count(user: User) -> int:
    """How many works in the feed arrived after the user's watermark, counted up to
    NEW_COUNT_CAP + 1 (show "50+" above the cap). Before the first "mark all read" the
    watermark is when the user joined. One query."""
    with connection.cursor() as db:
        db.execute(_NEW_COUNT_SQL, {"user_id": user.pk, "cap": NEW_COUNT_CAP + 1})
        return int(db.fetchone()[0])


def new_count_label(count: int) -> str:
    return f"{NEW_COUNT_CAP}+" if count > NEW_COUNT_CAP else str(count)


# --- Follows ---------------------------------------------------------------------------------


def topic_is_followed_by(topic: Topic, user: Any) -> bool:
    if not isinstance(user, User):
        return False
    return TopicFollow.objects.filter(topic=topic, user=user).exists()


def institution_is_followed_by(institution: Institution, user: Any) -> bool:
    if not isinstance(user, User):
        return False
    return InstitutionFollow.objects.filter(institution=institution, user=user).exists()


def topic_follows_of(user: User) -> QuerySet[TopicFollow]:
    return (
        TopicFollow.objects.filter(user=user).select_related("topic").order_by("-created_at", "id")
    )


def institution_follows_of(user: User) -> QuerySet[InstitutionFollow]:
    return (
        InstitutionFollow.objects.filter(user=user)
        .select_related("institution")
        .order_by("-created_at", "id")
    )


# --- Atom ------------------------------------------------------------------------------------

ATOM_ITEMS = 30


def works_newest_arrivals_of_researcher(
    researcher: Researcher, *, limit: int = ATOM_ITEMS
) -> list[Work]:
    """The researcher's newest arrivals (the Atom feed), from the arrival index."""
    work_ids = (
        researcher.authorships.order_by("-work_created_at", "-work_id")
        # A researcher twice on one byline gives the work twice: read a few more, keep one.
        .values_list("work_id", flat=True)[: limit * 2]
    )
    return _works_by_arrival(list(dict.fromkeys(work_ids))[:limit])


def works_newest_arrivals_of_topic(topic: Topic, *, limit: int = ATOM_ITEMS) -> list[Work]:
    work_ids = topic.work_topics.order_by("-work_created_at", "-work_id").values_list(
        "work_id", flat=True
    )[:limit]
    return _works_by_arrival(list(work_ids))


def _works_by_arrival(work_ids: list[int]) -> list[Work]:
    works = (
        Work.objects.filter(pk__in=work_ids)
        .select_related("source")
        .prefetch_related("authorships")
        .order_by("-created_at", "-id")
    )
    return list(works)
