"""Reads of works shared by the pages, the API and the tasks."""

from __future__ import annotations

import re

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import F, OuterRef, Prefetch, QuerySet
from django.db.models.functions import JSONObject

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


def works_with_details() -> QuerySet[Work]:
    """Works with their whole byline and topics as model instances (the work page, the API), in
    a fixed number of queries whatever the number of rows: the venue is joined, authors (in
    byline order, with their researcher) and topics (strongest first) come in one prefetch
    query each. Listings use works_listed."""
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
    return Work.objects.select_related("source").prefetch_related(
        Prefetch("authorships", queryset=authorships),
        Prefetch("work_topics", queryset=work_topics),
    )


def works_listed() -> QuerySet[Work]:
    """Works as listings show them (publications/_work_item.html), in one query: the venue
    joined, and on each work `listed_authors`, the first LISTED_AUTHORS of its byline in order
    ({"researcher_id", "slug", "name", "raw_name"} each; slug and name are null for an author
    with no researcher record), and `listed_topics`, strongest first ({"id", "name", "code"}).

    Plain lists built by PostgreSQL rather than prefetched model instances: a profile page lists
    twenty works with up to twelve authors each, and prefetching them cost two more queries and
    a few hundred model instances per page.
    """
    authors = (
        Authorship.objects.filter(work=OuterRef("pk"), position__lte=LISTED_AUTHORS)
        .order_by("position")
        .values(
            json=JSONObject(
                researcher_id="researcher_id",
                slug="researcher__slug",
                name="researcher__display_name",
                raw_name="raw_name",
            )
        )
    )
    topics = (
        WorkTopic.objects.filter(work=OuterRef("pk"))
        .order_by("-score", "topic__name")
        .values(json=JSONObject(id="topic_id", name="topic__name", code="topic__code"))
    )
    return Work.objects.select_related("source").annotate(
        listed_authors=ArraySubquery(authors), listed_topics=ArraySubquery(topics)
    )


def works_newest_first(queryset: QuerySet[Work]) -> QuerySet[Work]:
    """Newest first; undated works go last (PostgreSQL would put NULLs first on DESC), and the
    id breaks ties so pages never repeat or skip a work."""
    return queryset.order_by(F("publication_date").desc(nulls_last=True), "-id")


def works_for_researcher(researcher: Researcher, *, listed: bool = False) -> QuerySet[Work]:
    """The researcher's works, newest first, with details (works_with_details), or as listings
    show them when `listed` (works_listed). A semi-join (IN) rather than a join, so a researcher
    listed twice on one byline still sees the work once; PostgreSQL drives it from the
    (researcher, work) index instead of scanning every work."""
    authored = Authorship.objects.filter(researcher=researcher).values("work_id")
    works = works_listed() if listed else works_with_details()
    return works_newest_first(works.filter(pk__in=authored))
