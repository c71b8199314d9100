"""Digests go out at 08:00 in each user's own time zone (weekly ones on their Monday), and the
time zone is a setting on the account page: UTC until set, one of zoneinfo's names, validated."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from bzpeer.users.models import User
from bzpeer.users.time_zones import available_time_zones
from notifications.models import DigestDelivery

from .digest_support import (
    DAY,
    HOUR,
    SITE,
    UTC,
    digests_to,
    following,
    member,
    recent_work,
    researcher,
    send_digests,
)

pytestmark = pytest.mark.django_db

SUNDAY = datetime.datetime(2026, 11, 29, 0, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def https_site(settings):
    settings.SITE_URL = SITE
    settings.NOTIFICATIONS_EMAIL_ENABLED = True


@pytest.fixture
def people():
    """Three followers of one busy researcher: in Brisbane (UTC+10, no summer time), in Los
    Angeles (UTC-8 in November) and in UTC."""
    ada = researcher("Ada Lovelace")
    users = {
        "brisbane": following(member("bris", time_zone="Australia/Brisbane"), ada),
        "los_angeles": following(member("la", time_zone="America/Los_Angeles"), ada),
        "utc": following(member("utc"), ada),
    }
    # Something new every six hours from a week before until the end of the runs.
    for hours in range(-7 * 24, 72, 6):
        recent_work(ada, arrived=SUNDAY + hours * HOUR)
    return users


def hours_sent(users: dict, period: str, start: datetime.datetime, hours: int) -> dict:
    """Run the digests of `period` at every hour from `start`; the hours (UTC) at which each
    user got one."""
    sent: dict[str, list[str]] = {name: [] for name in users}
    for hour in range(hours):
        clock = start + hour * HOUR
        before = {name: len(digests_to(user)) for name, user in users.items()}
        send_digests(period, clock)
        for name, user in users.items():
            if len(digests_to(user)) > before[name]:
                sent[name].append(clock.strftime("%a %d %H:%M"))
    return sent


def test_daily_digests_go_out_at_eight_in_each_users_time_zone(people):
    for user in people.values():
        user.notification_preferences.create(category="digest", delivery="daily")
    sent = hours_sent(people, "daily", SUNDAY, 48)
    assert sent == {
        # 08:00 in Brisbane is 22:00 UTC the day before.
        "brisbane": ["Sun 29 22:00", "Mon 30 22:00"],
        "los_angeles": ["Sun 29 16:00", "Mon 30 16:00"],
        "utc": ["Sun 29 08:00", "Mon 30 08:00"],
    }
    keys = dict(
        DigestDelivery.objects.filter(user=people["brisbane"]).values_list(
            "window_end", "period_key"
        )
    )
    # Brisbane's digest sent on Sunday 22:00 UTC is its Monday 30 November's.
    assert keys[SUNDAY + 22 * HOUR] == "2026-11-30"


def test_weekly_digests_go_out_on_each_users_monday_at_eight(people):
    sent = hours_sent(people, "weekly", SUNDAY, 48)
    assert sent == {
        "brisbane": ["Sun 29 22:00"],
        "los_angeles": ["Mon 30 16:00"],
        "utc": ["Mon 30 08:00"],
    }
    assert set(DigestDelivery.objects.values_list("period_key", flat=True)) == {"2026-W49"}


def test_summer_time_moves_the_hour_in_utc():
    # Los Angeles in July is UTC-7: 08:00 there is 15:00 UTC, on Monday 6 July 2026.
    ada = researcher("Ada Lovelace")
    user = following(member("la", time_zone="America/Los_Angeles"), ada)
    monday = datetime.datetime(2026, 7, 6, 0, 0, tzinfo=UTC)
    recent_work(ada, arrived=monday - DAY)
    sent = hours_sent({"la": user}, "weekly", monday, 24)
    assert sent == {"la": ["Mon 06 15:00"]}


def test_postgresql_knows_every_time_zone_offered():
    # The selection runs `AT TIME ZONE users_user.time_zone`: a name unknown there would fail
    # every run, so every name a user can choose must be one PostgreSQL knows.
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_timezone_names")
        known = {row[0] for row in cursor.fetchall()}
    offered = set(available_time_zones())
    assert "Australia/Brisbane" in offered and "UTC" in offered
    assert offered - known == set()


# --- The account page's setting -------------------------------------------------------------

URL = "/account/time-zone/"


@pytest.fixture
def alice():
    return member("alice")


@pytest.fixture
def bob():
    return member("bob", time_zone="Europe/Paris")


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_new_account_is_in_utc(alice):
    assert User.objects.get(pk=alice.pk).time_zone == "UTC"


def test_the_account_page_shows_the_time_zone_select(alice, django_assert_max_num_queries):
    # Signed in first: with sessions in the database (issue 29) the sign-in itself is queries
    # too, and what is counted here is the page.
    client = client_of(alice)
    with django_assert_max_num_queries(16):
        page = client.get(reverse("claims:account")).content.decode()
    assert f'action="{URL}"' in page and 'name="time_zone"' in page
    assert '<option value="UTC" selected>UTC</option>' in page
    assert '<option value="Australia/Brisbane">Australia/Brisbane</option>' in page


def test_alice_sets_her_time_zone_and_bobs_stays(alice, bob):
    client = client_of(alice)
    response = client.post(URL, {"time_zone": "Australia/Brisbane"})
    assert response.status_code == 302 and response["Location"] == reverse("claims:account")
    assert User.objects.get(pk=alice.pk).time_zone == "Australia/Brisbane"
    assert User.objects.get(pk=bob.pk).time_zone == "Europe/Paris"
    page = client.get(reverse("claims:account")).content.decode()
    assert "Your time zone is now Australia/Brisbane." in page
    assert '<option value="Australia/Brisbane" selected>' in page


@pytest.mark.parametrize("value", ["Mars/Olympus_Mons", "", "utc ", "+10:00", "x" * 300])
def test_a_name_that_is_not_a_time_zone_is_a_400_with_a_message(alice, value):
    response = client_of(alice).post(URL, {"time_zone": value})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Select a valid choice" in page or "This field is required" in page
    assert User.objects.get(pk=alice.pk).time_zone == "UTC"


def test_the_service_refuses_a_name_that_is_not_a_time_zone(alice):
    from bzpeer.errors import InvalidRequest
    from bzpeer.users.services import user_time_zone_set

    with pytest.raises(InvalidRequest, match="is not a time zone"):
        user_time_zone_set(user=alice, time_zone="Europe/Atlantis")
    assert User.objects.get(pk=alice.pk).time_zone == "UTC"


def test_the_model_field_validates_too(alice):
    from django.core.exceptions import ValidationError

    alice.time_zone = "Nowhere/Special"
    with pytest.raises(ValidationError):
        alice.full_clean()


def test_anonymous_visitors_are_sent_to_sign_in_and_nothing_changes(alice, client):
    response = client.post(URL, {"time_zone": "Australia/Brisbane"})
    assert response.status_code == 302 and "/login" in response["Location"]
    assert User.objects.get(pk=alice.pk).time_zone == "UTC"


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_other_methods_are_a_405(alice, method):
    assert getattr(client_of(alice), method)(URL).status_code == 405


def test_the_form_needs_the_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(URL, {"time_zone": "Australia/Brisbane"}).status_code == 403
    assert User.objects.get(pk=alice.pk).time_zone == "UTC"
