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


class SimilarResearcher(models.Model):
    """One of a researcher's nearest researchers in meaning (their embeddings' cosine), with the
    reason shown on the profile: a topic both write about and the closest pair of their works.
    Precomputed in batches (discovery.services.similar); the profile's panel reads one row set."""

    researcher = models.ForeignKey(
        "researchers.Researcher",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="similar_researchers",
    )
    similar = models.ForeignKey(
        "researchers.Researcher",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    rank = models.PositiveSmallIntegerField()  # 1 is the closest
    score = models.FloatField()  # cosine of the two researchers' embeddings
    # The finest topic both have works in, the most of them (empty: none in common).
    shared_topic_name = models.CharField(max_length=500, blank=True)
    # The closest pair of works, one of each (never one work they share).
    researcher_work = models.ForeignKey(
        "publications.Work",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        null=True,
    )
    similar_work = models.ForeignKey(
        "publications.Work",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
        null=True,
    )
    model_name = models.CharField(max_length=200)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["researcher", "rank"], name="similar_researcher_rank"),
            models.UniqueConstraint(
                fields=["researcher", "similar"], name="similar_researcher_pair"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.similar_id} is close to {self.researcher_id} (#{self.rank})"


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
    "SimilarResearcher",
    "WorkAiForecast",
    "WorkEmbedding",
    "ai_score_label",
]
