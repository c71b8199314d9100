"""Bylines written by import batches: each work's identified researchers before and after a
batch writes it, recorded as pending rows in the batch's transaction and applied to the edges
by the drain (graph.services.drain)."""

from __future__ import annotations

from collections.abc import Collection

from django.db import connection

from ..models import CLOSE_MIN_JOINT_WORKS, CLOSE_MIN_WEIGHT, MAX_AUTHORS_FOR_EDGES
from .edges import EDGES_LOCK_KEY, close_collaborators_counts_add, coauthor_edge_pairs_refresh

_BYLINES_OF_WORKS = """
SELECT w.id AS work_id,
       coalesce(array_agg(DISTINCT au.researcher_id ORDER BY au.researcher_id)
                FILTER (WHERE au.researcher_id IS NOT NULL), '{}') AS researcher_ids,
       w.authors_count, w.publication_year
FROM publications_work w LEFT JOIN publications_authorship au ON au.work_id = w.id
WHERE w.openalex_id = ANY(%(ids)s) OR w.id = ANY(%(work_ids)s)
GROUP BY w.id
"""


def coauthor_bylines_before(
    *, work_openalex_ids: Collection[str] = (), work_ids: Collection[int] = ()
) -> None:
    """Keep the current bylines of these works (those about to be written, by OpenAlex id or by
    row id) in a temporary table of the caller's transaction, for coauthor_bylines_record.
    Call it before writing, with the same works coauthor_bylines_record will get (works
    created by the write are not in the table yet: none given, the table is created empty)."""
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS pg_temp.graph_bylines_before")
        cursor.execute(
            f"CREATE TEMP TABLE graph_bylines_before ON COMMIT DROP AS {_BYLINES_OF_WORKS}",
            {"ids": list(work_openalex_ids), "work_ids": list(work_ids)},
        )


_RECORD_BYLINES_SQL = f"""
WITH after AS ({_BYLINES_OF_WORKS}),
changed AS (
    SELECT b.work_id, -1 AS sign, b.researcher_ids, b.authors_count, b.publication_year
    FROM graph_bylines_before b LEFT JOIN after a ON a.work_id = b.work_id
    WHERE (a.researcher_ids, a.authors_count, a.publication_year)
          IS DISTINCT FROM (b.researcher_ids, b.authors_count, b.publication_year)
    UNION ALL
    SELECT a.work_id, 1, a.researcher_ids, a.authors_count, a.publication_year
    FROM after a LEFT JOIN graph_bylines_before b ON b.work_id = a.work_id
    WHERE (a.researcher_ids, a.authors_count, a.publication_year)
          IS DISTINCT FROM (b.researcher_ids, b.authors_count, b.publication_year)
)
INSERT INTO graph_pendingbyline (work_id, sign, researcher_ids, authors_count, publication_year)
SELECT work_id, sign, researcher_ids, authors_count, publication_year FROM changed
WHERE cardinality(researcher_ids) >= 2 AND authors_count BETWEEN 2 AND {MAX_AUTHORS_FOR_EDGES}
"""


def coauthor_bylines_record(
    *, work_openalex_ids: Collection[str] = (), work_ids: Collection[int] = ()
) -> int:
    """After writing: record, in the caller's transaction, each byline of these works that
    changed since coauthor_bylines_before, as a -1 row (the old one) and a +1 row (the new
    one), for the drain. Returns the rows recorded (0 when nothing that makes edges changed)."""
    if not work_openalex_ids and not work_ids:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            _RECORD_BYLINES_SQL, {"ids": list(work_openalex_ids), "work_ids": list(work_ids)}
        )
        return cursor.rowcount


