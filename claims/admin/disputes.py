"""Disputes in the admin: impersonation reports on claimed records, upheld or dismissed."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from bzpeer.admin import ReadOnlyAdminMixin
from claims import services
from claims.models import Report

from .decisions import reason_step, report_outcome


@admin.register(Report)
class ReportAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Disputes: impersonation reports on claimed profiles, oldest first (filter on Open)."""

    list_display = ("id", "researcher", "reporter", "status", "short_reason", "created_at")
    list_select_related = ("researcher", "reporter")
    list_filter = ("status",)
    search_fields = ("=id", "researcher__slug", "reporter__email")
    ordering = ("created_at",)
    actions = ("uphold", "dismiss")
    decided_by_actions = True
    fields = (
        "researcher",
        "claim",
        "reporter",
        "kind",
        "reason",
        "status",
        "resolved_by",
        "resolved_at",
        "resolution_note",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="reason")
    def short_reason(self, report: Report) -> str:
        return report.reason[:120]

    def _resolve(
        self, request: HttpRequest, queryset: QuerySet, *, uphold: bool
    ) -> HttpResponse | None:
        reason, page = reason_step(
            self,
            request,
            queryset,
            title="Uphold disputes (revokes the claim)" if uphold else "Dismiss disputes",
            action="uphold" if uphold else "dismiss",
            button="Uphold" if uphold else "Dismiss",
            help_text="The reporter sees this note; an upheld dispute revokes the claim.",
        )
        if page:
            return page
        done, refused = 0, []
        for report in queryset:
            try:
                services.report_resolve(
                    report=report, moderator=request.user, uphold=uphold, note=reason
                )
                done += 1
            except services.ClaimError as error:
                refused.append(f"Dispute #{report.pk}: {error}")
        report_outcome(
            self, request, done, refused, "dispute(s) " + ("upheld" if uphold else "dismissed")
        )
        return None

    @admin.action(description="Uphold (revoke the claim), with a note", permissions=["change"])
    def uphold(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._resolve(request, queryset, uphold=True)

    @admin.action(description="Dismiss, with a note", permissions=["change"])
    def dismiss(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._resolve(request, queryset, uphold=False)
