"""Users' email delivery per category, and one-click unsubscribe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import transaction

from bzpeer.errors import InvalidRequest
from bzpeer.users.models import User
from notifications.kinds import (
    DAILY_DIGEST_SCOPE,
    DELIVERIES_BY_CATEGORY,
    NOTIFYING_CATEGORIES,
    Delivery,
    category_label,
)
from notifications.models import Notification, NotificationPreference
from notifications.selectors import deliveries_for, unsubscribe_target


def _checked(category: str, delivery: str) -> None:
    allowed = DELIVERIES_BY_CATEGORY.get(category)
    if allowed is None:
        raise InvalidRequest(f"“{category[:40]}” is not a notification category.")
    if delivery not in allowed:
        raise InvalidRequest(
            f"“{delivery[:40]}” is not a choice for {category_label(category).lower()}: "
            f"choose one of {', '.join(allowed)}."
        )


@transaction.atomic
def notification_preferences_set(*, user: User, deliveries: Mapping[str, str]) -> None:
    """Store the user's delivery for each category given (all checked before any is written).

    Turning a category off also cancels its notifications still waiting for the daily digest:
    off means no more email of it, from now on.
    """
    for category, delivery in deliveries.items():
        _checked(category, delivery)
    if not deliveries:
        return
    # One INSERT ... ON CONFLICT DO UPDATE: two saves at once cannot trip the unique constraint.
    NotificationPreference.objects.bulk_create(
        [
            NotificationPreference(user=user, category=category, delivery=delivery)
            for category, delivery in deliveries.items()
        ],
        update_conflicts=True,
        unique_fields=["user", "category"],
        update_fields=["delivery", "updated_at"],
    )
    turned_off = [category for category, delivery in deliveries.items() if delivery == Delivery.OFF]
    if turned_off:
        Notification.objects.filter(
            user=user,
            category__in=turned_off,
            email_delivery=Delivery.DAILY,
            emailed_at__isnull=True,
        ).update(email_delivery=Delivery.OFF)


def notification_preference_set(*, user: User, category: str, delivery: str) -> None:
    """Store the user's delivery for one category; InvalidRequest (400) for a category or a
    delivery that category does not offer."""
    notification_preferences_set(user=user, deliveries={category: delivery})


@dataclass(frozen=True)
class Unsubscribed:
    user: User
    scope: str  # a category or kinds.DAILY_DIGEST_SCOPE
    categories: list[str]  # the categories turned off now


@transaction.atomic
def notifications_unsubscribe(*, token: str) -> Unsubscribed:
    """Turn off what an unsubscribe token names: its category, or for the daily digest's token
    every category the user gets daily (and whatever the digest still had waiting).
    Idempotent. InvalidRequest (400) for a tampered token, RecipientGone (404) when the
    account no longer exists."""
    target = unsubscribe_target(token)
    user, scope = target.user, target.scope
    if scope == DAILY_DIGEST_SCOPE:
        # The notifications' daily digest only: the feed's digest (DIGEST), daily or not, is
        # another email with an unsubscribe link of its own.
        deliveries = deliveries_for(user)
        categories = [
            category for category in NOTIFYING_CATEGORIES if deliveries[category] == Delivery.DAILY
        ]
        Notification.objects.filter(
            user=user, email_delivery=Delivery.DAILY, emailed_at__isnull=True
        ).update(email_delivery=Delivery.OFF)
    else:
        categories = [scope]
    notification_preferences_set(user=user, deliveries=dict.fromkeys(categories, str(Delivery.OFF)))
    return Unsubscribed(user=user, scope=scope, categories=categories)
