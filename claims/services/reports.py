"""Disputes: a member reports a claimed profile as impersonation; a moderator resolves it."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from bzpeer.users.models import User
from claims.models import Claim, ClaimStatus, ModerationAction, Report, ReportStatus
from claims.ratelimit import rate_limit_check
from notifications.kinds import NotificationCategory
from notifications.services import notification_create
from researchers.models import Researcher

from .audit import audit
from .decisions import claim_revoke
from .errors import ClaimError
from .links import profile_url
from .records import researcher_lock
from .trust_refresh import trust_refresh_on_commit


@transaction.atomic
def report_submit(*, reporter: User, researcher: Researcher, reason: str) -> Report:
    """Report a claimed profile as impersonation. The record's trust drops while it is open."""
    if not reason.strip():
        raise ClaimError("Say why you think this profile is an impersonation.")
    researcher = researcher_lock(researcher.pk)
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
def report_resolve(*, report: Report, moderator: User, uphold: bool, note: str) -> Report:
    """A moderator upholds a dispute (the disputed claim is revoked) or dismisses it."""
    if not note.strip():
        raise ClaimError("Write down the reason for the decision.")
    researcher = researcher_lock(report.researcher_id, keys_change=uphold)
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
        category=NotificationCategory.CLAIMS,
        kind=f"report_{report.status}",
        subject=f"Your report on {researcher.display_name} was {report.status}",
        message=f"A moderator {report.status} your report. Note: {report.resolution_note}",
        url=profile_url(researcher),
    )
    trust_refresh_on_commit([researcher.pk], include_coauthors=False)
    return report