# Contributions of the pending bylines, pair by pair, added to the edges. A pair whose joint
# work was taken away (a -1 row) cannot have its first and last year moved back by arithmetic:
# those pairs are returned for an exact recompute (coauthor_edge_pairs_refresh).
_APPLY_BYLINES_SQL = f"""
WITH taken AS (
    DELETE FROM graph_pendingbyline
    WHERE id IN (SELECT id FROM graph_pendingbyline ORDER BY id LIMIT %(limit)s)
    RETURNING sign, researcher_ids, authors_count, publication_year
),
contributions AS (
    SELECT x.id AS a, y.id AS b, t.sign, t.authors_count, t.publication_year
    FROM taken t
    CROSS JOIN LATERAL unnest(t.researcher_ids) AS x(id)
    CROSS JOIN LATERAL unnest(t.researcher_ids) AS y(id)
    WHERE x.id < y.id
),
delta AS MATERIALIZED (
    SELECT a, b, sum(sign) AS joint_works_count,
           sum(sign * round(1::numeric / (authors_count - 1), 12)) AS weight,
           min(publication_year) FILTER (WHERE sign > 0) AS first_year,
           max(publication_year) FILTER (WHERE sign > 0) AS last_year,
           bool_or(sign < 0) AS lost_a_work
    FROM contributions GROUP BY a, b
),
written AS (
    INSERT INTO graph_coauthoredge AS e
        (researcher_a_id, researcher_b_id, joint_works_count, weight, first_year, last_year)
    SELECT a, b, joint_works_count, weight, first_year, last_year FROM delta
    WHERE NOT lost_a_work
    ORDER BY a, b
    ON CONFLICT (researcher_a_id, researcher_b_id) DO UPDATE SET
        joint_works_count = e.joint_works_count + EXCLUDED.joint_works_count,
        weight = e.weight + EXCLUDED.weight,
        first_year = least(e.first_year, EXCLUDED.first_year),
        last_year = greatest(e.last_year, EXCLUDED.last_year)
    RETURNING e.researcher_a_id, e.researcher_b_id, e.joint_works_count, e.weight
),
-- The row before = the row after minus the contribution (0 joint works: it did not exist).
close_change AS (
    SELECT w.researcher_a_id AS a, w.researcher_b_id AS b,
           (w.joint_works_count >= {CLOSE_MIN_JOINT_WORKS} OR w.weight >= {CLOSE_MIN_WEIGHT})::int
         - (w.joint_works_count - d.joint_works_count > 0
            AND (w.joint_works_count - d.joint_works_count >= {CLOSE_MIN_JOINT_WORKS}
                 OR w.weight - d.weight >= {CLOSE_MIN_WEIGHT}))::int AS delta
    FROM written w
    JOIN delta d ON d.a = w.researcher_a_id AND d.b = w.researcher_b_id
)
SELECT 'close', id, sum(delta)::bigint FROM (
    SELECT a AS id, delta FROM close_change UNION ALL SELECT b, delta FROM close_change
) ends GROUP BY id
UNION ALL
SELECT 'lost', a, b FROM delta WHERE lost_a_work
UNION ALL
SELECT 'taken', count(*), 0 FROM taken
"""
PENDING_BYLINES_PER_TRANSACTION = 20_000


def coauthor_bylines_apply(*, limit: int = PENDING_BYLINES_PER_TRANSACTION) -> tuple[int, set[int]]:
    """Apply (and delete) up to `limit` pending bylines, oldest first: exactly once, since the
    rows go in the same transaction as the edges they change. The caller holds the
    transaction. Returns the bylines applied and the researchers whose edges changed."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [EDGES_LOCK_KEY])
        # Room to aggregate a large drain's pairs in memory.
        cursor.execute("SET LOCAL work_mem = '256MB'")
        cursor.execute(_APPLY_BYLINES_SQL, {"limit": limit})
        rows = cursor.fetchall()
    applied = next(int(row[1]) for row in rows if row[0] == "taken")
    changed = {int(row[1]) for row in rows if row[0] == "close"}
    moved = sorted((int(row[1]), row[2]) for row in rows if row[0] == "close" and row[2])
    lost = [(int(row[1]), int(row[2])) for row in rows if row[0] == "lost"]
    close_collaborators_counts_add(deltas=moved)
    if lost:
        changed |= coauthor_edge_pairs_refresh(pairs=lost).changed_researcher_ids
    return applied, changed
