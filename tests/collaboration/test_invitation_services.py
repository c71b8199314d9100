"""Invitations: who may invite whom, the purpose and anchors, one pending per pair, the
cool-down after a decline, expiry, the quota, and the answers."""

from __future__ import annotations

import datetime

import pytest
from django.core import mail
from django.http import Http404
from django.utils import timezone

from bzpeer.errors import Conflict, Forbidden, InvalidRequest, RateLimited
from collaboration import services
from collaboration.models import (
    CollaborationSettings,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
    WhoMayInvite,
)
from graph.models import CoauthorEdge
from notifications.models import Notification
from tests.claims.conftest import coauthored
from tests.factories import ResearcherFactory, TopicFactory, WorkFactory
from tests.support.people import make_member, verified_researcher

from .factories import PURPOSE, invite, others

pytestmark = pytest.mark.django_db


def test_a_verified_researcher_invites_a_claimed_record_and_it_is_pending(alice, bob):
    invitation = invite(alice, bob)
    assert invitation.status == InvitationStatus.PENDING
    assert invitation.sender == alice and invitation.recipient == bob
    assert invitation.sender_researcher == alice.record
    assert invitation.recipient_researcher == bob.record
    assert invitation.expires_at - invitation.created_at == datetime.timedelta(days=30)


def test_the_recipient_is_notified_of_a_new_invitation(alice, bob, commit):
    with commit():
        invite(alice, bob)
    notification = Notification.objects.get(user=bob, category="invitations")
    assert notification.category == "invitations"
    assert "Alice Liddell invited you" in notification.subject
    assert [message.to for message in mail.outbox] == [[bob.email]]


def test_a_user_without_an_approved_claim_cannot_invite(newcomer, bob):
    with pytest.raises(Forbidden, match="Claim this author entity first"):
        invite(newcomer, bob)


def test_an_l2_claimant_whose_claim_is_pending_cannot_invite(bob):
    from tests.support.people import submit

    pending = make_member("pat@example.org")
    record = ResearcherFactory(display_name="Pat Pending")
    submit(pending, record)
    with pytest.raises(Forbidden, match="Claim this author entity first"):
        invite(pending, bob)


def test_an_unclaimed_record_cannot_be_invited(alice):
    record = ResearcherFactory(display_name="Nobody Yet")
    with pytest.raises(InvalidRequest, match="has not claimed"):
        services.invitation_send(
            sender=alice, recipient_researcher=record, kind="coauthor", purpose=PURPOSE
        )


def test_nobody_can_invite_themselves(alice):
    with pytest.raises(InvalidRequest, match="yourself"):
        invite(alice, alice)


@pytest.mark.parametrize("purpose", ["too short", " " * 60, "x" * 1001])
def test_the_purpose_must_be_50_to_1000_characters_after_stripping(alice, bob, purpose):
    with pytest.raises(InvalidRequest, match="50 to 1,000 characters"):
        invite(alice, bob, purpose=purpose)
    assert not Invitation.objects.exists()


def test_the_purpose_is_stored_stripped(alice, bob):
    invitation = invite(alice, bob, purpose=f"  {PURPOSE}  \n")
    assert invitation.purpose == PURPOSE


def test_an_unknown_kind_is_refused(alice, bob):
    with pytest.raises(InvalidRequest, match="kind"):
        invite(alice, bob, kind="marriage")


def test_anchors_are_works_and_topics_of_either_person(alice, bob):
    alice_work = alice.record.authorships.get().work
    bob_work = bob.record.authorships.get().work
    bob_topic = bob_work.work_topics.get().topic
    invitation = invite(alice, bob, work_ids=[alice_work.pk, bob_work.pk], topic_ids=[bob_topic.pk])
    assert set(invitation.anchor_works.values_list("id", flat=True)) == {alice_work.pk, bob_work.pk}
    assert list(invitation.anchor_topics.all()) == [bob_topic]


def test_a_work_or_topic_of_someone_else_is_refused_as_an_anchor(alice, bob, charlie):
    stranger_work = WorkFactory()
    with pytest.raises(InvalidRequest, match="works by you"):
        invite(alice, bob, work_ids=[stranger_work.pk])
    with pytest.raises(InvalidRequest, match="topics"):
        invite(alice, bob, topic_ids=[TopicFactory().pk])
    charlie_work = charlie.record.authorships.get().work
    with pytest.raises(InvalidRequest, match="works by you"):
        invite(alice, bob, work_ids=[charlie_work.pk])
    assert not Invitation.objects.exists()


