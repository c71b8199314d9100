"""The AI Score (issue 26, item 5; docs/ai-score.md): a trained model of how works will be cited,
each work's forecast, and each researcher's score. Models of the discovery app (discovery.models
re-exports them). Derived data: every training run writes a model row, and the forecasts and
scores it implies replace the stored ones in one transaction."""

from __future__ import annotations

from django.db import models


class AiScoreModel(models.Model):
    """One training run of the AI Score's model: what it learned from, how it did on the later
    years it did not learn from, and the booster itself. A run with too little history stores
    a row without a booster (`gap` says why): the pages read the newest row."""

    version = models.PositiveIntegerField(unique=True)
    trained_at = models.DateTimeField()
    # The calendar year the run took as "now": a work needs publication_year + 3 <= as_of_year
    # to have its three first years of citations complete.
    as_of_year = models.PositiveSmallIntegerField()
    # Works with three complete years of citations (the model's whole history).
    labelled_works = models.PositiveIntegerField(default=0)
    minimum_works = models.PositiveIntegerField(default=0)
    # The back-test: learned on train_years, tested on the later test_years.
    training_size = models.PositiveIntegerField(default=0)
    backtest_size = models.PositiveIntegerField(default=0)
    train_first_year = models.PositiveSmallIntegerField(null=True)
    train_last_year = models.PositiveSmallIntegerField(null=True)
    test_first_year = models.PositiveSmallIntegerField(null=True)
    test_last_year = models.PositiveSmallIntegerField(null=True)
    # Spearman's rank correlation between forecast and actual three-year citations, back-test.
    spearman = models.FloatField(null=True)
    # The same for simple baselines in the same run: {"venue_record": 0.31, "team_size": 0.12}.
    baselines = models.JSONField(default=dict)
    # By decile of forecast percentile: [{"decile": 1, "works": n, "forecast": mean forecast
    # percentile, "actual": mean actual percentile}, ...] (back-test works).
    calibration = models.JSONField(default=list)
    feature_names = models.JSONField(default=list)
    # LightGBM's model text (Booster.model_to_string), and the text embedding's projection
    # fitted on the training works (float32 mean then components, as in discovery.ai_score).
    booster = models.BinaryField(null=True)
    projection = models.BinaryField(null=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    # Why there is no booster ("" when there is one).
    gap = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"AI Score model v{self.version}"

    @property
    def trained(self) -> bool:
        return self.booster is not None


class WorkAiForecast(models.Model):
    """A work's forecast: predicted citations in its first three years (log1p), the percentile
    of that forecast among the works of its field and year, and the inputs that moved it most."""

    # No database constraint, as WorkEmbedding's: the writer's absorb deletes works set-based;
    # every read joins the work.
    work = models.OneToOneField(
        "publications.Work",
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="ai_forecast",
    )
    model_version = models.PositiveIntegerField()
    publication_year = models.PositiveSmallIntegerField()
    field_id = models.BigIntegerField(null=True)
    forecast = models.FloatField()
    # Share of the other works of the field and year forecast lower (ties half), 0 to 100.
    percentile = models.FloatField(null=True)
    # The inputs that moved the forecast most, for the works of the last five years (those the
    # pages explain; [] for older ones): [[name, value, contribution], ...] (SHAP values
    # in log1p citations, LightGBM's pred_contrib), largest first.
    contributions = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"AI forecast of work {self.work_id}: {self.percentile}"


class ResearcherAiScore(models.Model):
    """A researcher's AI Score: the median forecast percentile of their works of the last five
    years, or none with the reason (`gap`)."""

    researcher = models.OneToOneField(
        "researchers.Researcher",
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="ai_score",
    )
    score = models.FloatField(null=True)
    works_counted = models.PositiveIntegerField(default=0)
    model_version = models.PositiveIntegerField(null=True)
    gap = models.CharField(max_length=300, blank=True)
    computed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"AI Score of researcher {self.researcher_id}: {self.score}"

    @property
    def label(self) -> str:
        return ai_score_label(self.score)


def ai_score_label(score: float | None) -> str:
    """The score as the pages show it ("48"), rounded half up; "" for none."""
    if score is None:
        return ""
    return str(int(score + 0.5))
