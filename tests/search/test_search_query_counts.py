"""Search runs a fixed number of queries whatever the number of matches."""

from __future__ import annotations

import factory
import pytest

from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db

SEARCH_URL = "/search/"


@pytest.mark.parametrize("matches", [5, 200])
def test_the_researchers_tab_runs_six_queries(client, django_assert_max_num_queries, matches):
    ResearcherFactory.create_batch(
        matches,
        display_name="Kai Zhong",
        alternate_names=["Zhong Kai"],
        last_known_institution=factory.SubFactory(InstitutionFactory),
    )

    # Four tab counts, the page of researchers with their institutions, the institution facet.
    with django_assert_max_num_queries(6):
        response = client.get(SEARCH_URL, {"q": "kai zhong", "tab": "researchers"})

    assert len(response.context["results"].items) == min(matches, 20)
    assert response.content.decode().count("University ") >= min(matches, 20)


@pytest.mark.parametrize("matches", [5, 200])
def test_the_works_tab_runs_four_queries(client, django_assert_max_num_queries, matches):
    topic = TopicFactory(name="Optical networks")
    for work in WorkFactory.create_batch(
        matches, title="Optical circuit switching", authors_count=2
    ):
        AuthorshipFactory(work=work, position=1)
        AuthorshipFactory(work=work, position=2, researcher=None, raw_name="A. Nonymous")
        WorkTopicFactory(work=work, topic=topic)

    # Three tab counts; the works tab (its count, the ranked page with headlines, the works
    # with their sources and first authors, the topic and type facets) in one statement.
    with django_assert_max_num_queries(4):
        response = client.get(SEARCH_URL, {"q": "optical", "tab": "works"})

    html = response.content.decode()
    assert len(response.context["results"].items) == min(matches, 20)
    assert html.count("A. Nonymous") == min(matches, 20)
    assert html.count("Journal of Things") == min(matches, 20)


@pytest.mark.parametrize("matches", [5, 200])
def test_the_topics_tab_runs_five_queries(client, django_assert_max_num_queries, matches):
    TopicFactory.create_batch(
        matches, name="Optical networks", parent=factory.SubFactory(TopicFactory, name="Optics")
    )

    with django_assert_max_num_queries(5):
        response = client.get(SEARCH_URL, {"q": "optical networks", "tab": "topics"})

    assert len(response.context["results"].items) == min(matches, 20)
    assert response.content.decode().count("in Optics") == min(matches, 20)


@pytest.mark.parametrize("matches", [5, 200])
def test_the_institutions_tab_runs_six_queries(client, django_assert_max_num_queries, matches):
    InstitutionFactory.create_batch(matches, name=factory.Sequence(lambda n: f"Optics Lab {n}"))

    with django_assert_max_num_queries(6):
        response = client.get(SEARCH_URL, {"q": "optics lab", "tab": "institutions"})

    assert len(response.context["results"].items) == min(matches, 20)


@pytest.mark.parametrize("matches", [5, 200])
def test_the_suggestions_run_one_query(client, django_assert_max_num_queries, matches):
    ResearcherFactory.create_batch(
        matches,
        display_name="Zhizhen Zhong",
        last_known_institution=factory.SubFactory(InstitutionFactory),
    )

    with django_assert_max_num_queries(1):
        response = client.get("/search/suggest/", {"q": "zhizhen"})

    assert response.content.decode().count('href="/researchers/') == min(matches, 8)


def test_suggestions_for_one_letter_run_no_query(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/search/suggest/", {"q": "z"})

    assert response.status_code == 200
    assert response.content == b""
