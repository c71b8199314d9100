"""In-app notifications and each user's email delivery per category."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from .kinds import Delivery, NotificationCategory


class Notification(models.Model):
    """An in-app notice to a user (claim decisions, invitations, messages); maybe emailed too.

    `email_delivery` is how its email was to go when it was created (the user's choice for the
    category then): "immediately" (a task sends it), "daily" (the daily digest picks it up) or
    "off". `emailed_at` is set once, by a conditional UPDATE, by whoever sends it.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    category = models.CharField(max_length=30, choices=NotificationCategory.choices)
    kind = models.CharField(max_length=30)
    subject = models.CharField(max_length=200)
    message = models.TextField()
    url = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    email_delivery = models.CharField(max_length=20, default=Delivery.OFF)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_idx"),
            # The daily digest's work list: small, whatever the table's size.
            models.Index(
                fields=["user"],
                name="notification_digest_due_idx",
                condition=Q(email_delivery="daily", emailed_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"To {self.user_id}: {self.subject}"


class NotificationPreference(models.Model):
    """A user's delivery for one category. No row means the category's default
    (kinds.DEFAULT_DELIVERY). Both fields are plain strings, checked by the service against
    kinds.DELIVERIES_BY_CATEGORY, so a new category or delivery needs no schema change."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    category = models.CharField(max_length=30)
    delivery = models.CharField(max_length=20)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "category"], name="notification_preference_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.category} {self.delivery}"
