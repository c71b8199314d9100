from __future__ import annotations

import factory
import pytest

from researchers.models import VerificationLevel
from tests.factories import ResearcherFactory, UserFactory

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/researchers/"


def result_slugs(response) -> list[str]:
    return [researcher["slug"] for researcher in response.json()["results"]]


def test_it_lists_researchers_most_cited_first(client):
    ResearcherFactory(slug="less-cited", cited_by_count=10)
    ResearcherFactory(slug="most-cited", cited_by_count=500)

    response = client.get(LIST_URL)

    assert response.status_code == 200
    assert response.json()["count"] == 2
    assert result_slugs(response) == ["most-cited", "less-cited"]


def test_it_leaves_merged_records_out_of_the_list(client):
    survivor = ResearcherFactory(slug="survivor")
    ResearcherFactory(slug="merged-away", merged_into=survivor)

    response = client.get(LIST_URL)

    assert result_slugs(response) == ["survivor"]


def test_it_shows_every_documented_researcher_field(client):
    user = UserFactory()
    ResearcherFactory(
        slug="zhizhen-zhong",
        display_name="Zhizhen Zhong",
        openalex_id="A5023888391",
        orcid="0000-0002-1825-0097",
        works_count=42,
        cited_by_count=1234,
        h_index=17,
        i10_index=20,
        topics_count=5,
        verification_level=VerificationLevel.CORROBORATED,
        trust_score=81,
        claimed_by=user,
    )

    response = client.get("/api/v1/researchers/zhizhen-zhong/")

    assert response.status_code == 200
    assert response.json() == {
        "slug": "zhizhen-zhong",
        "url": "http://testserver/api/v1/researchers/zhizhen-zhong/",
        "works_url": "http://testserver/api/v1/researchers/zhizhen-zhong/works/",
        "display_name": "Zhizhen Zhong",
        "openalex_id": "A5023888391",
        "orcid": "0000-0002-1825-0097",
        "works_count": 42,
        "cited_by_count": 1234,
        "h_index": 17,
        "i10_index": 20,
        "topics_count": 5,
        "stated_figures": None,
        "verification_level": 3,
        "verification_level_label": "L3 claim corroborated",
        "trust_score": 81,
        "claimed": True,
    }


def test_it_says_unclaimed_when_nobody_claimed_the_record(client):
    ResearcherFactory(slug="unclaimed", claimed_by=None)

    response = client.get("/api/v1/researchers/unclaimed/")

    assert response.json()["claimed"] is False


def test_it_answers_an_unknown_slug_with_a_json_404(client):
    response = client.get("/api/v1/researchers/nobody-here/")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "nobody-here" in response.json()["detail"]


def test_it_answers_a_malformed_slug_with_a_json_404(client):
    response = client.get("/api/v1/researchers/not.a.slug/")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_it_redirects_a_merged_slug_to_the_surviving_record(client):
    survivor = ResearcherFactory(slug="survivor")
    ResearcherFactory(slug="merged-away", merged_into=survivor)

    response = client.get("/api/v1/researchers/merged-away/")

    assert response.status_code == 302
    assert response["Location"] == "http://testserver/api/v1/researchers/survivor/"
    assert response.json()["merged_into"] == "survivor"


def test_a_client_following_the_redirect_gets_the_survivors_data(client):
    survivor = ResearcherFactory(slug="survivor", display_name="Surviving Record")
    ResearcherFactory(slug="merged-away", merged_into=survivor)

    redirect = client.get("/api/v1/researchers/merged-away/")
    response = client.get(redirect["Location"])

    assert response.status_code == 200
    assert response.json()["display_name"] == "Surviving Record"


@pytest.fixture
def zhizhen_zhong():
    ResearcherFactory(slug="ann-smith", display_name="Ann Smith", cited_by_count=9000)
    ResearcherFactory(slug="wei-zhang", display_name="Wei Zhang", cited_by_count=9000)
    return ResearcherFactory(slug="zhizhen-zhong", display_name="Zhizhen Zhong")


@pytest.mark.parametrize(
    "spelling", ["zhizhen zhong", "Zhong Zhizhen", "ZHIZHEN", "Zhízhen  Zhong", "zhong, zhizhen"]
)
def test_search_finds_a_researcher_by_any_spelling_of_the_name(client, zhizhen_zhong, spelling):
    response = client.get(LIST_URL, {"search": spelling})

    assert response.status_code == 200
    assert result_slugs(response) == ["zhizhen-zhong"]


def test_q_searches_like_search(client, zhizhen_zhong):
    response = client.get(LIST_URL, {"q": "Zhong Zhizhen"})

    assert result_slugs(response) == ["zhizhen-zhong"]


def test_search_finds_part_of_a_word(client, zhizhen_zhong):
    response = client.get(LIST_URL, {"search": "izhe"})

    assert result_slugs(response) == ["zhizhen-zhong"]


