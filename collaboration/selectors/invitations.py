"""Invitations as the inbox and the API show them: the other side, the kind, the status (a
pending invitation past its 30 days reads as expired), the anchors. A fixed number of queries
whatever the count, and no query reads more of a user's invitations than it shows: a user can
have thousands of answered ones (each conversation began with one)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import BooleanField, ExpressionWrapper, Prefetch, Q, QuerySet
from django.http import Http404
from django.utils import timezone

from bzpeer.users.models import User
from collaboration.models import Invitation, InvitationKind, InvitationStatus
from publications.models import Topic, Work

DELETED_NAME = "Deleted researcher"
BOXES = ("received", "sent")
INVITATIONS_SHOWN = 50


@dataclass
class InvitationSummary:
    id: int
    kind: str
    kind_label: str
    status: str
    status_label: str
    purpose: str
    created_at: datetime.datetime
    expires_at: datetime.datetime
    responded_at: datetime.datetime | None
    is_received: bool
    other_name: str
    other_slug: str | None
    conversation_id: int | None
    anchor_works: list[tuple[int, str]] = field(default_factory=list)
    anchor_topics: list[tuple[int, str]] = field(default_factory=list)

    @property
    def is_pending(self) -> bool:
        return self.status == InvitationStatus.PENDING


def effective_status(invitation: Invitation, *, now: datetime.datetime) -> str:
    """The status as everyone sees it: pending past expires_at is expired (the hourly task
    writes that down later)."""
    if invitation.status == InvitationStatus.PENDING and invitation.expires_at <= now:
        return InvitationStatus.EXPIRED
    return invitation.status


def _queryset(*, with_anchors: bool = True) -> QuerySet[Invitation]:
    invitations = Invitation.objects.select_related(
        "sender_researcher", "recipient_researcher"
    ).only(
        *(f.attname for f in Invitation._meta.concrete_fields),
        *(
            f"{side}_researcher__{name}"
            for side in ("sender", "recipient")
            for name in ("slug", "display_name")
        ),
    )
    if not with_anchors:
        return invitations
    return invitations.prefetch_related(
        Prefetch("anchor_works", queryset=Work.objects.only("id", "title").order_by("id")),
        Prefetch("anchor_topics", queryset=Topic.objects.only("id", "name").order_by("name")),
    )


def _summaries(
    invitations: Iterable[Invitation],
    *,
    viewer: User,
    now: datetime.datetime,
    with_anchors: bool = True,
) -> list[InvitationSummary]:
    summaries = []
    for invitation in invitations:
        received = invitation.recipient_id == viewer.pk
        other_user_id = invitation.sender_id if received else invitation.recipient_id
        other_record = invitation.sender_researcher if received else invitation.recipient_researcher
        gone = other_user_id is None or other_record is None
        other_name = DELETED_NAME if other_record is None or gone else other_record.display_name
        other_slug = None if other_record is None or gone else other_record.slug
        status = effective_status(invitation, now=now)
        summaries.append(
            InvitationSummary(
                id=invitation.pk,
                kind=invitation.kind,
                kind_label=str(InvitationKind(invitation.kind).label),
                status=status,
                status_label=str(InvitationStatus(status).label),
                purpose=invitation.purpose,
                created_at=invitation.created_at,
                expires_at=invitation.expires_at,
                responded_at=invitation.responded_at,
                is_received=received,
                other_name=other_name,
                other_slug=other_slug,
                conversation_id=invitation.conversation_id,
                anchor_works=[(work.pk, work.title) for work in invitation.anchor_works.all()]
                if with_anchors
                else [],
                anchor_topics=[(topic.pk, topic.name) for topic in invitation.anchor_topics.all()]
                if with_anchors
                else [],
            )
        )
    return summaries


def invitations_for(
    user: User, *, box: str, limit: int = INVITATIONS_SHOWN, with_anchors: bool = True
) -> list[InvitationSummary]:
    """The user's received or sent invitations: the open ones (pending, unexpired) first,
    then the newest others, `limit` in all. One query (two with the anchors, which the inbox
    does not show): each half of the union is a LIMIT read of an index in its order
    (invitation_*_pending_idx, invitation_*_idx), so only the rows shown are read."""
    if box not in BOXES:
        raise ValueError(f"box must be one of {BOXES}, not {box!r}")
    now = timezone.now()
    mine = Q(recipient=user) if box == "received" else Q(sender=user)
    is_open = Q(status=InvitationStatus.PENDING, expires_at__gt=now)
    newest = ("-created_at", "-id")
    open_ids = Invitation.objects.filter(mine, is_open).order_by(*newest).values("id")[:limit]
    other_ids = Invitation.objects.filter(mine).exclude(is_open).order_by(*newest).values("id")
    shown = open_ids.union(other_ids[:limit], all=True)
    invitations = (
        _queryset(with_anchors=with_anchors)
        .filter(pk__in=shown)
        .annotate(open_first=ExpressionWrapper(is_open, output_field=BooleanField()))
        .order_by("-open_first", *newest)[:limit]
    )
    return _summaries(invitations, viewer=user, now=now, with_anchors=with_anchors)


def invitation_for(user: User, invitation_id: int) -> InvitationSummary:
    """One invitation the user sent or received; anyone else's is a 404."""
    invitation = _queryset().filter(Q(sender=user) | Q(recipient=user), pk=invitation_id).first()
    if invitation is None:
        raise Http404("No such invitation.")
    return _summaries([invitation], viewer=user, now=timezone.now())[0]
