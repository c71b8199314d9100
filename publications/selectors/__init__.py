"""Reads of works shared by the pages, the API and the tasks: works, listings and facets here;
a work's citations, who cites a researcher and related works in citations.py; what the work
page shows in work_page.py; novelty in novelty.py (re-exported here, so callers import them
from publications.selectors)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Prefetch, QuerySet

from bzpeer.db import read_connection
from researchers.models import Researcher

from ..models import (
    Authorship,
    MergedWork,
    Work,
    WorkListedBy,
    WorkTopic,
)

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://arxiv\.org/(?:abs|pdf)/|arxiv:)", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v[0-9]+$", re.IGNORECASE)


def normalize_doi(value: str) -> str:
    """The stored form of a DOI: "https://doi.org/10.1145/ABC" and "doi:10.1145/abc" both give
    "10.1145/abc". DOIs are case-insensitive by definition, so they are kept lower-case."""
    return _DOI_PREFIX.sub("", value.strip()).lower()


def normalize_arxiv_id(value: str) -> str:
    """The stored form of an arXiv id, as the importer writes it: "arXiv:2101.00001v2" and
    "https://arxiv.org/abs/2101.00001" give "2101.00001"; old-style ids are lower-cased too
    ("math.GT/0309136" gives "math.gt/0309136") and the version is dropped."""
    return _ARXIV_VERSION.sub("", _ARXIV_PREFIX.sub("", value.strip())).lower()


# Lists show the start of each byline ("and N more" uses Work.authors_count), so a consortium
# paper with hundreds of authors costs a list no more than any other work.
LISTED_AUTHORS = 12


def works_with_details() -> QuerySet[Work]:
    """Works with their whole byline and topics as model instances (the API), in a fixed number
    of queries whatever the number of rows: the venue is joined, authors (in byline order, with
    their researcher) and topics (strongest first) come in one prefetch query each. Listings
    use WorkListing; the work page, work_page (work_page.py)."""
    authorships = (
        Authorship.objects.select_related("researcher")
        .order_by("position")
        # A byline can hold hundreds of authors; their researchers' JSON columns
        # (trust_breakdown, citations_by_year) are not shown here, so they are not read.
        .only(
            "id",
            "work_id",
            "position",
            "raw_name",
            "researcher_id",
            "researcher__slug",
            "researcher__openalex_id",
            "researcher__display_name",
        )
    )
    work_topics = WorkTopic.objects.select_related("topic").order_by("-score", "topic__name")
    # The novelty row (none until the novelty run reaches the work) is joined, not fetched.
    # Neither the search vector nor the novelty's list of new pairs (the "How is this
    # computed?" page reads it) is shown: not read.
    return (
        Work.objects.select_related("source", "novelty")
        .defer("search_vector", "novelty__new_pair_list")
        .prefetch_related(
            Prefetch("authorships", queryset=authorships),
            Prefetch("work_topics", queryset=work_topics),
        )
    )


def work_survivor_id(work_id: int) -> int | None:
    """The work a merged-away work became (the importer found the two to be one), or None."""
    return MergedWork.objects.filter(pk=work_id).values_list("survivor_id", flat=True).first()


def works_newest_first(queryset: QuerySet[Work]) -> QuerySet[Work]:
    """Newest first by the best date known (Work.sort_date: a year-only work at its year);
    works with no date at all go last (PostgreSQL would put NULLs first on DESC), and the id
    breaks ties so pages never repeat or skip a work."""
    return queryset.order_by(F("sort_date").desc(nulls_last=True), "-id")


# A researcher's works: those whose byline names them, and those their own ORCID record lists
# where no slot of the byline could be theirs (WorkListedBy without a position: the writer's
# listed_by.py). A listing with a slot is on the byline already. Read through IN, so a work
# that is both (or on one byline twice) is one work, counted once; PostgreSQL drives it from
# the (researcher, work) indexes of both tables instead of scanning every work.
# graph.services.metrics counts the same works.


def _researcher_work_ids_sql(parameter: str) -> str:
    return (
        f"SELECT work_id FROM {Authorship._meta.db_table} WHERE researcher_id = %({parameter})s"
        f" UNION ALL SELECT work_id FROM {WorkListedBy._meta.db_table}"
        f" WHERE researcher_id = %({parameter})s AND position IS NULL"
    )


def works_for_researcher(researcher: Researcher) -> QuerySet[Work]:
    """The researcher's works (see above), newest first, with details (works_with_details).
    Pages list works with WorkListing."""
    # order_by(): the models' default orderings would join works (and researchers) into the
    # subquery only to sort it.
    authored = Authorship.objects.filter(researcher=researcher).order_by().values("work_id")
    listed = (
        WorkListedBy.objects.filter(researcher=researcher, position__isnull=True)
        .order_by()
        .values("work_id")
    )
    return works_newest_first(works_with_details().filter(pk__in=authored.union(listed, all=True)))


# --- Listings --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListedWork:
    """A work as listings show it (pages/_work_item.html): `listed_authors` is the start
    of its byline in order ({"slug", "name", "raw_name", "position"} each; slug and name are null
    for an author with no researcher record), `listed_topics` its topics strongest first ({"id",
    "name", "code", "level"}), `publication_date` with its precision (Work), `listed_institution`
    the institution the byline shows ({"id", "name", "domain"}: the first one its listed start
    names, as the reference's "et al. · berkeley"; or None), `own_author` the listed
    researcher's own byline slot (like an entry of listed_authors, even past the listed start;
    None outside a researcher's listing or for a work their record lists without a slot)."""

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
    publication_date: Any = None
    publication_date_precision: str = ""
    listed_institution: dict[str, Any] | None = None
    own_author: dict[str, Any] | None = None


# Which works a listing holds. Fixed SQL; the values travel as parameters.
_LISTING_SCOPES = {
    # A semi-join, so a work is listed once (_researcher_work_ids_sql).
    "researcher": f"w.id IN ({_researcher_work_ids_sql('researcher_id')})",
    "topic": "EXISTS (SELECT 1 FROM publications_worktopic wt"
    " WHERE wt.work_id = w.id AND wt.topic_id = %(topic_scope_id)s)",
    "institution": "EXISTS (SELECT 1 FROM publications_authorship a"
    " WHERE a.work_id = w.id AND a.institution_ids @> ARRAY[%(institution_id)s]::bigint[])",
    "dated": "w.sort_date IS NOT NULL",
}
_LISTING_FILTERS = {
    "year": "w.publication_year = %(year)s",
    "type": "w.type = %(type)s",
    "topic_id": "EXISTS (SELECT 1 FROM publications_worktopic ft"
    " WHERE ft.work_id = w.id AND ft.topic_id = %(topic_id)s)",
}
# Newest first by the best date known (Work.sort_date, a year-only work at its year, read from
# work_newest_idx); works with no date at all last; the id breaks ties so pages never repeat or
# skip one.
_LISTING_ORDERS = {
    "newest": "w.sort_date DESC NULLS LAST, w.id DESC",
    "cited": "w.cited_by_count DESC, w.sort_date DESC NULLS LAST, w.id DESC",
}
# The byline's start, the topics, the byline's institution and the listed researcher's own slot
# are built by PostgreSQL inside the page's own query (the subqueries run for the rows of the
# page only, after the sort and limit, each from an index: the byline's (work, position), the
# topics' (work, topic), the researcher's (researcher, work)), so a page of twenty works is one
# statement and no model instances. LISTED_WORK_COLUMNS are ListedWork's fields in order, for
# the aliases w (the work) and s (its venue), with %(own_researcher_id)s (or NULL) the listed
# researcher; the feed selects them too.
LISTED_WORK_COLUMNS = f"""w.id, w.title, w.type, w.publication_year, w.abstract, w.doi,
       w.arxiv_id, w.code_url, w.cited_by_count, w.authors_count,
       coalesce(nullif(s.abbreviated_name, ''), s.name),
       (SELECT coalesce(json_agg(json_build_object(
                   'slug', r.slug, 'name', r.display_name, 'raw_name', a.raw_name,
                   'position', a.position)
                   ORDER BY a.position), '[]')
        FROM publications_authorship a LEFT JOIN researchers_researcher r ON r.id = a.researcher_id
        WHERE a.work_id = w.id AND a.position <= {LISTED_AUTHORS}),
       (SELECT coalesce(json_agg(json_build_object(
                   'id', t.id, 'name', t.name, 'code', t.code, 'level', t.level)
                   ORDER BY wt.score DESC, t.name), '[]')
        FROM publications_worktopic wt JOIN publications_topic t ON t.id = wt.topic_id
        WHERE wt.work_id = w.id),
       w.publication_date, w.publication_date_precision,
       (SELECT json_build_object('id', i.id, 'name', i.name, 'domain', i.email_domains[1])
        FROM (SELECT a.institution_ids[1] AS institution_id FROM publications_authorship a
              WHERE a.work_id = w.id AND a.position <= {LISTED_AUTHORS}
                AND cardinality(a.institution_ids) > 0
              ORDER BY a.position LIMIT 1) first_named
        JOIN researchers_institution i ON i.id = first_named.institution_id),
       (SELECT json_build_object('slug', r.slug, 'name', r.display_name, 'raw_name', a.raw_name,
                                 'position', a.position)
        FROM publications_authorship a JOIN researchers_researcher r ON r.id = a.researcher_id
        WHERE a.researcher_id = %(own_researcher_id)s AND a.work_id = w.id
        ORDER BY a.position LIMIT 1)"""
_LISTING_PAGE_SQL = f"""
SELECT {LISTED_WORK_COLUMNS}
FROM publications_work w LEFT JOIN publications_source s ON s.id = w.source_id
WHERE {{where}}
ORDER BY {{order}}
LIMIT %(limit)s OFFSET %(offset)s
"""
_LISTING_COUNT_SQL = "SELECT count(*) FROM publications_work w WHERE {where}"


class WorkListing:
    """The works of one listing, as ListedWork rows, filtered and sorted as the page's
    WorkListForm asks. Countable and sliceable, so Django's Paginator pages through it: each
    page is one SQL statement, and the count another unless the caller knows it (`total`).

    Raw SQL on purpose: this is the body of the busiest page, and building and compiling the
    equivalent ORM query cost more than PostgreSQL took to run it.
    """

    def __init__(
        self,
        *,
        scope: str,
        scope_id: int | None = None,
        year: int | None = None,
        type: str | None = None,  # noqa: A002 - the name of the filter
        topic_id: int | None = None,
        sort: str = "newest",
        total: int | None = None,
    ) -> None:
        conditions = [_LISTING_SCOPES[scope]]
        self._params: dict[str, Any] = {
            "own_researcher_id": scope_id if scope == "researcher" else None,
            "researcher_id": scope_id,
            "topic_scope_id": scope_id,
            "institution_id": scope_id,
        }
        for name, value in (("year", year), ("type", type), ("topic_id", topic_id)):
            if value is not None:
                conditions.append(_LISTING_FILTERS[name])
                self._params[name] = value
        self._where = " AND ".join(conditions)
        self._order = _LISTING_ORDERS[sort if sort in _LISTING_ORDERS else "newest"]
        self._total = total

    @classmethod
    def for_researcher(cls, researcher_id: int, **filters: Any) -> WorkListing:
        return cls(scope="researcher", scope_id=researcher_id, **filters)

    @classmethod
    def for_topic(cls, topic_id: int, **filters: Any) -> WorkListing:
        return cls(scope="topic", scope_id=topic_id, **filters)

    @classmethod
    def for_institution(cls, institution_id: int, **filters: Any) -> WorkListing:
        return cls(scope="institution", scope_id=institution_id, **filters)

    @classmethod
    def recent(cls) -> WorkListing:
        """Every dated work, newest first (the home page)."""
        return cls(scope="dated")

    def count(self) -> int:
        if self._total is None:
            with read_connection().cursor() as cursor:
                cursor.execute(_LISTING_COUNT_SQL.format(where=self._where), self._params)
                self._total = cursor.fetchone()[0]
        return self._total

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, rows: slice) -> list[ListedWork]:
        if not isinstance(rows, slice) or rows.step is not None:
            raise TypeError("a WorkListing is read a page at a time, by slice")
        offset = rows.start or 0
        limit = max(0, rows.stop - offset) if rows.stop is not None else None
        sql = _LISTING_PAGE_SQL.format(where=self._where, order=self._order)
        with read_connection().cursor() as cursor:
            cursor.execute(sql, {**self._params, "limit": limit, "offset": offset})
            return [ListedWork(*row) for row in cursor.fetchall()]


