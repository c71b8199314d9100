"""In-app notifications of claims decisions; each one's email goes out from a task."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from bzpeer.users.models import User
from claims.models import Notification
from claims.tasks.notifications import notification_email_send
from researchers.models import Researcher


def profile_url(researcher: Researcher) -> str:
    """The link a notification about this record points to."""
    return reverse("researcher-profile", args=[researcher.slug])


def account_url() -> str:
    """The link of notifications whose next step is on the account page."""
    return reverse("claims:account")


def notification_create(
    *, user: User, kind: str, subject: str, message: str, url: str = ""
) -> Notification:
    """An in-app notification; its email goes out from a task once the transaction commits."""
    notification = Notification.objects.create(
        user=user, kind=kind, subject=subject, message=message, url=url
    )
    if settings.NOTIFICATIONS_EMAIL_ENABLED:
        transaction.on_commit(lambda: notification_email_send.delay(notification.pk))
    return notification


def notifications_mark_read(*, user: User, notification_ids: Iterable[int] | None = None) -> int:
    queryset = Notification.objects.filter(user=user, read_at__isnull=True)
    if notification_ids is not None:
        queryset = queryset.filter(id__in=list(notification_ids))
    return queryset.update(read_at=timezone.now())
