"""Coauthor edges and close-collaborators counts, refreshed for a set of researchers or of
pairs of researchers.

Every route that writes edges (these refreshes, the pending bylines in graph.services.bylines
and the full rebuild in graph.services.rebuild) computes the same thing from
publications_authorship and publications_work: for each pair of distinct researchers on a work
with 2..MAX_AUTHORS_FOR_EDGES authors, the number of joint works, the sum of 1 / (authors - 1)
and the first and last publication year. A researcher listed twice on one work counts once.
Each work adds round(1 / (n - 1), 12) as numeric, and sums of those are exact, so the result
does not depend on the order rows arrive in or on how they are grouped: the incremental routes
and the rebuild give identical tables.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.db import connection

from ..models import CLOSE_MIN_JOINT_WORKS, CLOSE_MIN_WEIGHT, CLOSE_SQL, MAX_AUTHORS_FOR_EDGES

# Taken by the incremental writes (per transaction: the refreshes here, the bylines applied by
# the drain) and by the rebuild (for its whole run), so the rebuild never swaps tables under a
# refresh, and refreshes wait for it.
EDGES_LOCK_KEY = 0x67726170685F6564  # "graph_ed"

# Both refreshes end by writing the pairs they recomputed (the CTE `fresh`): new and changed
# edges upserted in (a, b) order, unchanged ones left alone; returns the pairs it wrote.
_WRITE_FRESH_EDGES = """written AS (
    INSERT INTO graph_coauthoredge AS e
        (researcher_a_id, researcher_b_id, joint_works_count, weight, first_year, last_year)
    SELECT a, b, joint_works_count, weight, first_year, last_year FROM fresh ORDER BY a, b
    ON CONFLICT (researcher_a_id, researcher_b_id) DO UPDATE SET
        joint_works_count = EXCLUDED.joint_works_count, weight = EXCLUDED.weight,
        first_year = EXCLUDED.first_year, last_year = EXCLUDED.last_year
    WHERE (e.joint_works_count, e.weight, e.first_year, e.last_year)
          IS DISTINCT FROM
          (EXCLUDED.joint_works_count, EXCLUDED.weight, EXCLUDED.first_year, EXCLUDED.last_year)
    RETURNING e.researcher_a_id, e.researcher_b_id
)"""

_EDGES_REFRESH_SQL = f"""
WITH touched AS MATERIALIZED (
    SELECT DISTINCT unnest(%(ids)s::bigint[]) AS id
),
-- Only works with two touched authors or more can hold a pair to refresh. Found from the
-- (researcher, work) index alone, before any work row is read.
shared AS MATERIALIZED (
    SELECT au.work_id
    FROM publications_authorship au JOIN touched t ON t.id = au.researcher_id
    GROUP BY au.work_id
    HAVING count(DISTINCT au.researcher_id) >= 2
),
author_works AS MATERIALIZED (
    SELECT DISTINCT au.work_id, au.researcher_id, w.authors_count, w.publication_year
    FROM shared s
    JOIN publications_work w ON w.id = s.work_id
    JOIN publications_authorship au ON au.work_id = s.work_id
    JOIN touched t ON t.id = au.researcher_id
    WHERE w.authors_count BETWEEN 2 AND {MAX_AUTHORS_FOR_EDGES}
),
fresh AS MATERIALIZED (
    SELECT x.researcher_id AS a, y.researcher_id AS b, count(*) AS joint_works_count,
           sum(round(1::numeric / (x.authors_count - 1), 12)) AS weight,
           min(x.publication_year) AS first_year, max(x.publication_year) AS last_year
    FROM author_works x
    JOIN author_works y ON y.work_id = x.work_id AND y.researcher_id > x.researcher_id
    GROUP BY x.researcher_id, y.researcher_id
),
removed AS (
    DELETE FROM graph_coauthoredge e
    USING touched ta, touched tb
    WHERE e.researcher_a_id = ta.id AND e.researcher_b_id = tb.id
      AND NOT EXISTS (
          SELECT 1 FROM fresh f WHERE f.a = e.researcher_a_id AND f.b = e.researcher_b_id
      )
    RETURNING e.researcher_a_id, e.researcher_b_id
),
{_WRITE_FRESH_EDGES}
SELECT researcher_a_id FROM removed UNION SELECT researcher_b_id FROM removed
UNION SELECT researcher_a_id FROM written UNION SELECT researcher_b_id FROM written
"""

# The end of both statements that write counts: given `fresh` (id, count) for the researchers
# concerned, a count of 0 loses its row (no row reads as 0), the others are written where they
# differ.
_CLOSE_COUNTS_STORE_SQL = """
removed AS (
    DELETE FROM graph_closecollaboratorscount s USING fresh f
    WHERE s.researcher_id = f.id AND f.count = 0
)
INSERT INTO graph_closecollaboratorscount AS s (researcher_id, close_collaborators_count)
SELECT id, count FROM fresh WHERE count > 0 ORDER BY id
ON CONFLICT (researcher_id) DO UPDATE SET close_collaborators_count = EXCLUDED.close_collaborators_count
WHERE s.close_collaborators_count <> EXCLUDED.close_collaborators_count
"""

# The counts of these researchers, from their edges: rows written where they differ, removed
# where the count is now 0 (a researcher without close collaborators has no row).
_CLOSE_COUNT_REFRESH_SQL = f"""
WITH target AS (
    SELECT DISTINCT unnest(%(ids)s::bigint[]) AS id
),
fresh AS MATERIALIZED (
    SELECT t.id,
           (SELECT count(*) FROM graph_coauthoredge e WHERE e.researcher_a_id = t.id AND {CLOSE_SQL})
         + (SELECT count(*) FROM graph_coauthoredge e WHERE e.researcher_b_id = t.id AND {CLOSE_SQL})
           AS count
    FROM target t
),
{_CLOSE_COUNTS_STORE_SQL}"""


@dataclass(frozen=True)
class EdgesRefreshResult:
    researchers: int
    changed_researcher_ids: frozenset[int]


def coauthor_edges_refresh(*, researcher_ids: Collection[int]) -> EdgesRefreshResult:
    """Recompute every coauthor edge between two of `researcher_ids`, in two statements.

    An edge (a, b) can change only when a work of both a and b changed, and then both are
    among the researchers an import batch touched; so refreshing the pairs inside the touched
    set, whatever else is in the table, gives the same rows as a full rebuild. Edges with one
    end outside the set are not looked at. Idempotent: a second call changes nothing.
    The caller holds a transaction; the edges lock is taken here and held until it ends.
    Also refreshes the close-collaborators counts of the researchers whose edges changed.
    """
    ids = sorted({int(i) for i in researcher_ids})
    if not ids:
        return EdgesRefreshResult(0, frozenset())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [EDGES_LOCK_KEY])
        cursor.execute(_EDGES_REFRESH_SQL, {"ids": ids})
        changed = frozenset(row[0] for row in cursor.fetchall())
        if changed:
            cursor.execute(_CLOSE_COUNT_REFRESH_SQL, {"ids": sorted(changed)})
    return EdgesRefreshResult(len(ids), changed)


_PAIRS_REFRESH_SQL = f"""
WITH pairs AS MATERIALIZED (
    SELECT DISTINCT least(a, b) AS a, greatest(a, b) AS b
    FROM unnest(%(a)s::bigint[], %(b)s::bigint[]) AS given(a, b)
    WHERE a <> b
),
-- Each pair's joint works, found by walking the works of whichever of the two has fewer
-- and probing the other's (researcher, work) index entry for each.
oriented AS (
    SELECT p.a, p.b,
           CASE WHEN ra.works_count <= rb.works_count THEN p.a ELSE p.b END AS fewer,
           CASE WHEN ra.works_count <= rb.works_count THEN p.b ELSE p.a END AS more
    FROM pairs p
    JOIN researchers_researcher ra ON ra.id = p.a
    JOIN researchers_researcher rb ON rb.id = p.b
),
joint AS MATERIALIZED (
    SELECT DISTINCT o.a, o.b, w.id AS work_id, w.authors_count, w.publication_year
    FROM oriented o
    JOIN publications_authorship x ON x.researcher_id = o.fewer
    JOIN publications_authorship y ON y.researcher_id = o.more AND y.work_id = x.work_id
    JOIN publications_work w ON w.id = x.work_id
    WHERE w.authors_count BETWEEN 2 AND {MAX_AUTHORS_FOR_EDGES}
),
fresh AS MATERIALIZED (
    SELECT a, b, count(*) AS joint_works_count,
           sum(round(1::numeric / (authors_count - 1), 12)) AS weight,
           min(publication_year) AS first_year, max(publication_year) AS last_year
    FROM joint GROUP BY a, b
),
-- The rows as they were: every CTE of one statement sees the same snapshot.
old AS MATERIALIZED (
    SELECT e.* FROM graph_coauthoredge e
    JOIN pairs p ON e.researcher_a_id = p.a AND e.researcher_b_id = p.b
),
removed AS (
    DELETE FROM graph_coauthoredge e USING old o
    WHERE e.researcher_a_id = o.researcher_a_id AND e.researcher_b_id = o.researcher_b_id
      AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.a = o.researcher_a_id AND f.b = o.researcher_b_id)
    RETURNING e.researcher_a_id, e.researcher_b_id
),
{_WRITE_FRESH_EDGES},
-- +1 for a pair that became close, -1 for one that stopped being close.
close_change AS (
    SELECT coalesce(f.a, e.researcher_a_id) AS a, coalesce(f.b, e.researcher_b_id) AS b,
           (f.a IS NOT NULL AND (f.joint_works_count >= {CLOSE_MIN_JOINT_WORKS}
                                 OR f.weight >= {CLOSE_MIN_WEIGHT}))::int
         - (e.researcher_a_id IS NOT NULL AND {CLOSE_SQL})::int AS delta
    FROM fresh f FULL JOIN old e ON e.researcher_a_id = f.a AND e.researcher_b_id = f.b
),
ends AS (
    SELECT a AS id, delta, false AS changed FROM close_change
    UNION ALL SELECT b, delta, false FROM close_change
    UNION ALL SELECT researcher_a_id, 0, true FROM removed
    UNION ALL SELECT researcher_b_id, 0, true FROM removed
    UNION ALL SELECT researcher_a_id, 0, true FROM written
    UNION ALL SELECT researcher_b_id, 0, true FROM written
)
SELECT id, sum(delta)::int, bool_or(changed) FROM ends GROUP BY id
HAVING sum(delta) <> 0 OR bool_or(changed)
"""

# The counts moved by these deltas (one per researcher): a count that reaches 0 loses its row,
# one that leaves 0 gets one. The callers hold the edges lock, the only writers of this table,
# so the rows read here do not change before they are written.
_CLOSE_COUNT_ADD_SQL = f"""
WITH change AS (
    SELECT unnest(%(ids)s::bigint[]) AS id, unnest(%(deltas)s::int[]) AS delta
),
fresh AS MATERIALIZED (
    SELECT c.id, greatest(0, coalesce(s.close_collaborators_count, 0) + c.delta) AS count
    FROM change c LEFT JOIN graph_closecollaboratorscount s ON s.researcher_id = c.id
),
{_CLOSE_COUNTS_STORE_SQL}"""


def close_collaborators_counts_add(*, deltas: Sequence[tuple[int, int]]) -> None:
    """Move the close-collaborators counts by these (researcher id, delta) pairs, one per
    researcher, in id order. The caller holds the edges lock (EDGES_LOCK_KEY) in its
    transaction."""
    if not deltas:
        return
    ids, changes = zip(*deltas, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(_CLOSE_COUNT_ADD_SQL, {"ids": list(ids), "deltas": list(changes)})


def coauthor_edge_pairs_refresh(*, pairs: Collection[tuple[int, int]]) -> EdgesRefreshResult:
    """Recompute the edges of these pairs of researchers (in any order), from all their joint
    works, in two statements; the close-collaborators counts move by the pairs that became or
    stopped being close. An import passes the pairs on the bylines a batch wrote and on the
    bylines it replaced, which are the only edges the batch can change. Idempotent.
    The caller holds a transaction; the edges lock is taken here and held until it ends.
    """
    if not pairs:
        return EdgesRefreshResult(0, frozenset())
    firsts, seconds = zip(*pairs, strict=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [EDGES_LOCK_KEY])
        cursor.execute(_PAIRS_REFRESH_SQL, {"a": list(firsts), "b": list(seconds)})
        rows = cursor.fetchall()
    close_collaborators_counts_add(
        deltas=sorted((researcher_id, delta) for researcher_id, delta, _ in rows if delta)
    )
    return EdgesRefreshResult(len(pairs), frozenset(row[0] for row in rows))


def researcher_ids_with_coauthors(*, researcher_ids: Collection[int]) -> list[int]:
    """The ids, their coauthors by authorship now, and their neighbours in the edge table
    (coauthors they had before the change)."""
    ids = sorted({int(i) for i in researcher_ids})
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT unnest(%(ids)s::bigint[])
            UNION SELECT y.researcher_id FROM publications_authorship x
                  JOIN publications_authorship y ON y.work_id = x.work_id
                  WHERE x.researcher_id = ANY(%(ids)s) AND y.researcher_id IS NOT NULL
            UNION SELECT researcher_b_id FROM graph_coauthoredge WHERE researcher_a_id = ANY(%(ids)s)
            UNION SELECT researcher_a_id FROM graph_coauthoredge WHERE researcher_b_id = ANY(%(ids)s)
            """,
            {"ids": ids},
        )
        return sorted(row[0] for row in cursor.fetchall())
