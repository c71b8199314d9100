"""Fixtures for the collaboration pages: alice, bob and charlie each hold an approved claim at
L3 on their own record (healthchecks' three users: alice owns, bob is the other party, charlie
has no access); newcomer has an account and no claim."""

from __future__ import annotations

import pytest

from collaboration import services
from collaboration.models import Conversation, Invitation

PURPOSE = (
    "I would like to write a joint paper on optical interconnects for training clusters, "
    "building on both our recent results."
)


def invite(sender, recipient, purpose: str = PURPOSE) -> Invitation:
    return services.invitation_send(
        sender=sender, recipient_researcher=recipient.record, kind="coauthor", purpose=purpose
    )


@pytest.fixture
def person(verified_person):
    """alice, bob and charlie are verified researchers here: only they may invite."""
    return verified_person


@pytest.fixture
def invitation(alice, bob) -> Invitation:
    """Alice's pending invitation to bob."""
    return invite(alice, bob)


@pytest.fixture
def conversation(invitation, bob) -> Conversation:
    """The conversation bob's acceptance opened."""
    return services.invitation_accept(user=bob, invitation_id=invitation.pk)
