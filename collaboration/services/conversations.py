"""Messages in a conversation an accepted invitation opened: sending, deleting one's own,
marking read, muting.

The unread bookkeeping is done by the database in set-based UPDATEs (never read, add one,
write back), so two messages sent at once both count.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import (
    Case,
    DateTimeField,
    Exists,
    F,
    OuterRef,
    PositiveIntegerField,
    Q,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone

from bzpeer.errors import Forbidden, InvalidRequest
from bzpeer.users.models import User
from collaboration.models import (
    MESSAGE_MAX_LENGTH,
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

logger = logging.getLogger(__name__)


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
    body = body.strip()
    if not body:
        raise InvalidRequest("Write a message first.")
    if len(body) > MESSAGE_MAX_LENGTH:
        raise InvalidRequest(
            f"A message can be at most {MESSAGE_MAX_LENGTH:,} characters (this one has "
            f"{len(body):,})."
        )
    if mine.author_suspended:  # type: ignore[attr-defined]
        raise Forbidden(SUSPENDED)
    if other is None or other.user_id is None or other.blocked_with_author:  # type: ignore[attr-defined]
        raise Forbidden(UNAVAILABLE)
    now = timezone.now()
    message = Message.objects.create(
        conversation_id=conversation_id, author=author, body=body, created_at=now
    )
    Conversation.objects.filter(pk=conversation_id).update(last_message_at=now)
    # One statement for both sides: each gets the new last activity, the other side one more
    # unread message (and, if it had read everything, the time its unread stretch began).
    ConversationParticipant.objects.filter(conversation_id=conversation_id).update(
        last_message_at=now,
        unread_count=Case(
            When(pk=other.pk, then=F("unread_count") + 1),
            default=F("unread_count"),
            output_field=PositiveIntegerField(),
        ),
        unread_since=Case(
            When(pk=other.pk, then=Coalesce(F("unread_since"), Value(now))),
            default=F("unread_since"),
            output_field=DateTimeField(),
        ),
    )
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


def conversation_mute(*, user: User, conversation_id: int, muted: bool) -> None:
    """Mute (no message emails, not in the badge) or unmute the user's side."""
    changed = ConversationParticipant.objects.filter(
        conversation_id=conversation_id, user=user
    ).update(muted=muted)
    if not changed:
        raise Http404("No such conversation.")
