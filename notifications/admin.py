"""Notifications in the admin: what members were told, read-only (services write them); and
members' email choices, read-only too (members change them themselves)."""

from __future__ import annotations

from django.contrib import admin

from bzpeer.admin import ReadOnlyAdminMixin

from .models import Notification, NotificationPreference


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "created_at",
        "user",
        "category",
        "kind",
        "subject",
        "read_at",
        "email_delivery",
        "emailed_at",
    )
    list_select_related = ("user",)
    list_filter = ("category", "kind", "email_delivery")
    search_fields = ("user__email", "subject")
    readonly_fields = (
        "user",
        "category",
        "kind",
        "subject",
        "message",
        "url",
        "created_at",
        "read_at",
        "email_delivery",
        "emailed_at",
        # The daily digest that carried it (empty once that delivery was pruned).
        "digest_delivery",
    )
    # Staff holding the model's delete permission may still delete a notification.
    deletable_by = "delete permission"


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("user", "category", "delivery", "updated_at")
    list_select_related = ("user",)
    list_filter = ("category", "delivery")
    search_fields = ("user__email",)
    readonly_fields = ("user", "category", "delivery", "updated_at")
