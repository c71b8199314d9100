"""Who follows a topic or an institution, and a user's follows of them (researchers' follows
live in researchers: Follow)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from bzpeer.users.models import User
from feed.models import InstitutionFollow, TopicFollow
from publications.models import Topic
from researchers.models import Institution


def topic_is_followed_by(topic: Topic, user: Any) -> bool:
    if not isinstance(user, User):
        return False
    return TopicFollow.objects.filter(topic=topic, user=user).exists()


def institution_is_followed_by(institution: Institution, user: Any) -> bool:
    if not isinstance(user, User):
        return False
    return InstitutionFollow.objects.filter(institution=institution, user=user).exists()


def topic_follows_of(user: User) -> QuerySet[TopicFollow]:
    return (
        TopicFollow.objects.filter(user=user).select_related("topic").order_by("-created_at", "id")
    )


def institution_follows_of(user: User) -> QuerySet[InstitutionFollow]:
    return (
        InstitutionFollow.objects.filter(user=user)
        .select_related("institution")
        .order_by("-created_at", "id")
    )
