"""The AI Score's model on a synthetic corpus with a planted signal (citations driven by team
size, the venue's and the authors' quality, plus noise): its back-test clearly beats the same
corpus with the signal shuffled away, recovers the planted order, and is stored with its
figures, forecasts and researchers' scores; with too little history there is no model and no
score."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import call_command

from discovery.ai_score import model as ml
from discovery.ai_score import services
from discovery.models import AiScoreModel, ResearcherAiScore, WorkAiForecast

from .ai_score_corpus import AS_OF_YEAR, build

pytestmark = pytest.mark.django_db

ROUNDS = 60
WORKS = 1500


@pytest.fixture
def small_minimum(settings):
    settings.AI_SCORE_MIN_TRAINING_WORKS = 500


def test_the_model_recovers_the_planted_order(small_minimum):
    # Imported here, not at the top: scipy and lightgbm take about 1.4 s to import, which every
    # test process would pay when it collects this file, whether it runs these tests or not.
    from scipy.stats import spearmanr

    planted = build(works=WORKS, seed=1)
    result = services.ai_score_train(as_of_year=AS_OF_YEAR, rounds=ROUNDS)
    assert result.trained, result.gap
    model = AiScoreModel.objects.get(version=result.version)
    forecasts = dict(WorkAiForecast.objects.values_list("work_id", "forecast"))
    ids = sorted(planted.latent)
    recovered = spearmanr([forecasts[i] for i in ids], [planted.latent[i] for i in ids]).statistic
    print(  # noqa: T201 - the figures, for whoever runs the test with -s
        f"planted signal: {model.labelled_works} labelled works, back-test on "
        f"{model.backtest_size} ({model.test_first_year}-{model.test_last_year}): Spearman "
        f"{model.spearman}, baselines {model.baselines}; forecast vs planted rate {recovered:.3f}"
    )
    # Trained on 2012-2020, tested on 2021-2022 (2023 on has fewer than three years).
    assert (model.train_first_year, model.test_first_year, model.test_last_year) == (
        2012,
        2021,
        2022,
    )
    assert model.training_size + model.backtest_size == model.labelled_works
    assert model.spearman > 0.45
    assert model.spearman > model.baselines["team_size"] + 0.1
    # It reads team size and the authors' record beside the venue's: above the venue alone.
    assert model.spearman > model.baselines["venue_record"]
    assert recovered > 0.6
    # Calibrated in order: the top decile's works were cited more than the bottom decile's.
    calibration = [row for row in model.calibration if row["works"]]
    assert calibration[-1]["actual"] > calibration[0]["actual"] + 30


def test_a_corpus_without_signal_gives_a_back_test_near_zero(small_minimum):
    build(works=WORKS, seed=1, signal=False)
    result = services.ai_score_train(as_of_year=AS_OF_YEAR, rounds=ROUNDS)
    print(f"no signal: Spearman {result.spearman}, baselines {result.baselines}")  # noqa: T201 - the figures
    # The planted corpus reaches well above 0.45 (above); noise stays near zero.
    assert result.trained and result.spearman is not None
    assert abs(result.spearman) < 0.2


def test_the_run_stores_the_booster_forecasts_and_scores(small_minimum):
    import lightgbm as lgb  # here, not at the top: see test_the_model_recovers_the_planted_order

    planted = build(works=WORKS, seed=2)
    result = services.ai_score_train(as_of_year=AS_OF_YEAR, rounds=ROUNDS)
    model = AiScoreModel.objects.get(version=result.version)
    booster = lgb.Booster(model_str=bytes(model.booster).decode())
    assert booster.num_trees() == ROUNDS
    assert model.feature_names[: len(booster.feature_name())] == booster.feature_name()
    assert model.embedding_model == "synthetic"
    assert WorkAiForecast.objects.count() == len(planted.works)
    percentiles = np.array(
        WorkAiForecast.objects.exclude(percentile=None).values_list("percentile", flat=True)
    )
    assert percentiles.min() >= 0 and percentiles.max() <= 100
    # The contributions name the planted inputs, not the (noise) text.
    top = WorkAiForecast.objects.values_list("contributions", flat=True)
    names = [row[0][0] for row in top if row]
    assert sum(name != "text" for name in names) > 0.8 * len(names)
    # A researcher's score is the median of their recent works' percentiles.
    score = ResearcherAiScore.objects.exclude(score=None).order_by("-works_counted").first()
    recent = WorkAiForecast.objects.filter(
        work__authorships__researcher_id=score.researcher_id,
        publication_year__gte=AS_OF_YEAR - 4,
        percentile__isnull=False,
    ).values_list("percentile", flat=True)
    assert score.works_counted == len(recent)
    assert score.score == pytest.approx(float(np.median(list(recent))))
    # Another run: a new version, rows replaced, not added.
    again = services.ai_score_train(as_of_year=AS_OF_YEAR, rounds=ROUNDS)
    assert again.version == result.version + 1
    assert WorkAiForecast.objects.count() == len(planted.works)
    assert set(WorkAiForecast.objects.values_list("model_version", flat=True)) == {again.version}


def test_too_little_history_means_no_model_and_no_score(settings):
    settings.AI_SCORE_MIN_TRAINING_WORKS = 5000
    planted = build(works=300, seed=3)
    ResearcherAiScore.objects.create(
        researcher=planted.researchers[0], score=50, computed_at="2025-01-01T00:00Z"
    )
    result = services.ai_score_train(as_of_year=AS_OF_YEAR, rounds=ROUNDS)
    assert not result.trained
    model = AiScoreModel.objects.get(version=result.version)
    assert model.booster is None and model.spearman is None
    assert "the model needs at least 5000" in model.gap
    assert not WorkAiForecast.objects.exists() and not ResearcherAiScore.objects.exists()


def test_the_command_trains_and_reports(settings, capsys):
    settings.AI_SCORE_MIN_TRAINING_WORKS = 300
    build(works=600, seed=4)
    call_command("train_ai_score", as_of_year=AS_OF_YEAR, rounds=20)
    out = capsys.readouterr().out
    assert "back-test Spearman" in out and "works forecast" in out
    assert AiScoreModel.objects.get().booster is not None


def test_percentiles_rank_within_field_and_year_with_ties_counted_half():
    values = np.array([1.0, 2.0, 2.0, 3.0] + [5.0] * 10 + [0.0] * 3, dtype=np.float64)
    groups = np.array([1] * 14 + [2] * 3)
    original = ml.MIN_BASELINE
    ml.MIN_BASELINE = 4
    try:
        result = ml.group_percentiles(values, groups)
    finally:
        ml.MIN_BASELINE = original
    # Group 1 (14 works): 1.0 beats none; 2.0 beats one and ties one; 5.0s beat four, tie nine.
    assert result[0] == 0.0
    assert result[1] == pytest.approx(100 * 1.5 / 13)
    assert result[4] == pytest.approx(100 * (4 + 4.5) / 13)
    # Group 2 has three works: below the minimum baseline, no percentile.
    assert np.isnan(result[14:]).all()


def test_the_weekly_beat_entry_runs_the_training_task(settings):
    from bzpeer.queueing import registered_task

    entry = settings.CELERY_BEAT_SCHEDULE["ai-score-train"]
    assert entry["task"] == services.TASK
    settings.AI_SCORE_MIN_TRAINING_WORKS = 5000
    # The task is the service: with no history it stores a run that says why.
    version = registered_task(services.TASK).apply().get()
    assert AiScoreModel.objects.get(version=version).gap.startswith("only 0 works")
