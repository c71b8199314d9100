"""Reads of works shared by the pages, the API and the tasks."""

from __future__ import annotations

import re

from django.db.models import F, Prefetch, QuerySet

from researchers.models import Researcher

from .models import Authorship, Work, WorkTopic

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


def works_with_details(*, authors_limit: int | None = None) -> QuerySet[Work]:
    """Works with everything a work listing shows, in a fixed number of queries whatever the
    number of rows: the venue is joined, authors (in byline order, with their researcher) and
    topics (strongest first) come in one prefetch query each. authors_limit keeps only the
    first authors of each byline (positions start at 1)."""
    authorships = Authorship.objects.all()
    if authors_limit is not None:
        authorships = authorships.filter(position__lte=authors_limit)
    authorships = (
        authorships.select_related("researcher")
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
    return Work.objects.select_related("source").prefetch_related(
        Prefetch("authorships", queryset=authorships),
        Prefetch("work_topics", queryset=work_topics),
    )


def works_newest_first(queryset: QuerySet[Work]) -> QuerySet[Work]:
    """Newest first; undated works go last (PostgreSQL would put NULLs first on DESC), and the
    id breaks ties so pages never repeat or skip a work."""
    return queryset.order_by(F("publication_date").desc(nulls_last=True), "-id")


def works_for_researcher(
    researcher: Researcher, *, authors_limit: int | None = None
) -> QuerySet[Work]:
    """The researcher's works, newest first, with details. A semi-join (IN) rather than a join,
    so a researcher listed twice on one byline still sees the work once; PostgreSQL drives it
    from the (researcher, work) index instead of scanning every work."""
    authored = Authorship.objects.filter(researcher=researcher).values("work_id")
    return works_newest_first(
        works_with_details(authors_limit=authors_limit).filter(pk__in=authored)
    )
