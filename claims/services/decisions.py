"""Deciding claims: the automatic checks' verdict, and a moderator's approve, reject and revoke.

An approval holds the record's row lock and the claim's, so two claims on one record can never
both be approved; the partial unique constraints on Claim catch anything that slips past.
claims.tasks.checks calls claim_checks_run: this module never queues that task (the claimant's
services do, in claims.services.claims and .vouches), which keeps the module graph one-way.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.users.models import User
from claims.models import ApprovalRoute, CheckKind, Claim, ClaimCheck, ClaimStatus, ModerationAction
from claims.selectors import claim_check_results
from notifications.kinds import NotificationCategory
from notifications.services import notification_create
from researchers.models import Researcher, VerificationLevel

from .audit import audit
from .errors import ClaimConflict, ClaimError
from .links import account_url, profile_url
from .orcid_import import orcid_import_after_approval
from .records import record_release, researcher_lock
from .trust_refresh import trust_refresh_on_commit

logger = logging.getLogger(__name__)

MODERATION_NOTE_CONTESTED = "Another claim for this record is open: a moderator decides."
MODERATION_NOTE_UNCORROBORATED = "No automatic check corroborated the claim."
MODERATION_NOTE_RECORD_CLAIMED = "The record already has an approved claimant."

_ROUTE_BY_CHECK: dict[str, ApprovalRoute] = {
    CheckKind.ORCID: ApprovalRoute.ORCID,
    CheckKind.INSTITUTION_EMAIL: ApprovalRoute.INSTITUTION_EMAIL,
    CheckKind.VOUCHES: ApprovalRoute.VOUCHES,
}


def claim_checks_run(*, claim_id: int) -> Claim | None:
    """Run the automatic checks of a pending claim, store each result and decide.

    An ORCID match, an institution-email match or enough coauthor vouches approve the claim at
    L3, unless another claim on the record is open: then every open claim on the record waits
    for a moderator. Anything else waits at L2. Idempotent: a claim that is no longer pending,
    or whose checks ran and were not asked for again since (recheck_requested_at, set by a
    vouch), is left alone, so a task delivered twice checks once. Returns None when the claim
    is gone.
    """
    claim = Claim.objects.select_related("researcher", "user").filter(pk=claim_id).first()
    if claim is None or not _checks_owed(claim):
        return claim
    started = timezone.now()
    results = claim_check_results(claim)
    with transaction.atomic():
        researcher = researcher_lock(claim.researcher_id, keys_change=True)
        claim = Claim.objects.select_for_update().select_related("user").get(pk=claim_id)
        if not _checks_owed(claim):
            return claim
        # A vouch that came after the results were read keeps its mark: its own task (or the
        # sweep) checks again with it.
        if claim.recheck_requested_at is not None and claim.recheck_requested_at <= started:
            claim.recheck_requested_at = None
        now = timezone.now()
        for result in results:
            ClaimCheck.objects.update_or_create(
                claim=claim,
                kind=result.kind,
                defaults={
                    "outcome": result.outcome,
                    "score": result.score,
                    "detail": result.detail[:500],
                    "checked_at": now,
                },
            )
        claim.checks_completed_at = now
        corroborating = [r for r in results if r.passed and r.kind in _ROUTE_BY_CHECK]
        others_open = (
            Claim.objects.filter(researcher=researcher, status=ClaimStatus.PENDING)
            .exclude(pk=claim.pk)
            .select_for_update()
        )
        details = {r.kind: {"outcome": r.outcome, "detail": r.detail} for r in results}
        if researcher.claimed_by_id:
            claim.moderation_note = MODERATION_NOTE_RECORD_CLAIMED
        elif corroborating and not others_open.exists():
            claim.save(update_fields=["checks_completed_at", "recheck_requested_at", "updated_at"])
            _approve(
                claim=claim,
                researcher=researcher,
                actor=None,
                level=VerificationLevel.CORROBORATED,
                route=_ROUTE_BY_CHECK[corroborating[0].kind],
                reason=corroborating[0].detail,
            )
            return claim
        elif corroborating:
            claim.moderation_note = MODERATION_NOTE_CONTESTED
            others_open.update(moderation_note=MODERATION_NOTE_CONTESTED)
        else:
            claim.moderation_note = MODERATION_NOTE_UNCORROBORATED
        claim.save(
            update_fields=[
                "checks_completed_at",
                "recheck_requested_at",
                "moderation_note",
                "updated_at",
            ]
        )
        audit(
            action=ModerationAction.CLAIM_CHECKED,
            claim=claim,
            researcher=researcher,
            reason=claim.moderation_note,
            details=details,
        )
    return claim


def _checks_owed(claim: Claim) -> bool:
    """A pending claim whose checks never ran, or that a vouch asked to be checked again."""
    if claim.status != ClaimStatus.PENDING:
        return False
    return claim.checks_completed_at is None or claim.recheck_requested_at is not None


def _approve(
    *,
    claim: Claim,
    researcher: Researcher,
    actor: User | None,
    level: int,
    route: str,
    reason: str = "",
) -> Claim:
    """Approve a pending claim. Precondition: the caller holds the researcher row lock and the
    claim row lock, inside a transaction."""
    if level not in (VerificationLevel.CORROBORATED, VerificationLevel.MODERATOR_VERIFIED):
        raise ClaimError("A claim is approved at L3 or L4.")
    if researcher.claimed_by_id and researcher.claimed_by_id != claim.user_id:
        raise ClaimConflict(
            f"{researcher.display_name} has already been claimed by another user, so this "
            "claim cannot be approved."
        )
    if claim.status != ClaimStatus.PENDING:
        raise ClaimError(f"This claim is {claim.get_status_display().lower()}, not pending.")
    now = timezone.now()
    claim.status = ClaimStatus.APPROVED
    claim.level = level
    claim.approved_via = route
    claim.decided_by = actor
    claim.decided_at = now
    claim.decision_reason = reason if actor else ""
    claim.moderation_note = ""
    try:
        with transaction.atomic():
            claim.save()
            researcher.claimed_by = claim.user
            researcher.verification_level = level
            researcher.save(update_fields=["claimed_by", "verification_level", "updated_at"])
    except IntegrityError as exc:
        # The partial unique indexes: this user already holds another approved record, or
        # (defence in depth) another claimant got the record.
        raise ClaimConflict(
            "This claim conflicts with another approved claim (one record per person and one "
            "person per record)."
        ) from exc
    # Everyone else waiting on this record gets a clear answer now instead of a dead claim.
    for other in Claim.objects.select_for_update().filter(
        researcher=researcher, status=ClaimStatus.PENDING
    ):
        other.status = ClaimStatus.REJECTED
        other.decided_at = now
        other.decision_reason = (
            "Another claimant was verified for this record. If you are this researcher, "
            "report the profile as impersonation and a moderator will look into it."
        )
        other.save(update_fields=["status", "decided_at", "decision_reason", "updated_at"])
        audit(
            action=ModerationAction.CLAIM_REJECTED,
            actor=actor,
            claim=other,
            researcher=researcher,
            reason=other.decision_reason,
            details={"because_of_claim": claim.pk},
        )
        _notify_decision(other)
    audit(
        action=(ModerationAction.CLAIM_APPROVED if actor else ModerationAction.CLAIM_AUTO_APPROVED),
        actor=actor,
        claim=claim,
        researcher=researcher,
        reason=reason,
        details={"level": level, "route": route},
    )
    _notify_decision(claim)
    trust_refresh_on_commit([researcher.pk], include_coauthors=True)
    # The claimant's own ORCID record (CV, works) comes in once they are the record's owner.
    orcid_import_after_approval(researcher=researcher, user=claim.user)
    logger.info("claim %s approved at L%s via %s", claim.pk, level, route)
    return claim


def _notify_decision(claim: Claim) -> None:
    name = claim.researcher.display_name
    if claim.status == ClaimStatus.APPROVED:
        via = claim.get_approved_via_display()
        subject = f"Your claim on {name} is approved"
        message = (
            f"Your claim on {name} was approved at verification level L{claim.level} "
            f"({via}). You can now edit the profile."
        )
        url = profile_url(claim.researcher)
    elif claim.status == ClaimStatus.REJECTED:
        subject = f"Your claim on {name} was not approved"
        message = f"Your claim on {name} was rejected. Reason: {claim.decision_reason}"
        url = account_url()
    elif claim.status == ClaimStatus.REVOKED:
        subject = f"Your claim on {name} was revoked"
        message = f"Your approved claim on {name} was revoked. Reason: {claim.decision_reason}"
        url = account_url()
    else:
        return
    notification_create(
        user=claim.user,
        category=NotificationCategory.CLAIMS,
        kind=f"claim_{claim.status}",
        subject=subject,
        message=message,
        url=url,
    )


@retry_on_lock_conflict
def claim_approve(*, claim: Claim, moderator: User | None, level: int, reason: str = "") -> Claim:
    """A moderator approves a pending claim at L3 or L4."""
    with transaction.atomic():
        researcher = researcher_lock(claim.researcher_id, keys_change=True)
        locked = Claim.objects.select_for_update().select_related("user").get(pk=claim.pk)
        return _approve(
            claim=locked,
            researcher=researcher,
            actor=moderator,
            level=level,
            route=ApprovalRoute.MODERATOR,
            reason=reason,
        )


@retry_on_lock_conflict
@transaction.atomic
def claim_reject(*, claim: Claim, moderator: User, reason: str) -> Claim:
    """A moderator rejects a pending claim; the reason is shown to the claimant."""
    if not reason.strip():
        raise ClaimError("Give the claimant a reason for the rejection.")
    researcher_lock(claim.researcher_id)
    claim = Claim.objects.select_for_update().select_related("researcher").get(pk=claim.pk)
    if claim.status != ClaimStatus.PENDING:
        raise ClaimError(f"This claim is {claim.get_status_display().lower()}, not pending.")
    claim.status = ClaimStatus.REJECTED
    claim.decided_by = moderator
    claim.decided_at = timezone.now()
    claim.decision_reason = reason.strip()
    claim.save()
    audit(action=ModerationAction.CLAIM_REJECTED, actor=moderator, claim=claim, reason=reason)
    _notify_decision(claim)
    return claim


@retry_on_lock_conflict
@transaction.atomic
def claim_revoke(*, claim: Claim, moderator: User, reason: str) -> Claim:
    """A moderator revokes an approved claim: the record is unclaimed again."""
    if not reason.strip():
        raise ClaimError("Give the claimant a reason for the revocation.")
    researcher = researcher_lock(claim.researcher_id, keys_change=True)
    claim = Claim.objects.select_for_update().select_related("researcher").get(pk=claim.pk)
    if claim.status != ClaimStatus.APPROVED:
        raise ClaimError("Only an approved claim can be revoked.")
    claim.status = ClaimStatus.REVOKED
    claim.decided_by = moderator
    claim.decided_at = timezone.now()
    claim.decision_reason = reason.strip()
    claim.save()
    removed = record_release(claim, researcher)
    audit(
        action=ModerationAction.CLAIM_REVOKED,
        actor=moderator,
        claim=claim,
        reason=reason,
        details={"claimant_content_removed": removed} if removed else None,
    )
    _notify_decision(claim)
    return claim


def claims_bulk_decide(
    *, claims: Iterable[Claim], moderator: User, approve: bool, level: int = 3, reason: str = ""
) -> tuple[int, list[str]]:
    """Approve or reject several claims, each in its own transaction. Returns the number done
    and the messages of those refused (e.g. a record already claimed)."""
    done, refused = 0, []
    for claim in claims:
        try:
            if approve:
                claim_approve(claim=claim, moderator=moderator, level=level, reason=reason)
            else:
                claim_reject(claim=claim, moderator=moderator, reason=reason)
            done += 1
        except ClaimError as error:
            refused.append(f"Claim #{claim.pk}: {error}")
    return done, refused
