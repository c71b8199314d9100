"""The notifications list and the email preferences page: sign-in needed, each user sees and
changes only their own, state changes are CSRF-checked POSTs, fixed query counts."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from notifications import services
from notifications.kinds import Delivery, NotificationCategory
from notifications.models import Notification, NotificationPreference
from notifications.selectors import deliveries_for

from .conftest import only_notifying

pytestmark = pytest.mark.django_db

LIST = reverse("notifications:list")
READ = reverse("notifications:read")
PREFERENCES = reverse("notifications:preferences")


def notify(user, subject):
    return services.notification_create(
        user=user,
        category=NotificationCategory.CLAIMS,
        kind="k",
        subject=subject,
        message=f"{subject}: details",
        url="/account/",
    )


@pytest.mark.parametrize("url", [LIST, PREFERENCES])
def test_the_pages_require_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_mark_all_read_requires_login(client, alice):
    notify(alice, "Mine")
    response = client.post(READ)
    assert response.status_code == 302
    assert Notification.objects.filter(read_at__isnull=True).count() == 1


def test_the_list_shows_only_the_users_own_notifications(alice_client, alice, bob, charlie_client):
    notify(alice, "For Alice <b>bold</b>")
    notify(bob, "For Bob")
    page = alice_client.get(LIST).content.decode()
    assert "For Alice &lt;b&gt;bold&lt;/b&gt;" in page  # escaped
    assert "For Bob" not in page
    assert "1 new" in page and "Mark all read" in page
    charlie_page = charlie_client.get(LIST).content.decode()
    assert "For Alice" not in charlie_page and "Nothing yet." in charlie_page


def test_mark_all_read_marks_only_the_users_own(alice_client, alice, bob):
    notify(alice, "One")
    notify(alice, "Two")
    notify(bob, "Bob's")
    response = alice_client.post(READ)
    assert response.status_code == 302 and response["Location"] == LIST
    assert not Notification.objects.filter(user=alice, read_at__isnull=True).exists()
    assert Notification.objects.filter(user=bob, read_at__isnull=True).count() == 1
    assert "Mark all read" not in alice_client.get(LIST).content.decode()


def test_mark_all_read_needs_a_csrf_token(alice):
    notify(alice, "One")
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(READ).status_code == 403
    assert Notification.objects.filter(read_at__isnull=True).count() == 1


def test_wrong_methods_are_refused(alice_client):
    assert alice_client.get(READ).status_code == 405
    assert alice_client.post(LIST).status_code == 405
    assert alice_client.put(PREFERENCES).status_code == 405
    assert alice_client.delete(PREFERENCES).status_code == 405


def test_the_list_runs_a_fixed_number_of_queries(
    alice_client, alice, django_assert_max_num_queries
):
    for number in range(30):
        notify(alice, f"Item {number}")
    with django_assert_max_num_queries(8):
        response = alice_client.get(LIST)
    assert response.status_code == 200 and "Item 29" in response.content.decode()


def test_the_preferences_page_shows_a_choice_per_category(alice_client, alice):
    services.notification_preference_set(
        user=alice, category=NotificationCategory.MESSAGES, delivery=Delivery.DAILY
    )
    response = alice_client.get(PREFERENCES)
    assert response.status_code == 200
    page = response.content.decode()
    for category in NotificationCategory.values:
        assert f'<select name="{category}"' in page
    assert '<option value="daily" selected>In a daily digest</option>' in page
    assert 'name="csrfmiddlewaretoken"' in page


def form_data(user, **changes):
    """What the page's form posts: every select, as shown, with these changed."""
    return {**deliveries_for(user), **changes}


def test_saving_the_preferences_changes_only_the_users_own(alice_client, alice, bob):
    response = alice_client.post(
        PREFERENCES, form_data(alice, claims="off", invitations="daily", messages="immediately")
    )
    assert response.status_code == 302 and response["Location"] == PREFERENCES
    assert only_notifying(deliveries_for(alice)) == {
        "claims": "off",
        "invitations": "daily",
        "messages": "immediately",
    }
    assert set(only_notifying(deliveries_for(bob)).values()) == {"immediately"}
    assert "Your email choices are saved." in alice_client.get(PREFERENCES).content.decode()


def test_a_value_that_is_not_offered_is_a_400_and_saves_nothing(alice_client, alice):
    response = alice_client.post(PREFERENCES, form_data(alice, claims="sometimes"))
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not NotificationPreference.objects.exists()


def test_saving_the_preferences_needs_a_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(PREFERENCES, form_data(alice, claims="off"))
    assert response.status_code == 403
    assert not NotificationPreference.objects.exists()


def test_the_preferences_page_runs_a_fixed_number_of_queries(
    alice_client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        assert alice_client.get(PREFERENCES).status_code == 200


def test_the_account_page_lists_the_latest_notifications_and_links_both_pages(alice_client, alice):
    notify(alice, "Your claim was approved")
    page = alice_client.get(reverse("claims:account")).content.decode()
    assert "Your claim was approved" in page and "1 new" in page
    assert f'href="{LIST}"' in page and f'href="{PREFERENCES}"' in page


def test_the_account_pages_mark_all_read_still_works(alice_client, alice):
    notify(alice, "One")
    response = alice_client.post(reverse("claims:notifications-read"))
    assert response.status_code == 302
    assert not Notification.objects.filter(read_at__isnull=True).exists()
