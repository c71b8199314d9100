"""Writes of the feed: follows of topics and institutions, mutes, and the read watermark.

Researcher follows are researchers.services.follow_create/follow_delete (the profile's button
came first); the functions here take any of the three kinds so the pages and the API have one
entry point each. Every follow insert is `INSERT ... ON CONFLICT DO NOTHING` on the unique
(user, record) constraint and the count moves only for the statement that inserted or deleted
a row, so two clicks at once leave one row and an exact count.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.users.models import User
from feed.models import FeedState, InstitutionFollow, TopicFollow
from publications.models import Topic
from researchers import services as researcher_services
from researchers.models import Institution, Researcher

Followable = Researcher | Topic | Institution


def _follow_insert(*, table: str, column: str, user: User, target_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (user_id, {column}, created_at) VALUES (%s, %s, %s)"
            f" ON CONFLICT (user_id, {column}) DO NOTHING",
            [user.pk, target_id, timezone.now()],
        )
        return cursor.rowcount == 1


@retry_on_lock_conflict
@transaction.atomic
def follow_create(*, user: User, target: Followable) -> bool:
    """Follow a researcher, topic or institution. Returns False when already followed."""
    if isinstance(target, Researcher):
        return researcher_services.follow_create(user=user, researcher=target)
    if isinstance(target, Topic):
        created = _follow_insert(
            table=TopicFollow._meta.db_table, column="topic_id", user=user, target_id=target.pk
        )
        if created:
            Topic.objects.filter(pk=target.pk).update(followers_count=F("followers_count") + 1)
        return created
    created = _follow_insert(
        table=InstitutionFollow._meta.db_table,
        column="institution_id",
        user=user,
        target_id=target.pk,
    )
    if created:
        Institution.objects.filter(pk=target.pk).update(followers_count=F("followers_count") + 1)
    return created


@retry_on_lock_conflict
@transaction.atomic
def follow_delete(*, user: User, target: Followable) -> bool:
    """Stop following. Returns False when there was nothing to remove."""
    if isinstance(target, Researcher):
        return researcher_services.follow_delete(user=user, researcher=target)
    if isinstance(target, Topic):
        deleted, _ = TopicFollow.objects.filter(user=user, topic=target).delete()
        if deleted:
            Topic.objects.filter(pk=target.pk, followers_count__gt=0).update(
                followers_count=F("followers_count") - 1
            )
        return bool(deleted)
    deleted, _ = InstitutionFollow.objects.filter(user=user, institution=target).delete()
    if deleted:
        Institution.objects.filter(pk=target.pk, followers_count__gt=0).update(
            followers_count=F("followers_count") - 1
        )
    return bool(deleted)


def _followed_delete_for_user(
    *, model: type[Topic | Institution], follow_table: str, column: str, user_ids: list[int]
) -> None:
    """One kind of follow of this user gone, and each followed record's count down with it:
    the records locked first in id order (FOR NO KEY UPDATE, as researchers.services does),
    then one statement for the rows and the counts."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {table} WHERE id IN"  # noqa: S608 - table names from the models
            f" (SELECT {column} FROM {follow_table} WHERE user_id = ANY(%(users)s))"
            " ORDER BY id FOR NO KEY UPDATE",
            {"users": user_ids},
        )
        cursor.execute(
            f"""
            WITH gone AS (
                DELETE FROM {follow_table} WHERE user_id = ANY(%(users)s) RETURNING {column} AS id
            )
            UPDATE {table} t SET followers_count = greatest(t.followers_count - g.n, 0)
            FROM (SELECT id, count(*) AS n FROM gone GROUP BY id) g
            WHERE t.id = g.id
            """,  # noqa: S608 - table names from the models
            {"users": user_ids},
        )


@transaction.atomic
def follows_delete_for_users(user_ids: Sequence[int]) -> None:
    """Every follow of these users (researchers, topics, institutions) removed and every stored
    count it added taken back, set-based; run by bzpeer.users.services.users_delete before the
    user rows go (registered in feed.apps: their cascade would remove the rows and leave the
    counts high). Researchers first, then topics, then institutions: the lock order rule, each
    kind in id order."""
    user_ids = list(user_ids)
    researcher_services.follows_delete_for_users(user_ids=user_ids)
    _followed_delete_for_user(
        model=Topic, follow_table=TopicFollow._meta.db_table, column="topic_id", user_ids=user_ids
    )
    _followed_delete_for_user(
        model=Institution,
        follow_table=InstitutionFollow._meta.db_table,
        column="institution_id",
        user_ids=user_ids,
    )


def follow_mute_set(*, user: User, target: Researcher | Topic, muted: bool) -> bool:
    """Leave a followed researcher's or topic's works out of the feed (or let them back in)
    without unfollowing. Returns False when the user does not follow it. Institutions feed
    nothing (feed.selectors says why), so there is nothing to mute."""
    if isinstance(target, Researcher):
        return researcher_services.follow_mute_set(user=user, researcher=target, muted=muted)
    return bool(TopicFollow.objects.filter(user=user, topic=target).update(muted=muted))


def feed_mark_read(*, user: User, through: datetime | None = None) -> datetime:
    """Mark everything in the feed read up to `through` (the arrival of the newest item the user
    was shown; now when not given), in one upsert of the user's watermark.

    The watermark never moves back, so an old page posted late cannot mark read items again, and
    it never passes the present, so a forged value cannot hide what arrives later.
    """
    now = timezone.now()
    read_through = min(through, now) if through is not None else now
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {FeedState._meta.db_table} AS s (user_id, read_through) VALUES (%s, %s)"
            " ON CONFLICT (user_id) DO UPDATE"
            " SET read_through = GREATEST(s.read_through, EXCLUDED.read_through)"
            " RETURNING read_through",
            [user.pk, read_through],
        )
        return cursor.fetchone()[0]
