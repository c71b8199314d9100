"""Follow and unfollow: htmx swaps, the login round trip for visitors, exact counts."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from researchers.models import Follow, Researcher
from researchers.services import follow_create, follow_delete
from tests.factories import ResearcherFactory, UserFactory


@pytest.mark.django_db
def test_following_with_htmx_swaps_the_button_and_count(client):
    researcher = ResearcherFactory()
    client.force_login(UserFactory())
    url = reverse("researcher-follow", args=[researcher.slug])

    response = client.post(url, {"action": "follow"}, headers={"HX-Request": "true"})

    assert response.status_code == 200
    body = response.content.decode()
    assert (
        "<html" not in body
        and "Following" in body
        and '<span class="follow-count">1</span>' in body
    )
    researcher.refresh_from_db()
    assert researcher.followers_count == 1

    response = client.post(url, {"action": "unfollow"}, headers={"HX-Request": "true"})
    assert "Follow researcher" in response.content.decode()
    researcher.refresh_from_db()
    assert researcher.followers_count == 0
    assert not Follow.objects.exists()


@pytest.mark.django_db
def test_following_twice_counts_once(client):
    researcher = ResearcherFactory()
    client.force_login(UserFactory())
    url = reverse("researcher-follow", args=[researcher.slug])

    client.post(url, {"action": "follow"})
    client.post(url, {"action": "follow"})

    researcher.refresh_from_db()
    assert researcher.followers_count == 1 == Follow.objects.count()


@pytest.mark.django_db
def test_a_visitor_is_sent_to_log_in_and_back_to_the_profile(client):
    researcher = ResearcherFactory()
    profile = reverse("researcher-profile", args=[researcher.slug])

    page = client.get(profile).content.decode()
    assert f'href="{reverse("account_login")}?next={profile}"' in page

    # A visitor's POST (without a session there is no CSRF cookie to pass) never follows anyone.
    response = client.post(reverse("researcher-follow", args=[researcher.slug]))
    assert response.status_code in (302, 403)
    assert not Follow.objects.exists()


@pytest.mark.django_db
def test_follow_requires_post(client):
    researcher = ResearcherFactory()
    client.force_login(UserFactory())
    assert client.get(reverse("researcher-follow", args=[researcher.slug])).status_code == 405


@pytest.mark.django_db
def test_follow_requires_the_csrf_token(client):
    from django.test import Client

    researcher = ResearcherFactory()
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(UserFactory())

    response = strict.post(
        reverse("researcher-follow", args=[researcher.slug]), {"action": "follow"}
    )

    assert response.status_code == 403
    assert not Follow.objects.exists()


@pytest.mark.django_db
def test_following_an_unknown_researcher_is_404(client):
    client.force_login(UserFactory())
    assert client.post("/researchers/nobody/follow/").status_code == 404


@pytest.mark.django_db
def test_the_following_page_lists_whom_i_follow_and_needs_login(client):
    me, other = UserFactory(), UserFactory()
    mine, theirs = (
        ResearcherFactory(display_name="Mine Person"),
        ResearcherFactory(display_name="Theirs Person"),
    )
    follow_create(user=me, researcher=mine)
    follow_create(user=other, researcher=theirs)

    assert client.get(reverse("following")).status_code == 302
    client.force_login(me)
    page = client.get(reverse("following")).content.decode()
    assert "Mine Person" in page and "Theirs Person" not in page


@pytest.mark.django_db(transaction=True)
def test_concurrent_follows_and_unfollows_keep_the_count_exact():
    researcher = ResearcherFactory()
    users = [UserFactory() for _ in range(8)]
    barrier = threading.Barrier(16)
    errors: list[BaseException] = []

    def click(user, unfollow: bool) -> None:
        try:
            barrier.wait()
            follow_create(user=user, researcher=researcher)
            if unfollow:
                follow_delete(user=user, researcher=researcher)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    # Every user clicks Follow twice at once; half of them then unfollow.
    threads = [
        threading.Thread(target=click, args=(user, index % 2 == 0 and copy == 1))
        for index, user in enumerate(users)
        for copy in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors, errors
    follows = Follow.objects.filter(researcher=researcher).count()
    assert Researcher.objects.get(pk=researcher.pk).followers_count == follows
