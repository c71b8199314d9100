"""Moderation of collaboration in the Django admin.

Staff read reported items and nothing else: the report queue shows the reported message's or
invitation's text and its author, never the rest of the conversation, and no admin is
registered for Message, Conversation or Invitation. The text is the copy the report took when
it was filed, so an author deleting the message (or their account) afterwards cannot take it
out of the queue. Decisions are admin actions that call
collaboration.services, which write the append-only audit log.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.http import HttpRequest, HttpResponse

from bzpeer.admin import ReadOnlyAdminMixin, SetOrEmptyFilter
from bzpeer.errors import ServiceError
from claims.admin.decisions import reason_step, report_outcome
from collaboration import services
from collaboration.models import CollaborationReport, CollaborationSettings, ReportStatus

EMPTY = "—"


def _person(user: Any, record: Any = None) -> str:
    if user is None:
        return "Deleted researcher"
    name = record.display_name if record is not None else ""
    return f"{name} <{user.email}> (user #{user.pk})" if name else f"{user.email} (user #{user.pk})"


@admin.register(CollaborationReport)
class CollaborationReportAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The queue: open reports first, oldest first; each shows the reported text and its
    author only."""

    list_display = ("id", "item", "reported", "status", "short_reason", "created_at")
    list_filter = ("status",)
    list_select_related = ("reported_user", "reporter")
    search_fields = ("=id", "reported_user__email")
    # The queue: open reports first, then the oldest.
    ordering = (
        Case(
            When(status=ReportStatus.OPEN, then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        ).asc(),
        "created_at",
        "id",
    )
    actions = ("hide_message", "suspend_author", "dismiss")
    decided_by_actions = True
    fields = (
        "item",
        "text_reported",
        "author_when_reported",
        "reported",
        "reported_item_state",
        "reporter_label",
        "reason",
        "status",
        "handled_by",
        "handled_at",
        "created_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[CollaborationReport]:
        return (
            super()
            .get_queryset(request)
            .select_related(
                "reported_user__researcher", "reporter", "handled_by", "message", "invitation"
            )
        )

    @admin.display(description="Reported")
    def item(self, report: CollaborationReport) -> str:
        if report.message_id:
            return f"Message #{report.message_id}"
        if report.invitation_id:
            return f"Invitation #{report.invitation_id}"
        return "(gone)"

    @admin.display(description="Text reported (as it was when reported)")
    def text_reported(self, report: CollaborationReport) -> str:
        return report.reported_text or EMPTY

    @admin.display(description="Written by (when reported)")
    def author_when_reported(self, report: CollaborationReport) -> str:
        return report.reported_author_label or EMPTY

    @admin.display(description="State of the item")
    def reported_item_state(self, report: CollaborationReport) -> str:
        if report.message is not None:
            if report.message.hidden_at:
                return f"Hidden on {report.message.hidden_at:%Y-%m-%d %H:%M}"
            if report.message.deleted_at:
                return f"Deleted by its author on {report.message.deleted_at:%Y-%m-%d %H:%M}"
            return "Visible"
        if report.invitation is not None:
            return report.invitation.get_status_display()
        return EMPTY

    @admin.display(description="Author")
    def reported(self, report: CollaborationReport) -> str:
        user = report.reported_user
        return _person(user, getattr(user, "researcher", None) if user else None)

    @admin.display(description="Reporter")
    def reporter_label(self, report: CollaborationReport) -> str:
        return _person(report.reporter)

    @admin.display(description="Reason")
    def short_reason(self, report: CollaborationReport) -> str:
        return report.reason if len(report.reason) <= 80 else report.reason[:79] + "…"

    @admin.action(description="Hide the message", permissions=["change"])
    def hide_message(self, request: HttpRequest, queryset: QuerySet) -> None:
        done, refused = 0, []
        for report in queryset:
            try:
                services.message_hide(moderator=request.user, report_id=report.pk)
                done += 1
            except ServiceError as error:
                refused.append(f"Report #{report.pk}: {error.message}")
        report_outcome(self, request, done, refused, "message(s) hidden")

    @admin.action(description="Suspend the author's messaging", permissions=["change"])
    def suspend_author(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        reason, page = reason_step(
            self,
            request,
            queryset,
            title="Suspend the authors' messaging",
            action="suspend_author",
            button="Suspend",
            help_text="Kept in the audit log; they can no longer send invitations or messages.",
        )
        if page:
            return page
        done, refused = 0, []
        for report in queryset:
            if report.reported_user_id is None:
                refused.append(f"Report #{report.pk}: the author deleted their account.")
                continue
            try:
                services.messaging_suspend(
                    moderator=request.user,
                    user_id=report.reported_user_id,
                    reason=reason or "",
                    report_id=report.pk,
                )
                done += 1
            except ServiceError as error:
                refused.append(f"Report #{report.pk}: {error.message}")
        report_outcome(self, request, done, refused, "author(s) suspended")
        return None

    @admin.action(description="Dismiss", permissions=["change"])
    def dismiss(self, request: HttpRequest, queryset: QuerySet) -> None:
        done, refused = 0, []
        for report in queryset:
            try:
                services.report_dismiss(moderator=request.user, report_id=report.pk)
                done += 1
            except ServiceError as error:
                refused.append(f"Report #{report.pk}: {error.message}")
        report_outcome(self, request, done, refused, "report(s) dismissed")


class FlaggedFilter(SetOrEmptyFilter):
    title = "flagged (five reports or blocks)"
    set_label = "Flagged"
    empty_label = "Not flagged"


class SuspendedFilter(SetOrEmptyFilter):
    title = "messaging"
    set_label = "Suspended"
    empty_label = "Allowed"


@admin.register(CollaborationSettings)
class CollaborationSettingsAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Users' collaboration standing: who was flagged, who is suspended; no message content."""

    list_display = (
        "user",
        "who_may_invite",
        "flagged_at",
        "messaging_suspended_at",
        "messaging_suspended_reason",
    )
    list_filter = (("flagged_at", FlaggedFilter), ("messaging_suspended_at", SuspendedFilter))
    list_select_related = ("user",)
    search_fields = ("user__email",)
    ordering = ("-flagged_at", "user_id")
    actions = ("suspend", "restore")
    decided_by_actions = True
    fields = list_display
    readonly_fields = fields

    @admin.action(description="Suspend messaging", permissions=["change"])
    def suspend(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        reason, page = reason_step(
            self,
            request,
            queryset,
            title="Suspend messaging",
            action="suspend",
            button="Suspend",
            help_text="Kept in the audit log; they can no longer send invitations or messages.",
        )
        if page:
            return page
        for row in queryset:
            services.messaging_suspend(
                moderator=request.user, user_id=row.user_id, reason=reason or ""
            )
        report_outcome(self, request, queryset.count(), [], "user(s) suspended")
        return None

    @admin.action(description="Restore messaging", permissions=["change"])
    def restore(self, request: HttpRequest, queryset: QuerySet) -> None:
        for row in queryset:
            services.messaging_restore(moderator=request.user, user_id=row.user_id)
        report_outcome(self, request, queryset.count(), [], "user(s) restored")
