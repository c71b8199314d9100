"""Metrics derived from the publication graph, and the collaborator graph itself."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.db import connection, transaction

from researchers.services import researcher_pages_invalidate

from . import keys
from .models import (
    CLOSE_MIN_JOINT_WORKS,
    CLOSE_MIN_WEIGHT,
    CLOSE_SQL,
    MAX_AUTHORS_FOR_EDGES,
    SLICE_SUMMARY_MIN_WORKS,
)
from .selectors import SLICE_CAPS

logger = logging.getLogger(__name__)

# The slice summaries (graph.models.SliceSummary) of the records in summary_big, in the slice
# orders of graph.selectors (_WORKS_SQL and _TOPICS_SQL), written where they changed; the
# summaries of the other records in %(ids)s go. A statement of its own, after _REFRESH_SQL:
# inside it the planner cannot see that a few of a batch's researchers have that many works,
# and sorted every researcher's works (a third more time for a 5,000-work batch).
_SUMMARY_CTES = """
summary_ranked AS (
    SELECT k.researcher_id, k.work_id,
           row_number() OVER (
               PARTITION BY k.researcher_id
               ORDER BY k.publication_date DESC NULLS LAST, k.publication_year DESC NULLS LAST,
                        k.work_id DESC
           ) AS recent_rank,
           row_number() OVER (
               PARTITION BY k.researcher_id ORDER BY k.cited DESC, k.work_id DESC
           ) AS cited_rank
    FROM ranked k JOIN summary_big b ON b.id = k.researcher_id
),
summary_works AS (
    SELECT researcher_id,
           array_agg(work_id ORDER BY recent_rank) FILTER (WHERE recent_rank <= %(recent)s)
               AS recent_work_ids,
           array_agg(work_id ORDER BY cited_rank) FILTER (WHERE cited_rank <= %(cited)s)
               AS cited_work_ids
    FROM summary_ranked GROUP BY researcher_id
),
summary_topic_counts AS (
    SELECT rw.researcher_id, wt.topic_id, count(*) AS works,
           row_number() OVER (
               PARTITION BY rw.researcher_id ORDER BY count(*) DESC, wt.topic_id
           ) AS rank
    FROM researcher_works rw
    JOIN summary_big b ON b.id = rw.researcher_id
    JOIN publications_worktopic wt ON wt.work_id = rw.work_id
    GROUP BY rw.researcher_id, wt.topic_id
),
summary_topics AS (
    SELECT researcher_id, array_agg(topic_id ORDER BY rank) AS topic_ids,
           array_agg(works ORDER BY rank) AS topic_works
    FROM summary_topic_counts WHERE rank <= %(topics)s GROUP BY researcher_id
),
summary_fresh AS (
    SELECT b.id AS researcher_id,
           coalesce(w.recent_work_ids, '{}') AS recent_work_ids,
           coalesce(w.cited_work_ids, '{}') AS cited_work_ids,
           coalesce(t.topic_ids, '{}') AS topic_ids,
           coalesce(t.topic_works, '{}') AS topic_works
    FROM summary_big b
    LEFT JOIN summary_works w ON w.researcher_id = b.id
    LEFT JOIN summary_topics t ON t.researcher_id = b.id
),
summary_removed AS (
    DELETE FROM graph_slicesummary s
    WHERE s.researcher_id = ANY(%(ids)s) AND s.researcher_id NOT IN (SELECT id FROM summary_big)
),
summary_written AS (
    INSERT INTO graph_slicesummary AS s
        (researcher_id, recent_work_ids, cited_work_ids, topic_ids, topic_works)
    SELECT researcher_id, recent_work_ids, cited_work_ids, topic_ids, topic_works
    FROM summary_fresh
    ON CONFLICT (researcher_id) DO UPDATE SET
        recent_work_ids = EXCLUDED.recent_work_ids, cited_work_ids = EXCLUDED.cited_work_ids,
        topic_ids = EXCLUDED.topic_ids, topic_works = EXCLUDED.topic_works
    WHERE (s.recent_work_ids, s.cited_work_ids, s.topic_ids, s.topic_works)
          IS DISTINCT FROM
          (EXCLUDED.recent_work_ids, EXCLUDED.cited_work_ids, EXCLUDED.topic_ids,
           EXCLUDED.topic_works)
)
"""

_SLICE_SUMMARY_SQL = (
    """
