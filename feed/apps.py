from __future__ import annotations

from django.apps import AppConfig


class FeedConfig(AppConfig):
    name = "feed"

    def ready(self) -> None:
        # The digest's default depends on what the user follows, which this app knows and
        # notifications (below it) must not import: it is told here (notifications.kinds).
        from notifications.kinds import NotificationCategory, default_delivery_register

        from .selectors.digests import digest_default_delivery

        default_delivery_register(NotificationCategory.DIGEST, digest_default_delivery)
