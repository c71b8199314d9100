"""Reports and what staff do about them (each audited), and deleting one's account."""

from __future__ import annotations

import pytest
from django.http import Http404

from bzpeer.errors import Conflict, Forbidden, InvalidRequest
from bzpeer.users.models import User
from claims.models import Claim, ClaimStatus, ModerationAction, ModerationEvent
from collaboration import selectors, services
from collaboration.models import (
    CollaborationReport,
    CollaborationSettings,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
    Message,
    ReportStatus,
)

from .factories import PURPOSE, invite, others

pytestmark = pytest.mark.django_db


def audited(action: str) -> list[dict]:
    return [event.details for event in ModerationEvent.objects.filter(action=action)]


@pytest.fixture
def message(alice, conversation):
    return services.message_send(author=alice, conversation_id=conversation.pk, body="Buy now!")


def test_the_other_participant_reports_a_message_and_it_is_audited(bob, alice, message):
    report = services.report_create(reporter=bob, reason=" spam ", message_id=message.pk)
    assert (report.reported_user, report.reason, report.status) == (alice, "spam", "open")
    assert audited(ModerationAction.COLLABORATION_REPORTED) == [
        {"collaboration_report": report.pk, "reported_user": alice.pk, "message": message.pk}
    ]


def test_the_author_cannot_report_their_own_message(alice, message):
    with pytest.raises(Forbidden):
        services.report_create(reporter=alice, reason="x", message_id=message.pk)


def test_charlie_cannot_report_what_he_cannot_see(charlie, message, invitation):
    with pytest.raises(Http404):
        services.report_create(reporter=charlie, reason="x", message_id=message.pk)
    with pytest.raises(Http404):
        services.report_create(reporter=charlie, reason="x", invitation_id=invitation.pk)


def test_only_the_recipient_reports_an_invitation(alice, bob, invitation):
    with pytest.raises(Forbidden):
        services.report_create(reporter=alice, reason="x", invitation_id=invitation.pk)
    report = services.report_create(reporter=bob, reason="x", invitation_id=invitation.pk)
    assert report.reported_user == alice


def test_one_report_per_reporter_and_item(bob, message):
    services.report_create(reporter=bob, reason="spam", message_id=message.pk)
    with pytest.raises(Conflict):
        services.report_create(reporter=bob, reason="spam again", message_id=message.pk)


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_report_needs_a_reason(bob, message, reason):
    with pytest.raises(InvalidRequest):
        services.report_create(reporter=bob, reason=reason, message_id=message.pk)


def test_a_report_is_of_a_message_or_an_invitation_not_both(bob, message, invitation):
    with pytest.raises(InvalidRequest):
        services.report_create(
            reporter=bob, reason="x", message_id=message.pk, invitation_id=invitation.pk
        )
    with pytest.raises(InvalidRequest):
        services.report_create(reporter=bob, reason="x")


def test_hiding_a_message_closes_its_reports_and_is_audited(bob, moderator, message, conversation):
    report = services.report_create(reporter=bob, reason="spam", message_id=message.pk)
    services.message_hide(moderator=moderator, report_id=report.pk)
    message.refresh_from_db()
    report.refresh_from_db()
    assert message.hidden_at is not None
    assert (report.status, report.handled_by) == (ReportStatus.ACTIONED, moderator)
    assert [d["message"] for d in audited(ModerationAction.MESSAGE_HIDDEN)] == [message.pk]
    thread = selectors.conversation_for(bob, conversation.pk)
    assert [(m.state, m.body) for m in thread.messages] == [("hidden", "")]


def test_a_handled_report_cannot_be_handled_again(bob, moderator, message):
    report = services.report_create(reporter=bob, reason="spam", message_id=message.pk)
    services.report_dismiss(moderator=moderator, report_id=report.pk)
    with pytest.raises(Conflict):
        services.message_hide(moderator=moderator, report_id=report.pk)
    assert [d["collaboration_report"] for d in audited("collab_report_dismissed")] == [report.pk]


