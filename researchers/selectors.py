"""Reads of researcher records shared by the pages, the API and the tasks."""

from __future__ import annotations

from django.contrib.postgres.search import TrigramWordSimilarity
from django.db.models import Q, QuerySet

from .models import Follow, Researcher
from .names import normalize_name


def researchers_public() -> QuerySet[Researcher]:
    """Researcher records that stand on their own: a merged record lives on only as a redirect."""
    return Researcher.objects.filter(merged_into__isnull=True)


def researchers_matching_name(queryset: QuerySet[Researcher], query: str) -> QuerySet[Researcher]:
    """Narrow `queryset` to names like `query`, best match first.

    Both sides go through normalize_name, so "Zhong Zhizhen", "ZHIZHEN" and "zhízhen zhong"
    all meet "zhizhen zhong". Both conditions are answered by the pg_trgm GIN index on
    name_normalized: `%>` (word similarity, which ignores word order because trigrams are a
    set) and a case-sensitive LIKE, which is safe because both sides are already lower-case.
    icontains would wrap the column in UPPER() and miss the index.
    """
    normalized_query = normalize_name(query)
    if not normalized_query:
        # Punctuation only: nothing can match, and an empty pattern would match everything.
        return queryset.none()
    return (
        queryset.filter(
            Q(name_normalized__trigram_word_similar=normalized_query)
            | Q(name_normalized__contains=normalized_query)
        )
        .annotate(name_similarity=TrigramWordSimilarity(normalized_query, "name_normalized"))
        .order_by("-name_similarity", "-cited_by_count", "id")
    )


def researcher_by_slug(slug: str) -> Researcher | None:
    """The record with this slug, merged or not; merged_into comes in the same query so the
    caller can redirect without asking again."""
    return Researcher.objects.select_related("merged_into").filter(slug=slug).first()


def researcher_for_profile(slug: str) -> Researcher | None:
    """The record behind /researchers/<slug>/, with what the page header needs joined."""
    return (
        Researcher.objects.select_related("merged_into", "last_known_institution")
        .filter(slug=slug)
        .first()
    )


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