WITH summary_big AS MATERIALIZED (
    SELECT id FROM researchers_researcher
    WHERE id = ANY(%(ids)s) AND works_count >= %(min_works)s
),
researcher_works AS MATERIALIZED (
    SELECT DISTINCT a.researcher_id, a.work_id
    FROM publications_authorship a JOIN summary_big b ON a.researcher_id = b.id
),
ranked AS (
    SELECT rw.researcher_id, rw.work_id, w.publication_date, w.publication_year,
           w.cited_by_count AS cited
    FROM researcher_works rw JOIN publications_work w ON w.id = rw.work_id
),
"""
    + _SUMMARY_CTES
    + "SELECT count(*) FROM summary_fresh"
)


def _summary_params(ids: list[int]) -> dict:
    return {
        "ids": ids,
        "min_works": SLICE_SUMMARY_MIN_WORKS,
        "recent": SLICE_CAPS["recent_works"],
        "cited": SLICE_CAPS["cited_works"],
        "topics": SLICE_CAPS["topics"],
    }


_REFRESH_SQL = """
WITH touched AS (
    SELECT id FROM researchers_researcher WHERE id = ANY(%(ids)s) ORDER BY id FOR UPDATE
),
researcher_works AS (
    SELECT DISTINCT a.researcher_id, a.work_id
    FROM publications_authorship a JOIN touched t ON a.researcher_id = t.id
),
ranked AS (
    SELECT rw.researcher_id, w.cited_by_count AS cited,
           row_number() OVER (PARTITION BY rw.researcher_id ORDER BY w.cited_by_count DESC) AS rank
    FROM researcher_works rw JOIN publications_work w ON w.id = rw.work_id
),
metrics AS (
    SELECT researcher_id,
           count(*) AS works_count,
           coalesce(sum(cited), 0) AS cited_by_count,
           -- ranked by citations, the h-index is the number of works whose rank <= citations
           count(*) FILTER (WHERE cited >= rank) AS h_index,
           count(*) FILTER (WHERE cited >= 10) AS i10_index
    FROM ranked GROUP BY researcher_id
),
topics AS (
    SELECT rw.researcher_id, count(DISTINCT wt.topic_id) AS topics_count
    FROM researcher_works rw JOIN publications_worktopic wt ON wt.work_id = rw.work_id
    GROUP BY rw.researcher_id
),
yearly AS (
    SELECT researcher_id, jsonb_object_agg(year, citations ORDER BY year) AS citations_by_year
    FROM (
        SELECT rw.researcher_id, per_year.key AS year, sum(per_year.value::int) AS citations
        FROM researcher_works rw
        JOIN publications_work w ON w.id = rw.work_id
        CROSS JOIN LATERAL jsonb_each_text(w.counts_by_year) AS per_year
        GROUP BY rw.researcher_id, per_year.key
    ) AS counts
    GROUP BY researcher_id
),
fresh AS (
    SELECT t.id,
           coalesce(m.works_count, 0) AS works_count,
           coalesce(m.cited_by_count, 0) AS cited_by_count,
           coalesce(m.h_index, 0) AS h_index,
           coalesce(m.i10_index, 0) AS i10_index,
           coalesce(tp.topics_count, 0) AS topics_count,
           coalesce(y.citations_by_year, '{}'::jsonb) AS citations_by_year
    FROM touched t
    LEFT JOIN metrics m ON m.researcher_id = t.id
    LEFT JOIN topics tp ON tp.researcher_id = t.id
    LEFT JOIN yearly y ON y.researcher_id = t.id
)
UPDATE researchers_researcher r SET
    works_count = f.works_count, cited_by_count = f.cited_by_count, h_index = f.h_index,
    i10_index = f.i10_index, topics_count = f.topics_count, citations_by_year = f.citations_by_year
