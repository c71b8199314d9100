"""Messages: only in an accepted conversation, by its participants, within their limits, not
across a block or to a deleted account or by a suspended user; unread bookkeeping; delete;
mute; and blocks."""

from __future__ import annotations

import pytest
from django.http import Http404
from django.utils import timezone

from bzpeer.errors import Forbidden, InvalidRequest
from claims.models import ModerationAction, ModerationEvent
from collaboration import services
from collaboration.models import (
    Block,
    CollaborationSettings,
    Conversation,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
    Message,
)

from .factories import invite, others

pytestmark = pytest.mark.django_db


def side(conversation, user):
    return ConversationParticipant.objects.get(conversation=conversation, user=user)


def test_a_participant_sends_a_message_and_the_other_side_has_it_unread(alice, bob, conversation):
    before = timezone.now()
    message = services.message_send(author=alice, conversation_id=conversation.pk, body=" Hi ")
    assert message.body == "Hi"
    bobs, alices = side(conversation, bob), side(conversation, alice)
    assert (bobs.unread_count, alices.unread_count) == (1, 0)
    assert bobs.unread_since >= before and alices.unread_since is None
    conversation.refresh_from_db()
    assert conversation.last_message_at == message.created_at
    assert bobs.last_message_at == alices.last_message_at == message.created_at


def test_unread_since_stays_at_the_oldest_unread_message(alice, bob, conversation):
    first = services.message_send(author=alice, conversation_id=conversation.pk, body="One")
    services.message_send(author=alice, conversation_id=conversation.pk, body="Two")
    bobs = side(conversation, bob)
    assert (bobs.unread_count, bobs.unread_since) == (2, first.created_at)


def test_marking_read_zeroes_the_count_and_the_time(alice, bob, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="One")
    services.conversation_mark_read(user=bob, conversation_id=conversation.pk)
    bobs = side(conversation, bob)
    assert (bobs.unread_count, bobs.unread_since) == (0, None)
    assert bobs.last_read_at is not None


def test_nothing_can_be_sent_before_the_invitation_is_accepted(alice, bob, invitation):
    # No conversation exists yet; one made by hand without an accepted invitation is refused.
    stray = Conversation.objects.create()
    ConversationParticipant.objects.create(conversation=stray, user=alice)
    ConversationParticipant.objects.create(conversation=stray, user=bob)
    with pytest.raises(Http404):
        services.message_send(author=alice, conversation_id=stray.pk, body="Hello")


def test_charlie_cannot_send_read_or_mute_in_a_conversation_not_his(charlie, conversation):
    with pytest.raises(Http404):
        services.message_send(author=charlie, conversation_id=conversation.pk, body="Hi")
    with pytest.raises(Http404):
        services.conversation_mark_read(user=charlie, conversation_id=conversation.pk)
    with pytest.raises(Http404):
        services.conversation_mute(user=charlie, conversation_id=conversation.pk, muted=True)


@pytest.mark.parametrize("body", ["", "  \n ", "x" * 10_001])
def test_a_message_is_1_to_10000_characters_after_stripping(alice, conversation, body):
    with pytest.raises(InvalidRequest):
        services.message_send(author=alice, conversation_id=conversation.pk, body=body)


def test_a_message_of_exactly_10000_characters_is_accepted(alice, conversation):
    message = services.message_send(
        author=alice, conversation_id=conversation.pk, body="x" * 10_000
    )
    assert len(message.body) == 10_000


@pytest.mark.parametrize("blocker", ["alice", "bob"])
def test_no_message_crosses_a_block_either_way(alice, bob, conversation, blocker):
    people = {"alice": alice, "bob": bob}
    blocked = bob if blocker == "alice" else alice
    services.block_create(blocker=people[blocker], researcher=blocked.record)
    for author in (alice, bob):
        with pytest.raises(Forbidden) as refused:
            services.message_send(author=author, conversation_id=conversation.pk, body="Hi")
        assert refused.value.message == "This researcher is unavailable."


def test_a_suspended_author_cannot_send(alice, conversation, moderator):
    services.messaging_suspend(moderator=moderator, user_id=alice.pk, reason="spam")
    with pytest.raises(Forbidden, match="suspended"):
        services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")


