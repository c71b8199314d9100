"""The digest's choice (issue 14, item 5): `digest` in GET/PATCH /api/v1/account/notifications/
(off, daily or weekly; 400 with a message on anything else) and on the preferences page, in the
OpenAPI schema; and the digest's RFC 8058 one-click unsubscribe."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

from notifications import services as notification_services
from notifications.kinds import DAILY_DIGEST_SCOPE
from notifications.models import DigestDelivery, NotificationPreference
from notifications.selectors import deliveries_for

from .digest_support import (
    DAY,
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

API = "/api/v1/account/notifications/"
PAGE = "/account/notifications/"
ONE_CLICK = "List-Unsubscribe=One-Click"


@pytest.fixture(autouse=True)
def https_site(settings):
    settings.SITE_URL = SITE
    settings.NOTIFICATIONS_EMAIL_ENABLED = True


@pytest.fixture
def ada():
    return researcher("Ada Lovelace")


@pytest.fixture
def alice(ada):
    """Follows Ada."""
    return following(member("alice"), ada)


@pytest.fixture
def bob():
    """Follows nobody."""
    return member("bob")


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def patch(client, body):
    return client.patch(API, body, content_type="application/json")


# --- API --------------------------------------------------------------------------------------


def test_get_reads_weekly_for_a_follower_and_off_for_someone_who_follows_nothing(alice, bob):
    assert client_of(alice).get(API).json()["digest"] == "weekly"
    assert client_of(bob).get(API).json()["digest"] == "off"
    # With the other kinds beside it.
    assert set(client_of(alice).get(API).json()) == {"claims", "invitations", "messages", "digest"}


@pytest.mark.parametrize("value", ["off", "daily", "weekly"])
def test_patch_stores_each_value(alice, value):
    response = patch(client_of(alice), {"digest": value})
    assert response.status_code == 200 and response.json()["digest"] == value
    assert deliveries_for(alice)["digest"] == value
    assert NotificationPreference.objects.get(user=alice, category="digest").delivery == value


@pytest.mark.parametrize("value", ["monthly", "immediately", "", None, 7, ["weekly"], "WEEKLY"])
def test_any_other_value_is_a_400_with_a_message(alice, value):
    response = patch(client_of(alice), {"digest": value})
    assert response.status_code == 400
    assert response.json()["digest"]  # the field's message
    assert not NotificationPreference.objects.exists()


def test_the_other_categories_do_not_offer_weekly(alice):
    response = patch(client_of(alice), {"claims": "weekly"})
    assert response.status_code == 400
    assert not NotificationPreference.objects.exists()


def test_one_users_choice_is_not_anothers(alice, bob):
    following(bob, researcher("Alan Turing"))
    patch(client_of(alice), {"digest": "daily"})
    assert client_of(bob).get(API).json()["digest"] == "weekly"


def test_anonymous_visitors_get_a_403(client, alice):
    assert client.get(API).status_code == 403
    assert patch(client, {"digest": "off"}).status_code == 403
    assert not NotificationPreference.objects.exists()


def test_the_schema_documents_digest_with_its_three_values(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"][API]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    properties = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]
    [reference] = properties["digest"]["allOf"]
    digest = schema["components"]["schemas"][reference["$ref"].rsplit("/", 1)[1]]
    assert digest == {"type": "string", "enum": ["off", "daily", "weekly"]}
    assert "400" in schema["paths"][API]["patch"]["responses"]


# --- The preferences page ---------------------------------------------------------------------


def test_the_page_offers_off_daily_and_weekly_for_the_digest(alice):
    page = client_of(alice).get(PAGE).content.decode()
    assert '<select name="digest"' in page
    assert '<option value="weekly" selected>In a weekly digest</option>' in page
    assert '<option value="daily">In a daily digest</option>' in page
    assert (
        '<option value="immediately">'
        not in page.split('<select name="digest"')[1].split("</select>")[0]
    )


def test_saving_the_page_stores_only_what_was_changed(bob):
    client = client_of(bob)
    shown = deliveries_for(bob)
    assert shown["digest"] == "off"
    response = client.post(PAGE, {**shown, "claims": "daily"})
    assert response.status_code == 302
    # The digest was left as shown: it keeps following the default, so a first follow makes
    # it weekly rather than leaving it pinned off.
    assert list(NotificationPreference.objects.values_list("category", "delivery")) == [
        ("claims", "daily")
    ]
    following(bob, researcher("Alan Turing"))
    assert deliveries_for(bob)["digest"] == "weekly"


def test_choosing_daily_on_the_page_stores_it(alice):
    client = client_of(alice)
    response = client.post(PAGE, {**deliveries_for(alice), "digest": "daily"})
    assert response.status_code == 302
    assert deliveries_for(alice)["digest"] == "daily"


def test_a_value_the_digest_does_not_offer_is_a_400_on_the_page(alice):
    response = client_of(alice).post(PAGE, {**deliveries_for(alice), "digest": "immediately"})
    assert response.status_code == 400 and "Select a valid choice" in response.content.decode()
    assert not NotificationPreference.objects.exists()


# --- One-click unsubscribe --------------------------------------------------------------------


def unsubscribe_path(digest) -> str:
    return digest.extra_headers["List-Unsubscribe"].strip("<>").removeprefix(SITE)


@pytest.fixture
def digest(alice, ada):
    recent_work(ada, arrived=MONDAY_8 - DAY)
    send_digests("weekly", MONDAY_8)
    [message] = digests_to(alice)
    return message


def test_the_one_click_post_without_cookies_answers_200_and_stops_digests(alice, ada, digest):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        unsubscribe_path(digest), ONE_CLICK, content_type=("application/x-www-form-urlencoded")
    )
    assert response.status_code == 200 and not response.cookies
    assert deliveries_for(alice)["digest"] == "off"
    # The other kinds stay as they were.
    assert set(deliveries_for(alice).values()) == {"immediately", "off"}
    mail.outbox.clear()
    recent_work(ada, arrived=MONDAY_8 + DAY)
    assert "0 planned" in send_digests("weekly", MONDAY_8 + 7 * DAY)
    assert "0 planned" in send_digests("daily", MONDAY_8 + 7 * DAY)
    assert mail.outbox == []


def test_a_get_of_the_link_changes_nothing(alice, digest):
    response = Client().get(unsubscribe_path(digest))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Unsubscribe?" in page and "Digest of new works from what you follow" in page
    assert Client().head(unsubscribe_path(digest)).status_code == 200
    assert not NotificationPreference.objects.exists()
    assert deliveries_for(alice)["digest"] == "weekly"


def test_a_tampered_token_is_a_400(alice, digest):
    path = unsubscribe_path(digest)
    token = path.rstrip("/").rsplit("/", 1)[1]
    altered = token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")
    response = Client(enforce_csrf_checks=True).post(
        f"/notifications/unsubscribe/{altered}/",
        ONE_CLICK,
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 400
    assert deliveries_for(alice)["digest"] == "weekly"
    assert not NotificationPreference.objects.exists()


def test_the_notifications_daily_digest_link_leaves_the_feed_digest_alone(alice):
    notification_services.notification_preferences_set(
        user=alice, deliveries={"claims": "daily", "digest": "daily"}
    )
    url = notification_services.unsubscribe_url(user=alice, category=DAILY_DIGEST_SCOPE)
    response = Client(enforce_csrf_checks=True).post(
        url.removeprefix(SITE), ONE_CLICK, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert deliveries_for(alice)["claims"] == "off"
    assert deliveries_for(alice)["digest"] == "daily"


def test_a_digest_already_planned_is_not_sent_after_the_unsubscribe(alice, ada):
    from feed import services

    recent_work(ada, arrived=MONDAY_8 - DAY)
    plan = services.digests_plan(period="weekly", clock=MONDAY_8)
    url = notification_services.unsubscribe_url(user=alice, category="digest")
    Client().post(
        url.removeprefix(SITE), ONE_CLICK, content_type="application/x-www-form-urlencoded"
    )
    services.digest_deliveries_send(delivery_ids=plan.pending)
    assert mail.outbox == []
    assert DigestDelivery.objects.get(user=alice).emailed is False