FROM fresh f
WHERE r.id = f.id
  AND (r.works_count, r.cited_by_count, r.h_index, r.i10_index, r.topics_count, r.citations_by_year)
      IS DISTINCT FROM
      (f.works_count, f.cited_by_count, f.h_index, f.i10_index, f.topics_count, f.citations_by_year)
"""


def researcher_metrics_refresh(*, researcher_ids: Collection[int]) -> int:
    """Recompute works, citations, h-index, i10-index, topics and citations per year, and the
    slice summaries of the records with many works (SliceSummary).

    Two statements for the whole set, whatever its size; each researcher is computed once.
    Rows are locked in id order so concurrent import batches cannot deadlock on them.
    Returns the number of researchers whose figures changed.
    """
    if not researcher_ids:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(_REFRESH_SQL, {"ids": sorted(researcher_ids)})
        changed = cursor.rowcount
    slice_summaries_refresh(researcher_ids=researcher_ids)
    return changed


def slice_summaries_refresh(*, researcher_ids: Collection[int]) -> None:
    """Write the SliceSummary of each of these researchers with SLICE_SUMMARY_MIN_WORKS works
    or more (by works_count as stored), and drop it for the others. The caller holds the
    transaction and has refreshed works_count (researcher_metrics_refresh does both)."""
    if not researcher_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(_SLICE_SUMMARY_SQL, _summary_params(sorted(researcher_ids)))


# --- Coauthor edges -------------------------------------------------------------------------
#
# Both routes below compute the same thing from publications_authorship and publications_work:
# for each pair of distinct researchers on a work with 2..MAX_AUTHORS_FOR_EDGES authors, the
# number of joint works, the sum of 1 / (authors - 1) and the first and last publication year.
# A researcher listed twice on one work counts once. Each work adds round(1 / (n - 1), 12) as
# numeric, and sums of those are exact, so the result does not depend on the order rows arrive
# in or on how they are grouped: the incremental routes and the rebuild give identical tables.

# Taken by the incremental refresh (per transaction) and by the rebuild (for its whole run),
# so the rebuild never swaps tables under a refresh, and refreshes wait for it.
EDGES_LOCK_KEY = 0x67726170685F6564  # "graph_ed"

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
written AS (
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
)
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
written AS (
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
),
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
        moved = sorted((researcher_id, delta) for researcher_id, delta, _ in rows if delta)
        if moved:
            ids, deltas = zip(*moved, strict=True)
            cursor.execute(_CLOSE_COUNT_ADD_SQL, {"ids": list(ids), "deltas": list(deltas)})
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


# --- Queueing edge refreshes after import batches -------------------------------------------

# A queued drain that never ran (its message lost) no longer blocks new ones after this.
DRAIN_QUEUED_SECONDS = 10 * 60


def graph_slices_invalidate(*, researcher_ids: Collection[int]) -> None:
    """Give these researchers a new slice version: their cached slices are never read again."""
    ids = sorted({int(i) for i in researcher_ids})
    if not ids:
        return
    version = str(time.time_ns())
    redis = keys.redis_client()
    pipe = redis.pipeline(transaction=False)
    for researcher_id in ids:
        pipe.set(
            keys.key(keys.SLICE_VERSION.format(id=researcher_id)),
            version,
            ex=keys.SLICE_VERSION_SECONDS,
        )
    pipe.execute()


def graph_slices_invalidate_all() -> None:
    keys.redis_client().set(keys.key(keys.SLICE_GENERATION), str(time.time_ns()))


def coauthor_edges_mark_pending(
    *, researcher_ids: Collection[int], refresh_researchers: bool = False
) -> bool:
    """After a change committed: invalidate these researchers' slices (their works changed)
    and, with refresh_researchers (a merge), queue a refresh of every edge among them.
    Returns True when the caller should queue a drain (none was queued yet)."""
    ids = sorted({int(i) for i in researcher_ids})
    redis = keys.redis_client()
    if refresh_researchers:
        for start in range(0, len(ids), 10_000):
            redis.sadd(keys.key(keys.EDGES_PENDING), *ids[start : start + 10_000])
    graph_slices_invalidate(researcher_ids=ids)
    if not (refresh_researchers and ids):
        return False
    return coauthor_edges_drain_wanted()


def coauthor_edges_drain_wanted() -> bool:
    """True when no drain is queued yet: the caller queues one (a Redis flag, so a burst of
    batches sends one message; it expires, so a lost message does not block the next)."""
    return bool(
        keys.redis_client().set(
            keys.key(keys.EDGES_DRAIN_QUEUED), "1", nx=True, ex=DRAIN_QUEUED_SECONDS
        )
    )


# --- Bylines written by import batches --------------------------------------------------------

_BYLINES_OF_WORKS = """
SELECT w.id AS work_id,
       coalesce(array_agg(DISTINCT au.researcher_id ORDER BY au.researcher_id)
                FILTER (WHERE au.researcher_id IS NOT NULL), '{}') AS researcher_ids,
       w.authors_count, w.publication_year
