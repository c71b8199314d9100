"""The search page's works tab without filters, read in one statement: the works tab's count,
its ranked page (headlines, works, sources, first authors) and both facets.

Read separately (work_candidates, then work_search given them, then work_topic_facets) they
were three statements: the candidates went to Python as 1,001 rows, came back twice as an
array of ids, and the page's statement read the 1,000 rows again by id (about 3,300 buffer
hits) only to get the search vectors the candidates' scan had just read. Here the candidates
are read once into a materialized CTE that the count, the ranking and both facets read. Only
without filters: a filter narrows the page and the facets (each of them but its own filter),
so they read their own candidates (search.selectors.works).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bzpeer.db import read_connection

from . import works as work_selectors
from .results import (
    COUNT_CAP,
    FACET_LIMIT,
    MAX_QUERY_LENGTH,
    SEARCH_PAGE_SIZE,
    Facet,
    SearchPage,
    TabCount,
    page_offset,
)
from .work_hits import HIT_COLUMNS_SQL, HIT_JOINS_SQL
from .works import (
    WorkFilters,
    WorkHit,
    hits_from_rows,
    ranking_and_headline_params,
    work_candidates_sql,
)


@dataclass(frozen=True)
class WorksTab:
    """What the works tab shows without filters: the tab's count (up to COUNT_CAP, as
    works_matching_count counts it), the page (as work_search ranks it) and the facets (as
    work_topic_facets and work_type_facets count them)."""

    count: TabCount
    page: SearchPage[WorkHit]
    topic_facets: list[Facet]
    type_facets: list[Facet]


# `found` is every candidate the count needs (COUNT_CAP + 1), numbered in the order of the
# scan; `pool` the first WORK_CANDIDATE_LIMIT of them, what is ranked and counted in facets
# (the ids WorkCandidates.ranked_for hands to work_search, in the same order). The summary is
# one row whatever the page holds, so a page past the end still brings the count and facets.
# The topic facet takes the pool's ids as an array (`= ANY(ARRAY(...))`, as work_topic_facets
# is given them): joined to the CTE, which the planner guesses a third of its size, it hashed
# every row of publications_worktopic instead of looking the 1,000 works up in its index.
_WORKS_TAB_SQL = """
WITH found AS MATERIALIZED (
    SELECT c.*, row_number() OVER () AS n FROM ({candidates}) AS c
),
pool AS MATERIALIZED (
    SELECT id, type, search_vector, cited_by_count FROM found WHERE n <= %s
),
ranked AS (
    SELECT p.id, p.cited_by_count,
           ts_rank(p.search_vector, websearch_to_tsquery(%s::regconfig, %s)) AS rank
    FROM pool p
    ORDER BY rank DESC, p.cited_by_count DESC, p.id
    LIMIT %s OFFSET %s
),
summary AS (
    SELECT
        (SELECT count(*) FROM found) AS found_count,
        (SELECT count(*) FROM pool) AS total,
        (SELECT coalesce(json_agg(json_build_array(f.topic_id, f.name, f.matches)
                                  ORDER BY f.matches DESC, f.name, f.topic_id), '[]')
         FROM (SELECT wt.topic_id, t.name, count(*) AS matches
               FROM publications_worktopic wt
               JOIN publications_topic t ON t.id = wt.topic_id
               WHERE wt.work_id = ANY(ARRAY(SELECT id FROM pool))
               GROUP BY wt.topic_id, t.name
               ORDER BY matches DESC, t.name, wt.topic_id
               LIMIT %s) AS f) AS topic_facets,
        (SELECT coalesce(json_agg(json_build_array(f.type, f.matches)
                                  ORDER BY f.matches DESC, f.type), '[]')
         FROM (SELECT type, count(*) AS matches FROM pool GROUP BY type) AS f) AS type_facets
)
SELECT summary.found_count, summary.total, summary.topic_facets, summary.type_facets,
       hit.*
FROM summary LEFT JOIN (
    SELECT r.id, r.rank, r.cited_by_count AS rank_cited_by_count,
           ts_headline(%s::regconfig, translate(w.title, %s, ''),
                       websearch_to_tsquery(%s::regconfig, %s), %s),
           ts_headline(%s::regconfig, translate(w.abstract, %s, ''),
                       websearch_to_tsquery(%s::regconfig, %s), %s),
           {hit_columns}
    FROM ranked r JOIN publications_work w ON w.id = r.id {hit_joins}
) AS hit ON true
ORDER BY hit.rank DESC, hit.rank_cited_by_count DESC, hit.id
"""
_SUMMARY_COLUMNS = 4


def works_tab(*, query: str, page: int = 1) -> WorksTab:
    """The works tab of `query` without filters. One query.

    The same count, page and facets as works_matching_count, work_search(found=
    work_candidates(query)), work_topic_facets and work_type_facets give (tests/search).
    """
    query = query[:MAX_QUERY_LENGTH]
    # Read where work_search reads it, at the call: the one place the limit is set.
    candidate_limit = work_selectors.WORK_CANDIDATE_LIMIT
    candidates_sql, candidates_params = work_candidates_sql(
        query,
        WorkFilters(),
        columns=("id", "type", "search_vector", "cited_by_count"),
        limit=max(COUNT_CAP + 1, candidate_limit),
    )
    ranking_and_headline = ranking_and_headline_params(query)
    params: list[Any] = [
        *candidates_params,
        candidate_limit,
        *ranking_and_headline[:2],
        SEARCH_PAGE_SIZE,
        page_offset(page),
        FACET_LIMIT,
        *ranking_and_headline[2:],
    ]
    connection = read_connection()
    with connection.cursor() as cursor:
        cursor.execute(
            _WORKS_TAB_SQL.format(
                candidates=candidates_sql, hit_columns=HIT_COLUMNS_SQL, hit_joins=HIT_JOINS_SQL
            ),
            params,
        )
        rows = cursor.fetchall()
    found_count, total, topic_rows, type_rows = rows[0][:_SUMMARY_COLUMNS]
    page_rows = [
        (work_id, rank, *columns)
        for work_id, rank, _cited, *columns in (row[_SUMMARY_COLUMNS:] for row in rows)
        if work_id is not None
    ]
    hits = hits_from_rows(connection.alias, page_rows)
    return WorksTab(
        count=TabCount(count=min(found_count, COUNT_CAP), capped=found_count > COUNT_CAP),
        # As work_search: a page past the end has no total (SearchPage.past_the_end).
        page=SearchPage(
            items=hits,
            number=page,
            page_size=SEARCH_PAGE_SIZE,
            total=total if hits else 0,
            total_capped=bool(hits) and total >= candidate_limit,
        ),
        topic_facets=[
            Facet(value=str(topic_id), label=name, count=matches)
            for topic_id, name, matches in topic_rows
        ],
        type_facets=[
            Facet(value=work_type, label=work_type, count=matches)
            for work_type, matches in type_rows
        ],
    )
