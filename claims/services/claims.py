"""The claimant's side of a claim: opening one (its checks are queued) and withdrawing it."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.users.models import User
from claims.models import Claim, ClaimStatus, ModerationAction
from claims.ratelimit import rate_limit_check
from claims.selectors import user_verified_emails
from researchers.models import Researcher

from .audit import audit
from .checks_queue import claim_checks_run_on_commit
from .errors import ClaimConflict, ClaimError
from .records import record_release, researcher_lock

logger = logging.getLogger(__name__)


@transaction.atomic
def claim_submit(
    *,
    user: User,
    researcher: Researcher,
    claimant_name: str,
    statement: str,
    presented_email: str,
    evidence_links: Sequence[str] = (),
) -> Claim:
    """Open a claim (L2, pending) and queue its automatic checks.

    Refused when: the user has no verified email or presents one that is not verified; the
    record is merged or already has an approved claimant; the user already holds an approved
    record or already has an open claim on this one; or the user is over the claim rate limit.
    """
    verified = user_verified_emails(user)
    if not verified:
        raise ClaimError("Verify your email address before claiming a record.")
    if presented_email.lower() not in {email.lower() for email in verified}:
        raise ClaimError("Choose one of your verified email addresses to present.")
    rate_limit_check(action="claim_submit", key=f"user:{user.pk}")
    researcher = researcher_lock(researcher.pk)
    if researcher.merged_into_id:
        raise ClaimError("This record was merged into another one; claim that record instead.")
    if researcher.claimed_by_id == user.pk:
        raise ClaimError("You have already claimed this record.")
    if researcher.claimed_by_id:
        raise ClaimConflict(
            f"{researcher.display_name} has already been claimed by another user. If you "
            "are this researcher, report the profile and a moderator will look into it."
        )
    if Claim.objects.filter(user=user, status=ClaimStatus.APPROVED).exists():
        raise ClaimError(
            "Your account already holds an approved record. If this record is also yours, "
            "ask a moderator to merge the two."
        )
    if Claim.objects.filter(user=user, researcher=researcher, status=ClaimStatus.PENDING).exists():
        raise ClaimError("You already have an open claim on this record.")
    claim = Claim.objects.create(
        researcher=researcher,
        user=user,
        claimant_name=claimant_name.strip()[:200],
        statement=statement.strip(),
        presented_email=presented_email,
        evidence_links=list(evidence_links),
    )
    audit(action=ModerationAction.CLAIM_SUBMITTED, actor=user, claim=claim, researcher=researcher)
    claim_checks_run_on_commit(claim.pk)
    logger.info("claim %s submitted by user %s on researcher %s", claim.pk, user.pk, researcher.pk)
    return claim


@retry_on_lock_conflict
@transaction.atomic
def claim_withdraw(*, claim: Claim, user: User) -> Claim:
    """The claimant withdraws their claim, pending or approved (giving the record up).
    Precondition: the caller looked the claim up through Claim.objects.visible_to(user)."""
    if claim.user_id != user.pk:
        raise ClaimError("Only the claimant can withdraw a claim.")
    researcher = researcher_lock(claim.researcher_id, keys_change=True)
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    if claim.status not in (ClaimStatus.PENDING, ClaimStatus.APPROVED):
        raise ClaimError(f"This claim is already {claim.get_status_display().lower()}.")
    was_approved = claim.status == ClaimStatus.APPROVED
    claim.status = ClaimStatus.WITHDRAWN
    claim.decided_at = timezone.now()
    claim.save(update_fields=["status", "decided_at", "updated_at"])
    removed = record_release(claim, researcher) if was_approved else {}
    details: dict[str, object] = {"was_approved": was_approved}
    if removed:
        details["claimant_content_removed"] = removed
    audit(
        action=ModerationAction.CLAIM_WITHDRAWN,
        actor=user,
        claim=claim,
        researcher=researcher,
        details=details,
    )
    return claim
