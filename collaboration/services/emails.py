""" "You have unread messages" emails: never one per message.

A participant is emailed about a conversation only when a message has stayed unread for 10
minutes, at most once an hour and only if a message arrived since the last email, never while
they muted it or either side blocked the other, and only if their delivery for MESSAGES is
"immediately". The per-minute sweep claims each due row with one conditional UPDATE, so two
overlapping sweeps never email twice; each email is sent after the claim commits.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from functools import partial

from django.db import connection, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from bzpeer.users.models import User
from collaboration.models import Block, ConversationParticipant, Message
from collaboration.selectors.access import blocked_between
from notifications.kinds import Delivery, NotificationCategory
from notifications.selectors import delivery_for
from notifications.services import optional_email_send
from notifications.services.emails import absolute_url

from .notify import conversation_path

logger = logging.getLogger(__name__)

UNREAD_FOR = datetime.timedelta(minutes=10)
AT_MOST_EVERY = datetime.timedelta(hours=1)
DELETED_NAME = "Deleted researcher"

_PARTICIPANT = ConversationParticipant._meta.db_table
_MESSAGE = Message._meta.db_table
_BLOCK = Block._meta.db_table

# The rule, once, for both the candidate SELECT and the claiming UPDATE (which repeats it so
# that a row another sweep claimed in between no longer matches).
_DUE = f"""
    p.user_id IS NOT NULL
    AND NOT p.muted
    AND p.unread_count > 0
    AND p.unread_since <= %(unread_before)s
    AND (
        p.last_emailed_at IS NULL
        OR (
            p.last_emailed_at <= %(emailed_before)s
            AND EXISTS (
                SELECT 1 FROM {_MESSAGE} m
                WHERE m.conversation_id = p.conversation_id
                  AND m.author_id IS DISTINCT FROM p.user_id
                  AND m.created_at > p.last_emailed_at
            )
        )
    )
    AND NOT EXISTS (
        SELECT 1 FROM {_PARTICIPANT} o
        JOIN {_BLOCK} b
          ON (b.blocker_id = p.user_id AND b.blocked_id = o.user_id)
          OR (b.blocker_id = o.user_id AND b.blocked_id = p.user_id)
        WHERE o.conversation_id = p.conversation_id AND o.id <> p.id
    )
"""


def message_emails_send_due(
    *,
    now: datetime.datetime | None = None,
    send: Callable[[int], object] | None = None,
) -> int:
    """Claim the participants whose message email is due and send each one's email after the
    claim commits: `send(participant_id)` (the beat task passes its send task's .delay; by
    default the email is sent in-process). How many were claimed."""
    now = now or timezone.now()
    params = {"unread_before": now - UNREAD_FOR, "emailed_before": now - AT_MOST_EVERY}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT p.id, p.user_id FROM {_PARTICIPANT} p WHERE {_DUE}", params)
        candidates = cursor.fetchall()
    # The user's delivery choice lives in notifications; rows of users who chose a digest or
    # off are left unclaimed (a later change of mind makes them due again).
    deliveries: dict[int, bool] = {}
    wanted = []
    for participant_id, user_id in candidates:
        if user_id not in deliveries:
            deliveries[user_id] = _wants_immediately(user_id)
        if deliveries[user_id]:
            wanted.append(participant_id)
    if not wanted:
        return 0
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {_PARTICIPANT} p SET last_emailed_at = %(now)s "
                f"WHERE p.id = ANY(%(ids)s) AND {_DUE} RETURNING p.id",
                {**params, "now": now, "ids": wanted},
            )
            claimed = [row[0] for row in cursor.fetchall()]
        deliver: Callable[[int], object] = send or _send_now
        for participant_id in claimed:
            transaction.on_commit(partial(deliver, participant_id))
    logger.info("message emails due: %s claimed of %s candidates", len(claimed), len(candidates))
    return len(claimed)


def _send_now(participant_id: int) -> bool:
    return message_email_send(participant_id=participant_id)


def _wants_immediately(user_id: int) -> bool:
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return False
    return delivery_for(user=user, category=NotificationCategory.MESSAGES) == Delivery.IMMEDIATELY


def message_email_send(*, participant_id: int) -> bool:
    """Send one claimed participant their unread-messages email (from a task); whether it was
    sent. Quietly nothing when they have read everything, muted it, or a block came between."""
    participant = (
        ConversationParticipant.objects.select_related("user").filter(pk=participant_id).first()
    )
    user = participant.user if participant is not None else None
    if participant is None or user is None:
        return False
    if participant.muted or participant.unread_count == 0:
        return False
    other = (
        ConversationParticipant.objects.select_related("researcher", "user")
        .filter(conversation_id=participant.conversation_id)
        .exclude(pk=participant.pk)
        .first()
    )
    if other is not None and blocked_between(participant.user_id, other.user_id):
        return False
    record = other.researcher if other is not None and other.user_id is not None else None
    other_name = record.display_name if record is not None else DELETED_NAME
    context = {
        "user": user,
        "other_name": other_name,
        "unread_count": participant.unread_count,
        "conversation_url": absolute_url(conversation_path(participant.conversation_id)),
    }
    return optional_email_send(
        user=user,
        category=NotificationCategory.MESSAGES,
        subject=render_to_string("collaboration/email/unread_messages_subject.txt", context),
        text_body=render_to_string("collaboration/email/unread_messages.txt", context),
        html_body=render_to_string("collaboration/email/unread_messages.html", context),
    )
