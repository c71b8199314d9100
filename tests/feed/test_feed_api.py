"""GET /api/v1/feed/ and the follow endpoints: alice follows and mutes, bob is another user whose
follows hers never touch, charlie is a visitor; wrong methods; CSRF."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from feed.models import TopicFollow
from researchers.models import Follow
from researchers.services import follow_create
from tests.factories import InstitutionFactory, ResearcherFactory, TopicFactory

from .conftest import minutes_ago, work_by

pytestmark = pytest.mark.django_db


def test_the_feed_api_pages_by_cursor_with_because(alice, alice_client):
    ada, bo = ResearcherFactory(), ResearcherFactory()
    follow_create(user=alice, researcher=ada)
    follow_create(user=alice, researcher=bo)
    works = [work_by(ada, bo, at=minutes_ago(n)) for n in range(25)]

    first = alice_client.get("/api/v1/feed/").json()
    assert [item["id"] for item in first["results"]] == [w.pk for w in works[:20]]
    because = first["results"][0]["because"]
    assert sorted(r["slug"] for r in because["researchers"]) == sorted([ada.slug, bo.slug])
    assert because["topics"] == [] and because["institutions"] == []
    assert first["results"][0]["url"].endswith(f"/api/v1/works/{works[0].pk}/")

    second = alice_client.get(first["next"]).json()
    assert [item["id"] for item in second["results"]] == [w.pk for w in works[20:]]
    assert second["next"] is None


def test_the_feed_api_refuses_visitors_bad_cursors_and_writes(client, alice_client):
    assert client.get("/api/v1/feed/").status_code == 403
    assert alice_client.get("/api/v1/feed/", {"cursor": "forged"}).status_code == 400
    assert alice_client.post("/api/v1/feed/").status_code == 405


@pytest.mark.parametrize("kind", ["researchers", "topics", "institutions"])
def test_follow_and_unfollow_through_the_api(kind, alice, alice_client, bob, bob_client, client):
    record = {
        "researchers": ResearcherFactory,
        "topics": TopicFactory,
        "institutions": InstitutionFactory,
    }[kind]()
    key = record.slug if kind == "researchers" else record.pk
    url = f"/api/v1/follows/{kind}/{key}/"

    # charlie, a visitor, can do nothing.
    assert client.get(url).status_code == 403
    assert client.post(url).status_code == 403

    created = alice_client.post(url)
    assert created.status_code == 201
    assert created.json() == {"following": True, "muted": False, "followers_count": 1}
    assert alice_client.post(url).status_code == 200  # a second click
    assert bob_client.get(url).json() == {"following": False, "muted": False, "followers_count": 1}
    assert bob_client.post(url).json()["followers_count"] == 2

    assert alice_client.delete(url).status_code == 204
    assert alice_client.delete(url).status_code == 204
    assert bob_client.get(url).json() == {"following": True, "muted": False, "followers_count": 1}
    assert alice_client.put(url, {}, content_type="application/json").status_code == 405


def test_muting_through_the_api_touches_only_your_own_follow(
    alice, alice_client, bob, bob_client, client
):
    ada = ResearcherFactory()
    topic = TopicFactory()
    follow_create(user=alice, researcher=ada)
    follow_create(user=bob, researcher=ada)
    url = f"/api/v1/follows/researchers/{ada.slug}/"

    response = alice_client.patch(url, {"muted": True}, content_type="application/json")
    assert response.status_code == 200 and response.json()["muted"] is True
    assert Follow.objects.get(user=alice).muted and not Follow.objects.get(user=bob).muted
    assert client.patch(url, {"muted": True}, content_type="application/json").status_code == 403
    assert alice_client.patch(url, {}, content_type="application/json").status_code == 400

    # Muting a topic you do not follow is a 404, and creates nothing.
    topic_url = f"/api/v1/follows/topics/{topic.pk}/"
    assert (
        bob_client.patch(topic_url, {"muted": True}, content_type="application/json").status_code
        == 404
    )
    assert not TopicFollow.objects.exists()
    # Institutions feed nothing, so there is nothing to mute.
    institution_url = f"/api/v1/follows/institutions/{InstitutionFactory().pk}/"
    assert (
        alice_client.patch(
            institution_url, {"muted": True}, content_type="application/json"
        ).status_code
        == 405
    )


def test_unknown_and_merged_records_are_404(alice_client):
    survivor = ResearcherFactory()
    merged = ResearcherFactory(merged_into=survivor)
    assert alice_client.post(f"/api/v1/follows/researchers/{merged.slug}/").status_code == 404
    assert alice_client.post("/api/v1/follows/researchers/nobody/").status_code == 404
    assert alice_client.post(f"/api/v1/follows/topics/{10**6}/").status_code == 404
    assert alice_client.delete(f"/api/v1/follows/institutions/{10**6}/").status_code == 404


def test_follow_changes_need_csrf(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    topic = TopicFactory()
    url = f"/api/v1/follows/topics/{topic.pk}/"
    assert client.post(url).status_code == 403
    assert client.get(url).status_code == 200
    assert not TopicFollow.objects.exists()


def test_the_schema_documents_the_feed_and_follows(client):
    schema = client.get(reverse("api-schema"), {"format": "json"}).json()
    feed = schema["paths"]["/api/v1/feed/"]["get"]["responses"]
    assert {"200", "400", "403"} <= set(feed)
    follow = schema["paths"]["/api/v1/follows/topics/{key}/"]
    assert {"get", "post", "delete", "patch"} <= set(follow)
    assert {"200", "201", "403", "404"} <= set(follow["post"]["responses"])
    assert "patch" not in schema["paths"]["/api/v1/follows/institutions/{key}/"]
