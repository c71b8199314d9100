"""The AI Score's model: LightGBM on the features of discovery.ai_score.features, predicting
log(1 + citations in the first three years); its back-test on later publication years than it
learned from; percentiles within field and year; and what moved each forecast (SHAP values).
Pure numpy and LightGBM: no database here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .features import BASE_FEATURES, FEATURE_NAMES, TEXT_FEATURES, FloatArray, IntArray

if TYPE_CHECKING:
    import lightgbm as lgb

# Few, shallow trees: the signal is a handful of record features, and a small site's history is
# a few thousand works. Fixed seed and one thread make a run repeatable.
PARAMETERS = {
    "objective": "regression",
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 20,
    "feature_fraction": 0.9,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "seed": 7,
    "deterministic": True,
    "num_threads": 1,
    "verbose": -1,
}
# A percentile needs this many works of the same field and year (the work included), as
# Novelty's baseline does.
MIN_BASELINE = 10
# The contributions kept per work for its explanation.
CONTRIBUTIONS_KEPT = 3


@dataclass(frozen=True, slots=True)
class BackTest:
    train_years: tuple[int, int]
    test_years: tuple[int, int]
    training_size: int
    backtest_size: int
    spearman: float
    baselines: dict[str, float]
    calibration: list[dict[str, float | None]] = field(default_factory=list)


def booster_train(features: FloatArray, target: FloatArray, *, rounds: int) -> lgb.Booster:
    # Imported here, not with the module: LightGBM and the scikit-learn it loads take about
    # 0.8 s, which every Celery worker (it imports every tasks module) paid at start otherwise.
    import lightgbm as lgb

    data = lgb.Dataset(features, label=target, feature_name=list(FEATURE_NAMES), free_raw_data=True)
    return lgb.train(PARAMETERS, data, num_boost_round=rounds)


def booster_predict(booster: lgb.Booster, features: FloatArray) -> FloatArray:
    """The forecasts, log(1 + citations in the first three years)."""
    return np.asarray(booster.predict(features), dtype=np.float64)


def group_percentiles(values: FloatArray, groups: IntArray) -> FloatArray:
    """Each value's percentile in its group: the share of the group's other members below it,
    ties counted half, 0 to 100; NaN in a group smaller than MIN_BASELINE. Set-based: one sort."""
    count = values.size
    result = np.full(count, np.nan)
    if count == 0:
        return result
    _, dense = np.unique(values, return_inverse=True)
    _, group_index, group_sizes = np.unique(groups, return_inverse=True, return_counts=True)
    keys = group_index.astype(np.int64) * (count + 1) + dense.astype(np.int64)
    ordered = np.sort(keys)
    group_start = np.searchsorted(ordered, group_index.astype(np.int64) * (count + 1), "left")
    lower = np.searchsorted(ordered, keys, "left") - group_start
    ties = np.searchsorted(ordered, keys, "right") - np.searchsorted(ordered, keys, "left") - 1
    sizes = group_sizes[group_index]
    big = sizes >= MIN_BASELINE
    result[big] = 100.0 * (lower[big] + 0.5 * ties[big]) / (sizes[big] - 1)
    return result


def spearman(a: FloatArray, b: FloatArray) -> float:
    if a.size < 3 or np.all(a == a[0]) or np.all(b == b[0]):
        return 0.0
    from scipy.stats import spearmanr  # type: ignore[import-untyped]  # as LightGBM, above

    value = float(spearmanr(a, b).statistic)
    return 0.0 if math.isnan(value) else value


def calibration_by_decile(
    forecast_pct: FloatArray, actual_pct: FloatArray
) -> list[dict[str, float | None]]:
    """Mean forecast and mean actual percentile per decile of forecast percentile."""
    known = ~np.isnan(forecast_pct) & ~np.isnan(actual_pct)
    deciles = np.minimum((forecast_pct[known] // 10).astype(int), 9)
    rows: list[dict[str, float | None]] = []
    for decile in range(10):
        inside = deciles == decile
        n = int(inside.sum())
        rows.append(
            {
                "decile": decile + 1,
                "works": n,
                "forecast": round(float(forecast_pct[known][inside].mean()), 1) if n else None,
                "actual": round(float(actual_pct[known][inside].mean()), 1) if n else None,
            }
        )
    return rows


def first_test_year(years: IntArray, test_years: int) -> int | None:
    """The first of the last `test_years` publication years held out; None without at least
    one earlier year to learn from."""
    distinct = np.unique(years)
    if distinct.size <= test_years:
        return None
    return int(distinct[-test_years])


def back_test(
    features: FloatArray,
    citations: FloatArray,
    years: IntArray,
    fields: IntArray,
    *,
    first_test: int,
    rounds: int,
) -> BackTest:
    """Learn on the labelled works published before first_test, forecast the later ones, and
    compare the forecasts' order with the citations' (Spearman), beside the baselines of the
    same works: the venue's earlier citations per work, and team size."""
    train = years < first_test
    test = ~train
    booster = booster_train(features[train], np.log1p(citations[train]), rounds=rounds)
    forecast = booster_predict(booster, features[test])
    actual = citations[test]
    venue = features[test, BASE_FEATURES.index("venue_prior_citations_per_work")]
    team = features[test, BASE_FEATURES.index("team_size")]
    groups = fields[test] * 10_000 + years[test]
    return BackTest(
        train_years=(int(years[train].min()), int(years[train].max())),
        test_years=(first_test, int(years[test].max())),
        training_size=int(train.sum()),
        backtest_size=int(test.sum()),
        spearman=round(spearman(forecast, actual), 4),
        baselines={
            "venue_record": round(spearman(np.nan_to_num(venue, nan=-1.0), actual), 4),
            "team_size": round(spearman(np.nan_to_num(team, nan=0.0), actual), 4),
        },
        calibration=calibration_by_decile(
            group_percentiles(forecast, groups), group_percentiles(actual, groups)
        ),
    )


def contributions_top(booster: lgb.Booster, features: FloatArray) -> list[list[list[object]]]:
    """Per work, the CONTRIBUTIONS_KEPT inputs whose SHAP values moved its forecast most, as
    [name, value, contribution] (the text's components summed as one input, "text")."""
    if features.shape[0] == 0:
        return []
    shap = np.asarray(booster.predict(features, pred_contrib=True), dtype=np.float64)
    shap = shap[:, : len(FEATURE_NAMES)]
    text_columns = [FEATURE_NAMES.index(name) for name in TEXT_FEATURES]
    grouped = np.hstack([shap[:, : len(BASE_FEATURES)], shap[:, text_columns].sum(axis=1)[:, None]])
    names = [*BASE_FEATURES, "text"]
    order = np.argsort(-np.abs(grouped), axis=1, kind="stable")[:, :CONTRIBUTIONS_KEPT]
    result = []
    for row, columns in enumerate(order):
        kept = []
        for column in columns:
            contribution = float(grouped[row, column])
            if contribution == 0.0:
                continue
            value = None if column == len(BASE_FEATURES) else features[row, column]
            shown = None if value is None or math.isnan(value) else round(float(value), 3)
            kept.append([names[column], shown, round(contribution, 4)])
        result.append(kept)
    return result


def forecast_percentiles(forecast: FloatArray, years: IntArray, fields: IntArray) -> FloatArray:
    return group_percentiles(forecast, fields.astype(np.int64) * 10_000 + years)


__all__ = [
    "BackTest",
    "back_test",
    "booster_predict",
    "booster_train",
    "calibration_by_decile",
    "contributions_top",
    "first_test_year",
    "forecast_percentiles",
    "group_percentiles",
    "spearman",
]
