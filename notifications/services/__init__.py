"""Writes of the notifications app; every other app notifies through these.

- notifications: notification_create (in-app, and its email by the user's delivery),
                 notifications_mark_read, notification_email_deliver (the immediate email)
- preferences:   a user's delivery per category; one-click unsubscribe
- emails:        optional emails with List-Id and RFC 8058 unsubscribe headers
- digest:        the daily digest of DAILY notifications, each sent at most once
"""

from __future__ import annotations

from .digest import notification_digest_send
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
    "Unsubscribed",
    "list_id",
    "notification_create",
    "notification_digest_send",
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
