"""What the work page (/works/<id>/) shows, read in two statements of SQL written out: the work
with its venue, novelty, byline, topics, listers, citation counts and related works; then one
page of its references and one of its citing works together.

Raw SQL on purpose, as the profile's reads (pages.selectors) and WorkListing: compiling the
ORM's querysets for this page (the work, its three prefetches, the counts, two citation pages,
the related works) cost about 2 ms each, more than PostgreSQL took to answer them. The API
keeps the ORM's selectors (works_with_details, work_references, work_citing, work_related),
whose model instances its serializers read.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass

from bzpeer.db import read_connection
from researchers.models import Researcher

from ..models import (
    Authorship,
    Citation,
    RelatedWork,
    Source,
    Topic,
    UnresolvedReference,
    Work,
    WorkListedBy,
    WorkNovelty,
    WorkSource,
    WorkTopic,
    percentile_label,
    related_work_reason,
)
from .citations import (
    CITATION_SORTS,
    CITATIONS_PER_PAGE,
    CITED_BY_COUNT_SOURCES,
    SOURCE_NAMES,
)


@dataclass(frozen=True, slots=True)
class CitationSummary:
    """A work's citation counts as its page shows them."""

    references_held: int  # works it cites that are held here
    references_waiting: int  # references to works not held (yet)
    cited_by_held: int  # works held here that cite it
    cited_by_stated: int  # what the source states (Work.cited_by_count)
    stated_by: str  # that source's name ("OpenAlex"), or ""
    unlinked_references: list[str]  # references the source gave as text only


@dataclass(frozen=True, slots=True)
class BylineAuthor:
    """One slot of the byline, in order; `slug` and `display_name` are None without a
    researcher record."""

    raw_name: str
    researcher_id: int | None
    slug: str | None
    display_name: str | None


@dataclass(frozen=True, slots=True)
class PageTopic:
    id: int
    code: str
    name: str


@dataclass(frozen=True, slots=True)
class Lister:
    """Someone whose own record lists the work where no byline slot could be theirs
    (WorkListedBy without a position), and who is not on the byline otherwise."""

    slug: str
    display_name: str


@dataclass(frozen=True, slots=True)
class CitedWork:
    """A work in one of the page's lists: a reference, a citing work or a related work (with
    `reason`, "cited together by 14 works, shares 9 references")."""

    pk: int
    title: str
    publication_year: int | None
    cited_by_count: int = 0
    reason: str = ""


@dataclass(frozen=True, slots=True)
class WorkPage:
    """The work as its page shows it. `novelty_label` is "61%", or "" when the data is too thin
    or the novelty run has not reached the work; `related` holds ten works at most, in rank
    order."""

    pk: int
    title: str
    type: str
    abstract: str
    publication_date: datetime.date | None
    publication_year: int | None
    doi: str | None
    arxiv_id: str | None
    openalex_id: str | None
    code_url: str
    open_access_url: str
    language: str
    cited_by_count: int
    source_name: str | None
    novelty_label: str
    authors: list[BylineAuthor]
    topics: list[PageTopic]
    listed_without_slot: list[Lister]
    citations: CitationSummary
    related: list[CitedWork]


_W, _A, _R = Work._meta.db_table, Authorship._meta.db_table, Researcher._meta.db_table
_C = Citation._meta.db_table
# Each list comes as one JSON array of arrays built by PostgreSQL from an index: the byline's
# (work, position), the topics' (work, topic), the listings' (work, ...), the related works'
# primary key (work, related); the counts are index-only. A byline of hundreds of authors is
# one value, not hundreds of rows.
_WORK_PAGE_SQL = f"""
SELECT w.id, w.title, w.type, w.abstract, w.publication_date, w.publication_year, w.doi,
       w.arxiv_id, w.openalex_id, w.code_url, w.open_access_url, w.language, w.cited_by_count,
       s.name, n.percentile,
       (SELECT json_agg(json_build_array(a.raw_name, a.researcher_id, r.slug, r.display_name)
                        ORDER BY a.position)
        FROM {_A} a LEFT JOIN {_R} r ON r.id = a.researcher_id WHERE a.work_id = w.id),
       (SELECT json_agg(json_build_array(t.id, t.code, t.name) ORDER BY wt.score DESC, t.name)
        FROM {WorkTopic._meta.db_table} wt JOIN {Topic._meta.db_table} t ON t.id = wt.topic_id
        WHERE wt.work_id = w.id),
       (SELECT json_agg(json_build_array(r.slug, r.display_name)
                        ORDER BY r.display_name, r.id)
        FROM {WorkListedBy._meta.db_table} l JOIN {_R} r ON r.id = l.researcher_id
        WHERE l.work_id = w.id AND l.position IS NULL AND r.merged_into_id IS NULL
          AND NOT EXISTS (SELECT 1 FROM {_A} a
                          WHERE a.work_id = l.work_id AND a.researcher_id = l.researcher_id)),
       (SELECT json_agg(json_build_array(o.id, o.title, o.publication_year, x.cocitations,
                                         x.shared_references) ORDER BY x.rank)
        FROM {RelatedWork._meta.db_table} x JOIN {_W} o ON o.id = x.related_id
        WHERE x.work_id = w.id),
       (SELECT count(*) FROM {_C} c WHERE c.citing_id = w.id),
       (SELECT count(*) FROM {UnresolvedReference._meta.db_table} u WHERE u.citing_id = w.id),
       (SELECT count(*) FROM {_C} c WHERE c.cited_id = w.id),
       (SELECT array_agg(ws.origin) FROM {WorkSource._meta.db_table} ws WHERE ws.work_id = w.id),
       (SELECT ws.fields -> 'unlinked_references' FROM {WorkSource._meta.db_table} ws
        WHERE ws.work_id = w.id AND ws.fields ? 'unlinked_references' ORDER BY ws.origin LIMIT 1)
FROM {_W} w
LEFT JOIN {Source._meta.db_table} s ON s.id = w.source_id
LEFT JOIN {WorkNovelty._meta.db_table} n ON n.work_id = w.id
WHERE w.id = %s
"""


