"""The reads: the profile panel says what the service would, the inbox and a conversation run
a fixed number of queries whatever the counts, the badge is one query."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from collaboration import selectors, services
from collaboration.models import Invitation, WhoMayInvite
from tests.factories import ResearcherFactory

from .factories import invite, others

pytestmark = pytest.mark.django_db


def queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


# --- the panel ---------------------------------------------------------------------------------


def test_a_visitor_is_told_to_claim_first_without_a_query(bob):
    with CaptureQueriesContext(connection) as captured:
        panel = selectors.collaboration_panel_for(bob.record, AnonymousUser())
    assert not panel.can_invite
    assert panel.reason == "Claim this author entity first to unlock direct invitations."
    assert len(captured.captured_queries) == 0


def test_a_member_without_a_claim_is_told_to_claim_first(newcomer, bob):
    panel = selectors.collaboration_panel_for(bob.record, newcomer)
    assert (panel.can_invite, panel.reason) == (
        False,
        "Claim this author entity first to unlock direct invitations.",
    )


def test_a_verified_researcher_may_invite_with_anchors_of_both(alice, bob):
    panel = selectors.collaboration_panel_for(bob.record, alice)
    assert panel.can_invite and panel.reason == ""
    assert {title for _, title in panel.anchor_works} == {
        alice.record.authorships.get().work.title,
        bob.record.authorships.get().work.title,
    }
    assert {name for _, name in panel.anchor_topics} == {
        "Topic of Alice Liddell",
        "Topic of Bob Bobson",
    }


def test_the_panel_shows_a_pending_invitation_either_way(alice, bob, invitation):
    mine = selectors.collaboration_panel_for(bob.record, alice)
    theirs = selectors.collaboration_panel_for(alice.record, bob)
    assert (mine.pending_invitation_id, mine.pending_is_outgoing) == (invitation.pk, True)
    assert (theirs.pending_invitation_id, theirs.pending_is_outgoing) == (invitation.pk, False)
    assert not mine.can_invite and not theirs.can_invite


def test_the_panel_links_an_open_conversation(alice, bob, conversation):
    assert selectors.collaboration_panel_for(bob.record, alice).conversation_id == conversation.pk


def test_the_blocked_side_sees_only_unavailable(alice, bob):
    services.block_create(blocker=bob, researcher=alice.record)
    blocked = selectors.collaboration_panel_for(bob.record, alice)
    assert (blocked.unavailable, blocked.viewer_blocked_them, blocked.reason) == (
        True,
        False,
        "This researcher is unavailable.",
    )
    blocker = selectors.collaboration_panel_for(alice.record, bob)
    assert (blocker.unavailable, blocker.viewer_blocked_them) == (True, True)


def test_the_panel_gives_the_recipients_choice(alice, bob):
    services.collaboration_settings_update(user=bob, who_may_invite=WhoMayInvite.NOBODY)
    panel = selectors.collaboration_panel_for(bob.record, alice)
    assert (panel.can_invite, panel.reason) == (False, "Bob Bobson does not accept invitations.")


def test_an_unclaimed_record_cannot_be_invited_from_the_panel(alice):
    panel = selectors.collaboration_panel_for(ResearcherFactory(display_name="Ann Other"), alice)
    assert not panel.can_invite and "has not claimed" in panel.reason


# --- inbox, conversation, badge ----------------------------------------------------------------


def test_the_inbox_lists_conversations_latest_first_with_unread_counts(alice, bob, charlie):
    with_bob = services.invitation_accept(user=bob, invitation_id=invite(alice, bob).pk)
    with_charlie = services.invitation_accept(user=charlie, invitation_id=invite(alice, charlie).pk)
    services.message_send(author=bob, conversation_id=with_bob.pk, body="First")
    services.message_send(author=charlie, conversation_id=with_charlie.pk, body="Second")
    services.message_send(author=charlie, conversation_id=with_charlie.pk, body="Third")
    inbox = selectors.inbox_for(alice)
    assert [
        (c.id, c.other_name, c.unread_count, c.last_message_preview) for c in inbox.conversations
    ] == [
        (with_charlie.pk, "Charlie Chaplin", 2, "Third"),
        (with_bob.pk, "Bob Bobson", 1, "First"),
    ]
    assert inbox.has_next is False
    assert [i.other_name for i in inbox.sent] == ["Charlie Chaplin", "Bob Bobson"]


def test_the_inbox_pages(alice):
    for person in others(3):
        services.invitation_accept(user=person, invitation_id=invite(alice, person).pk)
    first = selectors.inbox_for(alice, page=1, per_page=2)
    second = selectors.inbox_for(alice, page=2, per_page=2)
    assert (len(first.conversations), first.has_next) == (2, True)
    assert (len(second.conversations), second.has_next) == (1, False)


def test_inbox_queries_are_the_same_for_1_and_50_conversations(alice, bob, settings):
    settings.INVITATIONS_PER_DAY_L3 = 100
    conversation = services.invitation_accept(user=bob, invitation_id=invite(alice, bob).pk)
    services.message_send(author=bob, conversation_id=conversation.pk, body="Hi")
    one = queries(lambda: selectors.inbox_for(alice, per_page=60))
    for person in others(49):
        conversation = services.invitation_accept(
            user=person, invitation_id=invite(alice, person).pk
        )
        services.message_send(author=person, conversation_id=conversation.pk, body="Hi")
        invite(person, others(1, prefix=f"x{person.pk}")[0])
    fifty = queries(lambda: selectors.inbox_for(alice, per_page=60))
    assert len(selectors.inbox_for(alice, per_page=60).conversations) == 50
    assert one == fifty


def test_the_invitation_lists_show_the_pending_first_then_the_newest_others(alice, settings):
    settings.INVITATIONS_PER_DAY_L3 = 100
    people = others(6)
    now = timezone.now()
    pending_old = invite(alice, people[0])
    Invitation.objects.filter(pk=pending_old.pk).update(created_at=now - timedelta(days=20))
    answered = []
    for number, person in enumerate(people[1:5]):
        sent = invite(alice, person)
        services.invitation_decline(user=person, invitation_id=sent.pk)
        Invitation.objects.filter(pk=sent.pk).update(created_at=now - timedelta(hours=number))
        answered.append(sent.pk)
    lapsed = invite(alice, people[5])
    Invitation.objects.filter(pk=lapsed.pk).update(expires_at=now - timedelta(minutes=1))

    shown = selectors.invitations_for(alice, box="sent", limit=4)

    # The pending one first though it is the oldest; a lapsed one counts among the others.
    assert [(i.id, i.status) for i in shown] == [
        (pending_old.pk, "pending"),
        (lapsed.pk, "expired"),
        (answered[0], "declined"),
        (answered[1], "declined"),
    ]
    assert selectors.invitations_for(people[0], box="received")[0].id == pending_old.pk


def test_the_invitation_lists_run_one_query_whatever_the_number(alice, settings):
    settings.INVITATIONS_PER_DAY_L3 = 100
    people = others(12)
    invite(alice, people[0])
    one = queries(lambda: selectors.invitations_for(alice, box="sent", with_anchors=False))
    for person in people[1:]:
        services.invitation_accept(user=person, invitation_id=invite(alice, person).pk)
    many = queries(lambda: selectors.invitations_for(alice, box="sent", with_anchors=False))
    assert one == many == 1
    assert len(selectors.invitations_for(alice, box="sent", limit=5)) == 5


def test_conversation_queries_are_the_same_for_1_and_50_messages(alice, bob, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    one = queries(lambda: selectors.conversation_for(bob, conversation.pk))
    for number in range(49):
        author = alice if number % 2 else bob
        services.message_send(author=author, conversation_id=conversation.pk, body=f"{number}")
    fifty = queries(lambda: selectors.conversation_for(bob, conversation.pk))
    assert len(selectors.conversation_for(bob, conversation.pk).messages) == 50
    assert one == fifty


def test_a_block_either_way_shows_in_the_thread_and_the_inbox(alice, bob, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Hello")
    services.block_create(blocker=bob, researcher=alice.record)

    alices, bobs = (
        selectors.conversation_for(alice, conversation.pk),
        selectors.conversation_for(bob, conversation.pk),
    )

    assert (alices.can_send, alices.reason, alices.viewer_blocked_them) == (
        False,
        selectors.UNAVAILABLE,
        False,
    )
    assert (bobs.can_send, bobs.viewer_blocked_them) == (False, True)
    assert selectors.inbox_for(alice).conversations[0].other_unavailable is True
    assert selectors.inbox_for(bob).conversations[0].other_unavailable is True


def test_a_suspended_viewer_is_told_so_in_the_thread(alice, moderator, conversation):
    services.messaging_suspend(moderator=moderator, user_id=alice.pk, reason="spam")

    thread = selectors.conversation_for(alice, conversation.pk)

    assert (thread.can_send, thread.reason) == (False, selectors.SUSPENDED)


def test_a_conversation_shows_its_last_messages_oldest_first(alice, bob, conversation):
    for number in range(5):
        services.message_send(author=alice, conversation_id=conversation.pk, body=f"m{number}")
    thread = selectors.conversation_for(bob, conversation.pk, limit=3)
    assert [m.body for m in thread.messages] == ["m2", "m3", "m4"]
    assert thread.has_earlier is True
    assert thread.can_send is True and thread.other_name == "Alice Liddell"


def test_charlie_gets_a_404_for_a_conversation_message_or_invitation_not_his(
    charlie, alice, conversation, invitation
):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    with pytest.raises(Http404):
        selectors.conversation_for(charlie, conversation.pk)
    with pytest.raises(Http404):
        selectors.message_for(charlie, message.pk)
    with pytest.raises(Http404):
        selectors.invitation_for(charlie, invitation.pk)


def test_the_badge_counts_unread_messages_and_pending_invitations_in_one_query(
    alice, bob, charlie, conversation
):
    services.message_send(author=alice, conversation_id=conversation.pk, body="One")
    services.message_send(author=alice, conversation_id=conversation.pk, body="Two")
    invite(charlie, bob)
    with CaptureQueriesContext(connection) as captured:
        assert selectors.unread_badge_count(bob) == 3
    assert len(captured.captured_queries) == 1
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=True)
    assert selectors.unread_badge_count(bob) == 1
    assert selectors.unread_badge_count(alice) == 0
