"""Staff are told about a user five distinct people reported or blocked."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from claims.models import ModerationAction
from claims.services import audit
from collaboration.models import Block, CollaborationReport, CollaborationSettings

FLAG_THRESHOLD = 5


def user_flag_if_needed(*, user_id: int) -> bool:
    """Flag `user_id` once five distinct people have blocked or reported them (audited once);
    whether this call flagged them. Runs in the caller's transaction."""
    blockers = Block.objects.filter(blocked_id=user_id).values_list("blocker_id", flat=True)
    reporters = CollaborationReport.objects.filter(
        Q(reporter__isnull=False), reported_user_id=user_id
    ).values_list("reporter_id", flat=True)
    people = blockers.union(reporters)  # UNION: distinct people, whichever way
    if people.count() < FLAG_THRESHOLD:
        return False
    CollaborationSettings.objects.get_or_create(user_id=user_id)
    # Conditional: of two concurrent blocks that both reach five, one flags (and audits).
    flagged = CollaborationSettings.objects.filter(user_id=user_id, flagged_at__isnull=True).update(
        flagged_at=timezone.now()
    )
    if flagged:
        audit(
            action=ModerationAction.USER_FLAGGED,
            reason=f"Blocked or reported by {FLAG_THRESHOLD} or more people.",
            details={"user": user_id},
        )
    return bool(flagged)
