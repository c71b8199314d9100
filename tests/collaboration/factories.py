"""Making collaboration's people and rows through the real services (no shortcuts that could
skip a rule), plus a few direct rows where a test needs a state the services refuse."""

from __future__ import annotations

from collaboration import services
from collaboration.models import Conversation, Invitation
from tests.support.people import verified_researcher

PURPOSE = (
    "I would like to write a joint paper on optical interconnects for training clusters, "
    "building on both our recent results."
)


def invite(sender, recipient, purpose: str = PURPOSE, **extra) -> Invitation:
    return services.invitation_send(
        sender=sender,
        recipient_researcher=recipient.record,
        kind=extra.pop("kind", "coauthor"),
        purpose=purpose,
        **extra,
    )


def accepted_conversation(sender, recipient) -> Conversation:
    invitation = invite(sender, recipient)
    return services.invitation_accept(user=recipient, invitation_id=invitation.pk)


def others(count: int, *, prefix: str = "other"):
    """`count` more verified researchers."""
    return [
        verified_researcher(f"{prefix}{i}@example.org", f"Other Person{i}", f"{prefix}-{i}")
        for i in range(count)
    ]


__all__ = ["PURPOSE", "accepted_conversation", "invite", "others", "verified_researcher"]
