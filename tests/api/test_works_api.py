from __future__ import annotations

import datetime

import pytest

from publications.models import MergedWork, Work
from tests.factories import (
    AuthorshipFactory,
    ResearcherFactory,
    SourceFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/works/"


def result_ids(response) -> list[int]:
    return [work["id"] for work in response.json()["results"]]


def test_it_lists_works_newest_first_with_undated_works_last(client):
    undated = WorkFactory(publication_date=None)
    older = WorkFactory(publication_date=datetime.date(2019, 5, 1))
    newer = WorkFactory(publication_date=datetime.date(2024, 2, 1))

    response = client.get(LIST_URL)

    assert response.status_code == 200
    assert result_ids(response) == [newer.id, older.id, undated.id]


def test_it_shows_every_documented_work_field(client):
    source = SourceFactory(openalex_id="S1983995261", name="PeerJ", abbreviated_name="PeerJ J")
    work = WorkFactory(
        openalex_id="W2741809807",
        doi="10.7717/peerj.4375",
        arxiv_id="1705.00001",
        title="The state of OA",
        abstract="Despite growing interest in Open Access...",
        type="article",
        publication_date=datetime.date(2018, 2, 13),
        publication_year=2018,
        source=source,
        cited_by_count=1200,
    )

    response = client.get(f"/api/v1/works/{work.id}/")

    assert response.status_code == 200
    body = response.json()
    assert body == {
        "id": work.id,
        "url": f"http://testserver/api/v1/works/{work.id}/",
        "openalex_id": "W2741809807",
        "doi": "10.7717/peerj.4375",
        "arxiv_id": "1705.00001",
        "title": "The state of OA",
        "abstract": "Despite growing interest in Open Access...",
        "type": "article",
        "publication_year": 2018,
        "publication_date": "2018-02-13",
        "venue": {
            "id": source.id,
            "openalex_id": "S1983995261",
            "name": "PeerJ",
            "short_name": "PeerJ J",
        },
        "cited_by_count": 1200,
        "topics": [],
        "authors": [],
        "novelty": None,
    }


def test_the_venue_is_null_when_the_work_has_no_source(client):
    work = WorkFactory(source=None)

    response = client.get(f"/api/v1/works/{work.id}/")

    assert response.json()["venue"] is None


def test_the_venue_short_name_falls_back_to_the_name(client):
    work = WorkFactory(source=SourceFactory(name="Physical Review Letters", abbreviated_name=""))

    response = client.get(f"/api/v1/works/{work.id}/")

    assert response.json()["venue"]["short_name"] == "Physical Review Letters"


def test_it_lists_authors_in_byline_order_with_their_researcher(client):
    work = WorkFactory()
    # Created out of order, so insertion order cannot pass for byline order.
    AuthorshipFactory(work=work, position=3, researcher=None, raw_name="Anonymous Third")
    AuthorshipFactory(
        work=work,
        position=1,
        raw_name="Z. Zhong",
        researcher=ResearcherFactory(
            slug="zhizhen-zhong", openalex_id="A5023888391", display_name="Zhizhen Zhong"
        ),
    )
    AuthorshipFactory(
        work=work,
        position=2,
        raw_name="Ann Smith",
        researcher=ResearcherFactory(
            slug="ann-smith", openalex_id="A5000000002", display_name="Ann Smith"
        ),
    )

    response = client.get(f"/api/v1/works/{work.id}/")

    assert response.json()["authors"] == [
        {
            "position": 1,
            "raw_name": "Z. Zhong",
            "slug": "zhizhen-zhong",
            "openalex_id": "A5023888391",
            "display_name": "Zhizhen Zhong",
        },
        {
            "position": 2,
            "raw_name": "Ann Smith",
            "slug": "ann-smith",
            "openalex_id": "A5000000002",
            "display_name": "Ann Smith",
        },
        {
            "position": 3,
            "raw_name": "Anonymous Third",
            "slug": None,
            "openalex_id": None,
            "display_name": None,
        },
    ]


def test_it_lists_topics_strongest_first(client):
    work = WorkFactory()
    WorkTopicFactory(
        work=work,
        score=0.4,
        topic=TopicFactory(
            external_id="arxiv:cs.NI", name="Networking", code="cs.NI", level="category"
        ),
    )
    WorkTopicFactory(
        work=work,
        score=0.97,
        topic=TopicFactory(external_id="T10017", name="Optical Networks", code=""),
    )

    response = client.get(f"/api/v1/works/{work.id}/")

    assert response.json()["topics"] == [
        {"name": "Optical Networks", "code": "", "external_id": "T10017", "score": 0.97},
        {"name": "Networking", "code": "cs.NI", "external_id": "arxiv:cs.NI", "score": 0.4},
    ]


@pytest.mark.parametrize(
    "path", ["/api/v1/works/999999/", "/api/v1/works/99999999999999999999999/"]
)
def test_an_unknown_work_id_is_a_json_404(client, path):
    response = client.get(path)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "detail" in response.json()


@pytest.mark.parametrize(
    "path", ["/api/v1/works/abc/", "/api/v1/works/-1/", "/api/v1/works/1/extra/"]
)
def test_a_non_numeric_work_id_is_a_json_404(client, path):
    response = client.get(path)

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def _merged_into(survivor: Work) -> int:
    """The id of a work merged into survivor: its row is gone and MergedWork keeps its id, as
    after the importer's merge."""
    merged_away = WorkFactory()
    merged_id = merged_away.pk
    merged_away.delete()
    MergedWork.objects.create(id=merged_id, survivor=survivor)
    return merged_id


def test_a_merged_away_work_id_answers_301_to_the_survivor_keeping_the_query(client):
    survivor = WorkFactory()
    merged_id = _merged_into(survivor)

    response = client.get(f"/api/v1/works/{merged_id}/", {"ref": "mail"})

    assert response.status_code == 301
    location = f"http://testserver/api/v1/works/{survivor.pk}/?ref=mail"
    assert response["Location"] == location
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "detail": f"Work {merged_id} was merged into work {survivor.pk}.",
        "merged_into": survivor.pk,
        "location": location,
    }


