"""The full computation of related works (publications.services.related_works): the degrees
counted again, then one job per range of work ids, run in this process or on the Celery workers
(publications.tasks.related_works_compute_range).

The ranges are cut by an estimate of each work's cost from its degrees (related_works_ranges),
not by id count: the old, heavily cited works cost several times the recent ones, and ranges of
equal id counts left one process busy with the first ones while the other had finished.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from django.core.cache import cache
from django.db import connection

from bzpeer.queueing import task_enqueue_on_commit

from .related_works import (
    fan_out_caps,
    related_works_compute_range,
    related_works_degrees_count,
)

logger = logging.getLogger(__name__)

# Work ids per job of the full computation, on average: 100 jobs for a million works. The ids
# are cut by estimated cost (related_works_ranges), so a range of old, heavily cited works holds
# fewer ids than one of recent works.
RANGE_SIZE = 10_000
# The estimate's weights, in candidate rows (measured on the benchmark corpus, bench/README.md):
# a list read by an index scan, and the fixed part of a work.
RANGE_LOOKUP_COST = 10
RANGE_WORK_COST = 50

COMPUTE_RANGE_TASK = "publications.tasks.related_works_compute_range"

# The full computation's ranges, balanced by an estimate of each work's cost from the degrees
# alone (one pass over the works, no join of the citations). Its candidate rows are its citing
# works (up to the cap) times the references of a citing work (the mean over all citations,
# capped as the statement caps them), plus its references (up to the cap) times the citing works
# of a reference (the mean over all citations, at most COUPLING_CITERS_CAP); each of those
# lists read costs an index scan (RANGE_LOOKUP_COST rows' worth), and each work its own fixed
# part (RANGE_WORK_COST: its targets row, its degree, its ranking, its ten rows written). The
# ids are cut where the running sum of the costs crosses each multiple of the total / ranges.
_RANGES_SQL = """
WITH degrees AS MATERIALIZED (
    SELECT w.id, coalesce(d.cited_by, 0) AS cited_by, coalesce(d."references", 0) AS refs
    FROM publications_work w LEFT JOIN publications_citationdegree d ON d.work_id = w.id
),
means AS (
    SELECT coalesce(sum(refs * least(refs, %(references_cap)s))::float8
                    / nullif(sum(refs), 0), 0) AS citer_references,
           coalesce(sum(cited_by * least(cited_by, %(coupling_citers_cap)s))::float8
                    / nullif(sum(cited_by), 0), 0) AS reference_citers
    FROM degrees
),
costed AS (
    SELECT d.id,
           %(work_cost)s
           + least(d.cited_by, %(citers_cap)s) * (m.citer_references + %(lookup_cost)s)
           + least(d.refs, %(references_cap)s) * (m.reference_citers + %(lookup_cost)s) AS cost
    FROM degrees d CROSS JOIN means m
),
placed AS (
    SELECT id, cost,
           sum(cost) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) - cost AS before,
           sum(cost) OVER () AS total
    FROM costed
),
cut AS (
    SELECT least(floor(before * %(ranges)s / total)::int, %(ranges)s - 1) AS bucket,
           min(id) AS first_id, sum(cost) AS cost
    FROM placed GROUP BY 1
)
SELECT first_id,
       coalesce(lead(first_id) OVER (ORDER BY first_id) - 1,
                (SELECT max(id) FROM degrees)) AS last_id,
       round(cost)::bigint AS estimated_cost
FROM cut
ORDER BY estimated_cost DESC, first_id
"""


class WorkRange(NamedTuple):
    """One job of the full computation: the works with ids in [first_id, last_id]."""

    first_id: int
    last_id: int
    # In candidate rows (_RANGES_SQL): for balancing and ordering, not a promise.
    estimated_cost: int


def related_works_ranges(*, range_size: int = RANGE_SIZE) -> list[WorkRange]:
    """The full computation's jobs, costliest first: contiguous [first, last] ranges of work
    ids that cover every id from the lowest to the highest once, as many as ranges of
    range_size ids would be (fewer when one work outweighs a range's share), each holding
    about the same estimated cost (_RANGES_SQL). Precondition: the degrees are counted
    (related_works_degrees_count); without them every work costs the same."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id) FROM publications_work")
        low, high = cursor.fetchone()
        if low is None:
            return []
        count = -(-(high - low + 1) // range_size)
        cursor.execute(
            _RANGES_SQL,
            {
                **fan_out_caps(),
                "lookup_cost": RANGE_LOOKUP_COST,
                "work_cost": RANGE_WORK_COST,
                "ranges": count,
            },
        )
        return [WorkRange(*row) for row in cursor.fetchall()]


@dataclass(frozen=True)
class ComputeResult:
    ranges: int
    rows: int
    seconds: float


def related_works_compute_all(
    *,
    range_size: int = RANGE_SIZE,
    run_range: Callable[[int, int], int] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ComputeResult:
    """Every work's related works from scratch: the degrees, then each range of ids, by
    run_range (default: in this process; the command passes one that queues the ranges on
    Celery and waits). on_progress(done, total) after each range."""
    started = time.monotonic()
    related_works_degrees_count()
    ranges = related_works_ranges(range_size=range_size)
    rows = 0
    for done, work_range in enumerate(ranges, start=1):
        rows += (run_range or _run_here)(work_range.first_id, work_range.last_id)
        if on_progress:
            on_progress(done, len(ranges))
    return ComputeResult(ranges=len(ranges), rows=rows, seconds=time.monotonic() - started)


def related_works_queue_all(*, range_size: int = RANGE_SIZE, done_key: str = "") -> int:
    """The full computation on the Celery workers: the degrees counted here, then a task per
    range of ids queued (done_key: a cache counter each task increments when done, for a
    caller that waits). Returns the number of ranges queued."""
    related_works_degrees_count()
    ranges = related_works_ranges(range_size=range_size)
    # Costliest first (related_works_ranges): a long range taken last would leave the other
    # processes idle at the end.
    for work_range in ranges:
        task_enqueue_on_commit(
            COMPUTE_RANGE_TASK, work_range.first_id, work_range.last_id, done_key
        )
    logger.info("related works: %d ranges queued", len(ranges))
    return len(ranges)


def related_works_compute_on_workers(
    *,
    range_size: int = RANGE_SIZE,
    on_progress: Callable[[int, int], None] | None = None,
    timeout: float = 6 * 60 * 60,
    poll_seconds: float = 0.5,
) -> ComputeResult:
    """The full computation with its ranges on the Celery workers (related_works_queue_all),
    waiting until every range reports done or timeout seconds pass (TimeoutError)."""
    started = time.monotonic()
    done_key = f"related-works:done:{uuid.uuid4().hex}"
    cache.set(done_key, 0, timeout=int(timeout) + 60)
    total = related_works_queue_all(range_size=range_size, done_key=done_key)
    done = -1
    while True:
        now_done = int(cache.get(done_key) or 0)
        if now_done != done and on_progress:
            on_progress(now_done, total)
        done = now_done
        if done >= total:
            break
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"related works: {done} of {total} ranges done in {timeout}s")
        time.sleep(poll_seconds)
    cache.delete(done_key)
    return ComputeResult(ranges=total, rows=-1, seconds=time.monotonic() - started)


def _run_here(first: int, last: int) -> int:
    return related_works_compute_range(first_id=first, last_id=last)
