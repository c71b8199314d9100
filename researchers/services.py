"""Writes for researchers: follows (and, later, profile changes)."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from .models import Follow, Researcher


@transaction.atomic
def follow_create(*, user, researcher: Researcher) -> bool:  # noqa: ANN001 - the custom User
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
def follow_delete(*, user, researcher: Researcher) -> bool:  # noqa: ANN001
    """Stop following. Returns False when there was nothing to remove."""
    deleted, _ = Follow.objects.filter(user=user, researcher=researcher).delete()
    if deleted:
        Researcher.objects.filter(pk=researcher.pk, followers_count__gt=0).update(
            followers_count=F("followers_count") - 1
        )
    return bool(deleted)


def profile_page_version_key(researcher_id: int) -> str:
    return f"profile-page-version:{researcher_id}"


def researcher_pages_invalidate(*, researcher_ids: Collection[int]) -> None:
    """Make the cached profile pages of these researchers stale (their works changed).

    The page cache key carries this counter next to the record's own fields, so bumping it is
    all an invalidation takes; one Redis round trip for the whole set.
    """
    if not researcher_ids:
        return
    keys = [profile_page_version_key(researcher_id) for researcher_id in researcher_ids]
    version = uuid.uuid4().hex[:12]
    cache.set_many(dict.fromkeys(keys, version), timeout=None)
