"""Fixtures for the collaboration pages: alice, bob and charlie each hold an approved claim at
L3 on their own record (healthchecks' three users: alice owns, bob is the other party, charlie
has no access); newcomer has an account and no claim."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from collaboration import services
from collaboration.models import Conversation, Invitation
from tests.claims.conftest import client_for, make_member
from tests.claims.helpers import approved_claimant
from tests.factories import AuthorshipFactory, ResearcherFactory, TopicFactory, WorkTopicFactory

PURPOSE = (
    "I would like to write a joint paper on optical interconnects for training clusters, "
    "building on both our recent results."
)


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """A cache key prefix of this test's own (rate limits, cached pages; Redis is shared)."""
    settings.CACHES = {
        "default": {
            **settings.CACHES["default"],
            "KEY_PREFIX": f"bzpeer-test-{uuid.uuid4().hex[:12]}",
        }
    }


def verified_researcher(email: str, name: str, slug: str):
    """A member with an approved L3 claim on a record of their own with one work and topic."""
    user = make_member(email, display_name=name)
    record = ResearcherFactory(display_name=name, slug=slug)
    authorship = AuthorshipFactory(researcher=record)
    WorkTopicFactory(work=authorship.work, topic=TopicFactory(name=f"Topic of {name}"))
    approved_claimant(user, record, level=3)
    record.refresh_from_db()
    user.record = record
    return user


@pytest.fixture
def alice(db):
    return verified_researcher("alice@example.org", "Alice Liddell", "alice-liddell")


@pytest.fixture
def bob(db):
    return verified_researcher("bob@example.org", "Bob Bobson", "bob-bobson")


@pytest.fixture
def charlie(db):
    return verified_researcher("charlie@example.org", "Charlie Chaplin", "charlie-chaplin")


@pytest.fixture
def newcomer(db):
    """Signed up, email verified, no claim."""
    return make_member("newcomer@example.org", display_name="Nora Newcomer")


@pytest.fixture
def alice_client(alice) -> Client:
    return client_for(alice)


@pytest.fixture
def bob_client(bob) -> Client:
    return client_for(bob)


@pytest.fixture
def charlie_client(charlie) -> Client:
    return client_for(charlie)


def invite(sender, recipient, purpose: str = PURPOSE) -> Invitation:
    return services.invitation_send(
        sender=sender, recipient_researcher=recipient.record, kind="coauthor", purpose=purpose
    )


@pytest.fixture
def invitation(alice, bob) -> Invitation:
    """Alice's pending invitation to bob."""
    return invite(alice, bob)


@pytest.fixture
def conversation(invitation, bob) -> Conversation:
    """The conversation bob's acceptance opened."""
    return services.invitation_accept(user=bob, invitation_id=invitation.pk)
