"""Following topics and institutions from their pages: exact counts, htmx swaps, visitors sent
to log in, and /following/ listing all three kinds."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from feed import services
from feed.models import InstitutionFollow, TopicFollow
from publications.models import Topic
from researchers.models import Institution
from researchers.services import follow_create
from tests.factories import InstitutionFactory, ResearcherFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("factory", "page_name", "follow_name", "noun"),
    [
        (TopicFactory, "publications:topic-detail", "topic-follow", "topic"),
        (InstitutionFactory, "institution-detail", "institution-follow", "institution"),
    ],
)
def test_following_from_the_page_swaps_the_button_and_counts_once(
    factory, page_name, follow_name, noun, alice_client, bob_client
):
    record = factory()
    follow_url = reverse(follow_name, args=[record.pk])
    page = alice_client.get(reverse(page_name, args=[record.pk])).content.decode()
    assert f"Follow {noun}" in page and follow_url in page

    response = alice_client.post(follow_url, {"action": "follow"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body and "Following" in body
    assert '<span class="follow-count">1</span>' in body
    alice_client.post(follow_url, {"action": "follow"})  # a double click
    bob_client.post(follow_url, {"action": "follow"})
    record.refresh_from_db()
    assert record.followers_count == 2

    response = alice_client.post(follow_url, {"action": "unfollow"}, headers={"HX-Request": "true"})
    assert f"Follow {noun}" in response.content.decode()
    record.refresh_from_db()
    assert record.followers_count == 1
    page = bob_client.get(reverse(page_name, args=[record.pk])).content.decode()
    assert 'aria-pressed="true"' in page


@pytest.mark.parametrize(
    ("factory", "page_name", "follow_name"),
    [
        (TopicFactory, "publications:topic-detail", "topic-follow"),
        (InstitutionFactory, "institution-detail", "institution-follow"),
    ],
)
def test_a_visitor_is_sent_to_log_in_and_wrong_methods_are_refused(
    factory, page_name, follow_name, client
):
    record = factory()
    follow_url = reverse(follow_name, args=[record.pk])
    response = client.post(follow_url, {"action": "follow"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert client.get(follow_url).status_code == 405
    assert client.post(reverse(follow_name, args=[10**6])).status_code == 404
    record.refresh_from_db()
    assert record.followers_count == 0


def test_follow_buttons_need_csrf(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    topic = TopicFactory()
    assert client.post(reverse("topic-follow", args=[topic.pk])).status_code == 403
    assert not TopicFollow.objects.exists()


def test_following_lists_researchers_topics_and_institutions(alice, alice_client, bob):
    researcher = ResearcherFactory(display_name="Ada Example")
    topic = TopicFactory(name="Knot theory")
    institution = InstitutionFactory(name="University of Somewhere")
    follow_create(user=alice, researcher=researcher)
    services.follow_create(user=alice, target=topic)
    services.follow_create(user=alice, target=institution)
    services.follow_create(user=bob, target=TopicFactory(name="Bob's topic"))

    page = alice_client.get(reverse("following")).content.decode()
    assert "Ada Example" in page and "Knot theory" in page and "University of Somewhere" in page
    assert "Bob&#39;s topic" not in page and "Bob's topic" not in page


def test_following_costs_the_same_queries_for_few_and_many(
    alice, alice_client, django_assert_num_queries
):
    def follow_some(n):
        for _ in range(n):
            follow_create(user=alice, researcher=ResearcherFactory())
            services.follow_create(user=alice, target=TopicFactory())
            services.follow_create(user=alice, target=InstitutionFactory())

    follow_some(1)
    alice_client.get(reverse("following"))  # the inbox badge is then cached (issue 24, item 15)
    with django_assert_num_queries(5) as few:
        alice_client.get(reverse("following"))
    follow_some(20)
    with django_assert_num_queries(len(few.captured_queries)):
        alice_client.get(reverse("following"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["topic", "institution"])
def test_two_clicks_at_once_count_once(kind):
    user = UserFactory()
    record = TopicFactory() if kind == "topic" else InstitutionFactory()
    barrier = threading.Barrier(2)
    results = []

    def click():
        try:
            barrier.wait()
            results.append(services.follow_create(user=user, target=record))
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == [False, True]
    model = Topic if kind == "topic" else Institution
    assert model.objects.get(pk=record.pk).followers_count == 1
    follows = TopicFollow if kind == "topic" else InstitutionFollow
    assert follows.objects.count() == 1
    assert services.follow_delete(user=user, target=record)
    assert not services.follow_delete(user=user, target=record)
    assert model.objects.get(pk=record.pk).followers_count == 0
