"""The works tab without filters read in one statement (search.selectors.works_tab): the same
count, page and facets as the selectors that read them one by one, in one query."""

from __future__ import annotations

import pytest

from search.selectors.works import (
    WorkFilters,
    work_candidates,
    work_search,
    work_topic_facets,
    work_type_facets,
)
from search.selectors.works_tab import works_tab
from tests.factories import AuthorshipFactory, TopicFactory, WorkFactory, WorkTopicFactory

pytestmark = pytest.mark.django_db

SEARCH_URL = "/search/"


def one_by_one(query: str, page: int = 1):
    filters = WorkFilters()
    found = work_candidates(query)
    return (
        found.count,
        work_search(query=query, filters=filters, page=page, found=found),
        work_topic_facets(query=query, filters=filters, found=found),
        work_type_facets(query=query, filters=filters, found=found),
    )


def shown(page) -> list[tuple]:
    return [
        (
            hit.work.pk,
            hit.rank,
            str(hit.title_html),
            str(hit.snippet_html),
            [(a.raw_name, a.researcher_id) for a in hit.authorships],
            hit.work.source_id,
        )
        for hit in page.items
    ]


@pytest.fixture
def optical_works():
    optics, photonics = TopicFactory(name="Optical networks"), TopicFactory(name="Photonics")
    works = [
        WorkFactory(
            title=f"Optical switching {'optical ' * (index % 4)}networks",
            abstract="Optical circuits for data centre networks. " * (1 + index % 3),
            type=("article", "preprint", "book-chapter")[index % 3],
            cited_by_count=index % 5,
        )
        for index in range(45)
    ]
    for index, work in enumerate(works):
        AuthorshipFactory(work=work, position=1)
        AuthorshipFactory(work=work, position=2, researcher=None, raw_name="A. Nonymous")
        WorkTopicFactory(work=work, topic=optics if index % 3 else photonics)
    WorkFactory(title="Acoustic switching")
    return works


@pytest.mark.parametrize("page", [1, 2, 3, 9])
def test_it_gives_what_the_selectors_give_one_by_one(optical_works, page):
    count, old_page, topic_facets, type_facets = one_by_one("optical networks", page)

    tab = works_tab(query="optical networks", page=page)

    assert tab.count == count
    assert shown(tab.page) == shown(old_page)
    assert (tab.page.total, tab.page.total_capped) == (old_page.total, old_page.total_capped)
    assert tab.topic_facets == topic_facets
    assert tab.type_facets == type_facets


def test_a_page_past_the_end_still_brings_the_count_and_facets(optical_works):
    tab = works_tab(query="optical", page=9)

    assert tab.page.items == [] and tab.page.past_the_end
    assert str(tab.count) == "45"
    assert sum(facet.count for facet in tab.type_facets) == 45


def test_beyond_the_candidate_limit_it_ranks_and_counts_facets_over_the_first(
    optical_works, monkeypatch
):
    monkeypatch.setattr("search.selectors.works.WORK_CANDIDATE_LIMIT", 10)

    tab = works_tab(query="optical")

    assert str(tab.count) == "45"
    assert (tab.page.total, tab.page.total_capped) == (10, True)
    # The first ten the candidates' scan gives: bucket by bucket in id order, and within one
    # bucket (all 45 here) in the order of the index scan, not always the order of creation.
    assert {hit.work.pk for hit in tab.page.items} <= set(work_candidates("optical").ids[:10])
    assert sum(facet.count for facet in tab.topic_facets) == 10


def test_nothing_matching_gives_an_empty_tab(optical_works):
    tab = works_tab(query="zebra")

    assert (str(tab.count), tab.page.items, tab.page.total) == ("0", [], 0)
    assert (tab.topic_facets, tab.type_facets) == ([], [])


def test_it_is_one_query(optical_works, django_assert_num_queries):
    with django_assert_num_queries(1):
        tab = works_tab(query="optical")

    assert len(tab.page.items) == 20


def test_the_page_reads_the_works_tab_whole_when_no_researcher_matches(
    client, optical_works, django_assert_max_num_queries
):
    # Three tab counts, then the works tab (count, page, facets) in one statement.
    with django_assert_max_num_queries(4):
        response = client.get(SEARCH_URL, {"q": "optical"})

    assert response.context["tab"] == "works"
    assert str(response.context["counts"]["works"]) == "45"
    assert len(response.context["results"].items) == 20
    assert response.content.decode().count("A. Nonymous") == 20


def test_with_a_filter_the_works_tab_reads_its_own_matches(client, optical_works):
    response = client.get(SEARCH_URL, {"q": "optical", "tab": "works", "type": "preprint"})

    assert str(response.context["counts"]["works"]) == "45"
    assert response.context["results"].total == 15
    assert [(f.label, f.count) for f in response.context["type_facets"]] == [
        ("article", 15),
        ("book-chapter", 15),
        ("preprint", 15),
    ]
