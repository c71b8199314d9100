"""Who may do what in collaboration: the reads every rule starts from.

The invitation rule lives here once (`invite_refusals`, set-based, and `invite_refusal`, the
same for one recipient) so that the profile panel and the suggestions say exactly what the
service would answer. A refusal caused by a block reads the same as any other
unavailability: the blocked side must not learn that it is blocked.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db.models import Max, Q
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
    here: they depend on rows the service locks. The rule for one: `invite_refusals`."""
    return invite_refusals(
        sender=sender, sender_record=sender_record, recipients=[recipient_researcher], now=now
    )[recipient_researcher.pk]


@dataclass(frozen=True)
class _RecipientFacts:
    """What the rule reads about the recipients, set-based: keyed by the recipient's user id
    except `coauthor_record_ids` (records)."""

    recipient_settings: dict[int, CollaborationSettings]
    blocked_user_ids: set[int]
    coauthor_record_ids: set[int]
    declined_at: dict[int, datetime.datetime]


def _recipient_facts(
    *,
    sender_id: int,
    sender_record_id: int,
    recipients: Sequence[Researcher],
    now: datetime.datetime,
) -> _RecipientFacts | None:
    """The rows the rule reads about `recipients`, in four queries whatever their number, or
    None (after one) when the sender's messaging is suspended: nothing else then matters."""
    user_ids = {r.claimed_by_id for r in recipients if r.claimed_by_id is not None}
    settings_of = {
        s.user_id: s
        for s in CollaborationSettings.objects.filter(user_id__in=[sender_id, *user_ids]).only(
            "user_id", "messaging_suspended_at", "who_may_invite"
        )
    }
    mine = settings_of.pop(sender_id, None)
    if mine is not None and mine.messaging_suspended_at is not None:
        return None
    blocked = set()
    for blocker_id, blocked_id in Block.objects.filter(
        Q(blocker_id=sender_id, blocked_id__in=user_ids)
        | Q(blocker_id__in=user_ids, blocked_id=sender_id)
    ).values_list("blocker_id", "blocked_id"):
        blocked.add(blocked_id if blocker_id == sender_id else blocker_id)
    record_ids = [r.pk for r in recipients]
    # Edges are stored low id first: the sender's record is on either side.
    coauthors = set()
    for a, b in CoauthorEdge.objects.filter(
        Q(researcher_a_id=sender_record_id, researcher_b_id__in=record_ids)
        | Q(researcher_a_id__in=record_ids, researcher_b_id=sender_record_id)
    ).values_list("researcher_a_id", "researcher_b_id"):
        coauthors.add(b if a == sender_record_id else a)
    declined_at = dict(
        Invitation.objects.filter(
            sender_id=sender_id,
            recipient_id__in=user_ids,
            status=InvitationStatus.DECLINED,
            responded_at__gt=now - DECLINE_COOL_DOWN,
        )
        .order_by()
        .values("recipient_id")
        .annotate(last=Max("responded_at"))
        .values_list("recipient_id", "last")
    )
    return _RecipientFacts(settings_of, blocked, coauthors, declined_at)


def invite_refusals(
    *,
    sender: User | AnonymousUser,
    sender_record: Researcher | None,
    recipients: Sequence[Researcher],
    now: datetime.datetime | None = None,
) -> dict[int, ServiceError | None]:
    """The invitation rule for many recipients at once: for each record in `recipients` (by
    its id), why `sender` may not invite its claimant, or None when they may (see
    `invite_refusal`). No query when the in-memory checks decide for all (a visitor, a sender
    without a record, unclaimed or own records); otherwise one when the sender is suspended,
    else four, whatever the number of recipients. The checks run in this order, so a block
    hides every reason that comes after it."""
    now = now or timezone.now()
    if not sender.is_authenticated or sender_record is None:
        return {r.pk: Forbidden(CLAIM_FIRST) for r in recipients}
    refusals: dict[int, ServiceError | None] = {}
    undecided = []
    for recipient in recipients:
        if recipient.merged_into_id or recipient.claimed_by_id is None:
            refusals[recipient.pk] = InvalidRequest(
                f"{recipient.display_name} has not claimed this profile, so they cannot "
                "receive invitations yet."
            )
        elif recipient.claimed_by_id == sender.pk:
            refusals[recipient.pk] = InvalidRequest("You cannot invite yourself.")
        else:
            undecided.append(recipient)
    if not undecided:
        return refusals
    facts = _recipient_facts(
        sender_id=sender.pk, sender_record_id=sender_record.pk, recipients=undecided, now=now
    )
    for recipient in undecided:
        refusals[recipient.pk] = (
            Forbidden(SUSPENDED) if facts is None else _refusal_from(recipient, facts)
        )
    return refusals


def _refusal_from(recipient: Researcher, facts: _RecipientFacts) -> ServiceError | None:
    """The rule's verdict on one claimed recipient, from the rows read for all of them."""
    name = recipient.display_name
    recipient_id = recipient.claimed_by_id
    assert recipient_id is not None
    if recipient_id in facts.blocked_user_ids:
        return Forbidden(UNAVAILABLE)
    recipient_settings = facts.recipient_settings.get(recipient_id)
    if recipient_settings is not None:
        if recipient_settings.messaging_suspended_at is not None:
            return Forbidden(UNAVAILABLE)
        if recipient_settings.who_may_invite == WhoMayInvite.NOBODY:
            return Forbidden(f"{name} does not accept invitations.")
        if (
            recipient_settings.who_may_invite == WhoMayInvite.COAUTHORS
            and recipient.pk not in facts.coauthor_record_ids
        ):
            return Forbidden(f"{name} accepts invitations from coauthors only.")
    declined_at = facts.declined_at.get(recipient_id)
    if declined_at is not None:
        again = (declined_at + DECLINE_COOL_DOWN).date().isoformat()
        return Forbidden(
            f"{name} declined your last invitation; you can invite them again from {again}."
        )
    return None
