"""The search benchmark's phases (bench/search_bench.py), each run through Django in this
process once it is set up: name search, suggestions, work search, the works tab, how the
suggestions agree with the uncapped name search, and the uncapped ts_rank baseline."""

from __future__ import annotations

from collections.abc import Sequence

from bench.harness import say
from bench.search_queries import COMMON_WORDS, NameQuery, timed


def warm_up(names: Sequence[NameQuery], works: Sequence[tuple[str, str]]) -> None:
    from search.selectors.researchers import researcher_search
    from search.selectors.works import work_search

    say("warming up ...")
    for query in names[:30]:
        researcher_search(query=query.text)
    for _kind, text in works[:30]:
        work_search(query=text)


def names_time(
    names: Sequence[NameQuery], runs: int
) -> tuple[dict[str, list[list[float]]], dict[str, dict[str, float]]]:
    """Each misspelt name searched `runs` times: the samples by kind of misspelling, and how
    often the name still came first and the record was on the first page."""
    from researchers.names import normalize_name
    from search.selectors.researchers import researcher_search

    say(f"name search: {len(names)} misspelt names, {runs} runs each ...")
    name_samples: dict[str, list[list[float]]] = {}
    quality: dict[str, dict[str, float]] = {}
    for query in names:
        samples = []
        for _ in range(runs):
            duration, page = timed(lambda q=query: researcher_search(query=q.text))
            samples.append(duration)
        name_samples.setdefault(query.kind, []).append(samples)
        figures = quality.setdefault(
            query.kind, {"queries": 0, "same_name_first": 0, "record_on_first_page": 0}
        )
        figures["queries"] += 1
        items = page.items  # type: ignore[attr-defined]
        figures["same_name_first"] += bool(items) and (
            normalize_name(items[0].display_name) == query.name_normalized
        )
        figures["record_on_first_page"] += any(r.id == query.researcher_id for r in items)
    for figures in quality.values():
        figures["same_name_first"] /= figures["queries"]
        figures["record_on_first_page"] /= figures["queries"]
    return name_samples, quality


def suggestions_time(partial_names: Sequence[str], runs: int) -> list[list[float]]:
    from search.selectors.suggestions import researcher_suggestions

    say(f"suggestions: {len(partial_names)} names typed part way ...")
    return [
        [timed(lambda q=text: researcher_suggestions(q))[0] for _ in range(runs)]
        for text in partial_names
    ]


def works_time(
    works: Sequence[tuple[str, str]], runs: int
) -> tuple[dict[str, list[list[float]]], dict[str, set[tuple[int, ...]]]]:
    """Each work query run `runs` times: the samples by kind, and each query's first pages."""
    from search.selectors.works import work_search

    say(f"work search: {len(works)} queries, {runs} runs each ...")
    work_samples: dict[str, list[list[float]]] = {}
    # The first page of each query, run by run: a page that changes from one run to the next
    # is one a person paging through the results sees shift under them.
    work_pages: dict[str, set[tuple[int, ...]]] = {}
    for kind, text in works:
        samples = []
        for _ in range(runs):
            duration, found = timed(lambda q=text: work_search(query=q))
            samples.append(duration)
            work_pages.setdefault(text, set()).add(
                tuple(hit.work.id for hit in found.items)  # type: ignore[attr-defined]
            )
        work_samples.setdefault(kind, []).append(samples)
    return work_samples, work_pages


def works_tab_time(works: Sequence[tuple[str, str]]) -> list[list[float]]:
    """The first 200 work queries once each, as the search page's works tab runs them."""
    from researchers.names import normalize_name
    from search.selectors.counts import search_counts_but_works
    from search.selectors.works_tab import works_tab

    say("the works tab as the page runs it ...")

    def tab(text: str) -> None:
        # As search.views.search runs it for the works tab without filters: the other tabs'
        # counts, then the works tab (its count, page and facets) in one statement.
        search_counts_but_works(text)
        if normalize_name(text):
            works_tab(query=text)

    return [[timed(lambda q=text: tab(q))[0]] for _kind, text in works[:200]]


def suggestion_agreement(partial_names: Sequence[str]) -> dict[str, float]:
    """How often the suggestions are the first SUGGESTION_LIMIT of the uncapped name search,
    and how often a query had more matches than the suggestions rank."""
    from researchers.name_search import researchers_matching_name
    from researchers.selectors import researchers_public
    from search.selectors.suggestions import (
        SUGGESTION_LIMIT,
        SUGGESTION_RANKED_AT_MOST,
        researcher_suggestions,
    )

    say("suggestions against the uncapped name search (untimed) ...")
    same_as_name_search = capped = 0
    for text in partial_names:
        suggested = [researcher.id for researcher in researcher_suggestions(text)]
        ranked = researchers_matching_name(researchers_public(), text)
        same_as_name_search += suggested == list(
            ranked.values_list("id", flat=True)[:SUGGESTION_LIMIT]
        )
        capped += ranked.order_by()[: SUGGESTION_RANKED_AT_MOST + 1].count() > (
            SUGGESTION_RANKED_AT_MOST
        )
    return {
        "queries": len(partial_names),
        "same_as_name_search": same_as_name_search / max(1, len(partial_names)),
        "capped": capped / max(1, len(partial_names)),
    }


def baseline_time() -> list[list[float]]:
    """ts_rank over every match of each of five common words, uncapped: what
    WORK_CANDIDATE_LIMIT avoids."""
    from django.db import connection

    say("baseline: ts_rank over every match of one common word, uncapped ...")
    baseline = []
    with connection.cursor() as cursor:
        for word in COMMON_WORDS[:5]:
            duration, _ = timed(
                lambda w=word: (
                    cursor.execute(
                        "SELECT id FROM publications_work "
                        "WHERE search_vector @@ websearch_to_tsquery('english', %s) "
                        "ORDER BY ts_rank(search_vector, websearch_to_tsquery('english', %s))"
                        " DESC LIMIT 20",
                        [w, w],
                    ),
                    cursor.fetchall(),
                )
            )
            baseline.append([duration])
    return baseline
