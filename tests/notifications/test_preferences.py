"""Preferences: one row per user and category at most, a missing row is the default, each
category offers its own deliveries, and turning one off cancels what the digest still held."""

from __future__ import annotations

import pytest

from bzpeer.errors import InvalidRequest
from notifications import selectors, services
from notifications.kinds import (
    DEFAULT_DELIVERY,
    DELIVERIES_BY_CATEGORY,
    Delivery,
    NotificationCategory,
)
from notifications.models import Notification, NotificationPreference

from .conftest import only_notifying

pytestmark = pytest.mark.django_db

CLAIMS = NotificationCategory.CLAIMS


def test_every_category_is_immediate_until_the_user_chooses(alice):
    assert only_notifying(selectors.deliveries_for(alice)) == {
        "claims": "immediately",
        "invitations": "immediately",
        "messages": "immediately",
    }
    assert set(selectors.deliveries_for(alice)) == set(DEFAULT_DELIVERY)
    assert selectors.delivery_for(user=alice, category=CLAIMS) == Delivery.IMMEDIATELY
    assert not NotificationPreference.objects.exists()


def test_every_category_offers_off_so_one_click_unsubscribe_works_for_each():
    assert all(Delivery.OFF in choices for choices in DELIVERIES_BY_CATEGORY.values())
    assert set(DELIVERIES_BY_CATEGORY) == set(NotificationCategory.values)


def test_setting_a_delivery_twice_keeps_one_row(alice):
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.DAILY)
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.OFF)
    assert list(NotificationPreference.objects.values_list("category", "delivery")) == [
        ("claims", "off")
    ]
    assert selectors.delivery_for(user=alice, category=CLAIMS) == Delivery.OFF


def test_one_users_choice_is_not_anothers(alice, bob):
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.OFF)
    assert selectors.delivery_for(user=bob, category=CLAIMS) == Delivery.IMMEDIATELY


@pytest.mark.parametrize(
    ("category", "delivery", "message"),
    [
        ("claims", "weekly", "is not a choice for claims"),
        ("claims", "", "is not a choice"),
        ("feed", "off", "is not a notification category"),
    ],
)
def test_it_refuses_a_category_or_delivery_that_does_not_exist(alice, category, delivery, message):
    with pytest.raises(InvalidRequest, match=message):
        services.notification_preference_set(user=alice, category=category, delivery=delivery)
    assert not NotificationPreference.objects.exists()


def test_several_choices_are_checked_before_any_is_stored(alice):
    with pytest.raises(InvalidRequest):
        services.notification_preferences_set(
            user=alice, deliveries={"claims": "off", "messages": "sometimes"}
        )
    assert not NotificationPreference.objects.exists()


def test_turning_a_category_off_cancels_its_items_waiting_for_the_digest(alice):
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.DAILY)
    waiting = services.notification_create(
        user=alice, category=CLAIMS, kind="k", subject="s", message="m"
    )
    services.notification_preference_set(user=alice, category=CLAIMS, delivery=Delivery.OFF)
    waiting.refresh_from_db()
    assert waiting.email_delivery == Delivery.OFF
    assert services.notification_digest_send(user_id=alice.pk) == 0
    assert Notification.objects.filter(pk=waiting.pk).exists()  # still shown in the app
