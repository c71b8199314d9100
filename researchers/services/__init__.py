"""Writes for researchers: follows (and, later, profile changes)."""

from __future__ import annotations

from collections.abc import Collection

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from bzpeer.users.models import User

from .. import page_cache
from ..models import Follow, Researcher


@transaction.atomic
def follow_create(*, user: User, researcher: Researcher) -> bool:
    """Follow a researcher. Returns False when the user already followed them.

    The unique constraint decides between two concurrent clicks; the count moves only for the
    click whose row was inserted, so it stays exact. ON CONFLICT rather than get_or_create:
    when a concurrent unfollow removed the row get_or_create collided with, its second look
    found nothing and it raised the IntegrityError.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Follow._meta.db_table} (user_id, researcher_id, created_at)"
            " VALUES (%s, %s, %s) ON CONFLICT (user_id, researcher_id) DO NOTHING",
            [user.pk, researcher.pk, timezone.now()],
        )
        created = cursor.rowcount == 1
    if created:
        Researcher.objects.filter(pk=researcher.pk).update(followers_count=F("followers_count") + 1)
    return created


@transaction.atomic
def follow_delete(*, user: User, researcher: Researcher) -> bool:
    """Stop following. Returns False when there was nothing to remove."""
    deleted, _ = Follow.objects.filter(user=user, researcher=researcher).delete()
    if deleted:
        Researcher.objects.filter(pk=researcher.pk, followers_count__gt=0).update(
            followers_count=F("followers_count") - 1
        )
    return bool(deleted)


def follow_mute_set(*, user: User, researcher: Researcher, muted: bool) -> bool:
    """Mute (or unmute) a followed researcher in the user's feed; the follow and the count stay.
    Returns False when the user does not follow them."""
    return bool(Follow.objects.filter(user=user, researcher=researcher).update(muted=muted))


def researcher_pages_invalidate(*, researcher_ids: Collection[int]) -> None:
    """Make the cached profile pages of these researchers stale (their works changed)."""
    page_cache.profile_pages_invalidate(researcher_ids=researcher_ids)


from .affiliations import (  # noqa: E402  (re-exported; it imports nothing from this module)
    StatedAffiliation,
    affiliations_replace_for_source,
)
from .cv import (  # noqa: E402  (re-exported; cv imports nothing from this module)
    CvEntryData,
    CvReplaceResult,
    cv_entries_replace_for_source,
    cv_entry_hidden_set,
)

__all__ = [
    "CvEntryData",
    "StatedAffiliation",
    "affiliations_replace_for_source",
    "CvReplaceResult",
    "cv_entries_replace_for_source",
    "cv_entry_hidden_set",
    "follow_create",
    "follow_delete",
    "follow_mute_set",
    "researcher_pages_invalidate",
]
