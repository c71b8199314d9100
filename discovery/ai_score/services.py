"""Train the AI Score's model and write what it implies (docs/ai-score.md): a model row (with
its back-test), every dated work's forecast and percentile, and every researcher's score, all in
one transaction, so readers see the old figures or the new ones, never a mix.

With fewer works of three complete years of citations than AI_SCORE_MIN_TRAINING_WORKS there is
no model: the run stores a row that says why, and no forecast or score is kept.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
import orjson
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from discovery.models import AiScoreModel, ResearcherAiScore, WorkAiForecast
from publications.models import Authorship, Work
from researchers.models import Researcher

from . import features as feature_pipeline
from . import model as ml
from .definitions import GAP_NO_PERCENTILE, GAP_NO_RECENT_WORKS, recent_years

logger = logging.getLogger(__name__)

# OpenAlex's counts_by_year starts in 2012: an earlier work's first three years are not counted.
COUNTS_FIRST_YEAR = 2012
# The publication years held out for the back-test (the latest years with three years of
# citations).
BACKTEST_YEARS = 2
ROUNDS = 300

TASK = "discovery.tasks.ai_score_train"
_INSERT_CHUNK = 20_000


@dataclass(frozen=True, slots=True)
class AiScoreResult:
    version: int
    trained: bool
    labelled_works: int
    works_forecast: int
    researchers_scored: int
    spearman: float | None
    baselines: dict[str, float]
    seconds: float
    gap: str


def ai_score_train(*, as_of_year: int | None = None, rounds: int = ROUNDS) -> AiScoreResult:
    """Train on the works old enough to have three years of citations, back-test on the last
    BACKTEST_YEARS of those years, then refit on all of them and forecast every dated work.
    as_of_year is "now" (this calendar year unless given: tests move it)."""
    started = time.monotonic()
    as_of = as_of_year or timezone.now().year
    minimum = settings.AI_SCORE_MIN_TRAINING_WORKS
    corpus = feature_pipeline.corpus_load()
    citations = feature_pipeline.first_three_years_citations(corpus)
    labelled = (
        corpus.counted_by_year & (corpus.years >= COUNTS_FIRST_YEAR) & (corpus.years + 3 <= as_of)
    )
    labelled_rows = np.flatnonzero(labelled)
    first_test = ml.first_test_year(corpus.years[labelled_rows], BACKTEST_YEARS)
    gap = ""
    if labelled_rows.size < minimum:
        gap = (
            f"only {labelled_rows.size} works have three complete years of citations; "
            f"the model needs at least {minimum}"
        )
    elif first_test is None:
        gap = (
            f"the works with three complete years of citations span fewer than "
            f"{BACKTEST_YEARS + 1} publication years: no later year to back-test on"
        )
    if gap:
        version = _store_without_model(as_of=as_of, labelled=labelled_rows.size, gap=gap)
        logger.info("AI Score v%s: no model (%s)", version, gap)
        return AiScoreResult(
            version, False, int(labelled_rows.size), 0, 0, None, {}, time.monotonic() - started, gap
        )
    assert first_test is not None  # noqa: S101 - the gap above

    backtest = _back_test(corpus, citations, labelled_rows, first_test=first_test, rounds=rounds)

    # The model kept: the same recipe on every labelled work.
    projection = feature_pipeline.projection_fit(corpus, labelled_rows)
    features = feature_pipeline.feature_matrix(corpus, projection)
    booster = ml.booster_train(
        features[labelled_rows], np.log1p(citations[labelled_rows]), rounds=rounds
    )
    forecast = ml.booster_predict(booster, features)
    percentiles = ml.forecast_percentiles(forecast, corpus.years, corpus.field_ids)
    # What moved each forecast, for the works the pages explain (the recent ones, and any dated
    # later): SHAP values cost far more than the forecasts, about 4 ms a work at 300 rounds.
    explained = np.flatnonzero(corpus.years >= recent_years(as_of)[0])
    contributions: list[list[list[object]]] = [[] for _ in range(corpus.work_ids.size)]
    for row, kept in zip(
        explained, ml.contributions_top(booster, features[explained]), strict=True
    ):
        contributions[row] = kept

    with transaction.atomic():
        version = _next_version()
        AiScoreModel.objects.create(
            version=version,
            trained_at=timezone.now(),
            as_of_year=as_of,
            labelled_works=int(labelled_rows.size),
            minimum_works=minimum,
            training_size=backtest.training_size,
            backtest_size=backtest.backtest_size,
            train_first_year=backtest.train_years[0],
            train_last_year=backtest.train_years[1],
            test_first_year=backtest.test_years[0],
            test_last_year=backtest.test_years[1],
            spearman=backtest.spearman,
            baselines=backtest.baselines,
            calibration=backtest.calibration,
            feature_names=list(feature_pipeline.FEATURE_NAMES),
            booster=booster.model_to_string().encode(),
            projection=feature_pipeline.projection_to_bytes(projection),
            embedding_model=corpus.embedding_model,
        )
        works = _forecasts_replace(corpus, version, forecast, percentiles, contributions)
        researchers = _researcher_scores_replace(version=version, as_of=as_of)
    seconds = time.monotonic() - started
    logger.info(
        "AI Score v%s: %s labelled works, back-test Spearman %s (baselines %s), %s works, "
        "%s researchers in %.1fs",
        version,
        labelled_rows.size,
        backtest.spearman,
        backtest.baselines,
        works,
        researchers,
        seconds,
    )
    return AiScoreResult(
        version=version,
        trained=True,
        labelled_works=int(labelled_rows.size),
        works_forecast=works,
        researchers_scored=researchers,
        spearman=backtest.spearman,
        baselines=backtest.baselines,
        seconds=seconds,
        gap="",
    )


def _back_test(
    corpus: feature_pipeline.Corpus,
    citations: np.ndarray,
    labelled_rows: np.ndarray,
    *,
    first_test: int,
    rounds: int,
) -> ml.BackTest:
    """The back-test: the projection and the booster see the earlier years only."""
    label_years = corpus.years[labelled_rows]
    train_rows = labelled_rows[label_years < first_test]
    test_projection = feature_pipeline.projection_fit(corpus, train_rows)
    test_features = feature_pipeline.feature_matrix(corpus, test_projection)[labelled_rows]
    return ml.back_test(
        test_features,
        citations[labelled_rows],
        label_years,
        corpus.field_ids[labelled_rows],
        first_test=first_test,
        rounds=rounds,
    )


def _next_version() -> int:
    # Under the table's lock: two runs at once take two versions, one after the other.
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {AiScoreModel._meta.db_table} IN EXCLUSIVE MODE")
    current = AiScoreModel.objects.aggregate(top=Max("version"))["top"] or 0
    return int(current) + 1


def _store_without_model(*, as_of: int, labelled: int, gap: str) -> int:
    with transaction.atomic():
        version = _next_version()
        AiScoreModel.objects.create(
            version=version,
            trained_at=timezone.now(),
            as_of_year=as_of,
            labelled_works=labelled,
            minimum_works=settings.AI_SCORE_MIN_TRAINING_WORKS,
            gap=gap,
        )
        # No model, no forecast: the scores of an older model would outlive what justified them.
        WorkAiForecast.objects.all().delete()
        ResearcherAiScore.objects.all().delete()
    return version


_FORECAST = WorkAiForecast._meta.db_table
_SCORE = ResearcherAiScore._meta.db_table
_INSERT_FORECASTS_SQL = f"""
INSERT INTO {_FORECAST}
  (work_id, model_version, publication_year, field_id, forecast, percentile, contributions)
