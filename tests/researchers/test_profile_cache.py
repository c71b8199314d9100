"""Anonymous profile pages come from the cache until the record or its works change."""

from __future__ import annotations

import json

import pytest
import redis
from django.urls import reverse

from researchers.models import Researcher
from researchers.services import follow_create
from tests.factories import UserFactory


@pytest.fixture
def imported(run_import, fixtures_dir, tmp_path):
    works = [
        json.loads(line)
        for line in (fixtures_dir / "openalex/works_good.jsonl").read_text().splitlines()
    ]
    path = tmp_path / "works.jsonl"
    path.write_text("".join(json.dumps(w) + "\n" for w in works))
    run_import(path)
    return works, path


@pytest.mark.django_db(transaction=True)
def test_a_repeat_visit_is_served_from_the_cache(client, imported, django_assert_max_num_queries):
    url = reverse(
        "researcher-profile", args=[Researcher.objects.get(openalex_id="A9800000001").slug]
    )
    first = client.get(url)

    with django_assert_max_num_queries(1):  # the record itself, to check it has not changed
        second = client.get(url)

    assert second.content == first.content


@pytest.fixture
def page_cache_commands(monkeypatch) -> list[str]:
    """The names of the Redis commands that touch the profile page cache, as they are sent (a
    spy: every command still goes to Redis)."""
    sent: list[str] = []
    original = redis.Redis.execute_command

    def recording(self, *args, **options):
        if any("profile-page" in str(key) for key in args[1:]):
            sent.append(str(args[0]))
        return original(self, *args, **options)

    monkeypatch.setattr(redis.Redis, "execute_command", recording)
    return sent


@pytest.mark.django_db(transaction=True)
def test_a_cached_page_is_one_round_trip_to_redis_and_a_304_reads_the_version_alone(
    client, imported, page_cache_commands
):
    url = reverse(
        "researcher-profile", args=[Researcher.objects.get(openalex_id="A9800000001").slug]
    )
    first = client.get(url)
    page_cache_commands.clear()

    second = client.get(url)

    assert second.content == first.content
    assert page_cache_commands == ["MGET"]  # the page and its works version at once
    page_cache_commands.clear()

    revalidated = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])

    assert revalidated.status_code == 304
    assert page_cache_commands == ["GET"]  # the version alone: no page is sent


@pytest.mark.django_db(transaction=True)
def test_a_changed_work_refreshes_the_cached_page(client, imported, run_import):
    works, path = imported
    ada = Researcher.objects.get(openalex_id="A9800000001")
    url = reverse("researcher-profile", args=[ada.slug])
    assert "Scheduling collective communication" in client.get(url).content.decode()

    works[1]["title"] = "Scheduling collective communication, revisited"
    works[1]["updated_date"] = "2026-05-01T00:00:00"
    path.write_text("".join(json.dumps(w) + "\n" for w in works))
    run_import(path)

    assert "Scheduling collective communication, revisited" in client.get(url).content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_new_follower_refreshes_the_cached_page(client, imported):
    ada = Researcher.objects.get(openalex_id="A9800000001")
    url = reverse("researcher-profile", args=[ada.slug])
    assert (
        'Follow researcher <span class="follow-count">0</span>' in client.get(url).content.decode()
    )

    follow_create(user=UserFactory(), researcher=ada)

    assert (
        'Follow researcher <span class="follow-count">1</span>' in client.get(url).content.decode()
    )


@pytest.mark.django_db(transaction=True)
def test_signed_in_readers_never_get_a_cached_page(client, imported, django_assert_max_num_queries):
    ada = Researcher.objects.get(openalex_id="A9800000001")
    url = reverse("researcher-profile", args=[ada.slug])
    client.get(url)  # cached for visitors
    client.force_login(UserFactory())

    page = client.get(url).content.decode()

    assert "Log out" in page and "Log in to claim" not in page
