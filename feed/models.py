"""Follows of topics and institutions, and each user's feed state.

Researcher follows stay in researchers.models.Follow (the profile's button came first); these
two mirror it: one row per (user, followed record) under a unique constraint, so a double
click inserts once and the followed record's followers_count (kept by feed.services with
set-based UPDATEs) stays exact. `muted` keeps a follow while leaving its works out of the feed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TopicFollow(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="topic_follows"
    )
    topic = models.ForeignKey(
        "publications.Topic", on_delete=models.CASCADE, related_name="follows"
    )
    muted = models.BooleanField(default=False, db_default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["user", "topic"], name="topic_follow_once")]
        indexes = [models.Index(fields=["topic"], name="topic_follow_topic_idx")]

    def __str__(self) -> str:
        return f"{self.user} follows topic {self.topic_id}"


class InstitutionFollow(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="institution_follows"
    )
    institution = models.ForeignKey(
        "researchers.Institution", on_delete=models.CASCADE, related_name="follows"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "institution"], name="institution_follow_once")
        ]
        indexes = [models.Index(fields=["institution"], name="institution_follow_inst_idx")]

    def __str__(self) -> str:
        return f"{self.user} follows institution {self.institution_id}"


class FeedState(models.Model):
    """The user's read watermark: works that arrived after read_through are new.

    "Mark all read" is one upsert of this row, whatever the number of items it covers.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="feed_state",
    )
    read_through = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user} read through {self.read_through:%Y-%m-%d %H:%M}"


class DigestPeriod(models.TextChoices):
    DAILY = "daily", "Daily"
    WEEKLY = "weekly", "Weekly"


class DigestDelivery(models.Model):
    """One user's email digest of one period: the exactly-once record (feed.services.digests).

    `period_key` names the period in the user's time zone (the local date of a daily digest,
    the ISO week of a weekly one: "2026-11-30", "2026-W49"); the unique constraint makes a
    second digest of the same period impossible, however many runs plan it. A run claims the
    row (`claimed_at`) before computing and sending, and sets `finished_at` right after; a row
    claimed and not finished for longer than settings.FEED_DIGEST_LEASE_SECONDS belongs to a
    run that died and is taken over by the next. The window (`window_start`, `window_end`] of
    arrivals is fixed when the row is planned, so a retried row sends the same works, and the
    next digest starts where this one ended.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digest_deliveries"
    )
    period = models.CharField(max_length=10, choices=DigestPeriod.choices)
    period_key = models.CharField(max_length=10)
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    created_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Whether an email went out (False: nothing new, no address, or turned off meanwhile), and
    # the number of works in the window (the email lists at most 50 of them).
    emailed = models.BooleanField(default=False, db_default=False)
    works_count = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "period", "period_key"], name="digest_delivery_once"
            )
        ]
        indexes = [
            # The previous digest's end, where the next window starts.
            models.Index(fields=["user", "window_end"], name="digest_delivery_user_end_idx"),
            # The rows still to send: few, whatever the table's size.
            models.Index(
                fields=["period", "id"],
                name="digest_delivery_pending_idx",
                condition=models.Q(finished_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.period} digest {self.period_key} of user {self.user_id}"
