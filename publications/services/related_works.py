"""Related works (issue 25, item 4): for each work, up to ten works from co-citation (works
that cite both) and bibliographic coupling (works both cite), set-based.

The score. Each work is seen as the set of its citation links: the works citing it and the
works it cites. Two works' score is Salton's cosine of those sets,

    score(a, b) = (cocitations(a, b) + shared_references(a, b))
                  / sqrt((cited_by(a) + references(a)) * (cited_by(b) + references(b)))

where cocitations counts the works citing both, shared_references the works both cite, and
cited_by and references count each work's citations held here (CitationDegree). It is 1 for
two works cited by exactly the same works and citing exactly the same ones, and it does not
favour a highly cited work merely for being cited often (a raw count would put the most cited
works at the top of every list). It is symmetric, which the incremental path relies on. Ties go
to the larger raw count, then to the lower id. A work's list keeps the RELATED_WORKS_PER_WORK
best pairs with a score above zero (at least one shared link).

Bounded fan-out. A pair's counts are gathered through a work's citing works and references; a
work cited 50,000 times would make one job of millions of rows. So on each hop the lists are
read up to a cap: a work's citing works up to CITERS_CAP (the most recent, by id), its
references up to REFERENCES_CAP, and, on coupling's second hop, the works citing one of its
references up to COUPLING_CITERS_CAP (the most recent). A work's rows are then at most
CITERS_CAP x REFERENCES_CAP + REFERENCES_CAP x COUPLING_CITERS_CAP, however the data is skewed.
Below the caps the counts are exact; above them they count a sample of the most recent
citations (so a reason may say fewer than all), and the norms stay the exact degrees. The
coupling cap is the small one: a reference cited thousands of times is shared with thousands of
works and says little about any one of them, and that hop made three quarters of the rows on
the benchmark corpus (bench/related_bench.py).

Two routes give the same rows (tests/publications/test_related_works.py):
- the full computation (related_works_compute_all, the `compute_related_works` command): the
  degrees counted again in one statement, then one job per range of work ids, on Celery
  workers (publications.tasks.related_works_compute_range) or in this process. The ranges are
  cut by an estimate of each work's cost from its degrees (related_works_ranges), not by id
  count: the old, heavily cited works cost several times the recent ones, and ranges of equal
  id counts left one process busy with the first ones while the other had finished;
- the drain (related_works_drain; beat, and after an import run): the works whose citations
  changed (PendingRelatedWorks, written in the writer's batch) get their degrees counted and
  their lists computed in full; then, since the score is symmetric, each pair found for them is
  offered to the other work's list, which takes it if it ranks among its ten (and drops its old
  pair with that work). A new citation a -> b changes only pairs with a or b in them (a's
  coupling, b's co-citation and both degrees), so this is every change but one: a list that
  keeps a pair whose score fell (its other work's degree grew) cannot bring back an eleventh
  pair it never stored. The full computation, run periodically, settles that drift.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.core.cache import cache
from django.db import connection, transaction

from bzpeer.queueing import task_enqueue_on_commit

logger = logging.getLogger(__name__)

RELATED_WORKS_PER_WORK = 10
CITERS_CAP = 100
REFERENCES_CAP = 100
COUPLING_CITERS_CAP = 20
# Enough for a range's candidate pairs to be aggregated and ranked in memory.
WORK_MEM = "256MB"
# Work ids per job of the full computation, on average: 100 jobs for a million works. The ids
# are cut by estimated cost (related_works_ranges), so a range of old, heavily cited works holds
# fewer ids than one of recent works.
RANGE_SIZE = 10_000
# The estimate's weights, in candidate rows (measured on the benchmark corpus, bench/README.md):
# a list read by an index scan, and the fixed part of a work.
RANGE_LOOKUP_COST = 10
RANGE_WORK_COST = 50
# Rows of pending works one drain transaction takes (each one writer batch's works): taken
# together, the works that several batches cite (the same well-cited ones, mostly) are
# recomputed once, not once a batch.
DRAIN_ROWS_PER_TRANSACTION = 20
# Held by the drain (exclusive) and by every job of the full computation (shared): the jobs
# run beside each other, never beside a drain rewriting the same lists.
RELATED_WORKS_LOCK_KEY = 7_250_425_004

COMPUTE_RANGE_TASK = "publications.tasks.related_works_compute_range"
DRAIN_TASK = "publications.tasks.related_works_drain"

# Every candidate pair (work_id, related_id) of the target works, with both counts and the
# score. `targets` is a table expression of work ids (a range, or the drain's works).
_CANDIDATES_SQL = """
WITH targets AS MATERIALIZED ({targets}),
links AS (
    -- Co-citation: the works cited beside the target by each work citing it.
    SELECT t.id AS work_id, r.cited_id AS related_id, 1 AS cocited, 0 AS coupled
    FROM targets t
    CROSS JOIN LATERAL (
        SELECT c.citing_id FROM publications_citation c WHERE c.cited_id = t.id
        ORDER BY c.citing_id DESC LIMIT %(citers_cap)s
    ) k
    CROSS JOIN LATERAL (
        SELECT c.cited_id FROM publications_citation c WHERE c.citing_id = k.citing_id
        ORDER BY c.cited_id LIMIT %(references_cap)s
    ) r
    WHERE r.cited_id <> t.id
    UNION ALL
    -- Coupling: the other works citing each of the target's references.
    SELECT t.id, k.citing_id, 0, 1
    FROM targets t
    CROSS JOIN LATERAL (
        SELECT c.cited_id FROM publications_citation c WHERE c.citing_id = t.id
        ORDER BY c.cited_id LIMIT %(references_cap)s
    ) r
    CROSS JOIN LATERAL (
        SELECT c.citing_id FROM publications_citation c WHERE c.cited_id = r.cited_id
        ORDER BY c.citing_id DESC LIMIT %(coupling_citers_cap)s
    ) k
    WHERE k.citing_id <> t.id
),
pairs AS (
    SELECT work_id, related_id, sum(cocited)::int AS cocitations,
           sum(coupled)::int AS shared_references
    FROM links GROUP BY work_id, related_id
)
SELECT p.work_id, p.related_id, p.cocitations, p.shared_references,
       (p.cocitations + p.shared_references)
       / sqrt((dw.cited_by + dw."references")::float8 * (dr.cited_by + dr."references"))
           AS score