def test_a_client_following_the_work_redirect_gets_the_survivor_in_one_hop(client):
    survivor = WorkFactory(title="The surviving record")
    # A chain (the first merged into a work that was merged in turn) points at the last
    # survivor, so no redirect leads to another.
    first, second = _merged_into(survivor), _merged_into(survivor)

    for merged_id in (first, second):
        redirect = client.get(f"/api/v1/works/{merged_id}/")
        response = client.get(redirect["Location"])

        assert response.status_code == 200
        assert response.json()["id"] == survivor.pk
        assert response.json()["title"] == "The surviving record"


def test_the_survivor_answers_200_with_its_own_record(client):
    survivor = WorkFactory()
    _merged_into(survivor)

    response = client.get(f"/api/v1/works/{survivor.pk}/")

    assert response.status_code == 200
    assert response.json()["id"] == survivor.pk


def test_a_merged_away_work_id_redirects_in_two_queries(client, django_assert_max_num_queries):
    merged_id = _merged_into(WorkFactory())

    # The work (no row), then its survivor.
    with django_assert_max_num_queries(2):
        response = client.get(f"/api/v1/works/{merged_id}/")

    assert response.status_code == 301


def test_an_unknown_work_id_is_a_404_in_two_queries(client, django_assert_max_num_queries):
    _merged_into(WorkFactory())

    with django_assert_max_num_queries(2):
        response = client.get("/api/v1/works/999999999/")

    assert response.status_code == 404
    assert response.json() == {"detail": "No work has the id 999999999."}


def test_it_filters_by_openalex_id(client):
    wanted = WorkFactory(openalex_id="W2741809807")
    WorkFactory(openalex_id="W1000000000")

    bare = client.get(LIST_URL, {"openalex_id": "W2741809807"})
    as_url = client.get(LIST_URL, {"openalex_id": "https://openalex.org/W2741809807"})

    assert result_ids(bare) == [wanted.id]
    assert result_ids(as_url) == [wanted.id]


@pytest.mark.parametrize(
    "spelling",
    [
        "10.7717/peerj.4375",
        "10.7717/PEERJ.4375",
        "https://doi.org/10.7717/peerj.4375",
        "http://dx.doi.org/10.7717/PeerJ.4375",
        "doi:10.7717/peerj.4375",
        " 10.7717/peerj.4375 ",
    ],
)
def test_it_filters_by_doi_in_any_usual_spelling(client, spelling):
    wanted = WorkFactory(doi="10.7717/peerj.4375")
    WorkFactory(doi="10.7717/peerj.9999")

    response = client.get(LIST_URL, {"doi": spelling})

    assert result_ids(response) == [wanted.id]


@pytest.mark.parametrize(
    "spelling", ["2101.00001", "arXiv:2101.00001", "https://arxiv.org/abs/2101.00001v2"]
)
def test_it_filters_by_arxiv_id(client, spelling):
    wanted = WorkFactory(arxiv_id="2101.00001")
    WorkFactory(arxiv_id="2101.00002")

    response = client.get(LIST_URL, {"arxiv_id": spelling})

    assert result_ids(response) == [wanted.id]


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("doi", "peerj.4375"),
        ("doi", "https://doi.org/"),
        ("openalex_id", "A5023888391"),
        ("openalex_id", "W12x"),
        ("openalex_id", "https://openalex.org/"),
        ("arxiv_id", "arXiv:"),
    ],
)
def test_a_malformed_identifier_filter_is_a_400_with_a_message(client, parameter, value):
    response = client.get(LIST_URL, {parameter: value})

    assert response.status_code == 400
    assert response.json()[parameter][0].startswith("Enter")


@pytest.mark.parametrize("work_count", [1, 25])
def test_the_list_runs_the_same_queries_for_one_or_a_full_page(
    client, django_assert_max_num_queries, work_count
):
    for work in WorkFactory.create_batch(work_count):
        AuthorshipFactory(work=work, position=1)
        AuthorshipFactory(work=work, position=2)
        AuthorshipFactory(work=work, position=3, researcher=None)
        WorkTopicFactory(work=work)
        WorkTopicFactory(work=work)

    # COUNT, the page with its venue, the authors with their researchers, the topics.
    with django_assert_max_num_queries(4):
        response = client.get(LIST_URL)

    results = response.json()["results"]
    assert len(results) == work_count
    assert all(len(work["authors"]) == 3 and len(work["topics"]) == 2 for work in results)


def test_the_detail_runs_the_same_queries_however_many_authors(
    client, django_assert_max_num_queries
):
    work = WorkFactory()
    for position in range(1, 31):
        AuthorshipFactory(work=work, position=position)
    WorkTopicFactory.create_batch(5, work=work)

    # The work with its venue, the authors with their researchers, the topics.
    with django_assert_max_num_queries(3):
        response = client.get(f"/api/v1/works/{work.id}/")

    assert len(response.json()["authors"]) == 30
