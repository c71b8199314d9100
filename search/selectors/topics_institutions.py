"""The search page's topics and institutions tabs: records found by name (the name helpers of
researchers.name_search), a topic also by its exact category code."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, Count, Q, QuerySet, Value, When, Window

from publications.models import Topic
from researchers.models import Institution
from researchers.name_search import (
    NormalizedName,
    fragment_pattern,
    name_score,
    trigram_name_condition,
)
from researchers.names import normalize_name

from .results import FACET_LIMIT, MAX_QUERY_LENGTH, SEARCH_PAGE_SIZE, Facet, SearchPage, page_offset


def institutions_matching_name(normalized_query: str) -> QuerySet[Institution]:
    """Institutions whose name is like `normalized_query` (already through normalize_name), in
    no particular order; the trigram index of migration researchers 0007 serves it."""
    return Institution.objects.alias(name_key=NormalizedName("name")).filter(
        trigram_name_condition(
            normalized_query, "name_key", fragment=fragment_pattern(normalized_query)
        )
    )


@dataclass(frozen=True)
class InstitutionFilters:
    country_code: str = ""


def institution_search(
    *, query: str, filters: InstitutionFilters = InstitutionFilters(), page: int = 1
) -> SearchPage[Institution]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return SearchPage(items=[], number=page, page_size=SEARCH_PAGE_SIZE, total=0)
    matches = institutions_matching_name(normalized_query)
    if filters.country_code:
        matches = matches.filter(country_code=filters.country_code.upper())
    offset = page_offset(page)
    rows = list(
        matches.annotate(
            name_score=name_score(normalized_query, NormalizedName("name")),
            matches_total=Window(Count("*")),
        ).order_by("-name_score", "name", "id")[offset : offset + SEARCH_PAGE_SIZE]
    )
    return SearchPage(
        items=rows,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=rows[0].matches_total if rows else 0,
    )


def institution_country_facets(*, query: str, filters: InstitutionFilters) -> list[Facet]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return []
    chosen = filters.country_code.upper()
    rows = (
        institutions_matching_name(normalized_query)
        .exclude(country_code="")
        .values("country_code")
        .annotate(
            matches=Count("id"),
            chosen=Case(When(country_code=chosen, then=Value(0)), default=Value(1)),
        )
        .order_by("chosen", "-matches", "country_code")[:FACET_LIMIT]
    )
    return [
        Facet(value=row["country_code"], label=row["country_code"], count=row["matches"])
        for row in rows
    ]


def topics_matching(query: str) -> QuerySet[Topic]:
    """Topics whose name is like `query`, or whose category code it is ("cs.CV"), unordered."""
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return Topic.objects.none()
    # A few thousand rows at most (OpenAlex has ~4,500 topics): no index needed.
    return Topic.objects.alias(name_key=NormalizedName("name")).filter(
        trigram_name_condition(
            normalized_query, "name_key", fragment=fragment_pattern(normalized_query)
        )
        | Q(code__iexact=query.strip())
    )


@dataclass(frozen=True)
class TopicFilters:
    level: str = ""


def topic_search(
    *, query: str, filters: TopicFilters = TopicFilters(), page: int = 1
) -> SearchPage[Topic]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    matches = topics_matching(query)
    if filters.level:
        matches = matches.filter(level=filters.level)
    offset = page_offset(page)
    rows = list(
        matches.select_related("parent")
        .annotate(
            name_score=name_score(normalized_query, NormalizedName("name"))
            # A category code typed exactly ("cs.CV") beats any name.
            + Case(When(code__iexact=query.strip(), then=Value(2.0)), default=Value(0.0)),
            matches_total=Window(Count("*")),
        )
        .order_by("-name_score", "name", "id")[offset : offset + SEARCH_PAGE_SIZE]
    )
    return SearchPage(
        items=rows,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=rows[0].matches_total if rows else 0,
    )