FROM publications_work w LEFT JOIN publications_authorship au ON au.work_id = w.id
WHERE w.openalex_id = ANY(%(ids)s)
GROUP BY w.id
"""


def coauthor_bylines_before(*, work_openalex_ids: Collection[str]) -> None:
    """Keep the current bylines of these works (those about to be written) in a temporary
    table of the caller's transaction, for coauthor_bylines_record. Call it before writing."""
    if not work_openalex_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS pg_temp.graph_bylines_before")
        cursor.execute(
            f"CREATE TEMP TABLE graph_bylines_before ON COMMIT DROP AS {_BYLINES_OF_WORKS}",
            {"ids": list(work_openalex_ids)},
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


def coauthor_bylines_record(*, work_openalex_ids: Collection[str]) -> int:
    """After writing: record, in the caller's transaction, each byline of these works that
    changed since coauthor_bylines_before, as a -1 row (the old one) and a +1 row (the new
    one), for the drain. Returns the rows recorded (0 when nothing that makes edges changed)."""
    if not work_openalex_ids:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(_RECORD_BYLINES_SQL, {"ids": list(work_openalex_ids)})
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
    if moved:
        ids, deltas = zip(*moved, strict=True)
        with connection.cursor() as cursor:
            cursor.execute(_CLOSE_COUNT_ADD_SQL, {"ids": list(ids), "deltas": list(deltas)})
    if lost:
        changed |= coauthor_edge_pairs_refresh(pairs=lost).changed_researcher_ids
    return applied, changed


def _pending_bylines() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM graph_pendingbyline)")
        return cursor.fetchone()[0]


def coauthor_edges_drain() -> int:
    """Apply every pending byline and refresh every pending researcher until none is left.

    One drain runs at a time (a transaction-level advisory lock, tried, not waited for): a
    second one returns at once, and the first looks again after each commit, so nothing added
    meanwhile is stranded. Bylines are applied exactly once (they are deleted in the
    transaction that applies them), in transactions of at most PENDING_BYLINES_PER_TRANSACTION.
    Researcher ids (merges) are moved to a processing set first and dropped only after the
    commit, so a drain that dies loses nothing; their refresh is idempotent.
    Returns the number of bylines and researcher ids handled.
    """
    redis = keys.redis_client()
    pending, processing = keys.key(keys.EDGES_PENDING), keys.key(keys.EDGES_PROCESSING)
    redis.delete(keys.key(keys.EDGES_DRAIN_QUEUED))
    handled = 0
    while _pending_bylines() or redis.exists(pending, processing):
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [EDGES_LOCK_KEY])
                if not cursor.fetchone()[0]:
                    logger.info("edges drain: another drain or a rebuild holds the lock")
                    return handled
            applied, changed = coauthor_bylines_apply()
            ids: list[int] = []
            if not applied:
                pipe = redis.pipeline(transaction=True)
                pipe.sunionstore(processing, [processing, pending])
                pipe.delete(pending)
                pipe.smembers(processing)
                ids = sorted(int(raw) for raw in pipe.execute()[2])
                changed |= coauthor_edges_refresh(researcher_ids=ids).changed_researcher_ids
        if ids:
            redis.delete(processing)
        graph_slices_invalidate(researcher_ids=changed)
        # Profile pages show the close-collaborators count, which may have changed.
        researcher_pages_invalidate(researcher_ids=changed)
        handled += applied + len(ids)
        logger.info(
            "edges drain: %d bylines applied, %d researchers refreshed, %d changed",
            applied,
            len(ids),
            len(changed),
        )
    return handled


