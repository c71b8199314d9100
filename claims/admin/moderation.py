"""Claims in the Django admin: every claim, and the moderation queue of pending ones.

Claims are never edited as forms: every field is read-only and decisions are admin actions
(approve at L3 or L4, reject or revoke with a reason through an intermediate page), usable in
bulk from the list or one at a time from a claim's page. They call claims.services, which
writes the audit log.
"""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib import admin
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from bzpeer.admin import ReadOnlyAdminMixin
from claims import services
from claims.models import (
    Claim,
    ClaimCheck,
    ClaimStatus,
    ModerationEvent,
    PendingClaim,
    Vouch,
)
from claims.services import user_connected_orcids
from researchers.models import Institution, VerificationLevel

from .decisions import reason_step, report_outcome


class CheckInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = ClaimCheck
    fields = ("kind", "outcome", "score", "detail", "checked_at")
    readonly_fields = fields


class VouchInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Vouch
    fields = ("voucher", "voucher_researcher", "note", "created_at")
    readonly_fields = fields


class ContestedFilter(admin.SimpleListFilter):
    title = "contested"
    parameter_name = "contested"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Another open claim on the record")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(contested=True)
        return queryset


@admin.register(Claim)
class ClaimAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Every claim, any status; the decisions are actions."""

    list_display = (
        "id",
        "researcher_link",
        "claimant",
        "status",
        "level",
        "checks_summary",
        "vouch_count",
        "contested",
        "waiting",
        "created_at",
    )
    list_display_links = ("id",)
    list_filter = ("status", "level", "approved_via", ContestedFilter)
    search_fields = ("=id", "user__email", "researcher__slug", "claimant_name")
    search_help_text = "A claim id, the claimant's email or name, or the record's slug."
    ordering = ("created_at", "id")
    list_select_related = ("researcher", "user")
    list_per_page = 50
    actions = ("approve_l3", "approve_l4", "reject_claims", "revoke_claims")
    decided_by_actions = True
    inlines = (CheckInline, VouchInline)
    change_form_template = "claims/admin/claim_change_form.html"
    fields = (
        "comparison",
        "status",
        "level",
        "approved_via",
        "moderation_note",
        "claimant_name",
        "statement",
        "evidence",
        "presented_email",
        "decided_by",
        "decided_at",
        "decision_reason",
        "history",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        others_open = Claim.objects.filter(
            researcher_id=OuterRef("researcher_id"), status=ClaimStatus.PENDING
        ).exclude(pk=OuterRef("pk"))
        return (
            super()
            .get_queryset(request)
            .annotate(
                vouch_total=Count("vouches", distinct=True),
                contested=Exists(others_open),
            )
            .prefetch_related("checks")
        )

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict | None = None,
    ) -> HttpResponse:
        decisions = []
        if self.has_change_permission(request):
            decisions = [
                ("approve_l3", "Approve at L3"),
                ("approve_l4", "Approve at L4"),
                ("reject_claims", "Reject…"),
            ]
        extra_context = {**(extra_context or {}), "decision_actions_pending": decisions}
        return super().change_view(request, object_id, form_url, extra_context)

    # -- columns ---------------------------------------------------------------------------

    @admin.display(description="record", ordering="researcher__display_name")
    def researcher_link(self, claim: Claim) -> str:
        url = reverse("admin:researchers_researcher_change", args=[claim.researcher_id])
        return format_html('<a href="{}">{}</a>', url, claim.researcher.display_name)

    @admin.display(description="claimant", ordering="user__email")
    def claimant(self, claim: Claim) -> str:
        return f"{claim.claimant_name} <{claim.user.email}>"

    @admin.display(description="checks")
    def checks_summary(self, claim: Claim) -> SafeString:
        marks = {"passed": "✔", "failed": "✘", "n/a": "–"}
        return format_html_join(
            " ",
            '<span title="{}">{} {}</span>',
            (
                (check.detail, check.get_kind_display(), marks.get(check.outcome, "?"))
                for check in claim.checks.all()
            ),
        ) or format_html("<em>{}</em>", "running")

    @admin.display(description="vouches", ordering="vouch_total")
    def vouch_count(self, claim: Claim) -> int:
        return claim.vouch_total

    @admin.display(description="contested", boolean=True, ordering="contested")
    def contested(self, claim: Claim) -> bool:
        return claim.contested

    @admin.display(description="waiting")
    def waiting(self, claim: Claim) -> str:
        if claim.status != ClaimStatus.PENDING:
            return "-"
        days = (timezone.now() - claim.created_at).days
        return f"{days} day{'s' if days != 1 else ''}"

    # -- the change page -------------------------------------------------------------------

    @admin.display(description="evidence links")
    def evidence(self, claim: Claim) -> SafeString:
        if not claim.evidence_links:
            return format_html("<em>{}</em>", "none")
        return format_html_join(
            mark_safe("<br>"),  # noqa: S308
            '<a href="{}" rel="noopener noreferrer nofollow" target="_blank">{}</a>',
            ((link, link) for link in claim.evidence_links),
        )

    @admin.display(description="claimant and record, side by side")
    def comparison(self, claim: Claim) -> SafeString:
        researcher = claim.researcher
        institution_ids = set(researcher.affiliations.values_list("institution_id", flat=True))
        if researcher.last_known_institution_id:
            institution_ids.add(researcher.last_known_institution_id)
        context = {
            "claim": claim,
            "user": claim.user,
            "emails": EmailAddress.objects.filter(user=claim.user).order_by("-primary"),
            "orcids": user_connected_orcids(claim.user),
            "researcher": researcher,
            "institutions": Institution.objects.filter(id__in=institution_ids),
            "other_claims": Claim.objects.filter(researcher=researcher)
            .exclude(pk=claim.pk)
            .select_related("user"),
            "user_other_claims": Claim.objects.filter(user=claim.user)
            .exclude(pk=claim.pk)
            .select_related("researcher"),
        }
        return render_to_string("claims/admin/_claim_comparison.html", context)

    @admin.display(description="audit log of this claim")
    def history(self, claim: Claim) -> SafeString:
        events = ModerationEvent.objects.filter(claim_id=claim.pk).order_by("created_at", "id")
        return format_html_join(
            mark_safe("<br>"),  # noqa: S308
            "{} · {} · {} {}",
            (
                (
                    f"{event.created_at:%Y-%m-%d %H:%M}",
                    event.actor_label,
                    event.get_action_display(),
                    f"— {event.reason}" if event.reason else "",
                )
                for event in events
            ),
        )

    # -- actions ---------------------------------------------------------------------------

    def _approve(self, request: HttpRequest, queryset: QuerySet, level: int) -> None:
        done, refused = services.claims_bulk_decide(
            claims=list(queryset), moderator=request.user, approve=True, level=level
        )
        report_outcome(self, request, done, refused, f"claim(s) approved at L{level}")

    @admin.action(description="Approve at L3 (corroborated)", permissions=["change"])
    def approve_l3(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._approve(request, queryset, VerificationLevel.CORROBORATED)

    @admin.action(description="Approve at L4 (verified by a moderator)", permissions=["change"])
    def approve_l4(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._approve(request, queryset, VerificationLevel.MODERATOR_VERIFIED)

    @admin.action(description="Reject, with a reason", permissions=["change"])
    def reject_claims(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        reason, page = reason_step(
            self,
            request,
            queryset,
            title="Reject claims",
            action="reject_claims",
            button="Reject",
            help_text="The claimant sees this reason.",
        )
        if page:
            return page
        done, refused = services.claims_bulk_decide(
            claims=list(queryset), moderator=request.user, approve=False, reason=reason
        )
        report_outcome(self, request, done, refused, "claim(s) rejected")
        return None

    @admin.action(description="Revoke approved claims, with a reason", permissions=["change"])
    def revoke_claims(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        reason, page = reason_step(
            self,
            request,
            queryset,
            title="Revoke approved claims",
            action="revoke_claims",
            button="Revoke",
            help_text="The claimant sees this reason. The record becomes unclaimed again.",
        )
        if page:
            return page
        done, refused = 0, []
        for claim in queryset:
            try:
                services.claim_revoke(claim=claim, moderator=request.user, reason=reason)
                done += 1
            except services.ClaimError as error:
                refused.append(f"Claim #{claim.pk}: {error}")
        report_outcome(self, request, done, refused, "claim(s) revoked")
        return None


@admin.register(PendingClaim)
class PendingClaimAdmin(ClaimAdmin):
    """The moderation queue: pending claims only, oldest first."""

    actions = ("approve_l3", "approve_l4", "reject_claims")
    list_filter = ("level", ContestedFilter)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).filter(status=ClaimStatus.PENDING)
