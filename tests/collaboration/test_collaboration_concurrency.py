"""Races, with threads on real PostgreSQL connections: two people inviting each other at the
same moment, one sender's concurrent sends against the quota, two overlapping email sweeps,
and concurrent messages counted unread."""

from __future__ import annotations

import datetime

import pytest
from django.core import mail
from django.utils import timezone

from bzpeer.errors import Conflict, RateLimited
from collaboration import services
from collaboration.models import ConversationParticipant, Invitation, InvitationStatus
from tests.support.concurrency import run_together

from .factories import PURPOSE, invite, others

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_users_inviting_each_other_at_the_same_moment_leave_one_pending_invitation(alice, bob):
    for _ in range(3):  # a few rounds: the interleavings differ from run to run
        results = run_together(lambda: invite(alice, bob), lambda: invite(bob, alice))
        pending = Invitation.objects.filter(status=InvitationStatus.PENDING)
        assert pending.count() == 1
        errors = [r for r in results if isinstance(r, Exception)]
        assert len(errors) == 1 and isinstance(errors[0], Conflict), results
        assert "You already have a pending invitation with" in errors[0].message
        pending.update(status=InvitationStatus.WITHDRAWN)


def test_the_quota_is_counted_from_the_database_under_concurrent_sends(alice, settings):
    settings.INVITATIONS_PER_DAY_L3 = 3
    people = others(6)

    def send(person):
        return lambda: services.invitation_send(
            sender=alice, recipient_researcher=person.record, kind="other", purpose=PURPOSE
        )

    results = run_together(*(send(person) for person in people))
    sent = [r for r in results if isinstance(r, Invitation)]
    refused = [r for r in results if isinstance(r, RateLimited)]
    assert (len(sent), len(refused)) == (3, 3), results
    assert Invitation.objects.filter(sender=alice).count() == 3


def test_two_overlapping_email_sweeps_send_one_email(alice, bob, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Hello")
    later = timezone.now() + datetime.timedelta(minutes=11)
    mail.outbox.clear()
    results = run_together(
        lambda: services.message_emails_send_due(now=later),
        lambda: services.message_emails_send_due(now=later),
    )
    assert sorted(results) == [0, 1], results
    assert [message.to for message in mail.outbox] == [[bob.email]]


def test_concurrent_messages_are_all_counted_unread(alice, bob, conversation):
    results = run_together(
        *(
            lambda n=n: services.message_send(
                author=alice, conversation_id=conversation.pk, body=f"m{n}"
            )
            for n in range(6)
        )
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    bobs = ConversationParticipant.objects.get(conversation=conversation, user=bob)
    assert bobs.unread_count == 6
