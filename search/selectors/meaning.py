"""The works tab's "by meaning" mode: the full-text matches and the works nearest the query in
meaning (discovery's index), fused by reciprocal rank fusion.

Each list contributes 1 / (RRF_K + rank) to a work's score (Cormack, Clarke and Büttcher, 2009;
k = 60 as they suggest): a work high in both lists comes first, one found by a single list is
ranked by its place there, and no score of one list has to be made comparable to the other's.
Each result says whether it matched by words, by meaning or both.

Queries: the ranked full-text ids (one statement), the nearest works kept by the filters (one),
the page's highlighted titles and snippets (one), the works and their first authors (two),
whatever the data. Embedding the query loads the model into the web process on the first
by-meaning query (docs/discovery.md says what that costs).
"""

from __future__ import annotations

from dataclasses import dataclass

from bzpeer.db import read_connection
from discovery.selectors.index import IndexMissing, works_nearest_text
from search.highlight import HIGHLIGHT_START, HIGHLIGHT_STOP, highlighted_html

from .results import MAX_QUERY_LENGTH, SEARCH_PAGE_SIZE, SearchPage, page_offset
from .work_hits import works_for_hits
from .works import (
    _ABSTRACT_HEADLINE_OPTIONS,
    _TITLE_HEADLINE_OPTIONS,
    TEXT_SEARCH_CONFIG,
    WorkFilters,
    WorkHit,
    work_candidates_sql,
    works_filtered,
)

RRF_K = 60
# How deep each list goes into the fusion: the fused list holds at most twice this.
FUSED_DEPTH = 100
# Below this cosine a neighbour is no match at all: the index always returns its nearest,
# even for a query that means nothing the corpus holds (unrelated texts score about 0-0.2).
MEANING_MIN_SCORE = 0.3
BY_WORDS, BY_MEANING = "words", "meaning"

_RANKED_IDS_SQL = """
WITH candidates AS MATERIALIZED ({candidates})
SELECT c.id FROM candidates c
ORDER BY ts_rank(c.search_vector, websearch_to_tsquery(%s::regconfig, %s)) DESC,
         c.cited_by_count DESC, c.id
LIMIT %s
"""
_PAGE_SQL = """
SELECT w.id,
       ts_headline(%s::regconfig, translate(w.title, %s, ''),
                   websearch_to_tsquery(%s::regconfig, %s), %s),
       ts_headline(%s::regconfig, translate(w.abstract, %s, ''),
                   websearch_to_tsquery(%s::regconfig, %s), %s)
FROM publications_work w WHERE w.id = ANY(%s)
"""


@dataclass(frozen=True)
class MeaningSearch:
    page: SearchPage[WorkHit]
    # False when no index has been built yet: the page shows the words' matches and says so.
    meaning_available: bool


def _words_ranked(query: str, filters: WorkFilters) -> list[int]:
    sql, params = work_candidates_sql(
        query, filters, columns=("id", "search_vector", "cited_by_count"), limit=FUSED_DEPTH * 10
    )
    with read_connection().cursor() as cursor:
        cursor.execute(
            _RANKED_IDS_SQL.format(candidates=sql),
            [*params, TEXT_SEARCH_CONFIG, query, FUSED_DEPTH],
        )
        return [work_id for (work_id,) in cursor.fetchall()]


def _meaning_ranked(query: str, filters: WorkFilters) -> tuple[list[int], bool]:
    try:
        # Deeper than the fusion needs: the filters may drop some.
        neighbours = works_nearest_text(query, limit=FUSED_DEPTH * 2)
    except IndexMissing:
        return [], False
    close = [n.work_id for n in neighbours if n.score >= MEANING_MIN_SCORE]
    # The works that still exist and that the filters keep, in the neighbours' order.
    kept = set(
        works_filtered(filters)
        .filter(id__in=close)
        .values_list("id", flat=True)
        .using(read_connection().alias)
    )
    return [work_id for work_id in close if work_id in kept][:FUSED_DEPTH], True


def reciprocal_rank_fusion(
    ranked_lists: dict[str, list[int]], *, k: int = RRF_K
) -> list[tuple[int, float, tuple[str, ...]]]:
    """(id, fused score, the lists that hold it), best first; ties by id."""
    scores: dict[int, float] = {}
    found_by: dict[int, list[str]] = {}
    for name, ranked in ranked_lists.items():
        for rank, item in enumerate(ranked, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            found_by.setdefault(item, []).append(name)
    order = sorted(scores, key=lambda item: (-scores[item], item))
    return [(item, scores[item], tuple(found_by[item])) for item in order]


def work_search_by_meaning(
    *, query: str, filters: WorkFilters | None = None, page: int = 1
) -> MeaningSearch:
    """One page of the fused list, with highlighted titles and snippets (a work found only by
    meaning shows the start of its abstract: no word of the query is in it)."""
    query = query[:MAX_QUERY_LENGTH]
    filters = filters or WorkFilters()
    by_words = _words_ranked(query, filters)
    by_meaning, available = _meaning_ranked(query, filters)
    fused = reciprocal_rank_fusion({BY_WORDS: by_words, BY_MEANING: by_meaning})
    offset = page_offset(page)
    shown = fused[offset : offset + SEARCH_PAGE_SIZE]
    ids = [work_id for work_id, _score, _by in shown]
    marks = HIGHLIGHT_START + HIGHLIGHT_STOP
    with read_connection().cursor() as cursor:
        cursor.execute(
            _PAGE_SQL,
            [
                *(TEXT_SEARCH_CONFIG, marks, TEXT_SEARCH_CONFIG, query, _TITLE_HEADLINE_OPTIONS),
                *(TEXT_SEARCH_CONFIG, marks, TEXT_SEARCH_CONFIG, query, _ABSTRACT_HEADLINE_OPTIONS),
                ids,
            ],
        )
        headlines = {work_id: (title, abstract) for work_id, title, abstract in cursor.fetchall()}
    works = works_for_hits(ids)
    hits = [
        WorkHit(
            work=works[work_id],
            rank=score,
            title_html=highlighted_html(headlines[work_id][0]),
            snippet_html=highlighted_html(headlines[work_id][1] or ""),
            authorships=works[work_id].first_authorships,
            matched_by=matched_by,
        )
        for work_id, score, matched_by in shown
        if work_id in works and work_id in headlines  # deleted meanwhile: left out
    ]
    return MeaningSearch(
        page=SearchPage(items=hits, number=page, page_size=SEARCH_PAGE_SIZE, total=len(fused)),
        meaning_available=available,
    )
