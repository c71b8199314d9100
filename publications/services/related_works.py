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
- the full computation (related_works_full: related_works_compute_all, the
  `compute_related_works` command): the degrees counted again in one statement, then one job
  per range of work ids (related_works_compute_range, here), on Celery workers or in this
  process, the ranges cut by estimated cost;
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
from collections.abc import Collection
from typing import Any

from django.db import connection, transaction

logger = logging.getLogger(__name__)

RELATED_WORKS_PER_WORK = 10
CITERS_CAP = 100
REFERENCES_CAP = 100
COUPLING_CITERS_CAP = 20
# Enough for a range's candidate pairs to be aggregated and ranked in memory.
WORK_MEM = "256MB"
# Rows of pending works one drain transaction takes (each one writer batch's works): taken
# together, the works that several batches cite (the same well-cited ones, mostly) are
# recomputed once, not once a batch.
DRAIN_ROWS_PER_TRANSACTION = 20
# Held by the drain (exclusive) and by every job of the full computation (shared): the jobs
# run beside each other, never beside a drain rewriting the same lists.
RELATED_WORKS_LOCK_KEY = 7_250_425_004

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


def fan_out_caps() -> dict[str, int]:
    """The caps of the candidate statement's hops, as its parameters."""
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
        {**fan_out_caps(), **params},
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
            {**fan_out_caps(), "first": first_id, "last": last_id},
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
