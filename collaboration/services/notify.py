"""What collaboration tells people, through the notifications app (category INVITATIONS).

Nobody is notified about someone they blocked or who blocked them: callers check the block
first (a block withdraws pending invitations, so a notification could only race it).
"""

from __future__ import annotations

from bzpeer.users.models import User
from collaboration.models import Invitation
from notifications.kinds import NotificationCategory
from notifications.services import notification_create

# The inbox page (collaboration.urls, "collaboration:inbox") and a conversation's page
# ("collaboration:conversation"), as site paths, the form notifications store.
INBOX_URL = "/inbox/"


def conversation_path(conversation_id: int) -> str:
    return f"{INBOX_URL}conversations/{conversation_id}/"


def _name(invitation: Invitation, *, side: str) -> str:
    record = getattr(invitation, f"{side}_researcher")
    return record.display_name if record is not None else "A researcher"


def invitation_received_notify(invitation: Invitation, *, recipient: User) -> None:
    sender_name = _name(invitation, side="sender")
    notification_create(
        user=recipient,
        category=NotificationCategory.INVITATIONS,
        kind="invitation_received",
        subject=f"{sender_name} invited you to collaborate",
        message=(
            f"{sender_name} sent you an invitation ({invitation.get_kind_display().lower()}). "
            "Read it and answer it in your inbox."
        ),
        url=INBOX_URL,
    )


def invitation_answered_notify(invitation: Invitation, *, sender: User) -> None:
    recipient_name = _name(invitation, side="recipient")
    accepted = invitation.conversation_id is not None
    notification_create(
        user=sender,
        category=NotificationCategory.INVITATIONS,
        kind="invitation_accepted" if accepted else "invitation_declined",
        subject=(
            f"{recipient_name} accepted your invitation"
            if accepted
            else f"{recipient_name} declined your invitation"
        ),
        message=(
            f"{recipient_name} accepted your invitation; your conversation is open in your inbox."
            if accepted
            else f"{recipient_name} declined your invitation."
        ),
        url=INBOX_URL,
    )
