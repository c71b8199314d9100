"""What bzpeer knows of the meaning of the work: an embedding per work (title and abstract) and
per researcher (the mean of their works'), each with the model that made it.

A vector is stored as the raw bytes of a float32 array, L2-normalised, so a dot product is the
cosine; `discovery.vectors` turns bytes into arrays and back. A row whose model_name differs from
the configured model's is stale and is re-embedded in the background.
"""

from __future__ import annotations

from django.db import models


class WorkEmbedding(models.Model):
    # No database constraint: the writer's absorb and a moderator's merge delete a work in
    # set-based SQL and delete its derived rows first; a row whose work is gone is never read
    # (every read joins the work).
    work = models.OneToOneField(
        "publications.Work",
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="embedding",
    )
    model_name = models.CharField(max_length=200)
    # The text that was embedded, hashed: a changed title or abstract is embedded again.
    text_hash = models.BigIntegerField()
    dimensions = models.PositiveSmallIntegerField()
    vector = models.BinaryField()
    embedded_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["model_name"], name="work_embedding_model_idx")]

    def __str__(self) -> str:
        return f"embedding of work {self.work_id} ({self.model_name})"


class ResearcherEmbedding(models.Model):
    researcher = models.OneToOneField(
        "researchers.Researcher",
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="embedding",
    )
    model_name = models.CharField(max_length=200)
    # How many of the researcher's works the mean is taken over.
    works_count = models.PositiveIntegerField()
    dimensions = models.PositiveSmallIntegerField()
    vector = models.BinaryField()
    embedded_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"embedding of researcher {self.researcher_id} ({self.model_name})"


# The AI Score's models (issue 26, item 5) live beside these.
from .models_ai_score import (  # noqa: E402
    AiScoreModel,
    ResearcherAiScore,
    WorkAiForecast,
    ai_score_label,
)

__all__ = [
    "AiScoreModel",
    "ResearcherAiScore",
    "ResearcherEmbedding",
    "WorkAiForecast",
    "WorkEmbedding",
    "ai_score_label",
]