FROM pairs p
JOIN publications_citationdegree dw ON dw.work_id = p.work_id
JOIN publications_citationdegree dr ON dr.work_id = p.related_id
"""

_RANK = (
    "row_number() OVER (PARTITION BY work_id"
    " ORDER BY score DESC, cocitations + shared_references DESC, related_id)"
)

# The ten best of each target's candidates (a query of them), as its new list.
_WRITE_TOP_SQL = f"""
INSERT INTO publications_relatedwork
    (work_id, related_id, cocitations, shared_references, score, rank)
SELECT work_id, related_id, cocitations, shared_references, score, rank
FROM (SELECT *, {_RANK} AS rank FROM ({{candidates}}) candidates) ranked
WHERE rank <= {RELATED_WORKS_PER_WORK}
ORDER BY work_id, rank
"""

_DEGREES_ALL_SQL = """
INSERT INTO publications_citationdegree (work_id, cited_by, "references")
SELECT work_id, sum(cited_by), sum(refs) FROM (
    SELECT cited_id AS work_id, count(*) AS cited_by, 0 AS refs
    FROM publications_citation GROUP BY cited_id
    UNION ALL
    SELECT citing_id, 0, count(*) FROM publications_citation GROUP BY citing_id
) d
GROUP BY work_id ORDER BY work_id
"""

_DEGREES_OF_SQL = """
WITH counted AS (
    SELECT w.id AS work_id,
           (SELECT count(*) FROM publications_citation c WHERE c.cited_id = w.id) AS cited_by,
           (SELECT count(*) FROM publications_citation c WHERE c.citing_id = w.id) AS refs
    FROM publications_work w WHERE w.id = ANY(%(ids)s)
),
gone AS (
    DELETE FROM publications_citationdegree d USING counted c
    WHERE d.work_id = c.work_id AND c.cited_by + c.refs = 0
)
INSERT INTO publications_citationdegree AS d (work_id, cited_by, "references")
SELECT work_id, cited_by, refs FROM counted WHERE cited_by + refs > 0 ORDER BY work_id
ON CONFLICT (work_id) DO UPDATE SET cited_by = EXCLUDED.cited_by,
    "references" = EXCLUDED."references"
