"""Reads of notifications and of users' email deliveries."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection

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
from .models import DigestDelivery, Notification, NotificationPreference
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


def digest_deliveries_pending(
    *, category: str, period: str | None = None, user_id: int | None = None
) -> list[int]:
    """Ids of the deliveries of the digest `category` (of one period, of one user, or all)
    still to send, oldest first: never claimed, or claimed longer than the lease ago by a run
    that did not finish them (it died). The partial index digest_delivery_pending_idx holds
    only unfinished rows."""
    conditions = ["category = %(category)s", "finished_at IS NULL"]
    if period is not None:
        conditions.append("period = %(period)s")
    if user_id is not None:
        conditions.append("user_id = %(user_id)s")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {DigestDelivery._meta.db_table}"  # noqa: S608
            f" WHERE {' AND '.join(conditions)}"
            "   AND (claimed_at IS NULL"
            "        OR claimed_at < now() - make_interval(secs => %(lease)s))"
            " ORDER BY id",
            {
                "category": category,
                "period": period,
                "user_id": user_id,
                "lease": settings.DIGEST_LEASE_SECONDS,
            },
        )
        return [row[0] for row in cursor.fetchall()]


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
    if user is None:  # deleted between the two reads
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
