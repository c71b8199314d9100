"""The inbox (conversations with their unread counts, invitations received and sent) and the
header badge. A fixed number of queries whatever the counts (three for the inbox, one for the
badge, none for a cached badge): the participant rows carry the unread counts and the last activity, so nothing is
counted message by message, and every lookup reads an index in the order it needs."""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from bzpeer.users.models import User
from collaboration.models import (
    Block,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
    Message,
)
from researchers.models import Researcher

from .invitations import DELETED_NAME, InvitationSummary, invitations_for

PREVIEW_LENGTH = 140


@dataclass
class ConversationSummary:
    id: int
    other_name: str
    other_slug: str | None
    last_message_at: datetime.datetime | None
    last_message_preview: str
    unread_count: int
    muted: bool
    other_unavailable: bool


@dataclass
class Inbox:
    conversations: list[ConversationSummary]
    has_next: bool
    received: list[InvitationSummary] = field(default_factory=list)
    sent: list[InvitationSummary] = field(default_factory=list)


def _preview(body: str | None, *, deleted: bool, hidden: bool) -> str:
    if body is None:
        return ""
    if hidden:
        return "Hidden by a moderator"
    if deleted:
        return "Message deleted"
    text = " ".join(body.split())
    return text if len(text) <= PREVIEW_LENGTH else text[: PREVIEW_LENGTH - 1] + "…"


# The start of the last message is enough for its preview (PREVIEW_LENGTH once whitespace is
# collapsed); a message can be 10,000 characters.
_PREVIEW_SOURCE = 1_000


def conversations_for(
    user: User, *, page: int = 1, per_page: int = 30
) -> tuple[list[ConversationSummary], bool]:
    """A page of the user's conversations, latest activity first, and whether more follow.

    One query: the user's participant rows read in order from participant_inbox_idx (its
    LIMIT stops the scan), and for each of those rows only, through LATERAL lookups by index:
    the other side and their record, the start of the last message (message_conversation_idx,
    newest first), and whether a block stands between the two."""
    offset = (max(page, 1) - 1) * per_page
    participant = ConversationParticipant._meta.db_table
    message = Message._meta.db_table
    block = Block._meta.db_table
    researcher = Researcher._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT mine.conversation_id, mine.last_message_at, mine.unread_count, mine.muted,
                   other.user_id, record.slug, record.display_name,
                   last.body_start, last.deleted_at IS NOT NULL, last.hidden_at IS NOT NULL,
                   EXISTS (SELECT 1 FROM {block} b
                           WHERE (b.blocker_id = %(user)s AND b.blocked_id = other.user_id)
                              OR (b.blocker_id = other.user_id AND b.blocked_id = %(user)s))
            FROM (SELECT * FROM {participant}
                  WHERE user_id = %(user)s
                  ORDER BY last_message_at DESC, conversation_id DESC
                  LIMIT %(limit)s OFFSET %(offset)s) mine
            LEFT JOIN LATERAL (SELECT user_id, researcher_id FROM {participant} o
                               WHERE o.conversation_id = mine.conversation_id
                                 AND o.id <> mine.id
                               LIMIT 1) other ON true
            LEFT JOIN {researcher} record ON record.id = other.researcher_id
            LEFT JOIN LATERAL (SELECT left(body, %(preview)s) AS body_start, deleted_at,
                                      hidden_at
                               FROM {message} m
                               WHERE m.conversation_id = mine.conversation_id
                               ORDER BY m.id DESC
                               LIMIT 1) last ON true
            ORDER BY mine.last_message_at DESC, mine.conversation_id DESC
            """,  # noqa: S608 - table names from the models, values as parameters
            {
                "user": user.pk,
                "limit": per_page + 1,
                "offset": offset,
                "preview": _PREVIEW_SOURCE,
            },
        )
        rows = cursor.fetchall()
    has_next = len(rows) > per_page
    summaries = []
    for (
        conversation_id,
        last_message_at,
        unread_count,
        muted,
        other_user_id,
        other_slug,
        other_name,
        body_start,
        deleted,
        hidden,
        blocked,
    ) in rows[:per_page]:
        gone = other_user_id is None or other_name is None
        summaries.append(
            ConversationSummary(
                id=conversation_id,
                other_name=DELETED_NAME if gone else other_name,
                other_slug=None if gone else other_slug,
                last_message_at=last_message_at,
                last_message_preview=_preview(body_start, deleted=deleted, hidden=hidden),
                unread_count=unread_count,
                muted=muted,
                other_unavailable=gone or blocked,
            )
        )
    return summaries, has_next


def inbox_for(user: User, *, page: int = 1, per_page: int = 30) -> Inbox:
    conversations, has_next = conversations_for(user, page=page, per_page=per_page)
    return Inbox(
        conversations=conversations,
        has_next=has_next,
        # The inbox lists no anchors (the invitation's own page does): no prefetch.
        received=invitations_for(user, box="received", with_anchors=False),
        sent=invitations_for(user, box="sent", with_anchors=False),
    )


# How long a user's badge count is kept in the cache. Every write that changes it forgets it
# (collaboration.services.badge: send, read, mute, invitations sent, answered, withdrawn), so
# this bounds only what no write announces: a pending invitation running out, and that moment
# is known, so the entry never outlives the earliest expiry it counted.
BADGE_CACHE_SECONDS = 300


def badge_cache_key(user_id: int) -> str:
    return f"collaboration:inbox-badge:v1:{int(user_id)}"


def unread_badge_count(user: User) -> int:
    """Unread messages in the user's conversations they have not muted, plus the pending
    invitations they received: one query, both parts read through partial indexes."""
    return _badge_count_and_expiry(user)[0]


def _badge_count_and_expiry(user: User) -> tuple[int, datetime.datetime | None]:
    """The badge's count and the earliest expiry among the pending invitations it counts."""
    participant = ConversationParticipant._meta.db_table
    invitation = Invitation._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH pending AS (
              SELECT COUNT(*) AS n, MIN(expires_at) AS first_expiry FROM {invitation}
              WHERE recipient_id = %(user)s AND status = %(pending)s AND expires_at > %(now)s
            )
            SELECT
              COALESCE((SELECT SUM(unread_count) FROM {participant}
                        WHERE user_id = %(user)s AND unread_count > 0 AND NOT muted), 0)
              + pending.n,
              pending.first_expiry
            FROM pending
            """,  # noqa: S608 - table names from the models, values as parameters
            {"user": user.pk, "pending": InvitationStatus.PENDING, "now": timezone.now()},
        )
        row = cursor.fetchone()
    return (int(row[0]), row[1]) if row else (0, None)


def inbox_badge_count(user: User) -> int:
    """unread_badge_count through the cache: a signed-in page reads no table for its header
    badge once the count is cached. The services forget the entry whenever they change what it
    counts (collaboration.services.badge.inbox_badge_forget)."""
    key = badge_cache_key(user.pk)
    cached = cache.get(key)
    if cached is not None:
        return int(cached)
    count, first_expiry = _badge_count_and_expiry(user)
    timeout = BADGE_CACHE_SECONDS
    if first_expiry is not None:
        until_expiry = (first_expiry - timezone.now()).total_seconds()
        timeout = max(1, min(timeout, math.ceil(until_expiry)))
    cache.set(key, count, timeout)
    return count