def test_a_second_pending_invitation_to_the_same_person_is_a_conflict(alice, bob):
    invite(alice, bob)
    with pytest.raises(Conflict, match="pending invitation with Bob Bobson"):
        invite(alice, bob)


def test_a_pending_invitation_the_other_way_is_a_conflict_too(alice, bob):
    invite(alice, bob)
    with pytest.raises(Conflict, match="pending invitation with Alice Liddell"):
        invite(bob, alice)


def test_the_database_allows_one_pending_invitation_per_pair_whichever_way(alice, bob):
    from django.db import IntegrityError, transaction

    invite(alice, bob)
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        Invitation.objects.create(
            sender=bob, recipient=alice, kind="other", purpose=PURPOSE, expires_at=now
        )


def test_after_a_decline_the_sender_waits_90_days(alice, bob):
    first = invite(alice, bob)
    services.invitation_decline(user=bob, invitation_id=first.pk)
    with pytest.raises(Forbidden, match="declined your last invitation"):
        invite(alice, bob)
    # The one who declined may still invite.
    invite(bob, alice)


def test_after_90_days_the_sender_may_invite_again(alice, bob):
    first = invite(alice, bob)
    services.invitation_decline(user=bob, invitation_id=first.pk)
    Invitation.objects.filter(pk=first.pk).update(
        responded_at=timezone.now() - datetime.timedelta(days=91)
    )
    assert invite(alice, bob).status == InvitationStatus.PENDING


def test_a_withdrawn_invitation_leaves_no_cool_down(alice, bob):
    first = invite(alice, bob)
    services.invitation_withdraw(user=alice, invitation_id=first.pk)
    assert invite(alice, bob).status == InvitationStatus.PENDING


def test_an_invitation_past_30_days_counts_as_expired_and_frees_the_pair(alice, bob):
    first = invite(alice, bob)
    Invitation.objects.filter(pk=first.pk).update(expires_at=timezone.now())
    with pytest.raises(Conflict, match="expired"):
        services.invitation_accept(user=bob, invitation_id=first.pk)
    second = invite(alice, bob)
    first.refresh_from_db()
    assert first.status == InvitationStatus.EXPIRED
    assert second.status == InvitationStatus.PENDING


def test_the_hourly_expiry_marks_stale_pending_invitations(alice, bob, charlie):
    stale = invite(alice, bob)
    fresh = invite(alice, charlie)
    now = timezone.now() + datetime.timedelta(days=30, seconds=1)
    Invitation.objects.filter(pk=fresh.pk).update(expires_at=now + datetime.timedelta(days=1))
    assert services.invitations_expire(now=now) == 1
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert (stale.status, fresh.status) == (InvitationStatus.EXPIRED, InvitationStatus.PENDING)


def test_the_recipient_who_accepts_nobody_cannot_be_invited(alice, bob):
    services.collaboration_settings_update(user=bob, who_may_invite=WhoMayInvite.NOBODY)
    with pytest.raises(Forbidden, match="does not accept invitations"):
        invite(alice, bob)


def test_coauthors_only_admits_a_coauthor_and_refuses_anyone_else(alice, bob, charlie):
    services.collaboration_settings_update(user=bob, who_may_invite=WhoMayInvite.COAUTHORS)
    with pytest.raises(Forbidden, match="coauthors only"):
        invite(charlie, bob)
    coauthored(alice.record, bob.record)
    low, high = sorted((alice.record.pk, bob.record.pk))
    CoauthorEdge.objects.create(
        researcher_a_id=low, researcher_b_id=high, joint_works_count=1, weight=1
    )
    assert invite(alice, bob).status == InvitationStatus.PENDING


def test_a_blocked_sender_is_told_only_that_the_researcher_is_unavailable(alice, bob):
    services.block_create(blocker=bob, researcher=alice.record)
    with pytest.raises(Forbidden) as refused:
        invite(alice, bob)
    assert refused.value.message == "This researcher is unavailable."


def test_nobody_can_invite_someone_they_blocked(alice, bob):
    services.block_create(blocker=alice, researcher=bob.record)
    with pytest.raises(Forbidden, match="unavailable"):
        invite(alice, bob)


def test_a_suspended_user_cannot_invite(alice, bob, moderator):
    services.messaging_suspend(moderator=moderator, user_id=alice.pk, reason="spam")
    with pytest.raises(Forbidden, match="suspended"):
        invite(alice, bob)


