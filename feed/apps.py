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

        # A user's follows go before the user row does, with the counts they added (however
        # the user is deleted: their own account deletion or the admin's delete).
        from bzpeer.users.services import before_users_delete_register

        from .services.follows import follows_delete_for_users

        before_users_delete_register(follows_delete_for_users)
