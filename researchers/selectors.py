"""Reads of researcher records shared by the pages, the API and the tasks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import InterfaceError, OperationalError, connection
from django.db.models import QuerySet

from .models import Follow, Institution, Researcher


def researchers_public() -> QuerySet[Researcher]:
    """Researcher records that stand on their own: a merged record lives on only as a redirect."""
    return Researcher.objects.filter(merged_into__isnull=True)


def researchers_matching_name(queryset: QuerySet[Researcher], query: str) -> QuerySet[Researcher]:
    """Name search lives in researchers.search, shared by the search page, the header box and
    the API; this forwards to it for callers that import it from here (graph.selectors)."""
    from .search import researchers_matching_name as matching_name

    return matching_name(queryset, query)


def researcher_by_slug(slug: str) -> Researcher | None:
    """The record with this slug, merged or not; merged_into comes in the same query so the
    caller can redirect without asking again."""
    return Researcher.objects.select_related("merged_into").filter(slug=slug).first()


# Raw SQL on purpose, like the page state below: this runs for every profile page, and the
# ORM's compiling of the joined query cost more than PostgreSQL's answering it. Only the
# columns the profile shows are read (the trust breakdown, a JSON document, is not).
_PROFILE_SQL = """
SELECT r.id, r.slug, r.display_name, r.tagline, r.alternate_names, r.orcid, r.openalex_id,
       r.homepage, r.links, r.open_to_collaborate, r.trust_score, r.verification_level,
       r.claimed_by_id, r.works_count, r.cited_by_count, r.h_index, r.i10_index, r.topics_count,
       r.followers_count, coalesce(c.close_collaborators_count, 0) AS close_collaborators_count,
       r.citations_by_year, r.last_known_institution_id, r.merged_into_id, r.updated_at,
       i.name AS last_known_institution_name, m.slug AS merged_into_slug
FROM researchers_researcher r
LEFT JOIN researchers_institution i ON i.id = r.last_known_institution_id
LEFT JOIN researchers_researcher m ON m.id = r.merged_into_id
LEFT JOIN graph_closecollaboratorscount c ON c.researcher_id = r.id
WHERE r.slug = %s
"""


def researcher_for_profile(slug: str) -> Researcher | None:
    """The record behind /researchers/<slug>/ with what the page shows: its institution comes
    joined (last_known_institution is set, with its id and name), and for a merged record
    `merged_into_slug` names the survivor to redirect to."""
    found = list(Researcher.objects.raw(_PROFILE_SQL, [slug]))
    if not found:
        return None
    researcher = found[0]
    if researcher.last_known_institution_id is not None:
        researcher.last_known_institution = Institution(
            pk=researcher.last_known_institution_id, name=researcher.last_known_institution_name
        )
    else:
        researcher.last_known_institution = None
    return researcher


@dataclass(frozen=True, slots=True)
class ProfilePageState:
    """What decides whether a cached profile page is still the page: the record's id, whether
    it was merged away, and every field the page shows that can change without updated_at
    moving (counts kept by SQL updates, the trust score, the claim)."""

    researcher_id: int
    merged_into_id: int | None
    fields: tuple[Any, ...]


# Raw SQL on purpose: this runs for every cached page served, and compiling the equivalent ORM
# query cost more than everything else such a request does (about 1 ms of its 1.5).
_PROFILE_PAGE_STATE_SQL = """
SELECT r.id, r.merged_into_id, r.updated_at, r.works_count, r.cited_by_count, r.h_index,
       r.i10_index, r.topics_count, r.followers_count, c.close_collaborators_count,
       r.trust_score, r.verification_level, r.claimed_by_id
FROM researchers_researcher r
LEFT JOIN graph_closecollaboratorscount c ON c.researcher_id = r.id
WHERE r.slug = %s
"""


def _profile_page_state_row(slug: str) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(_PROFILE_PAGE_STATE_SQL, [slug])
        return cursor.fetchone()


def researcher_profile_page_state(slug: str) -> ProfilePageState | None:
    """The first query of a cached page's request, and often its only one. Django's connection
    health check would spend a round trip (SELECT 1) before it; instead, a connection the
    server has closed (a restart, a terminated backend) makes this query fail, and it runs once
    more on a new connection, so the request still does not fail."""
    if connection.in_atomic_block:
        row = _profile_page_state_row(slug)
    else:
        connection.health_check_done = True
        try:
            row = _profile_page_state_row(slug)
        except (OperationalError, InterfaceError):
            connection.close()
            row = _profile_page_state_row(slug)
    if row is None:
        return None
    return ProfilePageState(researcher_id=row[0], merged_into_id=row[1], fields=tuple(row[2:]))


def researcher_is_followed_by(researcher: Researcher, user) -> bool:  # noqa: ANN001
    if not user.is_authenticated:
        return False
    return Follow.objects.filter(researcher=researcher, user=user).exists()


def researchers_followed_by(user) -> QuerySet[Researcher]:  # noqa: ANN001
    return (
        researchers_public()
        .filter(follows__user=user)
        .select_related("last_known_institution")
        .order_by("-follows__created_at", "id")
    )


def researchers_most_followed(*, limit: int = 8) -> QuerySet[Researcher]:
    return (
        researchers_public()
        .select_related("last_known_institution")
        .order_by("-followers_count", "-cited_by_count", "id")[:limit]
    )
