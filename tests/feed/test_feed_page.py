"""The feed at /feed/: what it lists, in which order, paging while works arrive, mute, the
new-items badge and "mark all read". The rules of what a page lists are checked on both paths of
the page statement (feed.selectors.feed): the arrival scan, the per-follow probes, and the scan
that finds less than a page within its budget and gives way to the probes."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from feed import selectors, services
from publications.models import Authorship
from researchers.services import follow_create
from tests.factories import ResearcherFactory, TopicFactory, UserFactory

from .conftest import minutes_ago, work_by

pytestmark = pytest.mark.django_db


def _ids(page) -> list[int]:
    return [item.pk for item in page.items]


@pytest.fixture(params=["probes", "scan", "scan, then probes"])
def feed_path(request, monkeypatch):
    """Which path the page statement takes, whatever the number of follows."""
    from feed.selectors import feed

    scan_from, budget = {
        "probes": (10**9, 1),
        "scan": (1, 10**6),
        # A budget of one work per follow: a page rarely lies within it.
        "scan, then probes": (1, 1),
    }[request.param]
    monkeypatch.setattr(feed, "ARRIVAL_SCAN_FROM_FOLLOWS", scan_from)
    monkeypatch.setattr(feed, "ARRIVAL_SCAN_BUDGET", budget)
    return request.param


def test_it_requires_login(client):
    response = client.get(reverse("feed:feed"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_it_refuses_other_methods(alice_client):
    assert alice_client.post(reverse("feed:feed")).status_code == 405
    assert alice_client.get(reverse("feed:mark-read")).status_code == 405
    assert alice_client.get(reverse("feed:mute", args=["topic", "1"])).status_code == 405


@pytest.mark.usefixtures("feed_path")
def test_a_work_of_two_followed_coauthors_appears_once_because_of_both(alice, alice_client):
    ada, bo = (
        ResearcherFactory(display_name="Ada Example"),
        ResearcherFactory(display_name="Bo Sample"),
    )
    topic = TopicFactory(name="Graph theory")
    follow_create(user=alice, researcher=ada)
    follow_create(user=alice, researcher=bo)
    services.follow_create(user=alice, target=topic)
    joint = work_by(ada, bo, topics=[topic], title="Joint paper")

    page = selectors.feed_page(alice)

    assert _ids(page) == [joint.pk]
    item = page.items[0]
    assert [r["slug"] for r in item.because_researchers] == [ada.slug, bo.slug]
    assert [t["id"] for t in item.because_topics] == [topic.pk]
    body = alice_client.get(reverse("feed:feed")).content.decode()
    assert body.count("Joint paper") == 1
    assert "Because you follow" in body and "Ada Example</a>, " in body
    assert "Bo Sample</a> and " in body and "Graph theory</a>" in body


@pytest.mark.usefixtures("feed_path")
def test_a_late_arriving_old_paper_comes_first(alice):
    ada = ResearcherFactory()
    follow_create(user=alice, researcher=ada)
    recent = work_by(ada, at=minutes_ago(60), publication_date=datetime.date(2026, 1, 1))
    old = work_by(ada, publication_date=datetime.date(1987, 5, 1), title="From the archive")

    assert _ids(selectors.feed_page(alice)) == [old.pk, recent.pk]


def test_the_writer_never_moves_a_works_arrival_on_update(alice):
    ada = ResearcherFactory()
    work = work_by(ada, at=minutes_ago(600))
    arrival = work.created_at
    work.title = "Edited"
    work.save()
    work.refresh_from_db()
    assert work.created_at == arrival
    assert Authorship.objects.get(work=work).work_created_at == arrival


@pytest.mark.usefixtures("feed_path")
def test_paging_has_no_duplicates_and_no_gaps_while_works_arrive(alice, alice_client):
    ada, bo = ResearcherFactory(), ResearcherFactory()
    follow_create(user=alice, researcher=ada)
    follow_create(user=alice, researcher=bo)
    # 45 works, some by both, arriving one a minute; several share one arrival time.
    works = []
    for n in range(45):
        authors = (ada, bo) if n % 3 == 0 else (ada,) if n % 2 else (bo,)
        works.append(work_by(*authors, at=minutes_ago(100 - (n // 2))))
    expected = [w.pk for w in sorted(works, key=lambda w: (w.created_at, w.pk), reverse=True)]

    seen = []
    page = selectors.feed_page(alice)
    seen += _ids(page)
    for _ in range(5):
        # New works arrive between pages, by both followed researchers.
        work_by(ada, bo)
        work_by(ada)
        if not page.next_cursor:
            break
        page = selectors.feed_page(alice, cursor=page.next_cursor)
        seen += _ids(page)

    assert seen == expected
    # The HTML page follows the same cursor.
    first = alice_client.get(reverse("feed:feed"))
    assert first.status_code == 200 and "?cursor=" in first.content.decode()


def test_a_cursor_that_was_not_signed_here_is_refused(alice, alice_client):
    with pytest.raises(selectors.InvalidCursor):
        selectors.feed_page(alice, cursor="bm90IGEgY3Vyc29y")
    response = alice_client.get(reverse("feed:feed"), {"cursor": "1:abc"})
    assert response.status_code == 400


@pytest.mark.usefixtures("feed_path")
def test_a_muted_researcher_stays_followed_but_leaves_the_feed(alice, alice_client):
    ada, bo = ResearcherFactory(), ResearcherFactory()
    follow_create(user=alice, researcher=ada)
    follow_create(user=alice, researcher=bo)
    only_ada = work_by(ada)
    joint = work_by(ada, bo)

    response = alice_client.post(
        reverse("feed:mute", args=["researcher", ada.slug]), {"action": "mute"}
    )
    assert response.status_code == 302

    page = selectors.feed_page(alice)
    assert _ids(page) == [joint.pk]  # still there through Bo
    assert [r["slug"] for r in page.items[0].because_researchers] == [bo.slug]
    ada.refresh_from_db()
    assert ada.followers_count == 1
    following = alice_client.get(reverse("following")).content.decode()
    assert "Muted in feed" in following

    alice_client.post(reverse("feed:mute", args=["researcher", ada.slug]), {"action": "unmute"})
    assert _ids(selectors.feed_page(alice)) == [joint.pk, only_ada.pk]


@pytest.mark.usefixtures("feed_path")
def test_a_muted_topic_leaves_the_feed(alice, alice_client):
    topic = TopicFactory()
    services.follow_create(user=alice, target=topic)
    work_by(ResearcherFactory(), topics=[topic])
    alice_client.post(reverse("feed:mute", args=["topic", str(topic.pk)]), {"action": "mute"})
    assert selectors.feed_page(alice).items == []


def test_muting_what_you_do_not_follow_is_a_404(alice_client, bob):
    ada = ResearcherFactory()
    follow_create(user=bob, researcher=ada)
    response = alice_client.post(reverse("feed:mute", args=["researcher", ada.slug]))
    assert response.status_code == 404
    assert alice_client.post(reverse("feed:mute", args=["nothing", "1"])).status_code == 404
    # Bob's follow was not touched.
    assert not bob.follows.get().muted


@pytest.mark.usefixtures("feed_path")
def test_another_users_follows_do_not_reach_my_feed(alice, bob):
    ada = ResearcherFactory()
    follow_create(user=bob, researcher=ada)
    work_by(ada)
    assert selectors.feed_page(alice).items == []
    assert len(selectors.feed_page(bob).items) == 1


@pytest.mark.usefixtures("feed_path")
def test_mark_all_read_is_one_write_and_clears_the_badge(
    alice, alice_client, django_assert_num_queries
):
    ada = ResearcherFactory()
    alice.date_joined = minutes_ago(1000)
    alice.save()
    follow_create(user=alice, researcher=ada)
    for n in range(3):
        work_by(ada, at=minutes_ago(10 + n))

    badge = alice_client.get(reverse("feed:new-badge")).content.decode()
    assert ">3<" in badge
    page = alice_client.get(reverse("feed:feed"))
    through = page.context["read_up_to"]

    with django_assert_num_queries(1):
        services.feed_mark_read(user=alice, through=selectors.cursor_decode(through)[0])
    response = alice_client.post(reverse("feed:mark-read"), {"through": through})
    assert response.status_code == 302
    assert alice_client.get(reverse("feed:new-badge")).content.decode().strip() == ""

    # A work arriving afterwards is new again.
    work_by(ada)
    assert selectors.feed_new_count(alice) == 1


@pytest.mark.usefixtures("feed_path")
def test_the_new_count_stops_at_fifty_one(alice, alice_client):
    alice.date_joined = minutes_ago(1000)
    alice.save()
    ada = ResearcherFactory()
    follow_create(user=alice, researcher=ada)
    for _ in range(60):
        work_by(ada)
    assert selectors.feed_new_count(alice) == 51
    assert "50+" in alice_client.get(reverse("feed:new-badge")).content.decode()


@pytest.mark.usefixtures("feed_path")
@pytest.mark.parametrize("new_works", [0, 7, 80])
def test_the_new_count_is_every_followed_work_after_the_watermark_up_to_51(alice, new_works):
    import random

    rng = random.Random(new_works)
    alice.date_joined = minutes_ago(1000)
    alice.save()
    researchers = ResearcherFactory.create_batch(6)
    topic = TopicFactory()
    for researcher in researchers[:4]:
        follow_create(user=alice, researcher=researcher)
    services.follow_create(user=alice, target=topic)
    services.follow_mute_set(user=alice, target=researchers[0], muted=True)
    followed = set(researchers[1:4])
    for _ in range(10):  # read before the watermark
        work_by(*rng.sample(researchers, 2), at=minutes_ago(900))
    services.feed_mark_read(user=alice, through=minutes_ago(500))
    # The new works the user follows (by a followed researcher, two of them, or the topic),
    # interleaved with works of the muted researcher and of researchers not followed.
    others = [researchers[0], researchers[4], researchers[5]]
    for n in range(new_works):
        authors = rng.sample(sorted(followed, key=lambda r: r.pk), rng.randint(1, 2))
        with_topic = n % 5 == 0
        work_by(
            *authors,
            *rng.sample(others, 1),
            topics=[topic] if with_topic else [],
            at=minutes_ago(400 - n),
        )
        work_by(*rng.sample(others, 2), at=minutes_ago(400 - n))
    work_by(researchers[5], topics=[topic], at=minutes_ago(100))
    assert selectors.feed_new_count(alice) == min(new_works + 1, 51)


def test_mark_read_never_moves_the_watermark_back_or_past_now(alice):
    now = services.feed_mark_read(user=alice)
    assert services.feed_mark_read(user=alice, through=now - datetime.timedelta(days=3)) == now
    later = services.feed_mark_read(user=alice, through=now + datetime.timedelta(days=300))
    assert later <= timezone.now()


def test_mark_read_needs_csrf(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("feed:mark-read")).status_code == 403


def test_the_header_links_the_feed_for_signed_in_users_only(client, alice_client):
    assert reverse("feed:feed") in alice_client.get(reverse("home")).content.decode()
    assert reverse("feed:feed") not in client.get(reverse("home")).content.decode()
    assert client.get(reverse("feed:new-badge")).content == b""


@pytest.mark.parametrize("follows", [1, 50, 500])
def test_the_feed_costs_the_same_queries_whatever_the_number_of_follows(
    follows, client, django_assert_num_queries
):
    user = UserFactory()
    researchers = ResearcherFactory.create_batch(follows)
    for researcher in researchers:
        follow_create(user=user, researcher=researcher)
    for n in range(30):
        work_by(researchers[n % follows], researchers[-1], at=minutes_ago(n))
    client.force_login(user)
    client.get(reverse("feed:feed"))  # the session and the inbox badge are read once and cached

    # The user, the feed page (the inbox badge comes from the cache: issue 24, item 15).
    with django_assert_num_queries(2):
        first = client.get(reverse("feed:feed"))
    cursor = first.context["feed_page"].next_cursor
    assert cursor
    with django_assert_num_queries(2):
        second = client.get(reverse("feed:feed"), {"cursor": cursor})
    assert second.status_code == 200 and second.context["feed_page"].items


@pytest.mark.usefixtures("feed_path")
def test_every_page_equals_a_brute_force_order_of_everything_followed(alice):
    import random

    rng = random.Random(14)
    researchers = ResearcherFactory.create_batch(40)
    topics = TopicFactory.create_batch(3)
    for researcher in researchers[:30]:
        follow_create(user=alice, researcher=researcher)
    for topic in topics[:2]:
        services.follow_create(user=alice, target=topic)
    services.follow_mute_set(user=alice, target=researchers[0], muted=True)
    followed = set(researchers[1:30])
    expected = []
    for _ in range(150):
        authors = rng.sample(researchers, rng.randint(1, 3))
        work_topics = rng.sample(topics, rng.randint(0, 1))
        # Arrivals in batches: many works share one arrival time, as in one import transaction.
        work = work_by(*authors, topics=work_topics, at=minutes_ago(rng.randint(0, 40)))
        if followed & set(authors) or set(work_topics) & set(topics[:2]):
            expected.append(work)
    expected = [w.pk for w in sorted(expected, key=lambda w: (w.created_at, w.pk), reverse=True)]

    seen, cursor = [], None
    while True:
        page = selectors.feed_page(alice, cursor=cursor)
        seen += _ids(page)
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert seen == expected
