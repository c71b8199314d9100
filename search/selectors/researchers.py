"""The search page's researchers tab: researchers by name (typos forgiven, see
researchers.name_search), filtered, paged, with their institutions as facets."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, Count, Q, Value, When

from researchers.models import Researcher
from researchers.name_page import researchers_name_page
from researchers.name_search import researchers_name_filter
from researchers.names import normalize_name
from researchers.selectors import researchers_public

from .results import FACET_LIMIT, MAX_QUERY_LENGTH, SEARCH_PAGE_SIZE, Facet, SearchPage, page_offset


@dataclass(frozen=True)
class ResearcherFilters:
    institution_id: int | None = None
    has_orcid: bool = False
    claimed: bool = False


def _researcher_filter_q(filters: ResearcherFilters, *, with_institution: bool = True) -> Q:
    condition = Q()
    if with_institution and filters.institution_id is not None:
        condition &= Q(last_known_institution_id=filters.institution_id)
    if filters.has_orcid:
        condition &= Q(orcid__isnull=False)
    if filters.claimed:
        condition &= Q(claimed_by__isnull=False)
    return condition


def researcher_search(
    *, query: str, filters: ResearcherFilters = ResearcherFilters(), page: int = 1
) -> SearchPage[Researcher]:
    """One page of researchers for the search page, institution joined, and the number of
    matches. One query (researchers.name_page: each match read once, each name scored once)."""
    offset = page_offset(page)
    found = researchers_name_page(
        query,
        offset=offset,
        limit=SEARCH_PAGE_SIZE,
        institution_id=filters.institution_id,
        with_orcid=filters.has_orcid,
        claimed=filters.claimed,
    )
    return SearchPage(
        items=found.researchers,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=found.total,
    )


def researcher_institution_facets(*, query: str, filters: ResearcherFilters) -> list[Facet]:
    """The current institutions most common among the matches (the other filters applied),
    the chosen one first. One query."""
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return []
    rows = (
        researchers_name_filter(researchers_public(), normalized_query)
        .filter(_researcher_filter_q(filters, with_institution=False))
        .filter(last_known_institution__isnull=False)
        .values("last_known_institution_id", "last_known_institution__name")
        .annotate(
            matches=Count("id"),
            chosen=Case(
                When(last_known_institution_id=filters.institution_id, then=Value(0)),
                default=Value(1),
            ),
        )
        .order_by("chosen", "-matches", "last_known_institution__name")[:FACET_LIMIT]
    )
    return [
        Facet(
            value=str(row["last_known_institution_id"]),
            label=row["last_known_institution__name"],
            count=row["matches"],
        )
        for row in rows
    ]
