"""The search page's works tab: ranked full-text search over titles and abstracts.

Works use the generated tsvector column. Ranking every match of a common word is what makes
full-text search slow (about 1 s at 200k matches), so only the first WORK_CANDIDATE_LIMIT
matches are ranked: beyond, the page says so and asks for more words instead of pretending to
have ranked everything.

The first matches come from the lowest buckets of ids, read bucket by bucket
(work_candidates_sql): a GIN index reads every match of a query before it returns any, which
for a query whose words are in most works ("graph -learning": the works with one common word
and without another) grows with the table, while the matches of one bucket of ids are found in
a bounded time.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchQuery
from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    QuerySet,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.utils.safestring import SafeString

from bzpeer.db import array_literal, read_connection
from publications.models import (
    WORK_SEARCH_BUCKET_SHIFT,
    Authorship,
    Work,
    WorkSearchBucket,
    WorkTopic,
)
from researchers.name_search import AnyOf
from search.highlight import HIGHLIGHT_START, HIGHLIGHT_STOP, highlighted_html

from .results import (
    COUNT_CAP,
    FACET_LIMIT,
    MAX_QUERY_LENGTH,
    SEARCH_PAGE_SIZE,
    Facet,
    SearchPage,
    TabCount,
    page_offset,
)
from .work_hits import HIT_COLUMNS_SQL, HIT_JOINS_SQL, hit_work

# Only this many full-text matches are ranked (see the module docstring).
WORK_CANDIDATE_LIMIT = 1000

_TITLE_HEADLINE_OPTIONS = (
    f'HighlightAll=true, StartSel="{HIGHLIGHT_START}", StopSel="{HIGHLIGHT_STOP}"'
)
_ABSTRACT_HEADLINE_OPTIONS = (
    f'MaxFragments=2, MaxWords=30, MinWords=12, FragmentDelimiter=" … ", '
    f'StartSel="{HIGHLIGHT_START}", StopSel="{HIGHLIGHT_STOP}"'
)
TEXT_SEARCH_CONFIG = "english"  # the config Work.search_vector is generated with


@dataclass(frozen=True)
class WorkFilters:
    year_from: int | None = None
    year_to: int | None = None
    type: str = ""
    topic_id: int | None = None


@dataclass
class WorkHit:
    work: Work
    rank: float
    title_html: SafeString
    snippet_html: SafeString
    authorships: list[Authorship] = field(default_factory=list)
    # In the by-meaning mode: "words", "meaning" or both (search.selectors.meaning).
    matched_by: tuple[str, ...] = ()

    @property
    def more_authors_count(self) -> int:
        """Authors beyond the ones shown (the work's own count, the byline may be longer)."""
        return max(0, self.work.authors_count - len(self.authorships))


def _work_search_query(query: str) -> SearchQuery:
    return SearchQuery(query[:MAX_QUERY_LENGTH], search_type="websearch", config=TEXT_SEARCH_CONFIG)


def works_filtered(filters: WorkFilters, *, with_topic: bool = True) -> QuerySet[Work]:
    """Works the filters keep, in no particular order."""
    matches = Work.objects.order_by()
    if filters.year_from is not None:
        matches = matches.filter(publication_year__gte=filters.year_from)
    if filters.year_to is not None:
        matches = matches.filter(publication_year__lte=filters.year_to)
    if filters.type:
        matches = matches.filter(type=filters.type)
    if with_topic and filters.topic_id is not None:
        matches = matches.filter(
            Exists(WorkTopic.objects.filter(work=OuterRef("pk"), topic_id=filters.topic_id))
        )
    return matches


def works_matching(query: str, filters: WorkFilters, *, with_topic: bool = True) -> QuerySet[Work]:
    """Works whose title or abstract match, filters applied, in no particular order."""
    return works_filtered(filters, with_topic=with_topic).filter(
        search_vector=_work_search_query(query)
    )


_CANDIDATES_SQL = """
SELECT found.* FROM generate_series(
    0, (SELECT coalesce(max(id), 0) FROM publications_work) >> {shift}
) AS bucket(n)
CROSS JOIN LATERAL ({matching} OFFSET 0) AS found
LIMIT %s
"""


def work_candidates_sql(
    query: str,
    filters: WorkFilters,
    *,
    columns: tuple[str, ...] = ("id",),
    limit: int | None = None,
    with_topic: bool = True,
) -> tuple[str, list[Any]]:
    """SELECT `columns` of the first `limit` (WORK_CANDIDATE_LIMIT) works that match
    (works_matching), bucket by bucket in id order; within a bucket, in the order the bitmap
    scan reads the table (stable from one request to the next, not always by id).

    The works are read a bucket of ids at a time (publications.models.WorkSearchBucket), each
    through the GIN index keyed by bucket and words, until `limit` have been found: a common
    word costs a bucket or two, a query that matches one work in a hundred a dozen, and the
    cost no longer grows with the table. `OFFSET 0` keeps each bucket's scan a scan of its own
    (without it the planner joins every match to the buckets at once). `columns` are columns of
    publications_work, constants of the callers.
    """
    matching = (
        works_matching(query, filters, with_topic=with_topic)
        .alias(search_bucket=WorkSearchBucket("id"))
        # The bucket of the loop below: a column of the outer query, not a value.
        .filter(search_bucket=RawSQL("bucket.n", [], output_field=BigIntegerField()))  # noqa: S611
        .values(*columns)
    )
    matching_sql, params = matching.query.sql_with_params()
    sql = _CANDIDATES_SQL.format(shift=WORK_SEARCH_BUCKET_SHIFT, matching=matching_sql)
    return sql, [*params, WORK_CANDIDATE_LIMIT if limit is None else limit]


def works_matching_count(query: str) -> TabCount:
    """How many works match `query`, counted up to COUNT_CAP (the works tab's count). One
    query."""
    sql, params = work_candidates_sql(query[:MAX_QUERY_LENGTH], WorkFilters(), limit=COUNT_CAP + 1)
    with read_connection().cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM ({sql}) AS candidate", params)  # noqa: S608
        (count,) = cursor.fetchone()
    return TabCount(count=min(count, COUNT_CAP), capped=count > COUNT_CAP)


@dataclass(frozen=True)
class WorkCandidates:
    """The first matches of a query without filters, read once for the whole search page: the
    works tab's count, and its page and facets whenever the filters they apply are none (with
    filters they read their own). `types` holds each candidate's work type, in the order of
    `ids`: the candidates' scan reads their rows anyway, so the type facet costs no query."""

    ids: list[int]
    types: list[str] = field(default_factory=list)

    @property
    def count(self) -> TabCount:
        return TabCount(count=min(len(self.ids), COUNT_CAP), capped=len(self.ids) > COUNT_CAP)

    def ranked_for(self, filters: WorkFilters) -> list[int] | None:
        """The ids to rank under `filters`, or None when the filters narrow the matches."""
        return self.ids[:WORK_CANDIDATE_LIMIT] if filters == WorkFilters() else None

    def type_facets_for(self, filters: WorkFilters) -> list[Facet] | None:
        """The type facet over the ids ranked_for(filters) would rank, as work_type_facets
        counts it in SQL (most matches first, then by type), or None when the filters narrow
        the matches."""
        if filters != WorkFilters() or len(self.types) != len(self.ids):
            # Filters narrow the matches, or these candidates came without their types.
            return None
        counts = Counter(self.types[:WORK_CANDIDATE_LIMIT])
        return [
            Facet(value=work_type, label=work_type, count=matches)
            for work_type, matches in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        ]


def work_candidates(query: str) -> WorkCandidates:
    """The first matches of `query` (no filters), with their types: enough for the count, the
    ranking and the type facet. One query."""
    limit = max(COUNT_CAP + 1, WORK_CANDIDATE_LIMIT)
    sql, params = work_candidates_sql(
        query[:MAX_QUERY_LENGTH], WorkFilters(), columns=("id", "type"), limit=limit
    )
    with read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return WorkCandidates(
        ids=[work_id for work_id, _type in rows], types=[work_type for _id, work_type in rows]
    )


def _candidate_ids(query: str, filters: WorkFilters, found: WorkCandidates | None) -> Any:
    """The ids to rank or count facets over: `found`'s when the filters allow, else
    ARRAY(the candidates' query)."""
    ids = found.ranked_for(filters) if found is not None else None
    if ids is not None:
        # The ids as one string (bzpeer.db.array_literal), a constant placeholder otherwise.
        return RawSQL(  # noqa: S611
            "%s::bigint[]", [array_literal(ids)], output_field=ArrayField(BigIntegerField())
        )
    sql, params = work_candidates_sql(query, filters)
    # Built from constants only; every value goes in as a parameter.
    return RawSQL(  # noqa: S611
        f"ARRAY({sql})", params, output_field=ArrayField(BigIntegerField())
    )


_CANDIDATES_BY_ID_SQL = (
    "SELECT id, search_vector, cited_by_count FROM publications_work WHERE id = ANY(%s::bigint[])"
)
_WORK_PAGE_SQL = """
WITH candidates AS MATERIALIZED ({candidates}),
ranked AS (
    SELECT c.id, c.cited_by_count,
           ts_rank(c.search_vector, websearch_to_tsquery(%s::regconfig, %s)) AS rank,
           count(*) OVER () AS total
    FROM candidates c
    ORDER BY rank DESC, c.cited_by_count DESC, c.id
    LIMIT %s OFFSET %s
)
SELECT r.id, r.rank, r.total,
       ts_headline(%s::regconfig, translate(w.title, %s, ''),
                   websearch_to_tsquery(%s::regconfig, %s), %s),
       ts_headline(%s::regconfig, translate(w.abstract, %s, ''),
                   websearch_to_tsquery(%s::regconfig, %s), %s),
       {hit_columns}
FROM ranked r JOIN publications_work w ON w.id = r.id {hit_joins}
ORDER BY r.rank DESC, r.cited_by_count DESC, r.id
"""


def ranking_and_headline_params(query: str) -> list[Any]:
    """The parameters of a page statement's ranking (the first two: ts_rank's config and query)
    and its two headlines (the ten after), in the order _WORK_PAGE_SQL takes them."""
    marks = HIGHLIGHT_START + HIGHLIGHT_STOP
    return [
        TEXT_SEARCH_CONFIG,
        query,
        TEXT_SEARCH_CONFIG,
        marks,
        TEXT_SEARCH_CONFIG,
        query,
        _TITLE_HEADLINE_OPTIONS,
        TEXT_SEARCH_CONFIG,
        marks,
        TEXT_SEARCH_CONFIG,
        query,
        _ABSTRACT_HEADLINE_OPTIONS,
    ]


def hits_from_rows(database: str, rows: list[Any]) -> list[WorkHit]:
    """The hits of a page statement's rows, each (id, rank, title headline, abstract headline,
    *HIT_COLUMNS_SQL's columns), in the rows' order."""
    hits = []
    for work_id, rank, title_headline, abstract_headline, *columns in rows:
        work = hit_work(database, work_id, columns)
        hits.append(
            WorkHit(
                work=work,
                rank=rank,
                title_html=highlighted_html(title_headline),
                snippet_html=highlighted_html(abstract_headline or ""),
                authorships=work.first_authorships,  # type: ignore[attr-defined]
            )
        )
    return hits


def work_search(
    *,
    query: str,
    filters: WorkFilters = WorkFilters(),
    page: int = 1,
    found: WorkCandidates | None = None,
) -> SearchPage[WorkHit]:
    """One page of works, best ranked first, with highlighted title and abstract snippet.

    One query: the candidates, their rank, the page's headlines, and its works with their source
    and first AUTHORS_SHOWN authors (search.selectors.work_hits) in one statement.
    """
    query = query[:MAX_QUERY_LENGTH]
    ids = found.ranked_for(filters) if found is not None else None
    if ids is not None:
        candidates_sql = _CANDIDATES_BY_ID_SQL
        candidates_params: list[Any] = [array_literal(ids)]
    else:
        candidates_sql, candidates_params = work_candidates_sql(
            query, filters, columns=("id", "search_vector", "cited_by_count")
        )
    ranking_params = ranking_and_headline_params(query)
    params = [
        *candidates_params,
        *ranking_params[:2],
        SEARCH_PAGE_SIZE,
        page_offset(page),
        *ranking_params[2:],
    ]
    connection = read_connection()
    with connection.cursor() as cursor:
        cursor.execute(
            _WORK_PAGE_SQL.format(
                candidates=candidates_sql, hit_columns=HIT_COLUMNS_SQL, hit_joins=HIT_JOINS_SQL
            ),
            params,
        )
        rows = cursor.fetchall()
    if not rows:
        return SearchPage(items=[], number=page, page_size=SEARCH_PAGE_SIZE, total=0)
    hits = hits_from_rows(
        connection.alias, [(work_id, rank, *columns) for work_id, rank, _total, *columns in rows]
    )
    total = rows[0][2]
    return SearchPage(
        items=hits,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=total,
        total_capped=total >= WORK_CANDIDATE_LIMIT,
    )


def work_topic_facets(
    *, query: str, filters: WorkFilters, found: WorkCandidates | None = None
) -> list[Facet]:
    """The topics most common among the candidate works (the other filters applied), the chosen
    one first. One query."""
    rows = (
        WorkTopic.objects.filter(
            AnyOf(
                F("work_id"),
                _candidate_ids(query, dataclasses.replace(filters, topic_id=None), found),
            )
        )
        .values("topic_id", "topic__name")
        .annotate(
            matches=Count("work_id"),
            chosen=Case(When(topic_id=filters.topic_id, then=Value(0)), default=Value(1)),
        )
        .order_by("chosen", "-matches", "topic__name")[:FACET_LIMIT]
    )
    return [
        Facet(value=str(row["topic_id"]), label=row["topic__name"], count=row["matches"])
        for row in rows
    ]


def work_type_facets(
    *, query: str, filters: WorkFilters, found: WorkCandidates | None = None
) -> list[Facet]:
    """The work types among the candidate works (the other filters applied). One query, none
    when `found` holds them (WorkCandidates.type_facets_for)."""
    type_filters = dataclasses.replace(filters, type="")
    facets = found.type_facets_for(type_filters) if found is not None else None
    if facets is not None:
        return facets
    rows = (
        Work.objects.filter(AnyOf(F("id"), _candidate_ids(query, type_filters, found)))
        .values("type")
        .annotate(matches=Count("id"))
        .order_by("-matches", "type")
    )
    return [Facet(value=row["type"], label=row["type"], count=row["matches"]) for row in rows]