def test_search_puts_the_closest_name_first_whatever_the_citations(client):
    # One letter away is a match too (a typo per word is forgiven), but ranks below the name
    # itself however much more it is cited.
    ResearcherFactory(slug="zhizhen-zheng", display_name="Zhizhen Zheng", cited_by_count=9000)
    ResearcherFactory(slug="zhizhen-zhong", display_name="Zhizhen Zhong", cited_by_count=1)

    response = client.get(LIST_URL, {"search": "Zhizhen Zhong"})

    assert result_slugs(response) == ["zhizhen-zhong", "zhizhen-zheng"]


def test_search_leaves_merged_records_out(client):
    survivor = ResearcherFactory(slug="zhizhen-zhong", display_name="Zhizhen Zhong")
    ResearcherFactory(slug="zhizhen-zhong-2", display_name="Zhizhen Zhong", merged_into=survivor)

    response = client.get(LIST_URL, {"search": "zhizhen zhong"})

    assert result_slugs(response) == ["zhizhen-zhong"]


def test_search_for_punctuation_only_finds_nobody(client, zhizhen_zhong):
    response = client.get(LIST_URL, {"search": "?!"})

    assert response.status_code == 200
    assert response.json()["results"] == []


def test_an_overlong_search_is_a_400(client):
    response = client.get(LIST_URL, {"search": "a" * 201})

    assert response.status_code == 400
    assert "search" in response.json()


def test_it_filters_by_openalex_id(client):
    ResearcherFactory(slug="wanted", openalex_id="A5023888391")
    ResearcherFactory(slug="other", openalex_id="A5000000001")

    bare = client.get(LIST_URL, {"openalex_id": "A5023888391"})
    as_url = client.get(LIST_URL, {"openalex_id": "https://openalex.org/a5023888391"})

    assert result_slugs(bare) == ["wanted"]
    assert result_slugs(as_url) == ["wanted"]


def test_it_filters_by_orcid(client):
    ResearcherFactory(slug="wanted", orcid="0000-0002-1694-233X")
    ResearcherFactory(slug="other", orcid="0000-0002-1825-0097")

    bare = client.get(LIST_URL, {"orcid": "0000-0002-1694-233X"})
    as_url = client.get(LIST_URL, {"orcid": "https://orcid.org/0000-0002-1694-233x"})

    assert result_slugs(bare) == ["wanted"]
    assert result_slugs(as_url) == ["wanted"]


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("orcid", "0000-0002"),
        ("orcid", "not an orcid"),
        ("orcid", "https://orcid.org/"),
        ("openalex_id", "W123"),
        ("openalex_id", "A12x"),
    ],
)
def test_a_malformed_identifier_filter_is_a_400_with_a_message(client, parameter, value):
    response = client.get(LIST_URL, {parameter: value})

    assert response.status_code == 400
    assert response.json()[parameter][0].startswith("Enter")


def test_a_well_formed_unknown_identifier_finds_nobody(client):
    ResearcherFactory(orcid="0000-0002-1825-0097")

    response = client.get(LIST_URL, {"orcid": "0000-0001-5109-3700"})

    assert response.status_code == 200
    assert response.json()["count"] == 0


@pytest.mark.parametrize("researcher_count", [1, 25])
def test_the_list_runs_the_same_queries_for_one_or_a_full_page(
    client, django_assert_max_num_queries, researcher_count
):
    ResearcherFactory.create_batch(researcher_count, claimed_by=factory.SubFactory(UserFactory))

    # One COUNT for the paginator, one SELECT for the page.
    with django_assert_max_num_queries(2):
        response = client.get(LIST_URL)

    assert len(response.json()["results"]) == researcher_count


@pytest.mark.parametrize("researcher_count", [1, 25])
def test_search_runs_the_same_queries_for_one_or_a_full_page(
    client, django_assert_max_num_queries, researcher_count
):
    ResearcherFactory.create_batch(researcher_count, display_name="Zhizhen Zhong")

    with django_assert_max_num_queries(2):
        response = client.get(LIST_URL, {"search": "zhong"})

    assert len(response.json()["results"]) == researcher_count


def test_the_detail_runs_one_query(client, django_assert_max_num_queries):
    ResearcherFactory(slug="someone", claimed_by=UserFactory())

    with django_assert_max_num_queries(1):
        response = client.get("/api/v1/researchers/someone/")

    assert response.status_code == 200


def test_a_merged_slug_redirects_in_one_query(client, django_assert_max_num_queries):
    ResearcherFactory(slug="merged-away", merged_into=ResearcherFactory())

    with django_assert_max_num_queries(1):
        response = client.get("/api/v1/researchers/merged-away/")

    assert response.status_code == 302
