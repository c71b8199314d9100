"""In-app notifications, and the email each one gets by the user's delivery for its category."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from bzpeer.queueing import task_enqueue_on_commit
from bzpeer.users.models import User
from notifications.kinds import NOTIFYING_CATEGORIES, Delivery
from notifications.models import Notification
from notifications.selectors import delivery_for

from .emails import absolute_url, can_email, optional_email_build

logger = logging.getLogger(__name__)


def notification_create(
    *, user: User, category: str, kind: str, subject: str, message: str, url: str = ""
) -> Notification:
    """An in-app notification, always. Its email follows the user's delivery for `category`:
    IMMEDIATELY queues a task once the transaction commits, DAILY leaves it for the daily
    digest, OFF sends nothing; with settings.NOTIFICATIONS_EMAIL_ENABLED off, nothing either.
    `url` is a site path ("/researchers/x/")."""
    if category not in NOTIFYING_CATEGORIES:
        raise ValueError(f"not a notification category: {category!r}")
    delivery = delivery_for(user=user, category=category) if can_email(user) else Delivery.OFF
    if delivery not in (Delivery.IMMEDIATELY, Delivery.DAILY):
        delivery = Delivery.OFF
    notification = Notification.objects.create(
        user=user,
        category=category,
        kind=kind,
        subject=subject,
        message=message,
        url=url,
        email_delivery=delivery,
    )
    if delivery == Delivery.IMMEDIATELY:
        task_enqueue_on_commit(
            "notifications.tasks.notification_email_send", notification.pk, robust=False
        )
    return notification


def notifications_mark_read(*, user: User, notification_ids: Iterable[int] | None = None) -> int:
    """Mark the user's unread notifications (all, or those of `notification_ids` that are
    theirs) read; the number marked."""
    queryset = Notification.objects.filter(user=user, read_at__isnull=True)
    if notification_ids is not None:
        queryset = queryset.filter(id__in=list(notification_ids))
    return queryset.update(read_at=timezone.now())


def notification_email_deliver(*, notification_id: int) -> bool:
    """Email one notification now (the task queued by notification_create calls this); whether
    it was sent.

    Sent at most once: a conditional UPDATE of emailed_at claims it before sending, so a task
    delivered twice finds it taken; if sending fails the claim is undone and the task retries.
    A worker killed between the two loses that one email, which the in-app copy still shows.
    If the user has since chosen the daily digest for the category, it waits for the digest.
    """
    notification = Notification.objects.select_related("user").filter(pk=notification_id).first()
    if notification is None or notification.emailed_at is not None:
        return False
    user = notification.user
    if not can_email(user):
        return False
    delivery = delivery_for(user=user, category=notification.category)
    if delivery != Delivery.IMMEDIATELY:
        if delivery == Delivery.DAILY:
            Notification.objects.filter(pk=notification.pk, emailed_at__isnull=True).update(
                email_delivery=Delivery.DAILY
            )
        return False
    stamp = timezone.now()
    if not Notification.objects.filter(pk=notification.pk, emailed_at__isnull=True).update(
        emailed_at=stamp
    ):
        return False
    context = {
        "notification": notification,
        "user": user,
        "url": absolute_url(notification.url),
        "notifications_url": absolute_url(reverse("notifications:list")),
    }
    try:
        optional_email_build(
            user=user,
            category=notification.category,
            subject=render_to_string("notifications/email/notification_subject.txt", context),
            text_body=render_to_string("notifications/email/notification.txt", context),
            html_body=render_to_string("notifications/email/notification.html", context),
        ).send()
    except Exception:
        Notification.objects.filter(pk=notification.pk, emailed_at=stamp).update(emailed_at=None)
        raise
    logger.info("notification %s emailed to user %s", notification.pk, user.pk)
    return True


# An immediate email whose task has not sent it this long after its notification was created
# is owed: its message was lost (the broker down or emptied). Longer than a queued task waits
# on a healthy mail queue; a day at most, after which the in-app copy is the notification.
EMAIL_OWED_AFTER = timedelta(minutes=2)
EMAIL_OWED_FOR = timedelta(days=1)


def notification_emails_owed_send(*, limit: int = 1000) -> int:
    """Queue again the immediate emails that are owed (a periodic sweep); how many were queued.
    Each is sent at most once whatever the number of tasks (notification_email_deliver claims
    it first), so a task that was only late costs nothing."""
    now = timezone.now()
    owed = list(
        Notification.objects.filter(
            email_delivery=Delivery.IMMEDIATELY,
            emailed_at__isnull=True,
            created_at__lte=now - EMAIL_OWED_AFTER,
            created_at__gt=now - EMAIL_OWED_FOR,
        )
        .order_by("created_at")
        .values_list("pk", flat=True)[:limit]
    )
    for notification_id in owed:
        task_enqueue_on_commit("notifications.tasks.notification_email_send", notification_id)
    if owed:
        logger.info("notification emails owed: %d queued again (first %s)", len(owed), owed[:20])
    return len(owed)
