"""A user's collaboration settings, and leaving: deleting the account."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.errors import InvalidRequest
from bzpeer.users.models import User
from bzpeer.users.services import users_delete
from claims.models import Claim, ClaimStatus, ModerationAction
from claims.services import audit, claim_withdraw
from collaboration.models import (
    CollaborationSettings,
    Invitation,
    InvitationStatus,
    Message,
    WhoMayInvite,
)

from .badge import inbox_badge_forget

logger = logging.getLogger(__name__)


def collaboration_settings_update(*, user: User, who_may_invite: str) -> None:
    if who_may_invite not in WhoMayInvite.values:
        raise InvalidRequest("Choose who may invite you.")
    CollaborationSettings.objects.update_or_create(
        user=user, defaults={"who_may_invite": who_may_invite}
    )


@retry_on_lock_conflict
@transaction.atomic
def account_delete(*, user: User) -> None:
    """Delete `user`'s account, in one transaction: their message bodies are erased (the
    messages stay, shown as deleted, from "Deleted researcher"), their pending invitations
    are withdrawn and the purposes they wrote erased, their claim is released (audited, the
    record loses what they wrote on it), and the account goes. The other side keeps their
    own messages: conversation rows point at the user with SET NULL. Their follows go, and the
    follower counts of what they followed come down."""
    now = timezone.now()
    user_id = user.pk
    erased_messages = Message.objects.filter(author=user).update(
        body="", deleted_at=Coalesce(F("deleted_at"), now)
    )
    pending_sent = Invitation.objects.filter(sender=user, status=InvitationStatus.PENDING)
    inbox_badge_forget(list(pending_sent.values_list("recipient_id", flat=True)))
    pending_sent.update(status=InvitationStatus.WITHDRAWN, responded_at=now)
    # An invitation they received and never answered ends as if it ran out.
    Invitation.objects.filter(recipient=user, status=InvitationStatus.PENDING).update(
        status=InvitationStatus.EXPIRED
    )
    # The purpose may be short only once the sender is gone (invitation_purpose_length), so
    # both change in one statement.
    Invitation.objects.filter(sender=user).update(purpose="", sender=None)
    record_ids = []
    # In the records' id order: each release locks its record (the lock order rule,
    # researchers.services.locks), and users_delete then locks the followed ones the same way.
    for claim in Claim.objects.filter(
        user=user, status__in=[ClaimStatus.PENDING, ClaimStatus.APPROVED]
    ).order_by("researcher_id", "pk"):
        claim_withdraw(claim=claim, user=user)
        record_ids.append(claim.researcher_id)
    audit(
        action=ModerationAction.ACCOUNT_DELETED,
        actor=user,
        details={
            "user": user_id,
            "claims_released_on_records": record_ids,
            "messages_erased": erased_messages,
        },
    )
    # Not user.delete(): users_delete first runs what the apps above registered, so that
    # their follows go with the followed records' stored counts (issue 24).
    users_delete(user_ids=[user_id])
    logger.info("account of user %s deleted", user_id)
