"""Email digests (issue 14, item 4): what a digest lists, when nothing is sent, exactly one per
period, the cap, the default choice, and the email's parts and headers. Sent in this process
(`send_digests --sync`, Django's locmem outbox); the runs in subprocesses, killed or overlapping,
and the worker path are in test_digest_runs.py, the time zones in test_digest_time_zones.py."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.management import CommandError, call_command

from feed import selectors
from feed import services as feed_services
from notifications import services as notification_services
from notifications.kinds import NotificationCategory
from notifications.models import DigestDelivery, NotificationPreference
from notifications.selectors import delivery_for
from publications.models import Work
from tests.factories import InstitutionFactory, TopicFactory
from tests.notifications.backends import FailingBackend

from .digest_support import (
    DAY,
    HOUR,
    MONDAY_8,
    SITE,
    digests_to,
    following,
    member,
    recent_work,
    researcher,
    send_digests,
)

pytestmark = pytest.mark.django_db

DIGEST = NotificationCategory.DIGEST


@pytest.fixture(autouse=True)
def https_site(settings):
    settings.SITE_URL = SITE
    settings.NOTIFICATIONS_EMAIL_ENABLED = True


@pytest.fixture
def ada():
    return researcher("Ada Lovelace")


@pytest.fixture
def alan():
    return researcher("Alan Turing")


@pytest.fixture
def alice(ada, alan):
    """Follows Ada and Alan, never chose a digest (so weekly), in UTC."""
    return following(member("alice", display_name="Alice Liddell"), ada, alan)


def test_a_weekly_digest_lists_what_arrived_with_its_reason(alice, ada):
    work = recent_work(ada, arrived=MONDAY_8 - 2 * DAY, title="On the analytical engine")
    output = send_digests("weekly", MONDAY_8)
    assert "1 planned" in output and "1 emailed" in output
    [digest] = digests_to(alice)
    assert digest.subject == "[bzpeer] 1 new work from what you follow"
    assert "On the analytical engine" in digest.body
    assert "Because you follow Ada Lovelace" in digest.body
    assert f"{SITE}/works/{work.pk}/" in digest.body
    html = digest.alternatives[0][0]
    assert digest.alternatives[0][1] == "text/html"
    assert "On the analytical engine" in html and "Because you follow Ada Lovelace" in html
    row = DigestDelivery.objects.get(user=alice)
    assert (row.period, row.period_key, row.emailed, row.works_count) == (
        "weekly",
        "2026-W49",
        True,
        1,
    )
    assert row.finished_at is not None and row.window_end == MONDAY_8


def test_a_work_by_two_followed_coauthors_is_listed_once_because_of_both(alice, ada, alan):
    recent_work(ada, alan, arrived=MONDAY_8 - DAY, title="Joint paper")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert digest.body.count("Joint paper") == 1
    assert "Because you follow Ada Lovelace and Alan Turing" in digest.body
    assert digest.subject == "[bzpeer] 1 new work from what you follow"


def test_a_followed_topic_brings_its_works_too(alice):
    topic = TopicFactory(name="Graph theory")
    following(alice, topic)
    recent_work(researcher("Someone Else"), arrived=MONDAY_8 - DAY, topics=[topic], title="Graphs")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert "Graphs" in digest.body and "Because you follow Graph theory" in digest.body


def test_a_late_arriving_old_paper_is_in_the_feed_and_not_in_the_digest(alice, ada):
    # Published two years ago, imported (arrived) today: the feed shows it, the digest does not.
    old = recent_work(ada, arrived=MONDAY_8 - HOUR, published_days_ago=730, title="Old paper")
    assert [item.pk for item in selectors.feed_page(alice).items] == [old.pk]
    recent = recent_work(ada, arrived=MONDAY_8 - 2 * HOUR, title="New paper")
    assert [item.pk for item in selectors.feed_page(alice).items] == [old.pk, recent.pk]
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert "New paper" in digest.body and "Old paper" not in digest.body


def test_sixty_days_is_the_limit_of_recent(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - HOUR, published_days_ago=59, title="Fifty-nine days")
    recent_work(ada, arrived=MONDAY_8 - HOUR, published_days_ago=61, title="Sixty-one days")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert "Fifty-nine days" in digest.body and "Sixty-one days" not in digest.body


def test_a_work_known_only_by_this_years_date_counts_and_an_undated_one_does_not(alice, ada):
    # Known by its year only: taken as published on 31 December of it.
    this_year = recent_work(ada, arrived=MONDAY_8 - HOUR, title="This year")
    undated = recent_work(ada, arrived=MONDAY_8 - HOUR, title="Undated")
    Work.objects.filter(pk=this_year.pk).update(publication_date=None, publication_year=2026)
    Work.objects.filter(pk=undated.pk).update(publication_date=None, publication_year=None)
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert "This year" in digest.body and "Undated" not in digest.body


def test_a_user_with_nothing_new_gets_no_email(alice, ada):
    only_old = recent_work(ada, arrived=MONDAY_8 - HOUR, published_days_ago=400)
    assert only_old.pk
    output = send_digests("weekly", MONDAY_8)
    assert "1 planned" in output and "0 emailed" in output
    assert mail.outbox == []
    row = DigestDelivery.objects.get(user=alice)
    assert row.finished_at is not None and not row.emailed and row.works_count == 0


def test_a_second_run_in_the_same_period_sends_nothing(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY)
    send_digests("weekly", MONDAY_8)
    # Later in the same hour, with something new meanwhile: the period's digest went out.
    recent_work(ada, arrived=MONDAY_8 + HOUR / 6)
    output = send_digests("weekly", MONDAY_8 + HOUR / 2)
    assert "0 planned" in output and "0 to send" in output
    assert len(digests_to(alice)) == 1
    assert DigestDelivery.objects.filter(user=alice).count() == 1


def test_the_next_digest_starts_where_the_previous_one_ended(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY, title="Week one")
    send_digests("weekly", MONDAY_8)
    recent_work(ada, arrived=MONDAY_8 + DAY, title="Week two")
    send_digests("weekly", MONDAY_8 + 7 * DAY)
    first, second = digests_to(alice)
    assert "Week one" in first.body and "Week two" not in first.body
    assert "Week two" in second.body and "Week one" not in second.body
    keys = sorted(DigestDelivery.objects.values_list("period_key", flat=True))
    assert keys == ["2026-W49", "2026-W50"]


def test_the_first_digest_covers_one_period_back(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - 6 * DAY, title="Six days ago")
    recent_work(ada, arrived=MONDAY_8 - 8 * DAY, title="Eight days ago")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert "Six days ago" in digest.body and "Eight days ago" not in digest.body


def test_it_lists_fifty_works_and_counts_the_rest_with_a_link_to_the_feed(alice, ada):
    for number in range(53):
        recent_work(ada, arrived=MONDAY_8 - DAY + number * HOUR / 60, title=f"Paper {number:02d}")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert digest.subject == "[bzpeer] 53 new works from what you follow"
    listed = [line for line in digest.body.splitlines() if line.startswith("* Paper")]
    assert len(listed) == 50
    # Newest first: the three oldest are the ones counted.
    assert listed[0] == "* Paper 52" and "* Paper 02" not in listed
    assert f"... and 3 more: {SITE}/feed/" in digest.body
    assert f'… and 3 more: <a href="{SITE}/feed/"' in digest.alternatives[0][0]
    assert DigestDelivery.objects.get(user=alice).works_count == 53


def test_a_muted_follow_is_left_out(alice, ada, alan):
    feed_services.follow_mute_set(user=alice, target=ada, muted=True)
    recent_work(ada, arrived=MONDAY_8 - DAY, title="By Ada")
    recent_work(alan, arrived=MONDAY_8 - DAY, title="By Alan")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    assert "By Alan" in digest.body and "By Ada" not in digest.body


def test_weekly_is_the_default_only_for_someone_who_follows_something(alice, ada):
    loner = member("loner")
    assert delivery_for(user=alice, category=DIGEST) == "weekly"
    assert delivery_for(user=loner, category=DIGEST) == "off"
    recent_work(ada, arrived=MONDAY_8 - DAY)
    output = send_digests("weekly", MONDAY_8)
    assert "1 planned" in output
    assert not DigestDelivery.objects.filter(user=loner).exists()


def test_a_topic_or_an_institution_follow_also_makes_weekly_the_default():
    topic_follower = following(member("topics"), TopicFactory())
    institution_follower = following(member("places"), InstitutionFactory())
    assert delivery_for(user=topic_follower, category=DIGEST) == "weekly"
    assert delivery_for(user=institution_follower, category=DIGEST) == "weekly"


def test_a_daily_choice_gets_daily_digests_and_no_weekly_one(alice, ada):
    notification_services.notification_preference_set(user=alice, category=DIGEST, delivery="daily")
    recent_work(ada, arrived=MONDAY_8 - HOUR, title="Yesterday's")
    assert "0 planned" in send_digests("weekly", MONDAY_8)
    assert "1 planned" in send_digests("daily", MONDAY_8)
    [digest] = digests_to(alice)
    assert "since your last daily digest" in digest.body
    assert DigestDelivery.objects.get(user=alice).period_key == "2026-11-30"
    # The next day's.
    recent_work(ada, arrived=MONDAY_8 + HOUR, title="Today's")
    send_digests("daily", MONDAY_8 + DAY)
    assert len(digests_to(alice)) == 2 and "Today's" in digests_to(alice)[1].body


def test_off_sends_nothing(alice, ada):
    notification_services.notification_preference_set(user=alice, category=DIGEST, delivery="off")
    recent_work(ada, arrived=MONDAY_8 - DAY)
    assert "0 planned" in send_digests("weekly", MONDAY_8)
    assert "0 planned" in send_digests("daily", MONDAY_8)
    assert mail.outbox == []


def test_turning_the_digest_off_after_it_was_planned_stops_it(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY)
    plan = feed_services.digests_plan(period="weekly", clock=MONDAY_8)
    notification_services.notification_preference_set(user=alice, category=DIGEST, delivery="off")
    outcome = feed_services.digest_deliveries_send(delivery_ids=plan.pending)
    assert (outcome.claimed, outcome.emailed, outcome.empty) == (1, 0, 1)
    assert mail.outbox == []


def test_inactive_accounts_and_users_without_an_address_are_not_planned(ada):
    following(member("gone", is_active=False), ada)
    following(member("nomail", email=""), ada)
    recent_work(ada, arrived=MONDAY_8 - DAY)
    assert "0 planned" in send_digests("weekly", MONDAY_8)


def test_the_email_switch_off_sends_nothing(alice, ada, settings):
    settings.NOTIFICATIONS_EMAIL_ENABLED = False
    recent_work(ada, arrived=MONDAY_8 - DAY)
    send_digests("weekly", MONDAY_8)
    assert mail.outbox == []


def test_the_digest_carries_list_id_and_one_click_unsubscribe_headers(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY)
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    headers = digest.extra_headers
    assert headers["List-Id"] == "bzpeer digest <digest.bzpeer.invalid>"
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = headers["List-Unsubscribe"].strip("<>")
    assert url.startswith(f"{SITE}/notifications/unsubscribe/")
    assert notification_services.unsubscribe_token_read(url.rstrip("/").rsplit("/", 1)[1]) == (
        alice.pk,
        "digest",
    )
    assert url in digest.body and url in digest.alternatives[0][0]
    assert "Hello Alice Liddell" in digest.body


def test_imported_text_is_escaped_in_the_html_part(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY, title="<script>alert(1)</script> & more")
    send_digests("weekly", MONDAY_8)
    [digest] = digests_to(alice)
    html = digest.alternatives[0][0]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in html
    assert "<script>alert(1)</script> & more" in digest.body  # the text part is plain text


def test_a_refused_send_releases_the_claims_and_a_later_run_sends(alice, ada, settings):
    recent_work(ada, arrived=MONDAY_8 - DAY)
    settings.EMAIL_BACKEND = f"{FailingBackend.__module__}.FailingBackend"
    with pytest.raises(Exception, match="went away"):
        send_digests("weekly", MONDAY_8)
    row = DigestDelivery.objects.get(user=alice)
    assert row.claimed_at is None and row.finished_at is None
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert "1 emailed" in send_digests("weekly", MONDAY_8 + HOUR / 2)
    assert len(digests_to(alice)) == 1


def test_a_bad_clock_is_refused_with_a_message():
    with pytest.raises(CommandError, match="not an ISO date"):
        call_command("send_digests", "--period", "weekly", "--at", "next monday")


def test_a_clock_without_an_offset_is_utc(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY)
    assert "1 planned" in send_digests("weekly", MONDAY_8.replace(tzinfo=None))


def test_the_preference_row_is_the_notifications_apps(alice):
    notification_services.notification_preference_set(
        user=alice, category=DIGEST, delivery="weekly"
    )
    assert NotificationPreference.objects.get(user=alice).category == "digest"


def test_followers_of_one_record_in_one_chunk_each_get_their_own_window(
    alice, ada, alan, django_assert_num_queries
):
    # digest_windows reads each followed record once for the chunk, in the widest of its
    # followers' windows; each follower still gets only the works of their own window.
    topic = TopicFactory(name="Graph theory")
    following(alice, topic)
    bob = following(member("bob"), ada, topic)
    carol = following(member("carol"), ada)
    feed_services.follow_mute_set(user=carol, target=ada, muted=True)
    old = recent_work(ada, arrived=MONDAY_8 - 10 * DAY, title="Old")
    new = recent_work(ada, arrived=MONDAY_8 - DAY, title="New")
    graphs = recent_work(alan, arrived=MONDAY_8 - 9 * DAY, topics=[topic], title="Graphs")
    windows = [
        (alice, MONDAY_8 - 14 * DAY, MONDAY_8),
        (bob, MONDAY_8 - 7 * DAY, MONDAY_8),
        (carol, MONDAY_8 - 14 * DAY, MONDAY_8),
    ]
    requests = [
        selectors.DigestWindowRequest(
            delivery_id=number,
            user_id=user.pk,
            arrived_after=after,
            arrived_until=until,
            published_since=(until - 60 * DAY).date(),
        )
        for number, (user, after, until) in enumerate(windows, start=1)
    ]
    with django_assert_num_queries(2):
        chunk = selectors.digest_windows(requests, limit=50)
    listed = {
        delivery: [(e.work_id, e.because_researcher_ids, e.because_topic_ids) for e in entries]
        for delivery, entries in chunk.entries.items()
    }
    assert listed == {
        1: [(new.pk, (ada.pk,), ()), (graphs.pk, (alan.pk,), (topic.pk,)), (old.pk, (ada.pk,), ())],
        2: [(new.pk, (ada.pk,), ())],
    }
    assert chunk.totals == {1: 3, 2: 1}
