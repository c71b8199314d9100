"""Reads of researcher records shared by the pages, the API and the tasks."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet

from bzpeer.users.models import User

from .models import Follow, Researcher


def researchers_public() -> QuerySet[Researcher]:
    """Researcher records that stand on their own: a merged record lives on only as a redirect."""
    return Researcher.objects.filter(merged_into__isnull=True)


def researcher_by_slug(slug: str) -> Researcher | None:
    """The record with this slug, merged or not; merged_into comes in the same query so the
    caller can redirect without asking again."""
    return Researcher.objects.select_related("merged_into").filter(slug=slug).first()


def researcher_is_followed_by(researcher: Researcher, user: User | AnonymousUser) -> bool:
    if not isinstance(user, User):
        return False  # a visitor follows nobody
    return Follow.objects.filter(researcher=researcher, user=user).exists()


def researchers_followed_by(user: User) -> QuerySet[Researcher]:
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
