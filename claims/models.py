"""Claims on researcher records, their automatic checks, vouches, disputes, split requests and
the moderation audit log (the notifications they send live in the notifications app).

The rules that must hold under concurrency live here as database constraints: a record has at
most one approved claimant, a user holds at most one approved record and at most one open
claim per record, and the audit log cannot be changed or deleted (a trigger, see migration
0002). Workflows live in claims/services.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from researchers.models import VerificationLevel

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from bzpeer.users.models import User


class ClaimStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    REVOKED = "revoked", "Revoked"


class ApprovalRoute(models.TextChoices):
    ORCID = "orcid", "ORCID iD match"
    INSTITUTION_EMAIL = "institution_email", "Institution email"
    VOUCHES = "vouches", "Coauthor vouches"
    MODERATOR = "moderator", "Moderator"


class ClaimQuerySet(models.QuerySet):
    def visible_to(self, user: User | AnonymousUser) -> ClaimQuerySet:
        """Claims a signed-in user may see on the site: their own, nobody else's."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(user=user)

    def open(self) -> ClaimQuerySet:
        return self.filter(status=ClaimStatus.PENDING)


class Claim(models.Model):
    """A user's request to be recognised as the person behind a researcher record.

    `level` is the verification level the claim carries: L2 while it waits, L3 once corroborated
    automatically, L3 or L4 when a moderator approves it. The record itself takes the level of
    its approved claim only: a pending claim never raises a record's public standing, so a spam
    claim earns nothing.
    """

    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.PROTECT, related_name="claims"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="claims"
    )
    status = models.CharField(
        max_length=10, choices=ClaimStatus.choices, default=ClaimStatus.PENDING
    )
    level = models.PositiveSmallIntegerField(
        choices=VerificationLevel.choices, default=VerificationLevel.CLAIMED
    )
    claimant_name = models.CharField(
        max_length=200, help_text="The name the claimant publishes under."
    )
    statement = models.TextField(max_length=2000)
    evidence_links = models.JSONField(default=list, blank=True)
    presented_email = models.EmailField(
        help_text="The verified email the claimant chose to present as evidence."
    )
    approved_via = models.CharField(max_length=20, choices=ApprovalRoute.choices, blank=True)
    moderation_note = models.CharField(
        max_length=300,
        blank=True,
        help_text="Why the automatic checks left this claim to a moderator.",
    )
    checks_completed_at = models.DateTimeField(null=True, blank=True)
    # Set by a vouch, in its transaction, and cleared by the checks that saw it: while set, the
    # claim is owed a re-check (claims.services.checks_queue sweeps those whose message was lost).
    recheck_requested_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="claims_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(
        blank=True, help_text="Shown to the claimant with a rejection or a revocation."
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ClaimQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["researcher"],
                condition=Q(status="approved"),
                name="claim_one_approved_claimant_per_record",
                violation_error_message="This record already has an approved claimant.",
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(status="approved"),
                name="claim_one_approved_record_per_user",
                violation_error_message="This user already holds an approved record.",
            ),
            models.UniqueConstraint(
                fields=["user", "researcher"],
                condition=Q(status="pending"),
                name="claim_one_open_claim_per_user_and_record",
                violation_error_message="This user already has an open claim on this record.",
            ),
            models.CheckConstraint(
                condition=Q(level__gte=2, level__lte=4), name="claim_level_between_2_and_4"
            ),
            models.CheckConstraint(
                condition=~Q(status="approved") | Q(level__gte=3),
                name="claim_approved_at_level_3_or_4",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="claim_queue_idx")]

    def __str__(self) -> str:
        return f"Claim #{self.pk} on {self.researcher_id} by {self.user_id} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status == ClaimStatus.PENDING


class PendingClaim(Claim):
    """The moderation queue in the admin: pending claims, oldest first (a proxy of Claim)."""

    class Meta:
        proxy = True
        verbose_name = "pending claim (moderation queue)"
        verbose_name_plural = "pending claims (moderation queue)"


