"""Notifications in the admin: what members were told, read-only (services write them)."""

from __future__ import annotations

from django.contrib import admin

from bzpeer.admin import ReadOnlyAdminMixin
from claims.models import Notification


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "user", "kind", "subject", "read_at", "emailed_at")
    list_select_related = ("user",)
    list_filter = ("kind",)
    search_fields = ("user__email", "subject")
    readonly_fields = (
        "user",
        "kind",
        "subject",
        "message",
        "url",
        "created_at",
        "read_at",
        "emailed_at",
    )
    # Staff holding the model's delete permission may still delete a notification.
    deletable_by = "delete permission"
