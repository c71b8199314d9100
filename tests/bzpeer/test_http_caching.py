"""HTTP caching of the public pages (issue 16): Cache-Control for shared caches and CDNs, ETags
from the state that keys the profile's page cache, 304 without rendering, private when signed
in."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from researchers import page_cache
from researchers.models import Researcher
from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    UserFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def records():
    institution = InstitutionFactory()
    researcher = ResearcherFactory(last_known_institution=institution)
    authorship = AuthorshipFactory(researcher=researcher)
    topic = TopicFactory()
    WorkTopicFactory(work=authorship.work, topic=topic)
    return {
        "profile": reverse("researcher-profile", args=[researcher.slug]),
        "work": reverse("publications:work-detail", args=[authorship.work_id]),
        "topic": reverse("publications:topic-detail", args=[topic.pk]),
        "institution": reverse("institution-detail", args=[institution.pk]),
        "home": reverse("home"),
        "researcher": researcher,
    }


PAGES = ["profile", "work", "topic", "institution", "home"]


@pytest.mark.parametrize("page", PAGES)
def test_an_anonymous_page_is_public_with_a_short_max_age_and_an_etag(client, records, page):
    response = client.get(records[page])

    assert response.status_code == 200
    cache_control = response["Cache-Control"]
    assert "public" in cache_control and "private" not in cache_control
    assert "max-age=60" in cache_control and "stale-while-revalidate=300" in cache_control
    assert response["ETag"].startswith('"')


@pytest.mark.parametrize("page", PAGES)
def test_a_conditional_get_with_the_etag_answers_304_without_rendering(client, records, page):
    etag = client.get(records[page])["ETag"]

    with CaptureQueriesContext(connection) as validating:
        response = client.get(records[page], headers={"if-none-match": etag})
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert "public" in response["Cache-Control"]
    assert response.templates == []  # nothing rendered

    # A full render of the same page runs more queries than the 304 did.
    with CaptureQueriesContext(connection) as rendering:
        assert client.get(records[page] + "?page=1").status_code == 200
    assert len(validating) < len(rendering), (len(validating), len(rendering))
    assert len(validating) <= 1


def test_the_profile_304_runs_one_query_and_the_page_cache_is_not_read(
    client, records, django_assert_num_queries
):
    etag = client.get(records["profile"])["ETag"]
    with django_assert_num_queries(1):  # the page state, as the page cache's hit needs
        assert client.get(records["profile"], headers={"if-none-match": etag}).status_code == 304


def test_a_changed_record_gets_a_new_etag(client, records):
    researcher: Researcher = records["researcher"]
    first = client.get(records["profile"])["ETag"]
    assert client.get(records["profile"])["ETag"] == first

    # A count kept by an SQL update (updated_at does not move), as a follow changes it.
    Researcher.objects.filter(pk=researcher.pk).update(followers_count=F("followers_count") + 1)
    second = client.get(records["profile"])["ETag"]
    assert second != first
    assert client.get(records["profile"], headers={"if-none-match": first}).status_code == 200

    # The works changed (an import moves the works version): a new ETag again.
    page_cache.profile_pages_invalidate(researcher_ids=[researcher.pk])
    assert client.get(records["profile"])["ETag"] not in (first, second)


def test_a_changed_work_gets_a_new_etag(client, records):
    first = client.get(records["work"])["ETag"]
    researcher: Researcher = records["researcher"]
    researcher.display_name = "Renamed Author"
    researcher.save()  # the work page shows its authors' names
    assert client.get(records["work"])["ETag"] != first


def test_the_query_string_is_part_of_the_etag(client, records):
    assert (
        client.get(records["profile"])["ETag"] != client.get(records["profile"] + "?page=2")["ETag"]
    )


@pytest.mark.parametrize("page", PAGES)
def test_a_signed_in_page_is_private_with_no_etag(client, records, page):
    client.force_login(UserFactory())

    response = client.get(records[page])

    assert response.status_code == 200
    assert "private" in response["Cache-Control"] and "public" not in response["Cache-Control"]
    assert "Cookie" in response["Vary"]
    assert not response.has_header("ETag")
    # An ETag an anonymous visitor was given never answers a signed-in user 304.
    client.logout()
    etag = client.get(records[page])["ETag"]
    client.force_login(UserFactory())
    assert client.get(records[page], headers={"if-none-match": etag}).status_code == 200


def test_a_missing_record_is_not_public(client):
    response = client.get(reverse("researcher-profile", args=["nobody-here"]))
    assert response.status_code == 404
    assert "public" not in response.get("Cache-Control", "")
    assert not response.has_header("ETag")


def test_an_htmx_fragment_is_not_public(client, records):
    response = client.get(records["profile"], headers={"hx-request": "true", "hx-target": "works"})
    assert response.status_code == 200
    assert "public" not in response["Cache-Control"]
    assert not response.has_header("ETag")


def test_a_post_to_a_public_page_is_refused(client, records):
    assert client.post(records["profile"]).status_code == 405


def test_the_settings_decide_the_lifetimes(client, records, settings):
    settings.HTTP_CACHE_MAX_AGE = 5
    settings.HTTP_CACHE_STALE_WHILE_REVALIDATE = 7
    cache_control = client.get(records["home"])["Cache-Control"]
    assert "max-age=5" in cache_control and "stale-while-revalidate=7" in cache_control


def test_an_anonymous_page_that_sets_a_cookie_is_private(client, records, rf):
    """A message waiting for an anonymous visitor (as after signing out) is shown once: the
    messages middleware then deletes its cookie, after the page was marked public, and
    PrivateWhenSettingCookiesMiddleware makes the response theirs alone."""
    from django.contrib.messages import constants
    from django.contrib.messages.storage.base import Message
    from django.contrib.messages.storage.cookie import CookieStorage

    client.cookies["messages"] = CookieStorage(rf.get("/"))._encode(
        [Message(constants.INFO, "You have signed out.")]
    )

    response = client.get(records["home"])

    assert response.status_code == 200
    assert b"You have signed out." in response.content
    assert "messages" in response.cookies
    assert "public" not in response["Cache-Control"] and "private" in response["Cache-Control"]
