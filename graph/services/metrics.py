"""Researcher metrics (works, citations, h-index, i10-index, topics, citations per year) and
the slice summaries of records with many works, recomputed from their works after a change."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db import connection

from ..models import SLICE_SUMMARY_MIN_WORKS
from ..selectors.slices import SLICE_CAPS

# The slice summaries (graph.models.SliceSummary) of the records in summary_big, in the slice
# orders of graph.selectors.slices (_WORKS_SQL and _TOPICS_SQL), written where they changed; the
# summaries of the other records in %(ids)s go. A statement of its own, after _REFRESH_SQL:
# inside it the planner cannot see that a few of a batch's researchers have that many works,
# and sorted every researcher's works (a third more time for a 5,000-work batch).
_SUMMARY_CTES = """
summary_ranked AS (
    SELECT k.researcher_id, k.work_id,
           row_number() OVER (
               PARTITION BY k.researcher_id
               ORDER BY k.sort_date DESC NULLS LAST, k.work_id DESC
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
    SELECT a.researcher_id, a.work_id
    FROM publications_authorship a JOIN summary_big b ON a.researcher_id = b.id
    UNION
    SELECT l.researcher_id, l.work_id
    FROM publications_worklistedby l JOIN summary_big b ON l.researcher_id = b.id
    WHERE l.position IS NULL
),
ranked AS (
    SELECT rw.researcher_id, rw.work_id, w.sort_date,
           w.cited_by_count AS cited
    FROM researcher_works rw JOIN publications_work w ON w.id = rw.work_id
),
"""
    + _SUMMARY_CTES
    + "SELECT count(*) FROM summary_fresh"
)


def _summary_params(ids: list[int]) -> dict[str, Any]:
    return {
        "ids": ids,
        "min_works": SLICE_SUMMARY_MIN_WORKS,
        "recent": SLICE_CAPS["recent_works"],
        "cited": SLICE_CAPS["cited_works"],
        "topics": SLICE_CAPS["topics"],
    }


_REFRESH_SQL = """
WITH touched AS (
    -- Id order, FOR NO KEY UPDATE: the lock order rule (researchers.services.locks); the
    -- figures change no key, and FOR UPDATE would wait for every foreign key check of a row
    -- pointing at these records.
    SELECT id FROM researchers_researcher WHERE id = ANY(%(ids)s) ORDER BY id FOR NO KEY UPDATE
),
researcher_works AS (
    -- A researcher's works (as publications.selectors reads them): those whose byline names
    -- them, and those their ORCID record lists where no slot could be theirs (WorkListedBy
    -- without a position); UNION counts a work that is both once.
    SELECT a.researcher_id, a.work_id
    FROM publications_authorship a JOIN touched t ON a.researcher_id = t.id
    UNION
    SELECT l.researcher_id, l.work_id
    FROM publications_worklistedby l JOIN touched t ON l.researcher_id = t.id
    WHERE l.position IS NULL
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
