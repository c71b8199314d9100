"""The invitation quota, counted from the invitations table under the sender's row lock.

A cache counter could be lost or raced; the database cannot: the sender's CollaborationSettings
row is locked for the rest of the transaction, so two concurrent sends of one sender count
one after the other, each seeing the other's committed invitation.
"""

from __future__ import annotations

import datetime
import math

from django.conf import settings
from django.utils import timezone

from bzpeer.errors import RateLimited
from bzpeer.users.models import User
from collaboration.models import CollaborationSettings, Invitation
from researchers.models import Researcher, VerificationLevel

QUOTA_WINDOW = datetime.timedelta(hours=24)


def settings_lock(user: User) -> CollaborationSettings:
    """The user's settings row, created if missing, locked until the transaction ends.
    Caller is inside a transaction."""
    CollaborationSettings.objects.get_or_create(user=user)
    return CollaborationSettings.objects.select_for_update().get(user=user)


def invitations_per_day(record: Researcher) -> int:
    if record.verification_level >= VerificationLevel.MODERATOR_VERIFIED:
        return int(settings.INVITATIONS_PER_DAY_L4)
    return int(settings.INVITATIONS_PER_DAY_L3)


def invitation_quota_check(
    *, sender: User, sender_record: Researcher, now: datetime.datetime
) -> None:
    """Refuse (429) when the sender already sent their quota in the last 24 hours; the message
    and retry_after say when the oldest counted invitation leaves the window.
    Caller holds the sender's settings row lock (settings_lock)."""
    limit = invitations_per_day(sender_record)
    # Withdrawn, declined and expired ones count too: withdrawing must not refill the quota.
    sent = list(
        Invitation.objects.filter(sender=sender, created_at__gt=now - QUOTA_WINDOW)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    if len(sent) < limit:
        return
    # With n >= limit counted, one more may go once n - limit + 1 of them have left the window.
    frees_at = sent[len(sent) - limit] + QUOTA_WINDOW
    retry_after = max(1, math.ceil((frees_at - now).total_seconds()))
    when = timezone.localtime(frees_at).strftime("%Y-%m-%d %H:%M %Z")
    raise RateLimited(
        f"You have sent {limit} invitations in the last 24 hours, the most your verification "
        f"level allows. The next one can go at {when}.",
        retry_after=retry_after,
    )
