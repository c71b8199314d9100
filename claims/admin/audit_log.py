"""The audit log in the admin: every moderation event, read-only for everyone."""

from __future__ import annotations

from django.contrib import admin

from bzpeer.admin import ReadOnlyAdminMixin
from claims.models import ModerationEvent


@admin.register(ModerationEvent)
class ModerationEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The audit log: read-only for everyone (the database refuses changes anyway)."""

    list_display = ("created_at", "actor_label", "action", "claim_id", "researcher_id", "reason")
    list_filter = ("action",)
    search_fields = ("=claim__id", "actor_label", "reason")
    search_help_text = "A claim id, part of the actor's email, or part of the reason."
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "actor_label",
        "action",
        "claim_id",
        "researcher_id",
        "report_id",
        "reason",
        "details",
    )
    readonly_fields = fields
