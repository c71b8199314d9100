"""Who may do what in collaboration: the reads every rule starts from.

The invitation rule lives here once (`invite_refusal`) so that the profile panel says exactly
what the service would answer. A refusal caused by a block reads the same as any other
unavailability: the blocked side must not learn that it is blocked.
"""

from __future__ import annotations

import datetime

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.utils import timezone

from bzpeer.errors import Forbidden, InvalidRequest, ServiceError
from bzpeer.users.models import User
from claims.models import ClaimStatus
from collaboration.models import (
    Block,
    CollaborationSettings,
    Invitation,
    InvitationStatus,
    WhoMayInvite,
)
from graph.models import CoauthorEdge
from researchers.models import Researcher, VerificationLevel

UNAVAILABLE = "This researcher is unavailable."
CLAIM_FIRST = "Claim this author entity first to unlock direct invitations."
SUSPENDED = "A moderator has suspended your messaging."
DECLINE_COOL_DOWN = datetime.timedelta(days=90)
INVITATION_LIFETIME = datetime.timedelta(days=30)


def verified_record_of(user: User | AnonymousUser) -> Researcher | None:
    """The record `user` holds an approved claim on, at L3 or L4 (None for anyone else)."""
    if not user.is_authenticated:
        return None
    return (
        Researcher.objects.filter(
            claimed_by=user,
            verification_level__gte=VerificationLevel.CORROBORATED,
            merged_into__isnull=True,
            claims__user=user,
            claims__status=ClaimStatus.APPROVED,
        )
        .only("id", "slug", "display_name", "verification_level", "claimed_by")
        .first()
    )


def blocked_between(user_id: int | None, other_id: int | None) -> bool:
    """Whether either of the two users blocked the other."""
    if user_id is None or other_id is None:
        return False
    return Block.objects.filter(
        Q(blocker_id=user_id, blocked_id=other_id) | Q(blocker_id=other_id, blocked_id=user_id)
    ).exists()


def messaging_suspended(user_id: int | None) -> bool:
    if user_id is None:
        return False
    return CollaborationSettings.objects.filter(
        user_id=user_id, messaging_suspended_at__isnull=False
    ).exists()


def are_coauthors(researcher_id: int, other_id: int) -> bool:
    """Whether the graph has a coauthor edge between the two records (stored low id first)."""
    low, high = sorted((researcher_id, other_id))
    return CoauthorEdge.objects.filter(researcher_a_id=low, researcher_b_id=high).exists()


def pending_between(user_id: int, other_id: int, *, now: datetime.datetime) -> Invitation | None:
    """The pending, unexpired invitation between the two, whichever of them sent it."""
    return (
        Invitation.objects.filter(
            Q(sender_id=user_id, recipient_id=other_id)
            | Q(sender_id=other_id, recipient_id=user_id),
            status=InvitationStatus.PENDING,
            expires_at__gt=now,
        )
        .only("id", "sender_id", "recipient_id")
        .first()
    )


def invite_refusal(
    *,
    sender: User | AnonymousUser,
    sender_record: Researcher | None,
    recipient_researcher: Researcher,
    now: datetime.datetime | None = None,
) -> ServiceError | None:
    """Why `sender` may not invite the claimant of `recipient_researcher`, as the refusal the
    service raises (None when they may). Pending invitations and the quota are not checked
    here: they depend on rows the service locks."""
    now = now or timezone.now()
    name = recipient_researcher.display_name
    if not sender.is_authenticated or sender_record is None:
        return Forbidden(CLAIM_FIRST)
    recipient_id = recipient_researcher.claimed_by_id
    if recipient_researcher.merged_into_id or recipient_id is None:
        return InvalidRequest(
            f"{name} has not claimed this profile, so they cannot receive invitations yet."
        )
    if recipient_id == sender.pk:
        return InvalidRequest("You cannot invite yourself.")
    if messaging_suspended(sender.pk):
        return Forbidden(SUSPENDED)
    if blocked_between(sender.pk, recipient_id):
        return Forbidden(UNAVAILABLE)
    recipient_settings = CollaborationSettings.objects.filter(user_id=recipient_id).first()
    if recipient_settings is not None:
        if recipient_settings.messaging_suspended_at is not None:
            return Forbidden(UNAVAILABLE)
        if recipient_settings.who_may_invite == WhoMayInvite.NOBODY:
            return Forbidden(f"{name} does not accept invitations.")
        if recipient_settings.who_may_invite == WhoMayInvite.COAUTHORS and not are_coauthors(
            sender_record.pk, recipient_researcher.pk
        ):
            return Forbidden(f"{name} accepts invitations from coauthors only.")
    declined_at = (
        Invitation.objects.filter(
            sender_id=sender.pk,
            recipient_id=recipient_id,
            status=InvitationStatus.DECLINED,
            responded_at__gt=now - DECLINE_COOL_DOWN,
        )
        .order_by("-responded_at")
        .values_list("responded_at", flat=True)
        .first()
    )
    if declined_at is not None:
        again = (declined_at + DECLINE_COOL_DOWN).date().isoformat()
        return Forbidden(
            f"{name} declined your last invitation; you can invite them again from {again}."
        )
    return None
