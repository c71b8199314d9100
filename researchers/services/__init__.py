"""Writes for researchers: follows (and, later, profile changes)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.users.models import User

from .. import page_cache
from ..models import Follow, Researcher
from .locks import researchers_lock


@retry_on_lock_conflict
@transaction.atomic
def follow_create(*, user: User, researcher: Researcher) -> bool:
    """Follow a researcher. Returns False when the user already followed them.

    The researcher row is locked first (FOR NO KEY UPDATE, the lock order rule in locks.py):
    a merge locks it before it moves follow rows, so taking the follow row first and the
    record second waited on each other the other way round (a deadlock). The unique constraint
    decides between two concurrent clicks; the count moves only for the click whose row was
    inserted, so it stays exact. ON CONFLICT rather than get_or_create: when a concurrent
    unfollow removed the row get_or_create collided with, its second look found nothing and it
    raised the IntegrityError.
    """
    researchers_lock([researcher.pk])
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


@retry_on_lock_conflict
@transaction.atomic
def follow_delete(*, user: User, researcher: Researcher) -> bool:
    """Stop following. Returns False when there was nothing to remove. The record's row is
    locked before the follow row, as in follow_create."""
    researchers_lock([researcher.pk])
    deleted, _ = Follow.objects.filter(user=user, researcher=researcher).delete()
    if deleted:
        Researcher.objects.filter(pk=researcher.pk, followers_count__gt=0).update(
            followers_count=F("followers_count") - 1
        )
    return bool(deleted)


_FOLLOWS_OF_USERS_DELETE_SQL = f"""
WITH gone AS (
    DELETE FROM {Follow._meta.db_table} WHERE user_id = ANY(%(users)s) RETURNING researcher_id
)
UPDATE {Researcher._meta.db_table} r
SET followers_count = greatest(r.followers_count - g.n, 0)
FROM (SELECT researcher_id, count(*) AS n FROM gone GROUP BY researcher_id) g
WHERE r.id = g.researcher_id
"""  # noqa: S608 - table names from the models


@transaction.atomic
def follows_delete_for_users(*, user_ids: Sequence[int]) -> int:
    """Remove every follow of a researcher by these users (their accounts are going) and bring
    each followed record's count down with it: one lock statement and one statement for the
    rows and counts, whatever the number of follows. Returns the number of records whose count
    fell.

    The followed records are locked first, in id order (the lock order rule), so this never
    waits on a merge or a follow of one record while holding another. A cascade from
    User.delete() would remove the rows and leave every count one too high (issue 24)."""
    followed = Follow.objects.filter(user_id__in=user_ids).values_list("researcher_id", flat=True)
    researchers_lock(list(followed))
    with connection.cursor() as cursor:
        cursor.execute(_FOLLOWS_OF_USERS_DELETE_SQL, {"users": list(user_ids)})
        return cursor.rowcount


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
    "follows_delete_for_users",
    "researcher_pages_invalidate",
    "researchers_lock",
]
