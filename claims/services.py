"""Writes for claims, verification, disputes, vouches, merges and the trust score.

Every state change of the claims app goes through a function here: the HTML views, the API,
the admin actions and the Celery tasks all call the same code. Rules that must survive
concurrency are enforced twice: a row lock on the researcher record serialises the decisions
about one record, and the partial unique constraints on Claim catch anything that slips past.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from graph.services import researcher_metrics_refresh
from graph.tasks import coauthor_edges_schedule
from publications.models import Authorship, Work
from researchers.models import Affiliation, Follow, Institution, Researcher, VerificationLevel

from . import checks
from .models import (
    ApprovalRoute,
    CheckKind,
    Claim,
    ClaimCheck,
    ClaimStatus,
    ModerationAction,
    ModerationEvent,
    Notification,
    Report,
    ReportStatus,
    SplitRequest,
    SplitRequestStatus,
    Vouch,
)
from .ratelimit import rate_limit_check
from .trust import coauthor_ids, researchers_trust_refresh

logger = logging.getLogger(__name__)

MODERATION_NOTE_CONTESTED = "Another claim for this record is open: a moderator decides."
MODERATION_NOTE_UNCORROBORATED = "No automatic check corroborated the claim."
MODERATION_NOTE_RECORD_CLAIMED = "The record already has an approved claimant."


class ClaimError(Exception):
    """A claims rule refused the action; the message is written for the person acting."""


class ClaimConflict(ClaimError):
    """The record (or the user) is already taken by another approved claim."""


# --- small helpers ---------------------------------------------------------------------------


def _actor_label(user: Any | None) -> str:
    if user is None:
        return "system"
    return f"{user.email} (#{user.pk})"


def audit(
    *,
    action: str,
    actor: Any | None = None,
    claim: Claim | None = None,
    researcher: Researcher | None = None,
    report: Report | None = None,
    reason: str = "",
    details: dict | None = None,
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


def notification_create(
    *, user: Any, kind: str, subject: str, message: str, url: str = ""
) -> Notification:
    """An in-app notification; its email goes out from a task once the transaction commits."""
    notification = Notification.objects.create(
        user=user, kind=kind, subject=subject, message=message, url=url
    )
    if settings.NOTIFICATIONS_EMAIL_ENABLED:
        from .tasks import notification_email_send

        transaction.on_commit(lambda: notification_email_send.delay(notification.pk))
    return notification


def notifications_mark_read(*, user: Any, notification_ids: Iterable[int] | None = None) -> int:
    queryset = Notification.objects.filter(user=user, read_at__isnull=True)
    if notification_ids is not None:
        queryset = queryset.filter(id__in=list(notification_ids))
    return queryset.update(read_at=timezone.now())


def trust_refresh_on_commit(researcher_ids: Iterable[int], *, include_coauthors: bool) -> None:
    """Recompute trust for these records (and their coauthors, whose verified-coauthor links
    change with a record's level) in a task once the transaction commits."""
    ids = sorted(set(researcher_ids))
    if not ids:
        return
    from .tasks import researchers_trust_refresh as task

    transaction.on_commit(
        lambda: task.delay(researcher_ids=ids, include_coauthors=include_coauthors)
    )


def researchers_trust_refresh_with_coauthors(*, researcher_ids: Sequence[int]) -> int:
    ids = set(researcher_ids) | coauthor_ids(researcher_ids)
    return researchers_trust_refresh(researcher_ids=ids)


def base_verification_level(researcher: Researcher) -> int:
    """The level a record has without a claimant: L1 with a persistent identifier, else L0."""
    if researcher.openalex_id or researcher.orcid:
        return VerificationLevel.IDENTIFIED
    return VerificationLevel.NAME_ONLY


def user_verified_emails(user: Any) -> list[str]:
    return list(
        EmailAddress.objects.filter(user=user, verified=True)
        .order_by("-primary", "email")
        .values_list("email", flat=True)
    )


def user_connected_orcids(user: Any) -> list[str]:
    return list(
        SocialAccount.objects.filter(user=user, provider="orcid").values_list("uid", flat=True)
    )


def _lock_researcher(researcher_id: int) -> Researcher:
    return Researcher.objects.select_for_update().get(pk=researcher_id)


def _profile_url(researcher: Researcher) -> str:
    return reverse("researcher-profile", args=[researcher.slug])


def _account_url() -> str:
    return reverse("claims:account")


# --- claims ----------------------------------------------------------------------------------


@transaction.atomic
def claim_submit(
    *,
    user: Any,
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
    researcher = _lock_researcher(researcher.pk)
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
    from .tasks import claim_checks_run as task

    transaction.on_commit(lambda: task.delay(claim.pk))
    logger.info("claim %s submitted by user %s on researcher %s", claim.pk, user.pk, researcher.pk)
    return claim


def record_institution_domains(researcher: Researcher) -> dict[str, str]:
    """Email domain -> institution name, over the record's institutions: its affiliations, its
    last known institution and the institutions on its bylines."""
    institution_ids = set(
        Affiliation.objects.filter(researcher=researcher).values_list("institution_id", flat=True)
    )
    if researcher.last_known_institution_id:
        institution_ids.add(researcher.last_known_institution_id)
    for ids in Authorship.objects.filter(researcher=researcher).values_list(
        "institution_ids", flat=True
    ):
        institution_ids.update(ids or [])
    domains: dict[str, str] = {}
    for name, email_domains in Institution.objects.filter(id__in=institution_ids).values_list(
        "name", "email_domains"
    ):
        for domain in email_domains or []:
            domains.setdefault(domain.lower().strip(), name)
    return domains


def claim_check_results(claim: Claim) -> list[checks.CheckResult]:
    """Run every automatic check of a claim on the current data (reads only)."""
    researcher = claim.researcher
    user = claim.user
    verified = {email.lower() for email in user_verified_emails(user)}
    orcid_names: list[str] = []
    connected = []
    for account in SocialAccount.objects.filter(user=user, provider="orcid"):
        connected.append(account.uid)
        name = (account.extra_data or {}).get("person", {}).get("name") or {}
        given = (name.get("given-names") or {}).get("value", "")
        family = (name.get("family-name") or {}).get("value", "")
        if given or family:
            orcid_names.append(f"{given} {family}".strip())
    return [
        checks.orcid_check(connected_orcids=connected, record_orcid=researcher.orcid),
        checks.institution_email_check(
            email=claim.presented_email,
            email_verified=claim.presented_email.lower() in verified,
            institution_domains=record_institution_domains(researcher),
        ),
        checks.name_check(
            claimant_names=[claim.claimant_name, user.display_name, *orcid_names],
            record_names=[researcher.display_name, *(researcher.alternate_names or [])],
        ),
        checks.vouches_check(
            vouch_count=claim.vouches.count(), needed=settings.CLAIMS_VOUCHES_NEEDED
        ),
    ]


_ROUTE_BY_CHECK = {
    CheckKind.ORCID: ApprovalRoute.ORCID,
    CheckKind.INSTITUTION_EMAIL: ApprovalRoute.INSTITUTION_EMAIL,
    CheckKind.VOUCHES: ApprovalRoute.VOUCHES,
}


def claim_checks_run(*, claim_id: int) -> Claim | None:
    """Run the automatic checks of a pending claim, store each result and decide.

    An ORCID match, an institution-email match or enough coauthor vouches approve the claim at
    L3, unless another claim on the record is open: then every open claim on the record waits
    for a moderator. Anything else waits at L2. Idempotent: a claim that is no longer pending
    is left alone. Returns None when the claim is gone.
    """
    claim = Claim.objects.select_related("researcher", "user").filter(pk=claim_id).first()
    if claim is None or claim.status != ClaimStatus.PENDING:
        return claim
    results = claim_check_results(claim)
    with transaction.atomic():
        researcher = _lock_researcher(claim.researcher_id)
        claim = Claim.objects.select_for_update().select_related("user").get(pk=claim_id)
        if claim.status != ClaimStatus.PENDING:
            return claim
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
            claim.save(update_fields=["checks_completed_at", "updated_at"])
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
        claim.save(update_fields=["checks_completed_at", "moderation_note", "updated_at"])
        audit(
            action=ModerationAction.CLAIM_CHECKED,
            claim=claim,
            researcher=researcher,
            reason=claim.moderation_note,
            details=details,
        )
    return claim


def _approve(
    *,
    claim: Claim,
    researcher: Researcher,
    actor: Any | None,
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
        url = _profile_url(claim.researcher)
    elif claim.status == ClaimStatus.REJECTED:
        subject = f"Your claim on {name} was not approved"
        message = f"Your claim on {name} was rejected. Reason: {claim.decision_reason}"
        url = _account_url()
    elif claim.status == ClaimStatus.REVOKED:
        subject = f"Your claim on {name} was revoked"
        message = f"Your approved claim on {name} was revoked. Reason: {claim.decision_reason}"
        url = _account_url()
    else:
        return
    notification_create(
        user=claim.user, kind=f"claim_{claim.status}", subject=subject, message=message, url=url
    )


def claim_approve(*, claim: Claim, moderator: Any, level: int, reason: str = "") -> Claim:
    """A moderator approves a pending claim at L3 or L4."""
    with transaction.atomic():
        researcher = _lock_researcher(claim.researcher_id)
        locked = Claim.objects.select_for_update().select_related("user").get(pk=claim.pk)
        return _approve(
            claim=locked,
            researcher=researcher,
            actor=moderator,
            level=level,
            route=ApprovalRoute.MODERATOR,
            reason=reason,
        )


@transaction.atomic
def claim_reject(*, claim: Claim, moderator: Any, reason: str) -> Claim:
    """A moderator rejects a pending claim; the reason is shown to the claimant."""
    if not reason.strip():
        raise ClaimError("Give the claimant a reason for the rejection.")
    _lock_researcher(claim.researcher_id)
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


def _release_record(claim: Claim, researcher: Researcher) -> None:
    """The record goes back to unclaimed at its base level. Caller holds both row locks."""
    if researcher.claimed_by_id == claim.user_id:
        researcher.claimed_by = None
        researcher.verification_level = base_verification_level(researcher)
        researcher.save(update_fields=["claimed_by", "verification_level", "updated_at"])
    trust_refresh_on_commit([researcher.pk], include_coauthors=True)


@transaction.atomic
def claim_revoke(*, claim: Claim, moderator: Any, reason: str) -> Claim:
    """A moderator revokes an approved claim: the record is unclaimed again."""
    if not reason.strip():
        raise ClaimError("Give the claimant a reason for the revocation.")
    researcher = _lock_researcher(claim.researcher_id)
    claim = Claim.objects.select_for_update().select_related("researcher").get(pk=claim.pk)
    if claim.status != ClaimStatus.APPROVED:
        raise ClaimError("Only an approved claim can be revoked.")
    claim.status = ClaimStatus.REVOKED
    claim.decided_by = moderator
    claim.decided_at = timezone.now()
    claim.decision_reason = reason.strip()
    claim.save()
    _release_record(claim, researcher)
    audit(action=ModerationAction.CLAIM_REVOKED, actor=moderator, claim=claim, reason=reason)
    _notify_decision(claim)
    return claim


@transaction.atomic
def claim_withdraw(*, claim: Claim, user: Any) -> Claim:
    """The claimant withdraws their claim, pending or approved (giving the record up).
    Precondition: the caller looked the claim up through Claim.objects.visible_to(user)."""
    if claim.user_id != user.pk:
        raise ClaimError("Only the claimant can withdraw a claim.")
    researcher = _lock_researcher(claim.researcher_id)
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    if claim.status not in (ClaimStatus.PENDING, ClaimStatus.APPROVED):
        raise ClaimError(f"This claim is already {claim.get_status_display().lower()}.")
    was_approved = claim.status == ClaimStatus.APPROVED
    claim.status = ClaimStatus.WITHDRAWN
    claim.decided_at = timezone.now()
    claim.save(update_fields=["status", "decided_at", "updated_at"])
    if was_approved:
        _release_record(claim, researcher)
    audit(
        action=ModerationAction.CLAIM_WITHDRAWN,
        actor=user,
        claim=claim,
        researcher=researcher,
        details={"was_approved": was_approved},
    )
    return claim


def claims_bulk_decide(
    *, claims: Iterable[Claim], moderator: Any, approve: bool, level: int = 3, reason: str = ""
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


# --- vouches ---------------------------------------------------------------------------------


def vouch_eligibility(*, voucher: Any, claim: Claim) -> tuple[Researcher | None, str]:
    """(the voucher's own verified record, "") if they may vouch for this claim, else
    (None, why not). Reads only; vouch_submit checks again under locks."""
    if claim.user_id == voucher.pk:
        return None, "You cannot vouch for your own claim."
    own = (
        Claim.objects.select_related("researcher")
        .filter(user=voucher, status=ClaimStatus.APPROVED, level__gte=3)
        .first()
    )
    if own is None:
        return None, "Only researchers with a claim verified at L3 or L4 can vouch."
    if own.researcher_id == claim.researcher_id:
        return None, "You cannot vouch for a claim on your own record."
    shared = Authorship.objects.filter(
        researcher_id=claim.researcher_id,
        work__authorships__researcher_id=own.researcher_id,
    ).exists()
    if not shared:
        return None, "Only coauthors of this researcher can vouch for the claim."
    return own.researcher, ""


def vouch_submit(*, voucher: Any, claim: Claim, note: str = "") -> Vouch:
    """A verified coauthor vouches for a pending claim; enough vouches corroborate it (the
    claim's checks run again). At most CLAIMS_VOUCHES_PER_MONTH vouches per user in any 30
    days, counted under a lock on the voucher's user row so parallel vouches cannot exceed it."""
    from django.contrib.auth import get_user_model

    if claim.status != ClaimStatus.PENDING:
        raise ClaimError("You can only vouch for a pending claim.")
    voucher_record, why_not = vouch_eligibility(voucher=voucher, claim=claim)
    if voucher_record is None:
        raise ClaimError(why_not)
    rate_limit_check(action="vouch_submit", key=f"user:{voucher.pk}")
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=voucher.pk).first()
        since = timezone.now() - datetime.timedelta(days=30)
        used = Vouch.objects.filter(voucher=voucher, created_at__gte=since).count()
        if used >= settings.CLAIMS_VOUCHES_PER_MONTH:
            raise ClaimError(
                f"You have used your {settings.CLAIMS_VOUCHES_PER_MONTH} vouches for this month."
            )
        if Vouch.objects.filter(claim=claim, voucher=voucher).exists():
            raise ClaimError("You have already vouched for this claim.")
        vouch = Vouch.objects.create(
            claim=claim, voucher=voucher, voucher_researcher=voucher_record, note=note[:300]
        )
        audit(
            action=ModerationAction.VOUCH_ADDED,
            actor=voucher,
            claim=claim,
            details={"voucher_researcher": voucher_record.pk},
        )
        from .tasks import claim_checks_run as task

        transaction.on_commit(lambda: task.delay(claim.pk))
    return vouch


# --- disputes --------------------------------------------------------------------------------


@transaction.atomic
def report_submit(*, reporter: Any, researcher: Researcher, reason: str) -> Report:
    """Report a claimed profile as impersonation. The record's trust drops while it is open."""
    if not reason.strip():
        raise ClaimError("Say why you think this profile is an impersonation.")
    researcher = _lock_researcher(researcher.pk)
    if not researcher.claimed_by_id:
        raise ClaimError("Only a claimed profile can be reported as impersonation.")
    if researcher.claimed_by_id == reporter.pk:
        raise ClaimError("You cannot report your own profile.")
    if Report.objects.filter(
        reporter=reporter, researcher=researcher, status=ReportStatus.OPEN
    ).exists():
        raise ClaimError("You have already reported this profile; a moderator will look at it.")
    rate_limit_check(action="report_submit", key=f"user:{reporter.pk}")
    claim = Claim.objects.filter(researcher=researcher, status=ClaimStatus.APPROVED).first()
    report = Report.objects.create(
        researcher=researcher, claim=claim, reporter=reporter, reason=reason.strip()
    )
    audit(
        action=ModerationAction.REPORT_SUBMITTED,
        actor=reporter,
        claim=claim,
        researcher=researcher,
        report=report,
        reason=report.reason,
    )
    trust_refresh_on_commit([researcher.pk], include_coauthors=False)
    return report


@transaction.atomic
def report_resolve(*, report: Report, moderator: Any, uphold: bool, note: str) -> Report:
    """A moderator upholds a dispute (the disputed claim is revoked) or dismisses it."""
    if not note.strip():
        raise ClaimError("Write down the reason for the decision.")
    researcher = _lock_researcher(report.researcher_id)
    report = Report.objects.select_for_update().get(pk=report.pk)
    if report.status != ReportStatus.OPEN:
        raise ClaimError("This dispute is already resolved.")
    report.status = ReportStatus.UPHELD if uphold else ReportStatus.DISMISSED
    report.resolved_by = moderator
    report.resolved_at = timezone.now()
    report.resolution_note = note.strip()
    report.save()
    audit(
        action=ModerationAction.REPORT_UPHELD if uphold else ModerationAction.REPORT_DISMISSED,
        actor=moderator,
        claim=report.claim,
        researcher=researcher,
        report=report,
        reason=note,
    )
    if uphold and report.claim_id:
        claim = Claim.objects.get(pk=report.claim_id)
        if claim.status == ClaimStatus.APPROVED:
            claim_revoke(claim=claim, moderator=moderator, reason=f"Dispute upheld: {note}")
    notification_create(
        user=report.reporter,
        kind=f"report_{report.status}",
        subject=f"Your report on {researcher.display_name} was {report.status}",
        message=f"A moderator {report.status} your report. Note: {report.resolution_note}",
        url=_profile_url(researcher),
    )
    trust_refresh_on_commit([researcher.pk], include_coauthors=False)
    return report


# --- merge -----------------------------------------------------------------------------------


@transaction.atomic
def researcher_merge(
    *, source: Researcher, survivor: Researcher, moderator: Any, reason: str
) -> Researcher:
    """Merge `source` into `survivor`: authorships, follows, claims (with their vouches),
    disputes, split requests and affiliations move to the survivor; the source keeps its row
    (and slug) with merged_into set, so its URL redirects. Counts and trust are refreshed.

    Refused when the two are the same, either is already merged, they carry different ORCID
    iDs (two people), or both have (different) approved claimants: wrong merges of namesakes
    are worse than duplicates.
    """
    if source.pk == survivor.pk:
        raise ClaimError("Choose two different records.")
    first, second = sorted([source.pk, survivor.pk])
    locked = {
        r.pk: r for r in Researcher.objects.select_for_update().filter(pk__in=[first, second])
    }
    source, survivor = locked[source.pk], locked[survivor.pk]
    if source.merged_into_id or survivor.merged_into_id:
        raise ClaimError("One of the records is already merged into another.")
    if source.orcid and survivor.orcid and source.orcid != survivor.orcid:
        raise ClaimError("The records have different ORCID iDs: they are two people.")
    if (
        source.claimed_by_id
        and survivor.claimed_by_id
        and source.claimed_by_id != survivor.claimed_by_id
    ):
        raise ClaimError("Both records have different approved claimants.")

    moved = {}
    moved["authorships"] = Authorship.objects.filter(researcher=source).update(researcher=survivor)
    # A user following both keeps one follow.
    Follow.objects.filter(
        researcher=source, user__in=Follow.objects.filter(researcher=survivor).values("user")
    ).delete()
    moved["follows"] = Follow.objects.filter(researcher=source).update(researcher=survivor)
    Affiliation.objects.filter(
        researcher=source,
        institution__in=Affiliation.objects.filter(researcher=survivor).values("institution"),
    ).delete()
    moved["affiliations"] = Affiliation.objects.filter(researcher=source).update(
        researcher=survivor
    )
    # A user with an open claim on both keeps the survivor's.
    duplicates = Claim.objects.filter(
        researcher=source,
        status=ClaimStatus.PENDING,
        user__in=Claim.objects.filter(researcher=survivor, status=ClaimStatus.PENDING).values(
            "user"
        ),
    )
    for claim in duplicates:
        claim.status = ClaimStatus.WITHDRAWN
        claim.decided_at = timezone.now()
        claim.decision_reason = "Closed by a merge: your claim on the surviving record remains."
        claim.save(update_fields=["status", "decided_at", "decision_reason", "updated_at"])
    moved["claims"] = Claim.objects.filter(researcher=source).update(researcher=survivor)
    moved["reports"] = Report.objects.filter(researcher=source).update(researcher=survivor)
    SplitRequest.objects.filter(researcher=source, status=SplitRequestStatus.OPEN).filter(
        work__in=SplitRequest.objects.filter(
            researcher=survivor, status=SplitRequestStatus.OPEN
        ).values("work")
    ).delete()
    SplitRequest.objects.filter(researcher=source).update(researcher=survivor)

    source_claimant = source.claimed_by_id
    names = [source.display_name, *(source.alternate_names or [])]
    survivor.alternate_names = list(
        dict.fromkeys(
            name
            for name in [*(survivor.alternate_names or []), *names]
            if name and name != survivor.display_name
        )
    )
    update_fields = ["alternate_names", "updated_at"]
    identifiers = ("orcid", "dblp_id", "semantic_scholar_id", "scholar_id")
    taken = {field: getattr(source, field) for field in identifiers}
    source.merged_into = survivor
    source.claimed_by = None
    for field, value in taken.items():
        if value and not getattr(survivor, field):
            setattr(source, field, None)
    source.save()
    for field, value in taken.items():
        if value and not getattr(survivor, field):
            setattr(survivor, field, value)
            update_fields.append(field)
    if source_claimant and not survivor.claimed_by_id:
        approved = Claim.objects.get(researcher=survivor, status=ClaimStatus.APPROVED)
        survivor.claimed_by_id = source_claimant
        survivor.verification_level = approved.level
        update_fields += ["claimed_by", "verification_level"]
    if not survivor.claimed_by_id:
        # An identifier taken over from the source can lift an L0 survivor to L1.
        survivor.verification_level = max(
            survivor.verification_level, base_verification_level(survivor)
        )
        update_fields.append("verification_level")
    survivor.save(update_fields=update_fields)
    survivor.followers_count = Follow.objects.filter(researcher=survivor).count()
    survivor.save(update_fields=["followers_count"])
    Researcher.objects.filter(pk=source.pk).update(followers_count=0)

    researcher_metrics_refresh(researcher_ids=[source.pk, survivor.pk])
    # The moved bylines change coauthor edges of both records and of their coauthors.
    coauthor_edges_schedule(researcher_ids=[source.pk, survivor.pk], include_coauthors=True)
    audit(
        action=ModerationAction.RESEARCHER_MERGED,
        actor=moderator,
        researcher=survivor,
        reason=reason,
        details={"source": source.pk, "source_slug": source.slug, "survivor": survivor.pk, **moved},
    )
    trust_refresh_on_commit([source.pk, survivor.pk], include_coauthors=True)
    logger.info("researcher %s merged into %s: %s", source.pk, survivor.pk, moved)
    return survivor


# --- profile editing and split requests ------------------------------------------------------


def _require_claimant(*, researcher: Researcher, user: Any) -> None:
    if not (
        user.is_authenticated
        and researcher.claimed_by_id == user.pk
        and Claim.objects.filter(
            researcher=researcher, user=user, status=ClaimStatus.APPROVED
        ).exists()
    ):
        raise ClaimError("Only the approved claimant can do this.")


@transaction.atomic
def researcher_profile_update(
    *,
    researcher: Researcher,
    user: Any,
    tagline: str,
    homepage: str,
    links: Sequence[dict[str, str]],
    open_to_collaborate: bool,
) -> Researcher:
    """The approved claimant edits the parts of the profile that are theirs to say."""
    researcher = _lock_researcher(researcher.pk)
    _require_claimant(researcher=researcher, user=user)
    researcher.tagline = tagline.strip()[:300]
    researcher.homepage = homepage.strip()
    researcher.links = [{"label": link["label"], "url": link["url"]} for link in links]
    researcher.open_to_collaborate = open_to_collaborate
    researcher.save(
        update_fields=["tagline", "homepage", "links", "open_to_collaborate", "updated_at"]
    )
    return researcher


@transaction.atomic
def split_request_submit(
    *, user: Any, researcher: Researcher, work: Work, note: str = ""
) -> SplitRequest:
    """The claimant flags a work on their record as not theirs; a moderator decides."""
    _require_claimant(researcher=researcher, user=user)
    if not Authorship.objects.filter(researcher=researcher, work=work).exists():
        raise ClaimError("This work is not on your record.")
    existing = SplitRequest.objects.filter(
        researcher=researcher, work=work, status=SplitRequestStatus.OPEN
    ).first()
    if existing:
        return existing
    rate_limit_check(action="split_request", key=f"user:{user.pk}")
    split_request = SplitRequest.objects.create(
        researcher=researcher, work=work, requested_by=user, note=note.strip()[:500]
    )
    audit(
        action=ModerationAction.SPLIT_REQUESTED,
        actor=user,
        researcher=researcher,
        reason=note,
        details={"work": work.pk, "split_request": split_request.pk},
    )
    return split_request


@transaction.atomic
def split_request_resolve(
    *, split_request: SplitRequest, moderator: Any, accept: bool, note: str = ""
) -> SplitRequest:
    """Accepting detaches the work from the record (the byline keeps the raw name, with no
    researcher), then refreshes the record's counts and trust."""
    split_request = SplitRequest.objects.select_for_update().get(pk=split_request.pk)
    if split_request.status != SplitRequestStatus.OPEN:
        raise ClaimError("This request is already resolved.")
    researcher = _lock_researcher(split_request.researcher_id)
    detached = 0
    if accept:
        detached = Authorship.objects.filter(
            researcher=researcher, work_id=split_request.work_id
        ).update(researcher=None)
        researcher_metrics_refresh(researcher_ids=[researcher.pk])
        coauthor_edges_schedule(researcher_ids=[researcher.pk], include_coauthors=True)
        trust_refresh_on_commit([researcher.pk], include_coauthors=False)
    split_request.status = SplitRequestStatus.ACCEPTED if accept else SplitRequestStatus.DISMISSED
    split_request.resolved_by = moderator
    split_request.resolved_at = timezone.now()
    split_request.save()
    audit(
        action=ModerationAction.SPLIT_ACCEPTED if accept else ModerationAction.SPLIT_DISMISSED,
        actor=moderator,
        researcher=researcher,
        reason=note,
        details={"work": split_request.work_id, "authorships_detached": detached},
    )
    notification_create(
        user=split_request.requested_by,
        kind=f"split_{split_request.status}",
        subject=f"Your request about a work on {researcher.display_name}",
        message=(
            "A moderator detached the work from your record."
            if accept
            else f"A moderator kept the work on your record. {note}".strip()
        ),
        url=_profile_url(researcher),
    )
    return split_request
