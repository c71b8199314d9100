"""Writes of a user's own settings kept on the account itself."""

from __future__ import annotations

from bzpeer.errors import InvalidRequest

from .models import User
from .time_zones import is_time_zone


def user_time_zone_set(*, user: User, time_zone: str) -> None:
    """Store the user's time zone (an IANA name, "Australia/Brisbane"); the digests go out at
    08:00 there. InvalidRequest (400) for a name that is not a time zone."""
    if not is_time_zone(time_zone):
        raise InvalidRequest(
            f"“{time_zone[:60]}” is not a time zone: choose one from the list, such as "
            "Europe/Paris or America/Los_Angeles."
        )
    User.objects.filter(pk=user.pk).update(time_zone=time_zone)
    user.time_zone = time_zone
