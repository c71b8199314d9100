"""The profile's "Direct collaboration" panel: whether the viewer may invite this researcher,
and if not, why, in the words the service would use."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Q
from django.utils import timezone

from bzpeer.users.models import User
from collaboration.models import Block, CollaborationSettings, ConversationParticipant
from publications.models import Authorship, Topic
from researchers.models import Researcher

from .access import UNAVAILABLE, invite_refusal, pending_between, verified_record_of

ANCHORS_SHOWN = 20


@dataclass
class CollaborationPanel:
    can_invite: bool
    reason: str
    pending_invitation_id: int | None = None
    pending_is_outgoing: bool = False
    conversation_id: int | None = None
    viewer_blocked_them: bool = False
    unavailable: bool = False
    anchor_works: list[tuple[int, str]] = field(default_factory=list)
    anchor_topics: list[tuple[int, str]] = field(default_factory=list)


def collaboration_panel_for(
    researcher: Researcher, user: User | AnonymousUser
) -> CollaborationPanel:
    """What the panel shows `user` on `researcher`'s profile. A visitor costs no query."""
    claimant_id = researcher.claimed_by_id
    if user.is_authenticated and claimant_id == user.pk:
        return CollaborationPanel(can_invite=False, reason="This is your profile.")
    sender_record = verified_record_of(user) if user.is_authenticated else None
    refusal = invite_refusal(
        sender=user, sender_record=sender_record, recipient_researcher=researcher
    )
    panel = CollaborationPanel(
        can_invite=refusal is None, reason=refusal.message if refusal else ""
    )
    if not user.is_authenticated or claimant_id is None:
        return panel
    blockers = set(
        Block.objects.filter(
            Q(blocker=user, blocked_id=claimant_id) | Q(blocker_id=claimant_id, blocked=user)
        ).values_list("blocker_id", flat=True)
    )
    panel.viewer_blocked_them = user.pk in blockers
    panel.unavailable = bool(blockers)
    if panel.unavailable:
        panel.can_invite, panel.reason = False, UNAVAILABLE
        return panel
    pending = pending_between(user.pk, claimant_id, now=timezone.now())
    if pending is not None:
        panel.pending_invitation_id = pending.pk
        panel.pending_is_outgoing = pending.sender_id == user.pk
        panel.can_invite = False
        panel.reason = (
            f"You already have a pending invitation with {researcher.display_name}."
            if panel.pending_is_outgoing
            else f"{researcher.display_name} has invited you; answer in your inbox."
        )
    panel.conversation_id = (
        ConversationParticipant.objects.filter(
            user=user, conversation__participants__user_id=claimant_id
        )
        .order_by("-last_message_at", "-conversation_id")
        .values_list("conversation_id", flat=True)
        .first()
    )
    if panel.can_invite and sender_record is not None:
        record_ids = [sender_record.pk, researcher.pk]
        panel.anchor_works = [
            (work_id, title)
            for work_id, title in Authorship.objects.filter(researcher_id__in=record_ids)
            .order_by("-work__publication_date", "-work_id")
            .values_list("work_id", "work__title")
            .distinct()[:ANCHORS_SHOWN]
        ]
        panel.anchor_topics = list(
            Topic.objects.filter(work_topics__work__authorships__researcher_id__in=record_ids)
            .annotate(works=Count("work_topics__work", distinct=True))
            .order_by("-works", "name")
            .values_list("id", "name")[:ANCHORS_SHOWN]
        )
    return panel


def collaboration_settings_for(user: User) -> CollaborationSettings:
    """The user's settings, or the defaults (unsaved) when they never chose."""
    return CollaborationSettings.objects.filter(user=user).first() or CollaborationSettings(
        user=user
    )