"""

# The drain's second step: the pairs found for the changed works, offered to the other work's
# list. A list is rewritten when a pair ranks above its tenth (or it has fewer than ten) or
# when it holds a pair with a changed work already (whose counts or score changed).
_OFFER_SQL = f"""
CREATE TEMP TABLE related_offered ON COMMIT DROP AS
WITH offered AS MATERIALIZED (
    SELECT c.related_id AS work_id, c.work_id AS related_id, c.cocitations,
           c.shared_references, c.score
    FROM related_candidates c
    WHERE NOT EXISTS (SELECT 1 FROM related_changed x WHERE x.id = c.related_id)
),
best_offer AS (SELECT work_id, max(score) AS score FROM offered GROUP BY work_id),
listed AS MATERIALIZED (
    SELECT r.work_id, r.related_id, r.cocitations, r.shared_references, r.score, r.rank
    FROM publications_relatedwork r JOIN best_offer b ON b.work_id = r.work_id
),
affected AS (
    SELECT b.work_id FROM best_offer b
    LEFT JOIN listed t ON t.work_id = b.work_id AND t.rank = {RELATED_WORKS_PER_WORK}
    WHERE b.score > coalesce(t.score, 0)
    UNION
    SELECT l.work_id FROM listed l JOIN related_changed x ON x.id = l.related_id
),
merged AS (
    SELECT l.work_id, l.related_id, l.cocitations, l.shared_references, l.score
    FROM listed l JOIN affected a ON a.work_id = l.work_id
    WHERE NOT EXISTS (SELECT 1 FROM related_changed x WHERE x.id = l.related_id)
    UNION ALL
    SELECT o.* FROM offered o JOIN affected a ON a.work_id = o.work_id
)
SELECT work_id, related_id, cocitations, shared_references, score, rank
FROM (SELECT *, {_RANK} AS rank FROM merged) ranked
WHERE rank <= {RELATED_WORKS_PER_WORK}
"""
# A statement of its own each: a DELETE and an INSERT of the same keys in one statement's CTEs
# would meet in the primary key.
_OFFER_WRITE_SQL = (
    "DROP TABLE IF EXISTS related_offered, related_changed",
    # The changed works as a keyed table: joined, not searched in an array row by row.
    """CREATE TEMP TABLE related_changed ON COMMIT DROP AS
    SELECT DISTINCT unnest(%(ids)s::int8[]) AS id""",
    "ALTER TABLE related_changed ADD PRIMARY KEY (id)",
    "ANALYZE related_changed",
    "ANALYZE related_candidates",
    _OFFER_SQL,
    """DELETE FROM publications_relatedwork r
    WHERE r.work_id IN (SELECT DISTINCT work_id FROM related_offered)""",
    """INSERT INTO publications_relatedwork
        (work_id, related_id, cocitations, shared_references, score, rank)
    SELECT work_id, related_id, cocitations, shared_references, score, rank
    FROM related_offered ORDER BY work_id, rank""",
)


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


def _caps() -> dict[str, int]:
    return {
        "citers_cap": CITERS_CAP,
        "references_cap": REFERENCES_CAP,
        "coupling_citers_cap": COUPLING_CITERS_CAP,
    }


def _candidates_into_temp_table(cursor: Any, targets_sql: str, params: dict[str, Any]) -> None:
    cursor.execute("DROP TABLE IF EXISTS related_candidates")
    cursor.execute(
        "CREATE TEMP TABLE related_candidates ON COMMIT DROP AS "
        + _CANDIDATES_SQL.format(targets=targets_sql),
        {**_caps(), **params},
    )


def related_works_compute_range(*, first_id: int, last_id: int) -> int:
    """Compute the lists of the works with ids in [first_id, last_id] from scratch, in one
    transaction. Precondition: the degrees are counted (related_works_degrees_count). Returns
    the number of rows written."""
    started = time.monotonic()
    with transaction.atomic(), connection.cursor() as cursor:
        _settings(cursor)
        cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", [RELATED_WORKS_LOCK_KEY])
        cursor.execute(
            "DELETE FROM publications_relatedwork WHERE work_id BETWEEN %s AND %s",
            [first_id, last_id],
        )
        # Candidates, ranked and written in one statement: no table of them in between.
        cursor.execute(
            _WRITE_TOP_SQL.format(
                candidates=_CANDIDATES_SQL.format(
                    targets="SELECT id FROM publications_work"
                    " WHERE id BETWEEN %(first)s AND %(last)s"
                )
            ),
            {**_caps(), "first": first_id, "last": last_id},
        )
        rows = cursor.rowcount
    # The seconds beside the ids: what a range really cost, against its estimate.
    logger.info(
        "related works: range %d-%d, %d rows in %.2fs",
        first_id,
        last_id,
        rows,
        time.monotonic() - started,
    )
    return rows


def _settings(cursor: Any) -> None:
    # JIT compiling would cost more than these index-driven statements take.
    cursor.execute("SET LOCAL jit = off")
    cursor.execute(f"SET LOCAL work_mem = '{WORK_MEM}'")


def related_works_degrees_count() -> None:
    """Count every work's citations again (CitationDegree) and forget the pending works: the
    full computation that follows reads every citation committed before this."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RELATED_WORKS_LOCK_KEY])
        # First: a citation committed after this statement leaves its pending row for the
        # drain; one committed before is in the counts and the ranges, which read later.
        cursor.execute("DELETE FROM publications_pendingrelatedworks")
        # DELETE, not TRUNCATE: no ACCESS EXCLUSIVE lock for the pages reading meanwhile.
        cursor.execute("DELETE FROM publications_citationdegree")
        cursor.execute(_DEGREES_ALL_SQL)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE publications_citationdegree")


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
                **_caps(),
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


