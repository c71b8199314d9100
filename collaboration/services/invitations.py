"""Invitations: sending one (who may, the purpose, anchors, one pending per pair, the quota),
and the answers to it (accept opens the conversation, decline, withdraw, expiry)."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.errors import Conflict, Forbidden, InvalidRequest
from bzpeer.users.models import User
from collaboration.models import (
    Conversation,
    ConversationParticipant,
    Invitation,
    InvitationKind,
    InvitationStatus,
)
from collaboration.selectors.access import (
    INVITATION_LIFETIME,
    SUSPENDED,
    UNAVAILABLE,
    blocked_between,
    invite_refusal,
    messaging_suspended,
    pending_between,
    verified_record_of,
)
from publications.models import Authorship, WorkTopic
from researchers.models import Researcher

from .badge import inbox_badge_forget
from .notify import invitation_answered_notify, invitation_received_notify
from .quotas import invitation_quota_check, settings_lock
from .text import purpose_clean

logger = logging.getLogger(__name__)


def _anchors_check(
    *, record_ids: tuple[int, int], work_ids: Sequence[int], topic_ids: Sequence[int]
) -> tuple[list[int], list[int]]:
    """The anchor ids, each a work or a topic of one of the two records (else 400)."""
    works = sorted(set(work_ids))
    topics = sorted(set(topic_ids))
    if len(works) > 20 or len(topics) > 20:
        raise InvalidRequest("Anchor the invitation to at most 20 works and 20 topics.")
    if works:
        found = set(
            Authorship.objects.filter(work_id__in=works, researcher_id__in=record_ids)
            .values_list("work_id", flat=True)
            .distinct()
        )
        if found != set(works):
            raise InvalidRequest("Choose works by you or by the person you invite.")
    if topics:
        found = set(
            WorkTopic.objects.filter(
                topic_id__in=topics,
                work__authorships__researcher_id__in=record_ids,
            )
            .values_list("topic_id", flat=True)
            .distinct()
        )
        if found != set(topics):
            raise InvalidRequest("Choose topics of your works or of the person you invite.")
    return works, topics


def _pair(user_id: int, other_id: int) -> Q:
    return Q(sender_id=user_id, recipient_id=other_id) | Q(sender_id=other_id, recipient_id=user_id)


@retry_on_lock_conflict
@transaction.atomic
def invitation_send(
    *,
    sender: User,
    recipient_researcher: Researcher,
    kind: str,
    purpose: str,
    work_ids: Sequence[int] = (),
    topic_ids: Sequence[int] = (),
) -> Invitation:
    """Invite the claimant of `recipient_researcher` to collaborate.

    Refused when the sender holds no approved L3/L4 record (403), the record is unclaimed or
    the sender's own (400), either side blocked the other, the recipient does not accept
    invitations from the sender, or the sender declined less than 90 days ago (403), the
    purpose or anchors are invalid (400), a pending invitation already joins the two (409),
    or the sender has used their quota of the last 24 hours (429).
    """
    now = timezone.now()
    sender_record = verified_record_of(sender)
    refusal = invite_refusal(
        sender=sender, sender_record=sender_record, recipient_researcher=recipient_researcher
    )
    if refusal is not None:
        raise refusal
    assert sender_record is not None and recipient_researcher.claimed_by_id is not None
    if kind not in InvitationKind.values:
        raise InvalidRequest("Choose what kind of collaboration you propose.")
    purpose = purpose_clean(purpose)
    works, topics = _anchors_check(
        record_ids=(sender_record.pk, recipient_researcher.pk),
        work_ids=work_ids,
        topic_ids=topic_ids,
    )
    recipient_id = recipient_researcher.claimed_by_id
    name = recipient_researcher.display_name
    # Serialises this sender's sends: the quota below counts committed rows only.
    settings_lock(sender)
    invitation_quota_check(sender=sender, sender_record=sender_record, now=now)
    # A pending invitation past its 30 days is expired everywhere; mark it now, or the
    # one-pending-per-pair constraint would refuse the new one until the hourly task runs.
    Invitation.objects.filter(
        _pair(sender.pk, recipient_id), status=InvitationStatus.PENDING, expires_at__lte=now
    ).update(status=InvitationStatus.EXPIRED)
    existing = pending_between(sender.pk, recipient_id, now=now)
    if existing is not None:
        raise _pending_conflict(name=name, outgoing=existing.sender_id == sender.pk)
    try:
        # A savepoint: the constraint decides between two people inviting each other at once.
        with transaction.atomic():
            invitation = Invitation.objects.create(
                sender=sender,
                recipient_id=recipient_id,
                sender_researcher=sender_record,
                recipient_researcher=recipient_researcher,
                kind=kind,
                purpose=purpose,
                created_at=now,
                expires_at=now + INVITATION_LIFETIME,
            )
    except IntegrityError as error:
        if "invitation_one_pending_per_pair" not in str(error):
            raise
        raise _pending_conflict(name=name, outgoing=True) from error
    if works:
        invitation.anchor_works.set(works)
    if topics:
        invitation.anchor_topics.set(topics)
    recipient = User.objects.get(pk=recipient_id)
    inbox_badge_forget([recipient_id])
    invitation_received_notify(invitation, recipient=recipient)
    logger.info("invitation %s sent by user %s to user %s", invitation.pk, sender.pk, recipient_id)
    return invitation


def _pending_conflict(*, name: str, outgoing: bool) -> Conflict:
    if outgoing:
        return Conflict(f"You already have a pending invitation with {name}.")
    return Conflict(
        f"You already have a pending invitation with {name}: they invited you; answer it in "
        "your inbox."
    )


def _invitation_lock(*, user: User, invitation_id: int) -> Invitation:
    """The invitation, row locked, if `user` sent or received it; anyone else gets a 404."""
    invitation = (
        Invitation.objects.select_for_update(of=("self",))
        .select_related("sender_researcher", "recipient_researcher")
        .filter(Q(sender=user) | Q(recipient=user), pk=invitation_id)
        .first()
    )
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation


def _require_pending(invitation: Invitation, *, now: datetime.datetime) -> None:
    status = invitation.status
    if status == InvitationStatus.PENDING and invitation.expires_at <= now:
        status = InvitationStatus.EXPIRED
    if status != InvitationStatus.PENDING:
        raise Conflict(f"This invitation is {InvitationStatus(status).label.lower()}.")


@retry_on_lock_conflict
@transaction.atomic
def invitation_accept(*, user: User, invitation_id: int) -> Conversation:
    """The recipient accepts: the conversation opens, one participant row per side, linked to
    the invitation, all in this transaction."""
    now = timezone.now()
    invitation = _invitation_lock(user=user, invitation_id=invitation_id)
    if invitation.recipient_id != user.pk:
        raise Forbidden("Only the person invited can accept an invitation.")
    _require_pending(invitation, now=now)
    if messaging_suspended(user.pk):
        raise Forbidden(SUSPENDED)
    if invitation.sender_id is None or blocked_between(user.pk, invitation.sender_id):
        raise Forbidden(UNAVAILABLE)
    # The last activity orders the inbox: the acceptance, then each message.
    conversation = Conversation.objects.create(created_at=now, last_message_at=now)
    ConversationParticipant.objects.bulk_create(
        [
            ConversationParticipant(
                conversation=conversation,
                user_id=invitation.sender_id,
                researcher_id=invitation.sender_researcher_id,
                last_message_at=now,
            ),
            ConversationParticipant(
                conversation=conversation,
                user=user,
                researcher_id=invitation.recipient_researcher_id,
                last_message_at=now,
            ),
        ]
    )
    invitation.status = InvitationStatus.ACCEPTED
    invitation.responded_at = now
    invitation.conversation = conversation
    invitation.save(update_fields=["status", "responded_at", "conversation"])
    inbox_badge_forget([invitation.recipient_id])
    invitation_answered_notify(invitation, sender=User.objects.get(pk=invitation.sender_id))
    logger.info("invitation %s accepted: conversation %s", invitation.pk, conversation.pk)
    return conversation


@retry_on_lock_conflict
@transaction.atomic
def invitation_decline(*, user: User, invitation_id: int) -> Invitation:
    """The recipient declines; the sender may not invite them again for 90 days."""
    now = timezone.now()
    invitation = _invitation_lock(user=user, invitation_id=invitation_id)
    if invitation.recipient_id != user.pk:
        raise Forbidden("Only the person invited can decline an invitation.")
    _require_pending(invitation, now=now)
    invitation.status = InvitationStatus.DECLINED
    invitation.responded_at = now
    invitation.save(update_fields=["status", "responded_at"])
    inbox_badge_forget([invitation.recipient_id])
    if invitation.sender_id is not None and not blocked_between(user.pk, invitation.sender_id):
        invitation_answered_notify(invitation, sender=User.objects.get(pk=invitation.sender_id))
    return invitation


@retry_on_lock_conflict
@transaction.atomic
def invitation_withdraw(*, user: User, invitation_id: int) -> Invitation:
    """The sender withdraws a pending invitation (it stays counted in their quota)."""
    now = timezone.now()
    invitation = _invitation_lock(user=user, invitation_id=invitation_id)
    if invitation.sender_id != user.pk:
        raise Forbidden("Only the person who sent an invitation can withdraw it.")
    _require_pending(invitation, now=now)
    invitation.status = InvitationStatus.WITHDRAWN
    invitation.responded_at = now
    invitation.save(update_fields=["status", "responded_at"])
    inbox_badge_forget([invitation.recipient_id])
    return invitation


def invitations_expire(*, now: datetime.datetime | None = None) -> int:
    """Mark pending invitations past their 30 days expired (hourly); how many were."""
    now = now or timezone.now()
    return Invitation.objects.filter(status=InvitationStatus.PENDING, expires_at__lte=now).update(
        status=InvitationStatus.EXPIRED
    )
