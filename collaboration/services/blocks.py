"""Blocks: silent, and they stop invitations, messages and notifications both ways."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bzpeer.errors import InvalidRequest
from bzpeer.users.models import User
from collaboration.models import Block, Invitation, InvitationStatus
from researchers.models import Researcher

from .badge import inbox_badge_forget
from .flags import user_flag_if_needed

logger = logging.getLogger(__name__)


def _claimant_id(researcher: Researcher) -> int:
    if researcher.claimed_by_id is None or researcher.merged_into_id:
        raise InvalidRequest("Only a researcher who has claimed their profile can be blocked.")
    return researcher.claimed_by_id


@transaction.atomic
def block_create(*, blocker: User, researcher: Researcher) -> None:
    """`blocker` blocks the claimant of `researcher`. Nothing tells the blocked side; pending
    invitations between the two are withdrawn. Blocking twice is the same as once."""
    blocked_id = _claimant_id(researcher)
    if blocked_id == blocker.pk:
        raise InvalidRequest("You cannot block yourself.")
    Block.objects.bulk_create(
        [Block(blocker=blocker, blocked_id=blocked_id)], ignore_conflicts=True
    )
    Invitation.objects.filter(
        Q(sender=blocker, recipient_id=blocked_id) | Q(sender_id=blocked_id, recipient=blocker),
        status=InvitationStatus.PENDING,
    ).update(status=InvitationStatus.WITHDRAWN, responded_at=timezone.now())
    inbox_badge_forget([blocker.pk, blocked_id])
    user_flag_if_needed(user_id=blocked_id)
    logger.info("user %s blocked user %s", blocker.pk, blocked_id)


def block_delete(*, blocker: User, researcher: Researcher) -> None:
    """Lift `blocker`'s block of the claimant of `researcher` (nothing if there was none)."""
    if researcher.claimed_by_id is None:
        return
    Block.objects.filter(blocker=blocker, blocked_id=researcher.claimed_by_id).delete()
