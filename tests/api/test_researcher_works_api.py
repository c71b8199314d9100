from __future__ import annotations

import datetime

import pytest

from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory, WorkTopicFactory

pytestmark = pytest.mark.django_db


def result_ids(response) -> list[int]:
    return [work["id"] for work in response.json()["results"]]


def authored_by(researcher, **work_fields):
    return AuthorshipFactory(
        researcher=researcher, position=1, work=WorkFactory(**work_fields)
    ).work


def test_it_lists_only_the_researchers_works_newest_first(client):
    researcher = ResearcherFactory(slug="zhizhen-zhong")
    undated = authored_by(researcher, publication_date=None)
    older = authored_by(researcher, publication_date=datetime.date(2017, 3, 1))
    newest = authored_by(researcher, publication_date=datetime.date(2025, 6, 1))
    authored_by(ResearcherFactory(), publication_date=datetime.date(2026, 1, 1))

    response = client.get("/api/v1/researchers/zhizhen-zhong/works/")

    assert response.status_code == 200
    assert result_ids(response) == [newest.id, older.id, undated.id]


def test_works_of_the_same_date_come_newest_id_first(client):
    researcher = ResearcherFactory(slug="someone")
    same_day = datetime.date(2022, 1, 1)
    first = authored_by(researcher, publication_date=same_day)
    second = authored_by(researcher, publication_date=same_day)

    response = client.get("/api/v1/researchers/someone/works/")

    assert result_ids(response) == [second.id, first.id]


def test_a_work_listing_the_researcher_twice_appears_once(client):
    researcher = ResearcherFactory(slug="someone")
    work = WorkFactory()
    AuthorshipFactory(work=work, researcher=researcher, position=1)
    AuthorshipFactory(work=work, researcher=researcher, position=2)

    response = client.get("/api/v1/researchers/someone/works/")

    assert result_ids(response) == [work.id]
    assert response.json()["count"] == 1


def test_each_work_carries_its_full_byline(client):
    researcher = ResearcherFactory(slug="second-author")
    work = WorkFactory()
    AuthorshipFactory(work=work, position=2, researcher=researcher)
    AuthorshipFactory(work=work, position=1, raw_name="First Author", researcher=None)

    response = client.get("/api/v1/researchers/second-author/works/")

    authors = response.json()["results"][0]["authors"]
    assert [(author["position"], author["slug"]) for author in authors] == [
        (1, None),
        (2, "second-author"),
    ]


def test_an_unknown_slug_is_a_json_404(client):
    response = client.get("/api/v1/researchers/nobody-here/works/")

    assert response.status_code == 404
    assert "nobody-here" in response.json()["detail"]


def test_a_merged_slug_redirects_to_the_survivors_works_keeping_the_query(client):
    survivor = ResearcherFactory(slug="survivor")
    ResearcherFactory(slug="merged-away", merged_into=survivor)

    response = client.get("/api/v1/researchers/merged-away/works/", {"page": 2})

    assert response.status_code == 302
    assert response["Location"] == "http://testserver/api/v1/researchers/survivor/works/?page=2"


@pytest.mark.parametrize("work_count", [1, 25])
def test_it_runs_the_same_queries_for_one_or_a_full_page(
    client, django_assert_max_num_queries, work_count
):
    researcher = ResearcherFactory(slug="prolific")
    for work in WorkFactory.create_batch(work_count):
        AuthorshipFactory(work=work, researcher=researcher, position=1)
        AuthorshipFactory(work=work, position=2)
        WorkTopicFactory(work=work)

    # The researcher, COUNT, the page with venues, the authors, the topics.
    with django_assert_max_num_queries(5):
        response = client.get("/api/v1/researchers/prolific/works/")

    assert len(response.json()["results"]) == work_count
