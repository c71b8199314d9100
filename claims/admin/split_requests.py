"""Split requests in the admin: works a claimant flagged as not theirs, accepted or dismissed."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from bzpeer.admin import ReadOnlyAdminMixin
from claims import services
from claims.models import SplitRequest, SplitRequestStatus

from .decisions import report_outcome


@admin.register(SplitRequest)
class SplitRequestAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Works a claimant flagged as not theirs: accept detaches the work from the record."""

    list_display = ("id", "researcher", "work", "requested_by", "status", "created_at")
    list_select_related = ("researcher", "work", "requested_by")
    list_filter = ("status",)
    ordering = ("created_at",)
    actions = ("accept", "dismiss")
    decided_by_actions = True
    fields = (
        "researcher",
        "work",
        "requested_by",
        "note",
        "status",
        "resolved_by",
        "resolved_at",
        "created_at",
    )
    readonly_fields = fields

    def _resolve(self, request: HttpRequest, queryset: QuerySet, *, accept: bool) -> None:
        done, refused = 0, []
        for split_request in queryset.filter(status=SplitRequestStatus.OPEN):
            try:
                services.split_request_resolve(
                    split_request=split_request, moderator=request.user, accept=accept
                )
                done += 1
            except services.ClaimError as error:
                refused.append(f"Request #{split_request.pk}: {error}")
        report_outcome(
            self, request, done, refused, "request(s) " + ("accepted" if accept else "dismissed")
        )

    @admin.action(description="Accept: detach the work from the record", permissions=["change"])
    def accept(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._resolve(request, queryset, accept=True)

    @admin.action(description="Dismiss: keep the work on the record", permissions=["change"])
    def dismiss(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._resolve(request, queryset, accept=False)
