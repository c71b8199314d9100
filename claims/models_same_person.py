"""The name resolver's traces that moderators look at (issue 15, item 7).

- SamePersonCandidate: "possibly the same person". The resolver (researchers.resolution) left a
  name without identifier on a new record, although an existing record had some evidence for
  it; a moderator merges the two (claims.services.researcher_merge) or keeps them apart. A pair
  is proposed once: kept apart, it stays kept apart (the pair is unique in either order).
- NameLink: the reasons the resolver gave when it did link a name to an existing record.

Rows are written by claims.services.same_person, the resolver's recorder (registered in
claims.apps), inside the import's transaction.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Greatest, Least
from django.utils import timezone


class SamePersonStatus(models.TextChoices):
    OPEN = "open", "Open"
    MERGED = "merged", "Merged"
    KEPT_APART = "kept_apart", "Kept apart"
    # One of the two records was merged into a third: nothing left to decide here.
    CLOSED = "closed", "Closed"


class SamePersonCandidate(models.Model):
    """A new record (`record`, made for a name on `mention_origin`:`mention_origin_id`) that
    may be the same person as an existing one (`candidate`), with the resolver's evidence."""

    record = models.ForeignKey("researchers.Researcher", on_delete=models.CASCADE, related_name="+")
    candidate = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(
        max_length=12, choices=SamePersonStatus.choices, default=SamePersonStatus.OPEN
    )
    score = models.FloatField(help_text="Signals (shared coauthors, institution) and name fit.")
    evidence = models.JSONField(default=dict, blank=True)
    mention_origin = models.CharField(max_length=20)
    mention_origin_id = models.CharField(max_length=400)
    mention_name = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name = "possibly the same person"
        verbose_name_plural = "possibly the same person"
        ordering = ["-score", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                Least("record", "candidate"),
                Greatest("record", "candidate"),
                name="same_person_pair_once",
            ),
            models.CheckConstraint(
                condition=~Q(record=F("candidate")), name="same_person_two_records"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "-score"], name="same_person_queue_idx"),
            models.Index(fields=["candidate"], name="same_person_candidate_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.mention_name} (#{self.record_id}) / #{self.candidate_id}"


class NameLink(models.Model):
    """Why a name without identifier on one source record was linked to an existing record."""

    origin = models.CharField(max_length=20)
    origin_id = models.CharField(max_length=400)
    name_key = models.CharField(max_length=500)
    display_name = models.CharField(max_length=500)
    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="+"
    )
    score = models.FloatField()
    evidence = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "name linked by the resolver"
        verbose_name_plural = "names linked by the resolver"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["origin", "origin_id", "name_key"], name="name_link_once"
            )
        ]
        indexes = [models.Index(fields=["researcher"], name="name_link_researcher_idx")]

    def __str__(self) -> str:
        return f"{self.display_name} on {self.origin}:{self.origin_id} -> #{self.researcher_id}"
