"""One conversation as its participant sees it: the last messages, oldest first, and whether
they can still write. Two queries whatever the number of messages."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import connection
from django.http import Http404

from bzpeer.users.models import User
from collaboration.models import (
    Block,
    CollaborationSettings,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
    Message,
)
from researchers.models import Researcher

from .access import SUSPENDED, UNAVAILABLE
from .invitations import DELETED_NAME

MESSAGE_STATES = ("visible", "deleted", "hidden")


@dataclass
class MessageView:
    id: int
    author_is_viewer: bool
    author_name: str
    # '' when the message is deleted or hidden: the text never reaches the page.
    body: str
    state: str
    created_at: datetime.datetime


@dataclass
class ConversationThread:
    id: int
    other_name: str
    other_slug: str | None
    # The other side's account is deleted: nothing about them can be changed any more
    # (mute, block), so the page offers none of it.
    other_gone: bool
    other_unavailable: bool
    viewer_blocked_them: bool
    muted: bool
    unread_count: int
    can_send: bool
    reason: str
    has_earlier: bool
    messages: list[MessageView] = field(default_factory=list)


class _Side(NamedTuple):
    id: int
    user_id: int | None
    muted: bool
    unread_count: int
    slug: str | None
    name: str | None
    blocks_viewer: bool
    blocked_by_viewer: bool
    viewer_suspended: bool


def conversation_for(user: User, conversation_id: int, *, limit: int = 200) -> ConversationThread:
    """The conversation if `user` takes part in it (else a 404), with its last `limit`
    messages oldest first. Two queries whatever the number of messages: both sides with
    their records, the viewer's suspension and the blocks each side made against the other;
    then the messages, newest first through message_conversation_idx, as plain rows."""
    # Both sides with their records, and for each the blocks between it and the viewer and
    # the viewer's suspension: one statement (the ORM took longer to compile it than
    # PostgreSQL to answer). Only an accepted invitation's conversation can be opened.
    participant = ConversationParticipant._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT side.id, side.user_id, side.muted, side.unread_count,
                   record.slug, record.display_name,
                   EXISTS (SELECT 1 FROM {Block._meta.db_table}
                           WHERE blocker_id = side.user_id AND blocked_id = %(viewer)s),
                   EXISTS (SELECT 1 FROM {Block._meta.db_table}
                           WHERE blocker_id = %(viewer)s AND blocked_id = side.user_id),
                   EXISTS (SELECT 1 FROM {CollaborationSettings._meta.db_table}
                           WHERE user_id = %(viewer)s AND messaging_suspended_at IS NOT NULL)
            FROM {participant} side
            JOIN {Invitation._meta.db_table} invitation
              ON invitation.conversation_id = side.conversation_id
             AND invitation.status = %(accepted)s
            LEFT JOIN {Researcher._meta.db_table} record ON record.id = side.researcher_id
            WHERE side.conversation_id = %(conversation)s
            """,  # noqa: S608 - table names from the models, values as parameters
            {
                "viewer": user.pk,
                "conversation": conversation_id,
                "accepted": InvitationStatus.ACCEPTED,
            },
        )
        sides = [_Side(*row) for row in cursor.fetchall()]
    mine = next((side for side in sides if user.pk is not None and side.user_id == user.pk), None)
    if mine is None:
        raise Http404("No such conversation.")
    other = next((side for side in sides if side.id != mine.id), None)
    other_user_id = other.user_id if other is not None else None
    gone = other is None or other_user_id is None or other.name is None
    other_name = DELETED_NAME if gone or other is None or other.name is None else other.name
    newest = list(
        Message.objects.filter(conversation_id=conversation_id)
        .order_by("-id")
        .values_list("id", "author_id", "body", "created_at", "deleted_at", "hidden_at")[
            : limit + 1
        ]
    )
    has_earlier = len(newest) > limit
    viewer_name = mine.name or "You"
    messages = [
        _message_view(
            row,
            viewer_id=user.pk,
            viewer_name=viewer_name,
            other_user_id=other_user_id,
            other_name=other_name,
        )
        for row in reversed(newest[:limit])
    ]
    viewer_blocked_them = bool(other is not None and other.blocked_by_viewer)
    blocked_by_other = bool(other is not None and other.blocks_viewer)
    suspended = mine.viewer_suspended
    unavailable = gone or viewer_blocked_them or blocked_by_other
    reason = SUSPENDED if suspended else UNAVAILABLE if unavailable else ""
    return ConversationThread(
        id=conversation_id,
        other_name=other_name,
        other_slug=None if gone or other is None else other.slug,
        other_gone=gone,
        other_unavailable=unavailable,
        viewer_blocked_them=viewer_blocked_them,
        muted=mine.muted,
        unread_count=mine.unread_count,
        can_send=not reason,
        reason=reason,
        has_earlier=has_earlier,
        messages=messages,
    )


MessageRow = tuple[
    int, int | None, str, datetime.datetime, datetime.datetime | None, datetime.datetime | None
]


def _message_view(
    row: MessageRow,
    *,
    viewer_id: int | None,
    viewer_name: str,
    other_user_id: int | None,
    other_name: str,
) -> MessageView:
    message_id, author_id, body, created_at, deleted_at, hidden_at = row
    if hidden_at is not None:
        state, body = "hidden", ""
    elif deleted_at is not None:
        state, body = "deleted", ""
    else:
        state = "visible"
    author_is_viewer = author_id is not None and author_id == viewer_id
    if author_is_viewer:
        author_name = viewer_name
    elif author_id is None or author_id != other_user_id:
        author_name = DELETED_NAME
    else:
        author_name = other_name
    return MessageView(
        id=message_id,
        author_is_viewer=author_is_viewer,
        author_name=author_name,
        body=body,
        state=state,
        created_at=created_at,
    )


def message_for(user: User, message_id: int) -> Message:
    """A message of a conversation `user` takes part in; any other is a 404."""
    message = Message.objects.filter(pk=message_id, conversation__participants__user=user).first()
    if message is None:
        raise Http404("No such message.")
    return message
