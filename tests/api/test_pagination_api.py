from __future__ import annotations

import pytest

from tests.factories import ResearcherFactory, WorkFactory

pytestmark = pytest.mark.django_db


def test_the_first_page_links_to_the_next_and_not_back(client):
    WorkFactory.create_batch(3)

    response = client.get("/api/v1/works/", {"page_size": 2})

    body = response.json()
    assert body["count"] == 3
    assert len(body["results"]) == 2
    assert body["next"] == "http://testserver/api/v1/works/?page=2&page_size=2"
    assert body["previous"] is None


def test_the_last_page_links_back_and_not_forward(client):
    WorkFactory.create_batch(3)

    response = client.get("/api/v1/works/", {"page_size": 2, "page": 2})

    body = response.json()
    assert len(body["results"]) == 1
    assert body["next"] is None
    assert body["previous"] == "http://testserver/api/v1/works/?page_size=2"


def test_pages_neither_repeat_nor_skip_works(client):
    works = WorkFactory.create_batch(5)

    seen = []
    for page in (1, 2, 3):
        seen += [
            work["id"]
            for work in client.get("/api/v1/works/", {"page_size": 2, "page": page}).json()[
                "results"
            ]
        ]

    assert sorted(seen) == sorted(work.id for work in works)


def test_the_default_page_holds_25(client):
    ResearcherFactory.create_batch(26)

    response = client.get("/api/v1/researchers/")

    assert len(response.json()["results"]) == 25
    assert response.json()["next"] is not None


def test_a_page_size_of_100_is_allowed(client):
    ResearcherFactory.create_batch(101)

    response = client.get("/api/v1/researchers/", {"page_size": 100})

    assert response.status_code == 200
    assert len(response.json()["results"]) == 100


@pytest.mark.parametrize("page", ["999", "0", "abc", "-1"])
@pytest.mark.parametrize("url", ["/api/v1/works/", "/api/v1/researchers/"])
def test_a_page_that_does_not_exist_is_a_json_404(client, url, page):
    WorkFactory()
    ResearcherFactory()

    response = client.get(url, {"page": page})

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Invalid page."}


def test_a_page_past_the_end_of_a_researchers_works_is_a_json_404(client):
    ResearcherFactory(slug="someone")

    response = client.get("/api/v1/researchers/someone/works/", {"page": 2})

    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid page."}


@pytest.mark.parametrize("page_size", ["0", "101", "abc", "-5", "2.5"])
@pytest.mark.parametrize("url", ["/api/v1/works/", "/api/v1/researchers/"])
def test_a_page_size_out_of_range_is_a_400_with_a_message(client, url, page_size):
    response = client.get(url, {"page_size": page_size})

    assert response.status_code == 400
    assert response.json() == {"page_size": ["Enter a whole number from 1 to 100."]}


def test_an_empty_page_number_is_the_404_any_invalid_page_is(client):
    """The schema says a page is a whole number from 1 (issue 28, item 5)."""
    response = client.get("/api/v1/works/", {"page": ""})
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid page."}


def test_a_mute_without_muted_is_answered_as_the_schema_says(alice_client):
    """PATCH /follows/topics/{key}/ without `muted` answers the field's error, and the schema
    documents a 400 of field errors there, not {detail} (issue 28, item 5)."""
    from tests.factories import TopicFactory

    topic = TopicFactory()
    alice_client.post(f"/api/v1/follows/topics/{topic.pk}/", content_type="application/json")
    response = alice_client.patch(
        f"/api/v1/follows/topics/{topic.pk}/", {}, content_type="application/json"
    )
    assert response.status_code == 400 and "muted" in response.json()

    schema = alice_client.get("/api/schema/", {"format": "json"}).json()
    bad_request = schema["paths"]["/api/v1/follows/topics/{key}/"]["patch"]["responses"]["400"]
    assert bad_request["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidationError"
    }
