"""The AI Score's reads for the pages: the current model's figures and a researcher's
explanation (the profile's figure comes in the profile's own statement, pages.selectors)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import Exists, F, OuterRef

from discovery.models import AiScoreModel, ResearcherAiScore, WorkAiForecast
from publications.models import Authorship

from .definitions import GAP_NO_PERCENTILE, GAP_NO_RECENT_WORKS, recent_years
from .explain import contributions_in_words

# The recent works the explanation lists, highest forecast percentile first: a page, not a
# prolific record's thousand rows (the score counts them all).
WORKS_SHOWN = 100


@dataclass(frozen=True, slots=True)
class ForecastExplained:
    forecast: WorkAiForecast
    reasons: list[str]

    @property
    def expected_citations(self) -> float:
        """The forecast back in citations (the model predicts log(1 + citations))."""
        return math.expm1(self.forecast.forecast)


@dataclass(frozen=True, slots=True)
class AiScoreExplained:
    model: AiScoreModel | None
    score: ResearcherAiScore | None
    recent_years: tuple[int, int] | None
    works: list[ForecastExplained]
    # Why there is no score, in words ("" when there is one).
    why_none: str


def ai_score_model_current() -> AiScoreModel | None:
    """The newest run's row, without its booster and projection (the pages show figures)."""
    return AiScoreModel.objects.defer("booster", "projection").order_by("-version").first()


def researcher_ai_score_explained(researcher_id: int) -> AiScoreExplained:
    """Three queries, whatever the number of works: the model, the score, the recent works'
    forecasts with their titles."""
    model = ai_score_model_current()
    if model is None or model.gap:
        why = (
            "no model has been trained yet" if model is None else f"there is no model: {model.gap}"
        )
        return AiScoreExplained(model, None, None, [], why)
    score = ResearcherAiScore.objects.filter(researcher_id=researcher_id).first()
    first, last = recent_years(model.as_of_year)
    rows = (
        WorkAiForecast.objects.filter(
            Exists(
                Authorship.objects.filter(researcher_id=researcher_id, work_id=OuterRef("work_id"))
            ),
            publication_year__gte=first,
            publication_year__lte=last,
        )
        .select_related("work")
        .only(
            "work_id",
            "work__title",
            "work__publication_year",
            "publication_year",
            "forecast",
            "percentile",
            "contributions",
        )
        .order_by(F("percentile").desc(nulls_last=True), "-forecast", "work_id")[:WORKS_SHOWN]
    )
    works = [ForecastExplained(row, contributions_in_words(row.contributions)) for row in rows]
    why = ""
    if score is None:
        why = f"this record has not been scored by model v{model.version} yet"
    elif score.score is None:
        if score.gap == GAP_NO_PERCENTILE:
            why = (
                "none of the works published in "
                f"{first}-{last} has a forecast percentile (each needs a field and year "
                "shared by enough works)"
            )
        elif score.gap == GAP_NO_RECENT_WORKS:
            why = f"no work on this record was published in {first}-{last}"
    return AiScoreExplained(model, score, (first, last), works, why)


# The calibration chart's geometry (an inline SVG: no script, no library).
_CHART_WIDTH = 300
_CHART_HEIGHT = 120
_BAR_GAP = 4


def calibration_bars(model: AiScoreModel | None) -> list[dict[str, float | int]]:
    """One bar per decile of forecast percentile: its mean actual percentile (0-100) scaled to
    the chart's height, with its x and width; deciles without works are left out."""
    if model is None or not model.calibration:
        return []
    width = _CHART_WIDTH / 10
    bars = []
    for row in model.calibration:
        if not row.get("works") or row.get("actual") is None:
            continue
        height = _CHART_HEIGHT * float(row["actual"]) / 100
        bars.append(
            {
                "decile": int(row["decile"]),
                "x": round((int(row["decile"]) - 1) * width + _BAR_GAP / 2, 1),
                "y": round(_CHART_HEIGHT - height, 1),
                "width": round(width - _BAR_GAP, 1),
                "height": round(height, 1),
                "actual": float(row["actual"]),
            }
        )
    return bars
