from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models


class PendingFollowUp(models.Model):
    """The researchers one committed import batch touched, whose metrics, slice summaries and
    trust score are refreshed later, once for many batches (imports.services.follow_up).

    Written in the batch's own transaction, so a batch that commits is never forgotten and one
    that rolls back leaves nothing. One row per batch, with no unique key: two workers' batches
    that touch the same prolific researcher never wait for each other here.
    """

    researcher_ids = ArrayField(models.BigIntegerField())
    created_at = models.DateTimeField(auto_now_add=True)
    # A drain that took the row holds it until then; a drain that died lets it go at that time.
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["claimed_until", "id"], name="followup_claimable")]

    def __str__(self) -> str:
        return f"follow-up of {len(self.researcher_ids)} researchers (batch {self.pk})"
