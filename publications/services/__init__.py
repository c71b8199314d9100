"""Writes of the scholarly model that are not the import's: related works and novelty
(issue 25). The novelty's computation is publications.services.novelty."""

from .related_works import (
    DRAIN_TASK,
    related_works_compute_range,
    related_works_degrees_count,
    related_works_drain,
    related_works_mark_pending,
    related_works_mark_pending_sql,
    related_works_refresh,
)
from .related_works_full import (
    COMPUTE_RANGE_TASK,
    ComputeResult,
    WorkRange,
    related_works_compute_all,
    related_works_compute_on_workers,
    related_works_queue_all,
    related_works_ranges,
)

__all__ = [
    "COMPUTE_RANGE_TASK",
    "DRAIN_TASK",
    "ComputeResult",
    "WorkRange",
    "related_works_compute_all",
    "related_works_compute_on_workers",
    "related_works_compute_range",
    "related_works_degrees_count",
    "related_works_drain",
    "related_works_mark_pending",
    "related_works_mark_pending_sql",
    "related_works_queue_all",
    "related_works_ranges",
    "related_works_refresh",
]
