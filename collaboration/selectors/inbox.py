"""The inbox (conversations with their unread counts, invitations received and sent) and the
header badge. A fixed number of queries whatever the counts: the participant rows carry the
unread counts and the last activity, so nothing is counted message by message."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from bzpeer.users.models import User
from collaboration.models import (
    Block,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
    Message,
)

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


def _preview(message: Message | None) -> str:
    if message is None:
        return ""
    if message.hidden_at is not None:
        return "Hidden by a moderator"
    if message.deleted_at is not None:
        return "Message deleted"
    text = " ".join(message.body.split())
    return text if len(text) <= PREVIEW_LENGTH else text[: PREVIEW_LENGTH - 1] + "…"


def conversations_for(
    user: User, *, page: int = 1, per_page: int = 30
) -> tuple[list[ConversationSummary], bool]:
    """A page of the user's conversations, latest activity first, and whether more follow.
    Four queries: the user's rows (an index scan of participant_inbox_idx), the other sides,
    the last messages, the blocks between the user and those people."""
    offset = (max(page, 1) - 1) * per_page
    last_message_id = (
        Message.objects.filter(conversation_id=OuterRef("conversation_id"))
        .order_by("-id")
        .values("id")[:1]
    )
    rows = list(
        ConversationParticipant.objects.filter(user=user)
        .annotate(last_message_id=Subquery(last_message_id))
        .order_by("-last_message_at", "-conversation_id")[offset : offset + per_page + 1]
    )
    has_next = len(rows) > per_page
    rows = rows[:per_page]
    if not rows:
        return [], has_next
    conversation_ids = [row.conversation_id for row in rows]
    others = {
        other.conversation_id: other
        for other in ConversationParticipant.objects.filter(conversation_id__in=conversation_ids)
        .exclude(user=user)
        .select_related("researcher")
        .only("conversation_id", "user_id", "researcher__slug", "researcher__display_name")
    }
    messages = {
        message.pk: message
        for message in Message.objects.filter(
            pk__in=[row.last_message_id for row in rows if row.last_message_id]
        )
    }
    other_user_ids = [other.user_id for other in others.values() if other.user_id is not None]
    blocked: set[int] = set()
    for blocker_id, blocked_id in Block.objects.filter(
        Q(blocker=user, blocked_id__in=other_user_ids)
        | Q(blocked=user, blocker_id__in=other_user_ids)
    ).values_list("blocker_id", "blocked_id"):
        blocked.add(blocked_id if blocker_id == user.pk else blocker_id)
    summaries = []
    for row in rows:
        other = others.get(row.conversation_id)
        other_user_id = other.user_id if other is not None else None
        record = other.researcher if other is not None else None
        gone = other_user_id is None or record is None
        summaries.append(
            ConversationSummary(
                id=row.conversation_id,
                other_name=DELETED_NAME if record is None or gone else record.display_name,
                other_slug=None if record is None or gone else record.slug,
                last_message_at=row.last_message_at,
                last_message_preview=_preview(messages.get(row.last_message_id)),
                unread_count=row.unread_count,
                muted=row.muted,
                other_unavailable=gone or other_user_id in blocked,
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


def unread_badge_count(user: User) -> int:
    """Unread messages in the user's conversations they have not muted, plus the pending
    invitations they received: one query, both parts read through partial indexes."""
    participant = ConversationParticipant._meta.db_table
    invitation = Invitation._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT
              COALESCE((SELECT SUM(unread_count) FROM {participant}
                        WHERE user_id = %(user)s AND unread_count > 0 AND NOT muted), 0)
            + (SELECT COUNT(*) FROM {invitation}
               WHERE recipient_id = %(user)s AND status = %(pending)s AND expires_at > %(now)s)
            """,  # noqa: S608 - table names from the models, values as parameters
            {"user": user.pk, "pending": InvitationStatus.PENDING, "now": timezone.now()},
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0
