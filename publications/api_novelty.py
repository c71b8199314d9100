"""A work's novelty as the works API shows it (docs/novelty.md)."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from .models import NoveltyGap, WorkNovelty


class WorkNoveltyOutputSerializer(serializers.ModelSerializer):
    """A work's novelty (docs/novelty.md): the percentile within its field and year, or null with
    the reason the data is too thin (`gap`)."""

    gap_reason = serializers.SerializerMethodField()
    how_computed = serializers.SerializerMethodField()

    class Meta:
        model = WorkNovelty
        fields = [
            "percentile",
            "score",
            "new_pairs",
            "pairs",
            "references_held",
            "baseline_size",
            "gap",
            "gap_reason",
            "how_computed",
            "computed_at",
        ]
        read_only_fields = fields

    def get_gap_reason(self, novelty: WorkNovelty) -> str:
        return NoveltyGap(novelty.gap).label if novelty.gap else ""

    def get_how_computed(self, novelty: WorkNovelty) -> str:
        return reverse("publications:work-novelty", kwargs={"pk": novelty.work_id})