def related_works_mark_pending_sql(works_sql: str) -> str:
    """An INSERT of one PendingRelatedWorks row holding the ids `works_sql` (a query of one
    column) gives, none when it gives none: for the writer's statements, in its batch."""
    return (
        "INSERT INTO publications_pendingrelatedworks (work_ids) "
        f"SELECT array_agg(DISTINCT id ORDER BY id) FROM ({works_sql}) AS changed(id) "
        "HAVING count(*) > 0"
    )


def related_works_mark_pending(*, work_ids: Collection[int]) -> None:
    """In the caller's transaction: these works' citations changed."""
    if work_ids:
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO publications_pendingrelatedworks (work_ids) VALUES (%s)",
                [sorted({int(i) for i in work_ids})],
            )


def related_works_refresh(*, work_ids: Collection[int]) -> int:
    """In the caller's transaction, holding RELATED_WORKS_LOCK_KEY: count these works' degrees,
    compute their lists in full and offer their pairs to the other works' lists (module
    docstring). Returns the number of lists rewritten."""
    ids = sorted({int(i) for i in work_ids})
    if not ids:
        return 0
    with connection.cursor() as cursor:
        _settings(cursor)
        cursor.execute(_DEGREES_OF_SQL, {"ids": ids})
        _candidates_into_temp_table(
            cursor,
            "SELECT id FROM publications_work WHERE id = ANY(%(ids)s)",
            {"ids": ids},
        )
        cursor.execute("DELETE FROM publications_relatedwork WHERE work_id = ANY(%s)", [ids])
        cursor.execute(_WRITE_TOP_SQL.format(candidates="SELECT * FROM related_candidates"))
        for statement in _OFFER_WRITE_SQL:
            cursor.execute(statement, {"ids": ids} if "%(ids)s" in statement else None)
        cursor.execute("SELECT count(DISTINCT work_id) FROM related_offered")
        return len(ids) + cursor.fetchone()[0]


def related_works_drain() -> int:
    """Refresh the works whose citations changed (PendingRelatedWorks) until none wait.

    One drain at a time, never beside the full computation's jobs (the lock, tried, not waited
    for: a drain that finds it taken returns, and beat tries again). Each transaction takes
    DRAIN_ROWS_PER_TRANSACTION rows and deletes them with the refresh, so a drain that dies
    loses nothing. Returns the number of works refreshed."""
    refreshed = 0
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [RELATED_WORKS_LOCK_KEY])
            if not cursor.fetchone()[0]:
                logger.info("related works drain: the full computation or a drain runs")
                return refreshed
            cursor.execute(
                """
                DELETE FROM publications_pendingrelatedworks WHERE id IN (
                    SELECT id FROM publications_pendingrelatedworks ORDER BY id
                    LIMIT %s FOR UPDATE SKIP LOCKED)
                RETURNING work_ids
                """,
                [DRAIN_ROWS_PER_TRANSACTION],
            )
            ids = {int(i) for (work_ids,) in cursor.fetchall() for i in work_ids}
            if not ids:
                return refreshed
            related_works_refresh(work_ids=ids)
        refreshed += len(ids)
        logger.info("related works drain: %d works refreshed", len(ids))
