""" "You have unread messages" emails: never one per message.

A participant is emailed about a conversation only when a message has stayed unread for 10
minutes, at most once an hour and only if a message arrived since the last email, never while
they muted it or either side blocked the other, and only if their delivery for MESSAGES is
"immediately". The per-minute sweep claims each due row with one conditional UPDATE of
email_queued_at, so two overlapping sweeps never email twice, and queues each email after the
claim commits. The email is owed until it is sent: its task takes the claim (a second
conditional UPDATE, which sets last_emailed_at) just before sending, so a task delivered twice
sends once, and a claim whose task message was lost (the broker down or emptied) is still
there EMAIL_REQUEUE_AFTER later, when the sweep claims and queues it again.
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
# A claimed email whose task has not taken it this long after the claim lost its message; the
# task takes seconds on a healthy queue (and its SMTP retries about a minute).
EMAIL_REQUEUE_AFTER = datetime.timedelta(minutes=5)
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
    AND (p.email_queued_at IS NULL OR p.email_queued_at <= %(requeue_before)s)
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
    """Claim the participants whose message email is due, or whose claimed email was never
    taken by its task, and send each one's email after the claim commits:
    `send(participant_id)` (the beat task passes its send task's .delay; by default the email
    is sent in-process). How many were claimed."""
    now = now or timezone.now()
    params = {
        "unread_before": now - UNREAD_FOR,
        "emailed_before": now - AT_MOST_EVERY,
        "requeue_before": now - EMAIL_REQUEUE_AFTER,
    }
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
                f"UPDATE {_PARTICIPANT} p SET email_queued_at = %(now)s "
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
    sent. Quietly nothing when no email is claimed (another delivery of the task sent it), and
    the claim is dropped when they have read everything, muted it, or a block came between.

    Sent at most once: a conditional UPDATE takes the claim (email_queued_at, the time the
    email came due, becomes last_emailed_at) before sending, so a task delivered twice finds it
    taken; if sending fails the claim is put back and the task retries. A worker killed between
    the two loses that one email; the messages still wait in the inbox.
    """
    participant = (
        ConversationParticipant.objects.select_related("user").filter(pk=participant_id).first()
    )
    if participant is None or participant.email_queued_at is None:
        return False
    queued_at = participant.email_queued_at
    claim = ConversationParticipant.objects.filter(pk=participant_id, email_queued_at=queued_at)
    user = participant.user
    if user is None or participant.muted or participant.unread_count == 0:
        claim.update(email_queued_at=None)
        return False
    other = (
        ConversationParticipant.objects.select_related("researcher", "user")
        .filter(conversation_id=participant.conversation_id)
        .exclude(pk=participant.pk)
        .first()
    )
    if other is not None and blocked_between(participant.user_id, other.user_id):
        claim.update(email_queued_at=None)
        return False
    if not claim.update(email_queued_at=None, last_emailed_at=queued_at):
        return False
    record = other.researcher if other is not None and other.user_id is not None else None
    other_name = record.display_name if record is not None else DELETED_NAME
    context = {
        "user": user,
        "other_name": other_name,
        "unread_count": participant.unread_count,
        "conversation_url": absolute_url(conversation_path(participant.conversation_id)),
    }
    try:
        sent = optional_email_send(
            user=user,
            category=NotificationCategory.MESSAGES,
            subject=render_to_string("collaboration/email/unread_messages_subject.txt", context),
            text_body=render_to_string("collaboration/email/unread_messages.txt", context),
            html_body=render_to_string("collaboration/email/unread_messages.html", context),
        )
    except Exception:
        ConversationParticipant.objects.filter(
            pk=participant_id, email_queued_at__isnull=True, last_emailed_at=queued_at
        ).update(email_queued_at=queued_at, last_emailed_at=participant.last_emailed_at)
        raise
    logger.info("unread-messages email of participant %s: sent %s", participant_id, sent)
    return sent
