"""The daily digest: one email per user with their notifications whose delivery is DAILY."""

from __future__ import annotations

import logging

from django.db import connection
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from bzpeer.users.models import User
from notifications.kinds import DAILY_DIGEST_SCOPE, Delivery
from notifications.models import Notification

from .emails import absolute_url, can_email, optional_email_build

logger = logging.getLogger(__name__)

# The email lists this many; the rest are counted and linked ("and N more").
DIGEST_ITEMS_SHOWN = 50

# Claims the user's waiting items in one statement: whichever of two overlapping runs gets a
# row first takes it, the other's UPDATE skips it (emailed_at is no longer NULL), so no item is
# ever in two digests. The partial index notification_digest_due_idx covers the WHERE.
_CLAIM_DUE = f"""
    UPDATE {Notification._meta.db_table}
       SET emailed_at = %s
     WHERE user_id = %s AND email_delivery = %s AND emailed_at IS NULL
 RETURNING id
"""


def notification_digest_send(*, user_id: int) -> int:
    """Email the user their daily-digest notifications not emailed yet, in one message; the
    number of notifications it carried (0: nothing sent).

    Each item goes out at most once (the conditional UPDATE above claims it before sending);
    if sending fails the claim is undone for a retry. Not to be called inside a transaction:
    the claim must commit at once for a concurrent run to see it.
    """
    user = User.objects.filter(pk=user_id).first()
    if user is None or not can_email(user):
        return 0
    stamp = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM_DUE, [stamp, user.pk, Delivery.DAILY.value])
        claimed = [row[0] for row in cursor.fetchall()]
    if not claimed:
        return 0
    items = list(Notification.objects.filter(id__in=claimed).order_by("created_at", "id"))
    context = {
        "user": user,
        "items": [
            {"notification": item, "url": absolute_url(item.url)}
            for item in items[:DIGEST_ITEMS_SHOWN]
        ],
        "count": len(items),
        "more": max(len(items) - DIGEST_ITEMS_SHOWN, 0),
        "notifications_url": absolute_url(reverse("notifications:list")),
    }
    try:
        optional_email_build(
            user=user,
            category=DAILY_DIGEST_SCOPE,
            subject=render_to_string("notifications/email/digest_subject.txt", context),
            text_body=render_to_string("notifications/email/digest.txt", context),
            html_body=render_to_string("notifications/email/digest.html", context),
        ).send()
    except Exception:
        Notification.objects.filter(id__in=claimed, emailed_at=stamp).update(emailed_at=None)
        raise
    logger.info("daily digest of %s notifications sent to user %s", len(items), user.pk)
    return len(items)
