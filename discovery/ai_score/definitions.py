"""What the AI Score's pages and its training run both mean by a researcher's recent works and
by each reason for no score. A module of its own so that the pages (selectors.py) read them
without importing the training run, and with it LightGBM and scikit-learn (0.8 s and about
100 MB in every web process that only shows a score)."""

from __future__ import annotations

# A researcher's recent works: published in the as-of year or the four before it.
RECENT_YEARS = 5
# Why a researcher has no score (ResearcherAiScore.gap).
GAP_NO_RECENT_WORKS = "no_recent_works"
GAP_NO_PERCENTILE = "no_percentile"


def recent_years(as_of_year: int) -> tuple[int, int]:
    """The first and last publication year of the recent works, as of `as_of_year`."""
    return as_of_year - RECENT_YEARS + 1, as_of_year