# --- Full rebuild ---------------------------------------------------------------------------

# The rebuild reads each work once, as a byline: its identified researchers as a sorted array
# without repeats, and its share of a pair's weight, round(1 / (authors - 1), 12), as a whole
# number of 1e-12 units (share_units, exact: the rounded share has 12 decimals).
#
# One slice's pairs: each researcher of the slice on a byline, paired with the researchers
# after them on it (so a < b, and each pair of a work comes once), all unnested in the select
# list, streamed, with no join: on the 1M-work bench a slice took ~4 s this way against ~6 s
# for a self-join of the authorships on the work, most of which went to hashing all 5.2M
# authorships again for every slice. Summing the bigint units and scaling the sum once per pair
# gives the very numeric the drain gets by summing the rounded shares, for less than a numeric
# division and addition per joint work (another ~0.6 s a slice).
# The pairs are written in (a, b) order so each researcher's edges sit together on disk:
# a drain's updates for one researcher then touch a few pages instead of one page per pair,
# and a slice reads a researcher's edges from neighbouring pages. The same pairs, still in
# memory, give this slice's part of every close-collaborators count (a-ends fall in this
# slice only, b-ends in any), so the rebuild never scans the new table to count them.
_REBUILD_SLICE_SQL = f"""
WITH e AS MATERIALIZED (
    SELECT p.a AS researcher_a_id, p.b AS researcher_b_id, count(*) AS joint_works_count,
           sum(p.share_units) * 0.000000000001 AS weight,
           min(p.publication_year) AS first_year, max(p.publication_year) AS last_year
    FROM (
        SELECT x.a, unnest(x.researcher_ids[x.position + 1:]) AS b, x.share_units,
               x.publication_year
        FROM (
            SELECT unnest(researcher_ids) AS a, generate_subscripts(researcher_ids, 1) AS position,
                   researcher_ids, share_units, publication_year
            FROM graph_rebuild_bylines
        ) x
        WHERE x.a %% %(slices)s = %(slice)s
    ) p
    GROUP BY p.a, p.b
),
written AS (
    INSERT INTO graph_coauthoredge_build
        (researcher_a_id, researcher_b_id, joint_works_count, weight, first_year, last_year)
    SELECT researcher_a_id, researcher_b_id, joint_works_count, weight, first_year, last_year
    FROM e ORDER BY researcher_a_id, researcher_b_id
),
counted AS (
    INSERT INTO graph_rebuild_close (researcher_id, close_collaborators_count)
    SELECT id, count(*) FROM (
        SELECT e.researcher_a_id AS id FROM e WHERE {CLOSE_SQL}
        UNION ALL
        SELECT e.researcher_b_id FROM e WHERE {CLOSE_SQL}
    ) ends GROUP BY id
)
SELECT count(*) FROM e
"""

# The counts summed over the slices, as the new table of close-collaborators counts (only
# researchers with at least one: a missing row is 0), swapped in with the new edges. A table of
# its own, not the researchers rows: updating the ~480k counts of a fresh 1M-work corpus there
# took 36-49 s (twenty-odd indexes, several GIN, at about 75 us a row); writing them here as a
# new table takes a second or two, whatever changed.
_REBUILD_CLOSE_SQL = (
    "CREATE TABLE graph_closecollaboratorscount_build"
    " (LIKE graph_closecollaboratorscount INCLUDING DEFAULTS INCLUDING CONSTRAINTS)",
    """
INSERT INTO graph_closecollaboratorscount_build (researcher_id, close_collaborators_count)
SELECT researcher_id, sum(close_collaborators_count)
FROM graph_rebuild_close GROUP BY researcher_id ORDER BY researcher_id
""",
    "CREATE UNIQUE INDEX graph_closecollaboratorscount_build_pkey"
    " ON graph_closecollaboratorscount_build (researcher_id)",
)