@dataclass(frozen=True, slots=True)
class WorkFacets:
    """What the filters of a researcher's works list offer: the years (newest first), types
    and topics (by name, at most FACET_TOPICS) of their works, and how many works they have."""

    years: list[int]
    types: list[str]
    topics: list[dict[str, Any]]
    works_total: int


FACET_TOPICS = 50
_RESEARCHER_FACETS_SQL = f"""
WITH authored AS MATERIALIZED (
    SELECT w.id, w.publication_year, w.type FROM publications_work w
    WHERE w.id IN ({_researcher_work_ids_sql("id")})
)
SELECT
    (SELECT count(*) FROM authored),
    (SELECT coalesce(array_agg(DISTINCT publication_year), '{{}}') FROM authored
     WHERE publication_year IS NOT NULL),
    (SELECT coalesce(array_agg(DISTINCT type), '{{}}') FROM authored WHERE type <> ''),
    (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'code', code)
                     ORDER BY name), '[]')
     FROM (SELECT t.id, t.name, t.code FROM publications_topic t
           WHERE t.id IN (SELECT topic_id FROM publications_worktopic
                          WHERE work_id IN (SELECT id FROM authored))
           ORDER BY t.name LIMIT {FACET_TOPICS}) listed)
"""


def work_facets_for_researcher(researcher_id: int) -> WorkFacets:
    """The researcher's works' facets, in one statement whatever the number of works."""
    with read_connection().cursor() as cursor:
        cursor.execute(_RESEARCHER_FACETS_SQL, {"id": researcher_id})
        total, years, types, topics = cursor.fetchone()
    return WorkFacets(
        years=sorted(years, reverse=True), types=sorted(types), topics=topics, works_total=total
    )


