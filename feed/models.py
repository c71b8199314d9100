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
