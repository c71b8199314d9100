"""Metrics derived from the publication graph."""

from __future__ import annotations

from collections.abc import Collection

from django.db import connection

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
    """Recompute works, citations, h-index, i10-index, topics and citations per year.

    One statement for the whole set, whatever its size; each researcher is computed once.
    Rows are locked in id order so concurrent import batches cannot deadlock on them.
    Returns the number of researchers whose figures changed.
    """
    if not researcher_ids:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(_REFRESH_SQL, {"ids": sorted(researcher_ids)})
        return cursor.rowcount
