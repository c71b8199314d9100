"""Reads of notifications and of users' email deliveries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from bzpeer.users.models import User

from .errors import RecipientGone
from .kinds import (
    DAILY_DIGEST_SCOPE,
    DEFAULT_DELIVERY,
    DEFAULT_DELIVERY_FOR_USER,
    NOTIFYING_CATEGORIES,
    Delivery,
    category_label,
)
from .models import Notification, NotificationPreference
from .tokens import unsubscribe_token_read


def _default_delivery(user: User, category: str) -> str:
    resolver = DEFAULT_DELIVERY_FOR_USER.get(category)
    return resolver(user) if resolver is not None else DEFAULT_DELIVERY[category]


def delivery_for(*, user: User, category: str) -> str:
    """The user's delivery for one category (its default when they never chose)."""
    stored = (
        NotificationPreference.objects.filter(user=user, category=category)
        .values_list("delivery", flat=True)
        .first()
    )
    return stored or _default_delivery(user, category)


def deliveries_for(user: User) -> dict[str, str]:
    """Every category -> the user's delivery for it, defaults filled in (one query, and one
    more per category whose default depends on the user and who never chose it)."""
    stored = dict(
        NotificationPreference.objects.filter(
            user=user, category__in=list(DEFAULT_DELIVERY)
        ).values_list("category", "delivery")
    )
    return {
        category: stored.get(category) or _default_delivery(user, category)
        for category in DEFAULT_DELIVERY
    }


def notifications_for(user: User, *, limit: int = 50) -> list[Notification]:
    """The user's newest notifications, newest first."""
    return list(Notification.objects.filter(user=user).order_by("-created_at", "-id")[:limit])


def unread_notifications_count(user: User) -> int:
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def users_with_digest_due() -> QuerySet[User]:
    """Users with at least one notification waiting for the daily digest (the partial index
    notification_digest_due_idx makes this cheap)."""
    return User.objects.filter(
        pk__in=Notification.objects.filter(
            email_delivery=Delivery.DAILY, emailed_at__isnull=True
        ).values("user_id")
    ).order_by("pk")


@dataclass(frozen=True)
class UnsubscribeTarget:
    """What an unsubscribe link would turn off, for its confirmation page."""

    user: User
    scope: str  # a category or kinds.DAILY_DIGEST_SCOPE
    label: str
    already_off: bool


def unsubscribe_target(token: str) -> UnsubscribeTarget:
    """Reads only (a GET of the link changes nothing). InvalidRequest (400) for a tampered
    token, RecipientGone (404) for an account that no longer exists."""
    user_id, scope = unsubscribe_token_read(token)
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise RecipientGone("This link belongs to an account that no longer exists.")
    deliveries = deliveries_for(user)
    if scope == DAILY_DIGEST_SCOPE:
        already_off = all(
            deliveries[category] != Delivery.DAILY for category in NOTIFYING_CATEGORIES
        )
    else:
        already_off = deliveries[scope] == Delivery.OFF
    return UnsubscribeTarget(
        user=user, scope=scope, label=category_label(scope), already_off=already_off
    )
