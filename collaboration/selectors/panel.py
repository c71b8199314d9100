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

# The panel offers the most recent works and the most frequent topics of the two; any other of
# theirs is found by the picker's search (anchor_search), a bounded list whatever the records.
ANCHORS_SHOWN = 8
ANCHOR_SEARCH_LIMIT = 20
ANCHOR_QUERY_MAX_LENGTH = 100


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
        panel.anchor_works = _anchor_works(record_ids, query="", limit=ANCHORS_SHOWN)
        panel.anchor_topics = _anchor_topics(record_ids, query="", limit=ANCHORS_SHOWN)
    return panel


def _anchor_works(record_ids: list[int], *, query: str, limit: int) -> list[tuple[int, str]]:
    works = Authorship.objects.filter(researcher_id__in=record_ids)
    if query:
        works = works.filter(work__title__icontains=query)
    return [
        (work_id, title)
        for work_id, title, _ in works.order_by("-work__publication_date", "-work_id")
        .values_list("work_id", "work__title", "work__publication_date")
        .distinct()[:limit]
    ]


def _anchor_topics(record_ids: list[int], *, query: str, limit: int) -> list[tuple[int, str]]:
    topics = Topic.objects.filter(work_topics__work__authorships__researcher_id__in=record_ids)
    if query:
        topics = topics.filter(name__icontains=query)
    return list(
        topics.annotate(works=Count("work_topics__work", distinct=True))
        .order_by("-works", "name")
        .values_list("id", "name")[:limit]
    )


def anchor_search(
    researcher: Researcher, user: User, *, kind: str, query: str
) -> list[tuple[int, str]]:
    """The invitation picker's search: up to ANCHOR_SEARCH_LIMIT works (or topics) of the viewer
    or of `researcher` whose title (or name) holds `query`, most recent (or most frequent)
    first. Only someone the service would let invite `researcher` may search: anyone else gets
    the service's refusal raised. A fixed number of queries whatever the records hold."""
    sender_record = verified_record_of(user)
    refusal = invite_refusal(
        sender=user, sender_record=sender_record, recipient_researcher=researcher
    )
    if refusal is not None:
        raise refusal
    assert sender_record is not None
    record_ids = [sender_record.pk, researcher.pk]
    query = query.strip()[:ANCHOR_QUERY_MAX_LENGTH]
    if kind == "topics":
        return _anchor_topics(record_ids, query=query, limit=ANCHOR_SEARCH_LIMIT)
    return _anchor_works(record_ids, query=query, limit=ANCHOR_SEARCH_LIMIT)


def collaboration_settings_for(user: User) -> CollaborationSettings:
    """The user's settings, or the defaults (unsaved) when they never chose."""
    return CollaborationSettings.objects.filter(user=user).first() or CollaborationSettings(
        user=user
    )
