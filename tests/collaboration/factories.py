"""Making collaboration's people and rows through the real services (no shortcuts that could
skip a rule), plus a few direct rows where a test needs a state the services refuse."""

from __future__ import annotations

from collaboration import services
from collaboration.models import Conversation, Invitation
from tests.claims.conftest import make_member
from tests.claims.helpers import approved_claimant
from tests.factories import AuthorshipFactory, ResearcherFactory, TopicFactory, WorkTopicFactory

PURPOSE = (
    "I would like to write a joint paper on optical interconnects for training clusters, "
    "building on both our recent results."
)


def verified_researcher(email: str, name: str, slug: str, *, level: int = 3):
    """A member with an approved claim (L3 or L4) on a record of their own with one work and
    one topic; the record is on `user.record`."""
    user = make_member(email, display_name=name)
    record = ResearcherFactory(display_name=name, slug=slug)
    authorship = AuthorshipFactory(researcher=record)
    WorkTopicFactory(work=authorship.work, topic=TopicFactory(name=f"Topic of {name}"))
    approved_claimant(user, record, level=level)
    record.refresh_from_db()
    user.record = record
    return user


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


__all__ = ["PURPOSE", "accepted_conversation", "invite", "make_member", "others"]
