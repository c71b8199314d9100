"""What a notification is about (its category) and how its email reaches the user (delivery).

A category is the unit of a user's preference: every notification and every optional email
belongs to one. Each category lists the deliveries a user may choose for it, so a category with
choices of its own (issue 14's feed digest: off, daily or weekly) is one more entry in
DELIVERIES_BY_CATEGORY; the preference table stores plain strings and needs no new column.
"""

from __future__ import annotations

from django.db import models


class NotificationCategory(models.TextChoices):
    CLAIMS = "claims", "Claims, reports and record changes"
    INVITATIONS = "invitations", "Collaboration invitations"
    MESSAGES = "messages", "Messages in your conversations"


class Delivery(models.TextChoices):
    IMMEDIATELY = "immediately", "Immediately"
    DAILY = "daily", "In a daily digest"
    OFF = "off", "Off"


# The deliveries each category offers, in the order a form lists them.
DELIVERIES_BY_CATEGORY: dict[str, tuple[str, ...]] = {
    category: (Delivery.IMMEDIATELY, Delivery.DAILY, Delivery.OFF)
    for category in NotificationCategory.values
}

# A category without a stored preference gets this.
DEFAULT_DELIVERY: dict[str, str] = {
    category: Delivery.IMMEDIATELY for category in NotificationCategory.values
}

# Not a category: the scope of the daily digest's unsubscribe link, which turns off email for
# every category the user receives in that digest (the digest mixes them, so no single
# category would stop it).
DAILY_DIGEST_SCOPE = "daily-digest"


def delivery_label(delivery: str) -> str:
    """The human name of a delivery value ("In a daily digest")."""
    return str(Delivery(delivery).label)


def category_label(category: str) -> str:
    """The human name of a category, or of the daily digest's unsubscribe scope."""
    if category == DAILY_DIGEST_SCOPE:
        return "The daily digest of your notifications"
    return str(NotificationCategory(category).label)
