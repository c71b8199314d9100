"""What a notification is about (its category) and how its email reaches the user (delivery).

A category is the unit of a user's preference: every notification and every optional email
belongs to one. Each category lists the deliveries a user may choose for it, so a category with
choices of its own (issue 14's feed digest: off, daily or weekly) is one more entry in
DELIVERIES_BY_CATEGORY; the preference table stores plain strings and needs no new column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from bzpeer.users.models import User


class NotificationCategory(models.TextChoices):
    CLAIMS = "claims", "Claims, reports and record changes"
    INVITATIONS = "invitations", "Collaboration invitations"
    MESSAGES = "messages", "Messages in your conversations"
    # Not a notification: the feed's email of new works by what you follow (issue 14). No
    # Notification row has it; it is here for the user's choice, the unsubscribe link and the API.
    DIGEST = "digest", "Digest of new works from what you follow"


class Delivery(models.TextChoices):
    IMMEDIATELY = "immediately", "Immediately"
    DAILY = "daily", "In a daily digest"
    WEEKLY = "weekly", "In a weekly digest"
    OFF = "off", "Off"


# The deliveries each category offers, in the order a form lists them.
DELIVERIES_BY_CATEGORY: dict[str, tuple[str, ...]] = {
    **{
        category: (Delivery.IMMEDIATELY, Delivery.DAILY, Delivery.OFF)
        for category in NotificationCategory.values
    },
    # One email a day or a week (feed.services.digests builds it, notifications.services.deliveries
    # sends it), or none.
    NotificationCategory.DIGEST: (Delivery.OFF, Delivery.DAILY, Delivery.WEEKLY),
}

# A category without a stored preference gets this...
DEFAULT_DELIVERY: dict[str, str] = {
    **{category: Delivery.IMMEDIATELY for category in NotificationCategory.values},
    NotificationCategory.DIGEST: Delivery.OFF,
}

# ...unless its default depends on the user: the digest is weekly for someone who follows
# something (off otherwise), and what a user follows is the feed's, an app above this one. So
# the app that knows registers the rule here at start-up (feed.apps) and this app never imports
# it. The resolver costs a query; it runs only for a user with no stored row.
DEFAULT_DELIVERY_FOR_USER: dict[str, Callable[[User], str]] = {}


def default_delivery_register(category: str, resolver: Callable[[User], str]) -> None:
    """Let `resolver(user)` give the default delivery of `category` (one of its deliveries)."""
    if category not in DELIVERIES_BY_CATEGORY:
        raise ValueError(f"not a notification category: {category!r}")
    DEFAULT_DELIVERY_FOR_USER[category] = resolver


# Not a category: the scope of the daily digest's unsubscribe link, which turns off email for
# every category the user receives in that digest (the digest mixes them, so no single
# category would stop it). The feed's digest is a separate email with its own link.
DAILY_DIGEST_SCOPE = "daily-digest"

# The categories whose notifications the daily digest gathers (DIGEST has no notifications).
NOTIFYING_CATEGORIES: tuple[str, ...] = tuple(
    category for category in NotificationCategory.values if category != NotificationCategory.DIGEST
)


def delivery_label(delivery: str) -> str:
    """The human name of a delivery value ("In a daily digest")."""
    return str(Delivery(delivery).label)


def category_label(category: str) -> str:
    """The human name of a category, or of the daily digest's unsubscribe scope."""
    if category == DAILY_DIGEST_SCOPE:
        return "The daily digest of your notifications"
    return str(NotificationCategory(category).label)