def test_the_quota_at_l3_is_10_per_24_hours_and_says_when_the_next_frees_up(alice, settings):
    people = others(11)
    for person in people[:10]:
        invite(alice, person)
    oldest = Invitation.objects.filter(sender=alice).order_by("created_at").first()
    with pytest.raises(RateLimited) as refused:
        invite(alice, people[10])
    frees_at = oldest.created_at + datetime.timedelta(hours=24)
    expected = (frees_at - timezone.now()).total_seconds()
    assert abs(refused.value.retry_after - expected) < 5
    assert frees_at.strftime("%Y-%m-%d %H:%M") in refused.value.message


def test_withdrawing_does_not_refill_the_quota(alice, settings):
    settings.INVITATIONS_PER_DAY_L3 = 2
    first, second, third = others(3)
    services.invitation_withdraw(user=alice, invitation_id=invite(alice, first).pk)
    invite(alice, second)
    with pytest.raises(RateLimited):
        invite(alice, third)


def test_invitations_older_than_24_hours_leave_the_quota(alice, settings):
    settings.INVITATIONS_PER_DAY_L3 = 1
    first, second = others(2)
    sent = invite(alice, first)
    Invitation.objects.filter(pk=sent.pk).update(
        created_at=timezone.now() - datetime.timedelta(hours=24, seconds=1)
    )
    assert invite(alice, second).status == InvitationStatus.PENDING


def test_the_quota_at_l4_is_25(db, settings):
    settings.INVITATIONS_PER_DAY_L3 = 1
    settings.INVITATIONS_PER_DAY_L4 = 2
    veteran = verified_researcher("vet@example.org", "Vera Veteran", "vera", level=4)
    first, second, third = others(3)
    invite(veteran, first)
    invite(veteran, second)
    with pytest.raises(RateLimited, match="2 invitations"):
        invite(veteran, third)


def test_the_sender_lock_row_exists_after_a_send(alice, bob):
    invite(alice, bob)
    assert CollaborationSettings.objects.filter(user=alice).exists()


# --- answers -----------------------------------------------------------------------------------


def test_accepting_opens_a_conversation_with_both_participants(invitation, alice, bob):
    conversation = services.invitation_accept(user=bob, invitation_id=invitation.pk)
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.ACCEPTED
    assert invitation.conversation == conversation
    sides = ConversationParticipant.objects.filter(conversation=conversation)
    assert {(side.user_id, side.researcher_id) for side in sides} == {
        (alice.pk, alice.record.pk),
        (bob.pk, bob.record.pk),
    }


def test_the_sender_is_notified_of_the_answer(alice, bob, commit):
    first = invite(alice, bob)
    with commit():
        services.invitation_accept(user=bob, invitation_id=first.pk)
    assert Notification.objects.filter(user=alice, kind="invitation_accepted").exists()
    second = invite(bob, alice)
    with commit():
        services.invitation_decline(user=alice, invitation_id=second.pk)
    assert Notification.objects.filter(user=bob, kind="invitation_declined").exists()


def test_the_sender_cannot_accept_their_own_invitation(invitation, alice):
    with pytest.raises(Forbidden):
        services.invitation_accept(user=alice, invitation_id=invitation.pk)


@pytest.mark.parametrize(
    "answer", ["invitation_accept", "invitation_decline", "invitation_withdraw"]
)
def test_someone_elses_invitation_is_a_404(invitation, charlie, answer):
    with pytest.raises(Http404):
        getattr(services, answer)(user=charlie, invitation_id=invitation.pk)


@pytest.mark.parametrize("first", ["decline", "withdraw"])
def test_a_declined_or_withdrawn_invitation_cannot_be_accepted(invitation, alice, bob, first):
    if first == "decline":
        services.invitation_decline(user=bob, invitation_id=invitation.pk)
    else:
        services.invitation_withdraw(user=alice, invitation_id=invitation.pk)
    with pytest.raises(Conflict):
        services.invitation_accept(user=bob, invitation_id=invitation.pk)


def test_an_accepted_invitation_cannot_be_accepted_twice(invitation, bob):
    services.invitation_accept(user=bob, invitation_id=invitation.pk)
    with pytest.raises(Conflict, match="accepted"):
        services.invitation_accept(user=bob, invitation_id=invitation.pk)


def test_only_the_sender_withdraws(invitation, bob):
    with pytest.raises(Forbidden):
        services.invitation_withdraw(user=bob, invitation_id=invitation.pk)
