"""The moderation audit log: every claims decision appends one line here."""

from __future__ import annotations

from typing import Any

from bzpeer.users.models import User
from claims.models import Claim, ModerationEvent, Report
from researchers.models import Researcher


def _actor_label(user: User | None) -> str:
    if user is None:
        return "system"
    return f"{user.email} (#{user.pk})"


def audit(
    *,
    action: str,
    actor: User | None = None,
    claim: Claim | None = None,
    researcher: Researcher | None = None,
    report: Report | None = None,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> ModerationEvent:
    """Append one line to the audit log (the only way anything writes to it)."""
    return ModerationEvent.objects.create(
        actor=actor,
        actor_label=_actor_label(actor),
        action=action,
        claim=claim,
        researcher=researcher or (claim.researcher if claim else None),
        report=report,
        reason=reason,
        details=details or {},
    )
