"""How many records of each kind match: the tabs of the search page."""

from __future__ import annotations

from collections.abc import Sequence

from researchers.name_search import researchers_name_filter
from researchers.names import normalize_name
from researchers.selectors import researchers_public

from .results import MAX_QUERY_LENGTH, TabCount, capped_count
from .topics_institutions import institutions_matching_name, topics_matching
from .works import WorkCandidates, works_matching_count

SEARCH_KINDS: Sequence[str] = ("researchers", "works", "topics", "institutions")


def search_counts_but_works(query: str) -> dict[str, TabCount]:
    """How many researchers, topics and institutions match `query`: every tab's count but the
    works', which the works tab's own read gives (search.selectors.works_tab). Three
    queries, none for a query without a letter or digit."""
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return {kind: TabCount(0) for kind in SEARCH_KINDS if kind != "works"}
    return {
        "researchers": capped_count(
            researchers_name_filter(researchers_public(), normalized_query)
        ),
        "topics": capped_count(topics_matching(query)),
        "institutions": capped_count(institutions_matching_name(normalized_query)),
    }


def search_counts(query: str, *, works: WorkCandidates | None = None) -> dict[str, TabCount]:
    """How many records of each kind match `query`, without filters. Four queries, three when
    the works' first matches were read already (`works`, work_candidates)."""
    counts = search_counts_but_works(query)
    if not normalize_name(query[:MAX_QUERY_LENGTH]):
        return {**counts, "works": TabCount(0)}
    return {**counts, "works": works.count if works is not None else works_matching_count(query)}
