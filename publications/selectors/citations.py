"""A work's references and the works citing it, who cites a researcher, and related works
(issue 25): reads of the citation graph."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db.models import F, QuerySet

from bzpeer.db import read_connection
from researchers.models import Researcher

from ..models import (
    Authorship,
    Citation,
    RelatedWork,
    Work,
    WorkListedBy,
)

# --- Citations (issue 25): a work's references and the works that cite it ---------------------

CITATIONS_PER_PAGE = 20
CITATION_SORTS = {
    # "citations": the most cited first; "year": the newest first (a year-only work at its year).
    "citations": (F("cited_by_count").desc(), F("id").desc()),
    "year": (F("sort_date").desc(nulls_last=True), F("id").desc()),
}
# The source whose citation count a work shows: the first of these that has the work. The
# importer's merge takes the count in this order (ingest.writer.merge.PRECEDENCE uses it).
CITED_BY_COUNT_SOURCES = ("openalex", "crossref", "orcid", "bibtex", "arxiv")
SOURCE_NAMES = {
    "openalex": "OpenAlex",
    "crossref": "Crossref",
    "orcid": "ORCID",
    "bibtex": "BibTeX",
    "arxiv": "arXiv",
}


def _cited_works(ids: QuerySet[Any], sort: str) -> QuerySet[Work]:
    order = CITATION_SORTS.get(sort, CITATION_SORTS["citations"])
    return (
        Work.objects.filter(pk__in=ids)
        .only("id", "title", "publication_year", "publication_date", "cited_by_count", "doi")
        .order_by(*order)
    )


def work_references(work_id: int, *, sort: str = "citations") -> QuerySet[Work]:
    """The works held here that `work_id` cites."""
    return _cited_works(Citation.objects.filter(citing_id=work_id).values("cited_id"), sort)


def work_citing(work_id: int, *, sort: str = "citations") -> QuerySet[Work]:
    """The works held here that cite `work_id`."""
    return _cited_works(Citation.objects.filter(cited_id=work_id).values("citing_id"), sort)


@dataclass(frozen=True)
class CitingResearcher:
    slug: str
    display_name: str
    citations: int  # citations from their works to the researcher's works held here


@dataclass(frozen=True)
class ResearcherCitations:
    """Who cites a researcher, counted from the citing works held here (not the sources'
    figures): the researchers who cite them most (their own works left out: no self-citation),
    and the citations per year of the citing work."""

    citing: list[CitingResearcher]
    by_year: dict[int, int]
    total: int


CITING_RESEARCHERS_SHOWN = 5


def researcher_citations_sql(researcher_id: str) -> str:
    """A scalar subquery: who cites the researcher whose id `researcher_id` (an SQL expression:
    "r.id" inside the profile's statement, a parameter here) names, as one JSON object
    {"citing": [[slug, name, citations], ...], "by_year": {year: citations}, "total": n}."""
    mine = (
        f"SELECT work_id FROM {Authorship._meta.db_table} WHERE researcher_id = {researcher_id}"
        f" UNION ALL SELECT work_id FROM {WorkListedBy._meta.db_table}"
        f" WHERE researcher_id = {researcher_id} AND position IS NULL"
    )
    return f"""(
WITH mine AS ({mine}),
cites AS (
    SELECT DISTINCT c.citing_id, c.cited_id FROM {Citation._meta.db_table} c
    WHERE c.cited_id IN (SELECT work_id FROM mine)
),
citing_people AS (
    SELECT a.researcher_id, count(*) AS citations
    FROM cites x JOIN {Authorship._meta.db_table} a ON a.work_id = x.citing_id
    WHERE a.researcher_id IS NOT NULL AND a.researcher_id <> {researcher_id}
      AND x.citing_id NOT IN (SELECT work_id FROM mine)
    GROUP BY a.researcher_id
    ORDER BY citations DESC, a.researcher_id
    LIMIT {CITING_RESEARCHERS_SHOWN}
)
SELECT json_build_object(
    'citing',
    (SELECT coalesce(json_agg(json_build_array(p.slug, p.display_name, p.citations)
                              ORDER BY p.citations DESC, p.id), '[]')
     FROM (SELECT r.id, r.slug, r.display_name, c.citations
           FROM citing_people c JOIN {Researcher._meta.db_table} r ON r.id = c.researcher_id) p),
    'by_year',
    (SELECT coalesce(json_object_agg(year, citations), '{{}}')
     FROM (SELECT w.publication_year AS year, count(*) AS citations
           FROM cites x JOIN {Work._meta.db_table} w ON w.id = x.citing_id
           WHERE w.publication_year IS NOT NULL GROUP BY 1) t),
    'total', (SELECT count(*) FROM cites)
))"""


def researcher_citations_from(value: Any) -> ResearcherCitations:
    """What researcher_citations_sql gave (Django's connection reads json as text)."""
    data = json.loads(value) if isinstance(value, str) else value
    return ResearcherCitations(
        citing=[CitingResearcher(slug, name, count) for slug, name, count in data["citing"]],
        by_year={int(year): count for year, count in data["by_year"].items()},
        total=data["total"],
    )


def researcher_citations(researcher_id: int) -> ResearcherCitations:
    """One statement, whatever the number of works and citations (the profile reads the same
    subquery inside its record's statement: pages.selectors)."""
    with read_connection().cursor() as cursor:
        cursor.execute(f"SELECT {researcher_citations_sql('%(id)s')}", {"id": researcher_id})
        (value,) = cursor.fetchone()
    return researcher_citations_from(value)


# --- Related works (issue 25, item 4; publications.services.related_works computes them) -------


def work_related(work_id: int) -> QuerySet[RelatedWork]:
    """A work's related works in rank order (ten at most), each with its work: one query, read
    from the primary key (work, related)."""
    return (
        RelatedWork.objects.filter(work_id=work_id)
        .select_related("related")
        .only(
            "work_id",
            "related_id",
            "cocitations",
            "shared_references",
            "score",
            "rank",
            "related__id",
            "related__title",
            "related__publication_year",
            "related__publication_date",
            "related__doi",
            "related__cited_by_count",
        )
        .order_by("rank")
    )