def test_nobody_writes_to_a_deleted_account(alice, bob, conversation):
    services.account_delete(user=bob)
    with pytest.raises(Forbidden, match="unavailable"):
        services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")


def test_the_author_deletes_their_message_and_the_body_is_erased(alice, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Oops")
    services.message_delete(user=alice, message_id=message.pk)
    message.refresh_from_db()
    assert (message.body, message.deleted_at is not None) == ("", True)


def test_only_the_author_deletes_a_message(alice, bob, charlie, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Mine")
    with pytest.raises(Forbidden):
        services.message_delete(user=bob, message_id=message.pk)
    with pytest.raises(Http404):
        services.message_delete(user=charlie, message_id=message.pk)
    message.refresh_from_db()
    assert message.body == "Mine"


def test_mute_is_per_participant(alice, bob, conversation):
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=True)
    assert side(conversation, bob).muted and not side(conversation, alice).muted
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=False)
    assert not side(conversation, bob).muted


# --- blocks ------------------------------------------------------------------------------------


def test_blocking_withdraws_pending_invitations_both_ways_and_is_silent(alice, bob, commit):
    invitation = invite(alice, bob)
    with commit():
        services.block_create(blocker=bob, researcher=alice.record)
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.WITHDRAWN
    from notifications.models import Notification

    assert not Notification.objects.filter(user=alice, category="invitations").exists()


def test_blocking_twice_is_blocking_once_and_unblocking_lifts_it(alice, bob):
    services.block_create(blocker=alice, researcher=bob.record)
    services.block_create(blocker=alice, researcher=bob.record)
    assert Block.objects.filter(blocker=alice, blocked=bob).count() == 1
    services.block_delete(blocker=alice, researcher=bob.record)
    assert not Block.objects.exists()
    assert invite(alice, bob).status == InvitationStatus.PENDING


def test_nobody_blocks_themselves_or_an_unclaimed_record(alice):
    from tests.factories import ResearcherFactory

    with pytest.raises(InvalidRequest):
        services.block_create(blocker=alice, researcher=alice.record)
    with pytest.raises(InvalidRequest):
        services.block_create(blocker=alice, researcher=ResearcherFactory())


def test_five_distinct_people_blocking_or_reporting_flag_a_user_once(alice, bob):
    blockers = others(3)
    for person in blockers:
        services.block_create(blocker=person, researcher=alice.record)
    # Bob reports one of alice's messages and blocks her: still one person.
    conversation = services.invitation_accept(user=bob, invitation_id=invite(alice, bob).pk)
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Buy!")
    services.report_create(reporter=bob, reason="spam", message_id=message.pk)
    services.block_create(blocker=bob, researcher=alice.record)
    assert CollaborationSettings.objects.get(user=alice).flagged_at is None
    fifth = others(1, prefix="fifth")[0]
    services.block_create(blocker=fifth, researcher=alice.record)
    flagged_at = CollaborationSettings.objects.get(user=alice).flagged_at
    assert flagged_at is not None
    sixth = others(1, prefix="sixth")[0]
    services.block_create(blocker=sixth, researcher=alice.record)
    assert CollaborationSettings.objects.get(user=alice).flagged_at == flagged_at
    flags = ModerationEvent.objects.filter(action=ModerationAction.USER_FLAGGED)
    assert [event.details["user"] for event in flags] == [alice.pk]


def test_a_block_stops_the_answer_notification(alice, bob, commit):
    from notifications.models import Notification

    invitation = invite(alice, bob)
    Block.objects.create(blocker=bob, blocked=alice)  # as if raced in between
    Invitation.objects.filter(pk=invitation.pk).update(status=InvitationStatus.PENDING)
    with commit():
        services.invitation_decline(user=bob, invitation_id=invitation.pk)
    assert not Notification.objects.filter(user=alice, category="invitations").exists()


def test_messages_survive_in_order(alice, bob, conversation):
    for text in ("one", "two", "three"):
        services.message_send(author=alice, conversation_id=conversation.pk, body=text)
    assert list(Message.objects.values_list("body", flat=True)) == ["one", "two", "three"]