# Free room in each page, so the drain's updates (no indexed column changes) stay on their page
# and need no new index entries (heap-only tuples).
EDGES_FILLFACTOR = 85


@dataclass(frozen=True)
class RebuildResult:
    edges: int
    seconds: float
    step_seconds: dict[str, float]


def _run_in_threads(jobs: list[Callable[[], None]], *, workers: int) -> None:
    """Run jobs on `workers` threads, each with a database connection of its own."""

    def run(job: Callable[[], None]) -> None:
        try:
            job()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(run, job) for job in jobs]:
            future.result()


def coauthor_edges_rebuild(
    *,
    slices: int = 16,
    workers: int = 2,
    work_mem: str = "1GB",
    maintenance_work_mem: str = "64MB",
    on_progress: Callable[[str], None] | None = None,
) -> RebuildResult:
    """Rebuild every coauthor edge and every close-collaborators count from scratch.

    The new edges go into a table of their own, built by `workers` connections at once, each
    taking slices of the researchers (by id modulo `slices`, so every slice holds whole groups
    and no pair is counted in two) and counting the close collaborators of its pairs as it
    goes; the indexes are built after the rows, both at once (`maintenance_work_mem` each),
    while a third connection writes the counts as a new table too; then both new tables
    replace the old ones in one short transaction. Pages keep reading the old edges and counts
    until then. Refreshes after import batches wait for the
    rebuild (the edges lock), and the ones that queued up meanwhile are drained afterwards by
    the caller.
    """
    say = on_progress or (lambda step: None)
    steps: dict[str, float] = {}
    started = time.monotonic()

    def step(name: str, began: float) -> None:
        steps[name] = round(time.monotonic() - began, 3)
        say(name)

    def sql(statement: str, params: dict | None = None) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"SET work_mem = '{work_mem}'")
            cursor.execute(statement, params)

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [EDGES_LOCK_KEY])
    try:
        began = time.monotonic()
        sql(
            "DROP TABLE IF EXISTS graph_coauthoredge_build, graph_rebuild_bylines,"
            " graph_rebuild_close, graph_closecollaboratorscount_build"
        )
        # One snapshot for both: the bylines pending now are in the authorships read here, so
        # they are dropped; those committed later stay pending and are applied afterwards.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("DELETE FROM graph_pendingbyline")
            cursor.execute(
                f"""
            CREATE UNLOGGED TABLE graph_rebuild_bylines AS
            SELECT array_agg(DISTINCT au.researcher_id ORDER BY au.researcher_id)
                       AS researcher_ids,
                   (round(1::numeric / (w.authors_count - 1), 12) * 1000000000000)::bigint
                       AS share_units,
                   w.publication_year
            FROM publications_authorship au JOIN publications_work w ON w.id = au.work_id
            WHERE au.researcher_id IS NOT NULL
              AND w.authors_count BETWEEN 2 AND {MAX_AUTHORS_FOR_EDGES}
            GROUP BY au.work_id, w.authors_count, w.publication_year
            HAVING count(DISTINCT au.researcher_id) >= 2
            """
            )
        sql("ANALYZE graph_rebuild_bylines")
        sql(
            "CREATE TABLE graph_coauthoredge_build"
            " (LIKE graph_coauthoredge INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"
            f" WITH (fillfactor = {EDGES_FILLFACTOR})"
        )
        sql(
            "CREATE UNLOGGED TABLE graph_rebuild_close"
            " (researcher_id bigint NOT NULL, close_collaborators_count integer NOT NULL)"
        )
        step("authorships", began)

        began = time.monotonic()
        slice_edges: list[int] = []

        def build_slice(number: int) -> Callable[[], None]:
            def job() -> None:
                with connection.cursor() as cursor:
                    cursor.execute(f"SET work_mem = '{work_mem}'")
                    # The planner takes each unnest for 100 rows, so it costs a slice at
                    # ~100 times its size and would spend ~0.2 s compiling it (JIT) for nothing.
                    cursor.execute("SET jit = off")
                    cursor.execute(_REBUILD_SLICE_SQL, {"slices": slices, "slice": number})
                    slice_edges.append(cursor.fetchone()[0])
                say(f"slice {number + 1}/{slices}")

            return job

        _run_in_threads([build_slice(n) for n in range(slices)], workers=workers)
        step("pairs", began)

        # The new counts table is written on a third connection while the two indexes are
        # built; the new tables replace the old ones in the swap below. maintenance_work_mem
        # is set for the builds, not left to the server: more is slower here. On the 1M-work
        # bench (22M rows, two builds at once) 64MB took 12 s, 1GB 15-18 s and 2GB 19 s: the
        # external sort's small runs stay in the CPU caches, one big in-memory sort does not.
        began = time.monotonic()
        close_seconds: list[float] = []

        def index(statement: str) -> Callable[[], None]:
            def job() -> None:
                with connection.cursor() as cursor:
                    cursor.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
                    cursor.execute(statement)

            return job

        def close_counts() -> None:
            close_began = time.monotonic()
            with connection.cursor() as cursor:
                cursor.execute(f"SET work_mem = '{work_mem}'")
                for statement in _REBUILD_CLOSE_SQL:
                    cursor.execute(statement)
            close_seconds.append(time.monotonic() - close_began)

        _run_in_threads(
            [
                index(
                    "CREATE UNIQUE INDEX graph_coauthoredge_build_pkey"
                    " ON graph_coauthoredge_build (researcher_a_id, researcher_b_id)"
                ),
                index(
                    "CREATE INDEX graph_coauthoredge_build_b_idx"
                    " ON graph_coauthoredge_build (researcher_b_id, researcher_a_id)"
                ),
                close_counts,
            ],
            workers=3,
        )
        steps["close collaborators"] = round(close_seconds[0], 3)
        say("close collaborators")
        step("indexes", began)

        began = time.monotonic()
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                """
                ALTER TABLE graph_coauthoredge_build ADD CONSTRAINT graph_coauthoredge_build_pkey
                    PRIMARY KEY USING INDEX graph_coauthoredge_build_pkey;
                ALTER TABLE graph_closecollaboratorscount_build
                    ADD CONSTRAINT graph_closecollaboratorscount_build_pkey
                    PRIMARY KEY USING INDEX graph_closecollaboratorscount_build_pkey;
                LOCK TABLE graph_coauthoredge, graph_closecollaboratorscount
                    IN ACCESS EXCLUSIVE MODE;
                DROP TABLE graph_coauthoredge, graph_closecollaboratorscount;
                ALTER TABLE graph_coauthoredge_build RENAME TO graph_coauthoredge;
                ALTER TABLE graph_coauthoredge
                    RENAME CONSTRAINT graph_coauthoredge_build_pkey TO graph_coauthoredge_pkey;
                ALTER INDEX graph_coauthoredge_build_b_idx RENAME TO coauthor_edge_b_idx;
                ALTER TABLE graph_closecollaboratorscount_build
                    RENAME TO graph_closecollaboratorscount;
                ALTER TABLE graph_closecollaboratorscount
                    RENAME CONSTRAINT graph_closecollaboratorscount_build_pkey
                    TO graph_closecollaboratorscount_pkey;
                DROP TABLE graph_rebuild_bylines, graph_rebuild_close;
                """
            )
        sql("ANALYZE graph_coauthoredge")
        sql("ANALYZE graph_closecollaboratorscount")
        step("swap", began)
        edges = sum(slice_edges)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [EDGES_LOCK_KEY])
    graph_slices_invalidate_all()
    return RebuildResult(edges, round(time.monotonic() - started, 3), steps)