class CheckKind(models.TextChoices):
    ORCID = "orcid", "ORCID match"
    INSTITUTION_EMAIL = "institution_email", "Institution email"
    NAME = "name", "Name match"
    VOUCHES = "vouches", "Coauthor vouches"


class CheckOutcome(models.TextChoices):
    PASSED = "passed", "Passed"
    FAILED = "failed", "Not matched"
    NOT_APPLICABLE = "n/a", "Not applicable"


class ClaimCheck(models.Model):
    """The stored result of one automatic check of a claim; rerunning a check replaces it."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="checks")
    kind = models.CharField(max_length=20, choices=CheckKind.choices)
    outcome = models.CharField(max_length=10, choices=CheckOutcome.choices)
    score = models.FloatField(null=True, blank=True)
    detail = models.CharField(max_length=500, blank=True)
    checked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["claim", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["claim", "kind"], name="claim_check_once_per_kind")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.get_outcome_display()}"

    @property
    def passed(self) -> bool:
        return self.outcome == CheckOutcome.PASSED


class Vouch(models.Model):
    """A verified coauthor (L3 or L4) stands behind a pending claim."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="vouches")
    voucher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vouches_given"
    )
    voucher_researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="vouches_given"
    )
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at"]
        verbose_name_plural = "vouches"
        constraints = [
            models.UniqueConstraint(fields=["claim", "voucher"], name="vouch_once_per_claim")
        ]
        indexes = [models.Index(fields=["voucher", "created_at"], name="vouch_voucher_idx")]

    def __str__(self) -> str:
        return f"{self.voucher} vouches for claim #{self.claim_id}"


class ReportStatus(models.TextChoices):
    OPEN = "open", "Open"
    UPHELD = "upheld", "Upheld (claim revoked)"
    DISMISSED = "dismissed", "Dismissed"


class Report(models.Model):
    """A dispute: someone reports a claimed profile as impersonation. While open, it shows on
    the profile and lowers the record's trust score."""

    class Kind(models.TextChoices):
        IMPERSONATION = "impersonation", "Impersonation"

    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.PROTECT, related_name="reports"
    )
    claim = models.ForeignKey(
        Claim, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_filed"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.IMPERSONATION)
    reason = models.TextField(max_length=2000)
    status = models.CharField(max_length=10, choices=ReportStatus.choices, default="open")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_resolved",
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution_note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = "dispute"
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "researcher"],
                condition=Q(status="open"),
                name="report_one_open_per_reporter_and_record",
            )
        ]
        indexes = [models.Index(fields=["researcher", "status"], name="report_researcher_idx")]

    def __str__(self) -> str:
        return f"Dispute #{self.pk} on {self.researcher_id} ({self.status})"


class SplitRequestStatus(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted (work detached)"
    DISMISSED = "dismissed", "Dismissed"


class SplitRequest(models.Model):
    """The claimant says a work on their record is not theirs (a namesake's): a moderator
    detaches it from the record or dismisses the request."""

    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="split_requests"
    )
    work = models.ForeignKey(
        "publications.Work", on_delete=models.CASCADE, related_name="split_requests"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="split_requests"
    )
    note = models.CharField(max_length=500, blank=True)
    status = models.CharField(
        max_length=10, choices=SplitRequestStatus.choices, default=SplitRequestStatus.OPEN
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="split_requests_resolved",
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["researcher", "work"],
                condition=Q(status="open"),
                name="split_request_one_open_per_work",
            )
        ]

    def __str__(self) -> str:
        return f"Split request #{self.pk}: work {self.work_id} off {self.researcher_id}"


