"""Writes of the notifications app; every other app notifies through these.

- notifications: notification_create (in-app, and its email by the user's delivery),
                 notifications_mark_read, notification_email_deliver (the immediate email)
- preferences:   a user's delivery per category; one-click unsubscribe
- emails:        optional emails with List-Id and RFC 8058 unsubscribe headers
- deliveries:    digest deliveries, the one mechanism of both email digests (this app's daily
                 digest and the feed's): planned, claimed under a lease, sent and finished
                 once per user and period
- digest:        the daily digest of DAILY notifications, a digest delivery per user and day
"""

from __future__ import annotations

from .deliveries import (
    ClaimedDelivery,
    DeliveryPlan,
    DigestChunkOutcome,
    DigestRun,
    digest_chunks,
    digest_deliveries_claimed,
    digest_deliveries_plan_by_preference,
)
from .digest import (
    notification_digest_deliveries_send,
    notification_digest_send,
    notification_digests_plan,
    notification_digests_queue,
)
from .emails import (
    list_id,
    optional_email_build,
    optional_email_send,
    unsubscribe_token_read,
    unsubscribe_url,
)
from .notifications import notification_create, notification_email_deliver, notifications_mark_read
from .preferences import (
    Unsubscribed,
    notification_preference_set,
    notification_preferences_set,
    notifications_unsubscribe,
)

__all__ = [
    "ClaimedDelivery",
    "DeliveryPlan",
    "DigestChunkOutcome",
    "DigestRun",
    "Unsubscribed",
    "digest_chunks",
    "digest_deliveries_claimed",
    "digest_deliveries_plan_by_preference",
    "list_id",
    "notification_create",
    "notification_digest_deliveries_send",
    "notification_digest_send",
    "notification_digests_plan",
    "notification_digests_queue",
    "notification_email_deliver",
    "notification_preference_set",
    "notification_preferences_set",
    "notifications_mark_read",
    "notifications_unsubscribe",
    "optional_email_build",
    "optional_email_send",
    "unsubscribe_token_read",
    "unsubscribe_url",
]
