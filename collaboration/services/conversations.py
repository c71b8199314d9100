"""Messages in a conversation an accepted invitation opened: sending, deleting one's own,
marking read, muting.

The unread bookkeeping is done by the database in set-based UPDATEs (never read, add one,
write back), so two messages sent at once both count.
"""

from __future__ import annotations

import logging

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.http import Http404
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.errors import Forbidden
from bzpeer.users.models import User
from collaboration.models import (
    Block,
    CollaborationSettings,
    Conversation,
    ConversationParticipant,
    InvitationStatus,
    Message,
)
from collaboration.selectors.access import (
    SUSPENDED,
    UNAVAILABLE,
)

from .badge import inbox_badge_forget
from .text import message_body_clean

logger = logging.getLogger(__name__)


@retry_on_lock_conflict
@transaction.atomic
def message_send(*, author: User, conversation_id: int, body: str) -> Message:
    """Add a plain-text message (1 to 10,000 characters once stripped) and count it unread
    for the other side. Refused when either side blocked the other, the other side's account
    is gone, or a moderator suspended the author's messaging (403)."""
    # Both sides, whether the author is suspended and whether a block stands between them, in
    # one round trip: sending is the write people wait on.
    sides = list(
        ConversationParticipant.objects.filter(
            conversation_id=conversation_id,
            conversation__invitation__status=InvitationStatus.ACCEPTED,
        )
        .only("id", "user_id")
        .annotate(
            author_suspended=Exists(
                CollaborationSettings.objects.filter(
                    user_id=author.pk, messaging_suspended_at__isnull=False
                )
            ),
            blocked_with_author=Exists(
                Block.objects.filter(
                    Q(blocker_id=author.pk, blocked_id=OuterRef("user_id"))
                    | Q(blocker_id=OuterRef("user_id"), blocked_id=author.pk)
                )
            ),
        )
    )
    mine = next((side for side in sides if side.user_id == author.pk), None)
    if mine is None:
        raise Http404("No such conversation.")
    other = next((side for side in sides if side.pk != mine.pk), None)
    body = message_body_clean(body)
    if mine.author_suspended:
        raise Forbidden(SUSPENDED)
    if other is None or other.user_id is None or other.blocked_with_author:
        raise Forbidden(UNAVAILABLE)
    now = timezone.now()
    # One statement, one round trip: the message, the conversation's last activity, and both
    # sides' bookkeeping (each gets the new last activity; the other side one more unread
    # message and, if it had read everything, the time its unread stretch began). Every
    # data-modifying part of a WITH runs exactly once; the counts are added by the database,
    # so two messages sent at once both count.
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH new_message AS (
                INSERT INTO {Message._meta.db_table} (conversation_id, author_id, body, created_at)
                VALUES (%(conversation)s, %(author)s, %(body)s, %(now)s)
                RETURNING id
            ), conversation AS (
                UPDATE {Conversation._meta.db_table} SET last_message_at = %(now)s
                WHERE id = %(conversation)s
            ), sides AS (
                UPDATE {ConversationParticipant._meta.db_table}
                SET last_message_at = %(now)s,
                    unread_count = unread_count + CASE WHEN id = %(other)s THEN 1 ELSE 0 END,
                    unread_since = CASE WHEN id = %(other)s THEN COALESCE(unread_since, %(now)s)
                                        ELSE unread_since END
                WHERE conversation_id = %(conversation)s
            )
            SELECT id FROM new_message
            """,  # noqa: S608 - table names from the models, values as parameters
            {
                "conversation": conversation_id,
                "author": author.pk,
                "body": body,
                "now": now,
                "other": other.pk,
            },
        )
        (message_id,) = cursor.fetchone()
    message = Message(
        pk=message_id, conversation_id=conversation_id, author=author, body=body, created_at=now
    )
    message._state.adding = False
    message._state.db = connection.alias
    inbox_badge_forget([other.user_id])
    logger.info("message %s sent in conversation %s", message.pk, conversation_id)
    return message


@transaction.atomic
def message_delete(*, user: User, message_id: int) -> Message:
    """The author deletes their message: the body is erased, it shows as deleted. A message
    in a conversation the user is not part of is a 404; someone else's is a 403."""
    message = (
        Message.objects.select_for_update(of=("self",))
        .filter(pk=message_id, conversation__participants__user=user)
        .first()
    )
    if message is None:
        raise Http404("No such message.")
    if message.author_id != user.pk:
        raise Forbidden("You can delete only your own messages.")
    if message.deleted_at is None:
        message.body = ""
        message.deleted_at = timezone.now()
        message.save(update_fields=["body", "deleted_at"])
    return message


def conversation_mark_read(*, user: User, conversation_id: int) -> None:
    """Everything in the conversation is read by `user` (404 if not a participant)."""
    marked = ConversationParticipant.objects.filter(
        conversation_id=conversation_id, user=user
    ).update(unread_count=0, unread_since=None, last_read_at=timezone.now())
    if not marked:
        raise Http404("No such conversation.")
    inbox_badge_forget([user.pk])


def conversation_mute(*, user: User, conversation_id: int, muted: bool) -> None:
    """Mute (no message emails, not in the badge) or unmute the user's side."""
    changed = ConversationParticipant.objects.filter(
        conversation_id=conversation_id, user=user
    ).update(muted=muted)
    if not changed:
        raise Http404("No such conversation.")
    inbox_badge_forget([user.pk])