class OrcidImportRequest(models.Model):
    """An import of a claimant's ORCID record that is owed: written in the approval's or the
    refresh's transaction, and deleted by the import's task (ingest) in the transaction that
    creates the import run, which owes the import from then on. A request whose task message
    was lost is still here, and claims.services.orcid_import sends it again."""

    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="+"
    )
    orcid = models.CharField(max_length=19)
    # When its task was last queued; the sweep moves it when it queues the task again.
    queued_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"import of ORCID {self.orcid} (researcher {self.researcher_id})"


class ModerationAction(models.TextChoices):
    CLAIM_SUBMITTED = "claim_submitted", "Claim submitted"
    CLAIM_CHECKED = "claim_checked", "Automatic checks run"
    CLAIM_AUTO_APPROVED = "claim_auto_approved", "Claim approved automatically"
    CLAIM_APPROVED = "claim_approved", "Claim approved"
    CLAIM_REJECTED = "claim_rejected", "Claim rejected"
    CLAIM_REVOKED = "claim_revoked", "Claim revoked"
    CLAIM_WITHDRAWN = "claim_withdrawn", "Claim withdrawn"
    VOUCH_ADDED = "vouch_added", "Vouch added"
    REPORT_SUBMITTED = "report_submitted", "Dispute reported"
    REPORT_UPHELD = "report_upheld", "Dispute upheld"
    REPORT_DISMISSED = "report_dismissed", "Dispute dismissed"
    RESEARCHER_MERGED = "researcher_merged", "Records merged"
    SPLIT_REQUESTED = "split_requested", "Work flagged as not mine"
    SPLIT_ACCEPTED = "split_accepted", "Work detached from record"
    SPLIT_DISMISSED = "split_dismissed", "Split request dismissed"
    # Collaboration moderation and leaving (collaboration.services write these).
    COLLABORATION_REPORTED = "collab_reported", "Message or invitation reported"
    MESSAGE_HIDDEN = "message_hidden", "Message hidden"
    MESSAGING_SUSPENDED = "messaging_suspended", "Messaging suspended"
    MESSAGING_RESTORED = "messaging_restored", "Messaging restored"
    COLLABORATION_REPORT_DISMISSED = "collab_report_dismissed", "Collaboration report dismissed"
    USER_FLAGGED = "user_flagged", "User flagged (five reports or blocks)"
    ACCOUNT_DELETED = "account_deleted", "Account deleted"
    # "Possibly the same person" (claims.services.same_person); a merge is RESEARCHER_MERGED.
    SAME_PERSON_KEPT_APART = "same_person_kept_apart", "Kept apart (not the same person)"


def _loose_fk(model: str, related_name: str) -> models.ForeignKey:
    # The audit log outlives what it mentions: no database constraint and nothing done on
    # delete, so deleting a user or a claim never has to touch (and cannot alter) a log row.
    return models.ForeignKey(
        model,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name=related_name,
    )


class ModerationEvent(models.Model):
    """One line of the append-only audit log: who did what, when, to what, and why.

    Rows are only ever inserted. A trigger (migration 0002) refuses UPDATE and DELETE, so not
    even a superuser in the admin or a shell can rewrite history.
    """

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = _loose_fk(settings.AUTH_USER_MODEL, "+")
    actor_label = models.CharField(
        max_length=300, help_text="Who acted, as they were at the time; 'system' for automation."
    )
    action = models.CharField(max_length=30, choices=ModerationAction.choices)
    claim = _loose_fk("claims.Claim", "events")
    researcher = _loose_fk("researchers.Researcher", "+")
    report = _loose_fk("claims.Report", "events")
    reason = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "audit log entry"
        verbose_name_plural = "audit log"
        indexes = [models.Index(fields=["claim", "created_at"], name="event_claim_idx")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label}: {self.get_action_display()}"


# The name resolver's moderation queue and link reasons, in a module of their own.
from .models_same_person import NameLink as NameLink  # noqa: E402
from .models_same_person import SamePersonCandidate as SamePersonCandidate  # noqa: E402
from .models_same_person import SamePersonStatus as SamePersonStatus  # noqa: E402