def work_page(work_id: int) -> WorkPage | None:
    """The work `work_id` with everything its page shows but the two citation pages
    (work_citation_pages), in one statement whatever the size of its byline; None when no
    work has the id (it may have been merged into another: work_survivor_id)."""
    with read_connection().cursor() as cursor:
        cursor.execute(_WORK_PAGE_SQL, [work_id])
        row = cursor.fetchone()
    if row is None:
        return None
    (pk, title, type_, abstract, publication_date, publication_year, doi, arxiv_id, openalex_id,
     code_url, open_access_url, language, cited_by_count, source_name, percentile, authors,
     topics, listers, related, references, waiting, cited_by, origins, unlinked) = row  # fmt: skip
    stated_by = next((o for o in CITED_BY_COUNT_SOURCES if o in (origins or ())), "")
    # Django's connection reads jsonb as text (its JSONField decodes it; a raw cursor does not).
    if isinstance(unlinked, str):
        unlinked = json.loads(unlinked)
    return WorkPage(
        pk=pk,
        title=title,
        type=type_,
        abstract=abstract,
        publication_date=publication_date,
        publication_year=publication_year,
        doi=doi,
        arxiv_id=arxiv_id,
        openalex_id=openalex_id,
        code_url=code_url,
        open_access_url=open_access_url,
        language=language,
        cited_by_count=cited_by_count,
        source_name=source_name,
        novelty_label=percentile_label(percentile),
        authors=[BylineAuthor(*author) for author in authors or ()],
        topics=[PageTopic(*topic) for topic in topics or ()],
        listed_without_slot=[Lister(*lister) for lister in listers or ()],
        citations=CitationSummary(
            references_held=references,
            references_waiting=waiting,
            cited_by_held=cited_by,
            cited_by_stated=cited_by_count,
            stated_by=SOURCE_NAMES.get(stated_by, stated_by),
            unlinked_references=[str(text) for text in unlinked or []],
        ),
        related=[
            CitedWork(
                pk=related_id,
                title=related_title,
                publication_year=year,
                reason=related_work_reason(cocitations=cocitations, shared_references=shared),
            )
            for related_id, related_title, year, cocitations, shared in related or ()
        ],
    )


# The orders of CITATION_SORTS (the API's, on the ORM) as SQL, by the same names; unqualified
# columns, so they serve both the page's subquery and the aggregate around it.
CITATION_SORTS_SQL = {
    "citations": "cited_by_count DESC, id DESC",
    "year": "sort_date DESC NULLS LAST, id DESC",
}
if CITATION_SORTS_SQL.keys() != CITATION_SORTS.keys():  # pragma: no cover - a typo's guard
    raise RuntimeError("CITATION_SORTS_SQL must name the sorts of CITATION_SORTS")

# One page of a list: the works at the other end of the work's citations (a join on the
# citation's primary key (citing, cited) or on citation_cited_idx (cited, citing): one row per
# pair), sorted, cut, and aggregated in the same order.
_CITATION_PAGE_SQL = f"""(
SELECT json_agg(json_build_array(p.id, p.title, p.publication_year, p.cited_by_count)
                ORDER BY {{order}})
FROM (SELECT w.id, w.title, w.publication_year, w.cited_by_count, w.sort_date
      FROM {_C} c JOIN {_W} w ON w.id = c.{{other}}
      WHERE c.{{this}} = %(work_id)s
      ORDER BY {{order}} LIMIT {CITATIONS_PER_PAGE} OFFSET %({{offset}})s) p
)"""


def _citation_page_sql(*, this: str, other: str, order: str, offset: str) -> str:
    return _CITATION_PAGE_SQL.format(this=this, other=other, order=order, offset=offset)


def work_citation_pages(
    work_id: int,
    *,
    references_sort: str,
    references_offset: int,
    citing_sort: str,
    citing_offset: int,
) -> tuple[list[CitedWork], list[CitedWork]]:
    """One page (CITATIONS_PER_PAGE works from the offset) of the works `work_id` cites and one
    of the works citing it, each in its sort (a name of CITATION_SORTS), in one statement."""
    references = _citation_page_sql(
        this="citing_id",
        other="cited_id",
        order=CITATION_SORTS_SQL[references_sort],
        offset="references_offset",
    )
    citing = _citation_page_sql(
        this="cited_id",
        other="citing_id",
        order=CITATION_SORTS_SQL[citing_sort],
        offset="citing_offset",
    )
    with read_connection().cursor() as cursor:
        cursor.execute(
            f"SELECT {references}, {citing}",
            {
                "work_id": work_id,
                "references_offset": references_offset,
                "citing_offset": citing_offset,
            },
        )
        reference_rows, citing_rows = cursor.fetchone()
    return (
        [CitedWork(*work) for work in reference_rows or ()],
        [CitedWork(*work) for work in citing_rows or ()],
    )
