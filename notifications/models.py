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
    "off". `emailed_at` is set once, by a conditional UPDATE, by whoever sends it: the
    immediate email's task, or the daily digest's delivery when it finishes.
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
    # The daily digest that carries it (DAILY only): bound when that digest's delivery is first
    # claimed, so a digest taken over after its run died sends the same notifications and no
    # other digest takes them. No database constraint: finished deliveries are pruned after
    # two months, when every notification they carried has long had its emailed_at.
    digest_delivery = models.ForeignKey(
        "DigestDelivery",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,  # notification_carried_idx, partial, instead
        related_name="+",
    )

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
            # What a claimed, unfinished digest carries: a few rows, whatever the table's size.
            models.Index(
                fields=["digest_delivery"],
                name="notification_carried_idx",
                condition=Q(digest_delivery__isnull=False, emailed_at__isnull=True),
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


class DigestPeriod(models.TextChoices):
    DAILY = "daily", "Daily"
    WEEKLY = "weekly", "Weekly"


class DigestDelivery(models.Model):
    """One user's email digest of one period: the exactly-once record of both digests
    (notifications.services.deliveries plans, claims, sends and finishes it).

    `category` says which digest: kinds.DAILY_DIGEST_SCOPE for the daily digest of
    notifications, NotificationCategory.DIGEST for the feed's digest of new works.
    `period_key` names the period (the feed's: in the user's time zone, the local date of a
    daily digest or the ISO week of a weekly one, "2026-11-30", "2026-W49"; the notifications'
    daily digest: the UTC date of the run); the unique constraint makes a second digest of the
    same category and period impossible, however many runs plan it. A run claims the row
    (`claimed_at`) before computing and sending, and sets `finished_at` right after; a row
    claimed and not finished for longer than settings.DIGEST_LEASE_SECONDS belongs to a run
    that died and is taken over by the next. The window (`window_start`, `window_end`] is
    fixed when the row is planned, so a retried row sends the same works (the feed's), or the
    same notifications (those bound to the row when it was first claimed, created by
    `window_end`), and the next digest starts where this one ended.

    The table is still feed_digestdelivery: the model moved here from the feed app (feed's
    migration 0004 and this app's 0003 moved it in Django's state only, keeping the rows).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digest_deliveries"
    )
    # A category or kinds.DAILY_DIGEST_SCOPE (the rows that predate the column were the feed's).
    category = models.CharField(max_length=30)
    period = models.CharField(max_length=10, choices=DigestPeriod.choices)
    period_key = models.CharField(max_length=10)
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    created_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Whether an email went out (False: nothing new, no address, or turned off meanwhile), and
    # the number of items in the window (works, or notifications; an email lists at most 50).
    emailed = models.BooleanField(default=False, db_default=False)
    items_count = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        db_table = "feed_digestdelivery"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "category", "period", "period_key"], name="digest_delivery_once"
            )
        ]
        indexes = [
            # The previous digest's end, where the next window starts.
            models.Index(
                fields=["user", "category", "window_end"], name="digest_delivery_user_end_idx"
            ),
            # The rows still to send: few, whatever the table's size.
            models.Index(
                fields=["category", "period", "id"],
                name="digest_delivery_pending_idx",
                condition=models.Q(finished_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.category} {self.period} digest {self.period_key} of user {self.user_id}"

    @property
    def works_count(self) -> int:
        """The feed's name for items_count: the works of a feed digest's window."""
        return self.items_count