def test_suspending_and_restoring_messaging_are_audited(alice, bob, moderator, message):
    report = services.report_create(reporter=bob, reason="spam", message_id=message.pk)
    services.messaging_suspend(
        moderator=moderator, user_id=alice.pk, reason="repeated spam", report_id=report.pk
    )
    row = CollaborationSettings.objects.get(user=alice)
    assert row.messaging_suspended_at is not None
    assert row.messaging_suspended_reason == "repeated spam"
    report.refresh_from_db()
    assert report.status == ReportStatus.ACTIONED
    services.messaging_restore(moderator=moderator, user_id=alice.pk)
    assert CollaborationSettings.objects.get(user=alice).messaging_suspended_at is None
    [suspended] = ModerationEvent.objects.filter(action=ModerationAction.MESSAGING_SUSPENDED)
    assert (suspended.actor, suspended.reason, suspended.details["user"]) == (
        moderator,
        "repeated spam",
        alice.pk,
    )
    assert audited(ModerationAction.MESSAGING_RESTORED) == [{"user": alice.pk}]


def test_a_suspension_needs_a_reason(alice, moderator):
    with pytest.raises(InvalidRequest):
        services.messaging_suspend(moderator=moderator, user_id=alice.pk, reason=" ")


# --- account deletion --------------------------------------------------------------------------


def test_deleting_an_account_erases_its_messages_and_keeps_the_other_sides(
    alice, bob, conversation
):
    mine = services.message_send(author=alice, conversation_id=conversation.pk, body="Mine")
    theirs = services.message_send(author=bob, conversation_id=conversation.pk, body="Theirs")
    services.account_delete(user=alice)
    assert not User.objects.filter(email="alice@example.org").exists()
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.body, mine.author, mine.deleted_at is not None) == ("", None, True)
    assert (theirs.body, theirs.author) == ("Theirs", bob)
    thread = selectors.conversation_for(bob, conversation.pk)
    assert thread.other_name == "Deleted researcher"
    assert [(m.author_name, m.state, m.body) for m in thread.messages] == [
        ("Deleted researcher", "deleted", ""),
        ("Bob Bobson", "visible", "Theirs"),
    ]
    assert thread.can_send is False
    assert ConversationParticipant.objects.filter(conversation=conversation).count() == 2


def test_deleting_an_account_withdraws_pending_invitations_and_erases_their_purposes(
    alice, bob, charlie
):
    sent = invite(alice, bob)
    received = invite(charlie, alice)
    services.account_delete(user=alice)
    sent.refresh_from_db()
    received.refresh_from_db()
    assert (sent.status, sent.purpose, sent.sender) == (InvitationStatus.WITHDRAWN, "", None)
    assert received.status == InvitationStatus.EXPIRED
    assert received.purpose == PURPOSE  # charlie's words are charlie's
    [summary] = selectors.invitations_for(bob, box="received")
    assert summary.other_name == "Deleted researcher"


def test_deleting_an_account_releases_the_claim_and_is_audited(alice):
    record = alice.record
    record.tagline = "Call me"
    record.save(update_fields=["tagline"])
    user_id = alice.pk
    services.account_delete(user=alice)
    record.refresh_from_db()
    assert (record.claimed_by, record.tagline) == (None, "")
    assert not Claim.objects.filter(user_id=user_id, status=ClaimStatus.APPROVED).exists()
    [event] = ModerationEvent.objects.filter(action=ModerationAction.ACCOUNT_DELETED)
    assert event.details["user"] == user_id
    assert event.details["claims_released_on_records"] == [record.pk]
    withdrawn = ModerationEvent.objects.filter(action=ModerationAction.CLAIM_WITHDRAWN)
    assert withdrawn.get().researcher_id == record.pk


def test_deleting_an_account_keeps_the_reports_about_it(alice, bob, moderator):
    conversation = services.invitation_accept(user=bob, invitation_id=invite(alice, bob).pk)
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Spam")
    report = services.report_create(reporter=bob, reason="spam", message_id=message.pk)
    services.account_delete(user=alice)
    report.refresh_from_db()
    assert (report.reported_user, report.message_id) == (None, message.pk)


def test_someone_with_many_conversations_leaves_in_one_go(alice):
    people = others(3)
    for person in people:
        conversation = services.invitation_accept(
            user=person, invitation_id=invite(alice, person).pk
        )
        services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    services.account_delete(user=alice)
    assert set(Message.objects.values_list("body", flat=True)) == {""}
    assert not Invitation.objects.filter(status=InvitationStatus.PENDING).exists()
    assert CollaborationReport.objects.count() == 0