from .citations import (  # noqa: E402 - re-exported; they import nothing from this module
    CITATION_SORTS,
    CITATIONS_PER_PAGE,
    CITED_BY_COUNT_SOURCES,
    CITING_RESEARCHERS_SHOWN,
    SOURCE_NAMES,
    CitingResearcher,
    ResearcherCitations,
    researcher_citations,
    researcher_citations_from,
    researcher_citations_sql,
    work_citing,
    work_references,
    work_related,
)
from .novelty import (  # noqa: E402
    NoveltyPair,
    ResearcherNoveltyExplained,
    WorkNoveltyExplained,
    researcher_novelty_explained,
    work_novelty_explained,
)
from .work_page import (  # noqa: E402
    CITATION_SORTS_SQL,
    BylineAuthor,
    CitationSummary,
    CitedWork,
    Lister,
    PageTopic,
    WorkPage,
    work_citation_pages,
    work_page,
)

# Re-exported from citations.py, work_page.py and novelty.py.
__all__ = [
    "CITATION_SORTS",
    "CITATIONS_PER_PAGE",
    "CITED_BY_COUNT_SOURCES",
    "CITING_RESEARCHERS_SHOWN",
    "SOURCE_NAMES",
    "CitingResearcher",
    "ResearcherCitations",
    "researcher_citations",
    "researcher_citations_from",
    "researcher_citations_sql",
    "work_citing",
    "work_references",
    "work_related",
    "CITATION_SORTS_SQL",
    "BylineAuthor",
    "CitationSummary",
    "CitedWork",
    "Lister",
    "PageTopic",
    "WorkPage",
    "work_citation_pages",
    "work_page",
    "NoveltyPair",
    "ResearcherNoveltyExplained",
    "WorkNoveltyExplained",
    "researcher_novelty_explained",
    "work_novelty_explained",
]
