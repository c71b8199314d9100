"""Writes of a user's own settings kept on the account itself, and deleting the user row."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction

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


# What the apps above must do before user rows go, in the same transaction: the rows of theirs
# the cascade would remove without the bookkeeping that goes with them (a follow and the
# followed record's stored count). Each app registers its step at start-up (feed.apps), as
# notifications' default deliveries are registered: this floor cannot import them.
BEFORE_USERS_DELETE: list[Callable[[Sequence[int]], None]] = []


def before_users_delete_register(step: Callable[[Sequence[int]], None]) -> None:
    """Run `step(user_ids)` in the transaction of every user_delete, before the rows go."""
    if step not in BEFORE_USERS_DELETE:
        BEFORE_USERS_DELETE.append(step)


@transaction.atomic
def users_delete(*, user_ids: Sequence[int]) -> None:
    """Delete these user rows (and what cascades from them), after every registered step ran
    for all of them, set-based. Account deletion (collaboration.services.account_delete) and
    the admin's delete both come here, so neither leaves a follower count high."""
    user_ids = sorted(set(user_ids))
    if not user_ids:
        return
    for step in BEFORE_USERS_DELETE:
        step(user_ids)
    # Django's collector runs the cascades and SET NULLs the models declare, set-based.
    User.objects.filter(pk__in=user_ids).delete()