SELECT w, %s, y, nullif(f, 0), p, nullif(c, 'NaN'::float8), j::jsonb
FROM unnest(%s::bigint[], %s::int[], %s::bigint[], %s::float8[], %s::float8[], %s::text[])
  AS t(w, y, f, p, c, j)
"""


def _forecasts_replace(
    corpus: feature_pipeline.Corpus,
    version: int,
    forecast: np.ndarray,
    percentiles: np.ndarray,
    contributions: list[list[list[object]]],
) -> int:
    """Every dated work's row, replaced: a few statements of arrays (unnest), not a row each."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {_FORECAST}")  # noqa: S608 - a table name
        for start in range(0, corpus.work_ids.size, _INSERT_CHUNK):
            stop = start + _INSERT_CHUNK
            cursor.execute(
                _INSERT_FORECASTS_SQL,
                [
                    version,
                    corpus.work_ids[start:stop].tolist(),
                    corpus.years[start:stop].tolist(),
                    corpus.field_ids[start:stop].tolist(),
                    forecast[start:stop].astype(float).tolist(),
                    percentiles[start:stop].astype(float).tolist(),
                    [orjson.dumps(row).decode() for row in contributions[start:stop]],
                ],
            )
    return int(corpus.work_ids.size)


# Every researcher record that is not merged away: the median forecast percentile of their
# recent works (percentile_cont skips the works without one), or none and why.
_SCORES_SQL = f"""
WITH recent AS (
  SELECT DISTINCT a.researcher_id, a.work_id
  FROM {Authorship._meta.db_table} a JOIN {Work._meta.db_table} w ON w.id = a.work_id
  WHERE a.researcher_id IS NOT NULL AND w.publication_year BETWEEN %(first)s AND %(last)s
),
per_researcher AS (
  SELECT r.researcher_id, count(f.percentile) AS counted,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY f.percentile) AS median
  FROM recent r LEFT JOIN {_FORECAST} f ON f.work_id = r.work_id
  GROUP BY r.researcher_id
)
INSERT INTO {_SCORE} (researcher_id, score, works_counted, model_version, gap, computed_at)
SELECT r.id, p.median, coalesce(p.counted, 0), %(version)s,
       CASE WHEN p.researcher_id IS NULL THEN %(no_recent)s
            WHEN p.counted = 0 THEN %(no_percentile)s ELSE '' END,
       now()
FROM {Researcher._meta.db_table} r LEFT JOIN per_researcher p ON p.researcher_id = r.id
WHERE r.merged_into_id IS NULL
"""


def _researcher_scores_replace(*, version: int, as_of: int) -> int:
    first, last = recent_years(as_of)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {_SCORE}")  # noqa: S608 - a table name
        cursor.execute(
            _SCORES_SQL,
            {
                "first": first,
                "last": last,
                "version": version,
                "no_recent": GAP_NO_RECENT_WORKS,
                "no_percentile": GAP_NO_PERCENTILE,
            },
        )
        return cursor.rowcount
