"""Moderation in the admin: the queue shows the reported item and its author and nothing else;
the actions call the services, which audit them; no admin exposes messages, conversations or
invitations."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME

from claims.models import ModerationAction, ModerationEvent
from collaboration import services
from collaboration.models import (
    CollaborationReport,
    CollaborationSettings,
    Conversation,
    ConversationParticipant,
    Invitation,
    Message,
    ReportStatus,
)

pytestmark = pytest.mark.django_db

QUEUE = "/admin/collaboration/collaborationreport/"


@pytest.fixture
def reported(alice, bob, conversation):
    """Alice wrote three messages; bob reports the second one."""
    services.message_send(author=alice, conversation_id=conversation.pk, body="Private hello")
    spam = services.message_send(author=alice, conversation_id=conversation.pk, body="BUY PILLS")
    services.message_send(author=bob, conversation_id=conversation.pk, body="Bob's own words")
    return services.report_create(reporter=bob, reason="Spam", message_id=spam.pk)


def test_no_admin_is_registered_for_message_bodies_conversations_or_invitations():
    for model in (Message, Conversation, ConversationParticipant, Invitation):
        assert not admin.site.is_registered(model), model


def test_staff_see_the_reported_message_and_its_author_and_nothing_else(moderator_client, reported):
    response = moderator_client.get(f"{QUEUE}{reported.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "BUY PILLS" in page
    assert "alice@example.org" in page and "Alice Liddell" in page
    assert "Private hello" not in page
    assert "Bob&#x27;s own words" not in page and "Bob's own words" not in page


def test_staff_see_a_reported_invitations_purpose(moderator_client, bob, invitation):
    report = services.report_create(reporter=bob, reason="Unwanted", invitation_id=invitation.pk)
    page = moderator_client.get(f"{QUEUE}{report.pk}/change/").content.decode()
    assert invitation.purpose in page


def test_the_report_keeps_the_reported_text_and_its_author_as_they_were(reported):
    assert reported.reported_text == "BUY PILLS"
    assert reported.reported_author_label == f"Alice Liddell (user #{reported.reported_user_id})"


def test_staff_still_read_a_reported_message_its_author_deleted_and_nothing_else(
    moderator_client, reported, alice
):
    services.message_delete(user=alice, message_id=reported.message_id)

    message = Message.objects.get(pk=reported.message_id)
    assert message.body == "" and message.deleted_at is not None  # the message is erased
    page = moderator_client.get(f"{QUEUE}{reported.pk}/change/").content.decode()
    assert "BUY PILLS" in page and "Deleted by its author on" in page
    assert "Private hello" not in page and "Bob&#x27;s own words" not in page


def test_staff_still_read_a_report_whose_author_deleted_their_account(
    moderator_client, reported, alice
):
    alice_id = alice.pk
    services.account_delete(user=alice)

    assert Message.objects.get(pk=reported.message_id).body == ""
    page = moderator_client.get(f"{QUEUE}{reported.pk}/change/").content.decode()
    assert "BUY PILLS" in page and f"Alice Liddell (user #{alice_id})" in page
    assert "Private hello" not in page and "Bob&#x27;s own words" not in page


def test_a_reported_invitation_keeps_its_purpose_after_the_sender_leaves(
    moderator_client, alice, bob, invitation
):
    purpose, alice_id = invitation.purpose, alice.pk
    report = services.report_create(reporter=bob, reason="Unwanted", invitation_id=invitation.pk)

    services.account_delete(user=alice)

    assert Invitation.objects.get(pk=invitation.pk).purpose == ""
    page = moderator_client.get(f"{QUEUE}{report.pk}/change/").content.decode()
    assert purpose in page and f"Alice Liddell (user #{alice_id})" in page


def test_the_queue_lists_open_reports_first_oldest_first(moderator, moderator_client, alice, bob):
    from .factories import others

    people = others(3)
    reports = []
    for person in people:
        conversation = services.invitation_accept(
            user=person,
            invitation_id=services.invitation_send(
                sender=alice,
                recipient_researcher=person.record,
                kind="other",
                purpose="p" * 60,
            ).pk,
        )
        message = services.message_send(author=alice, conversation_id=conversation.pk, body="x")
        reports.append(services.report_create(reporter=person, reason="x", message_id=message.pk))
    services.report_dismiss(moderator=moderator, report_id=reports[0].pk)
    response = moderator_client.get(QUEUE)
    assert response.status_code == 200
    shown = [row.pk for row in response.context["cl"].result_list]
    assert shown == [reports[1].pk, reports[2].pk, reports[0].pk]


def test_hiding_the_message_from_the_queue_is_audited(moderator_client, reported):
    response = moderator_client.post(
        QUEUE, {"action": "hide_message", ACTION_CHECKBOX_NAME: [reported.pk]}
    )
    assert response.status_code == 302
    reported.refresh_from_db()
    assert reported.status == ReportStatus.ACTIONED
    assert Message.objects.get(pk=reported.message_id).hidden_at is not None
    assert ModerationEvent.objects.filter(action=ModerationAction.MESSAGE_HIDDEN).count() == 1


def test_suspending_the_author_asks_for_a_reason_then_is_audited(moderator_client, reported, alice):
    data = {"action": "suspend_author", ACTION_CHECKBOX_NAME: [reported.pk]}
    page = moderator_client.post(QUEUE, data)
    assert page.status_code == 200 and b"Reason" in page.content
    response = moderator_client.post(QUEUE, {**data, "apply": "1", "reason": "Spam run"})
    assert response.status_code == 302
    row = CollaborationSettings.objects.get(user=alice)
    assert row.messaging_suspended_reason == "Spam run"
    event = ModerationEvent.objects.get(action=ModerationAction.MESSAGING_SUSPENDED)
    assert event.details["collaboration_report"] == reported.pk


def test_dismissing_is_audited(moderator_client, reported):
    moderator_client.post(QUEUE, {"action": "dismiss", ACTION_CHECKBOX_NAME: [reported.pk]})
    reported.refresh_from_db()
    assert reported.status == ReportStatus.DISMISSED
    assert ModerationEvent.objects.filter(
        action=ModerationAction.COLLABORATION_REPORT_DISMISSED
    ).exists()


def test_flagged_users_are_listed_and_can_be_restored(moderator, moderator_client, alice):
    services.messaging_suspend(moderator=moderator, user_id=alice.pk, reason="spam")
    url = "/admin/collaboration/collaborationsettings/"
    response = moderator_client.get(url, {"messaging_suspended_at__isempty": "0"})
    assert response.status_code == 200
    assert [row.user_id for row in response.context["cl"].result_list] == [alice.pk]
    moderator_client.post(url, {"action": "restore", ACTION_CHECKBOX_NAME: [alice.pk]})
    assert CollaborationSettings.objects.get(user=alice).messaging_suspended_at is None


def test_members_without_staff_rights_cannot_open_the_queue(bob_client, reported):
    assert bob_client.get(QUEUE).status_code == 302
    assert CollaborationReport.objects.count() == 1
