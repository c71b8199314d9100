"""Issue 24, items 4, 15 and 16: the header badge is cached per user and forgotten on send,
read, mute and invitation changes; the conversation is read before it is drawn; a refused
message is said once and keeps its text; a conversation with a deleted account offers no
Mute."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from collaboration import services
from collaboration.models import Message
from tests.support.people import client_for

from .conftest import invite

pytestmark = pytest.mark.django_db


def _url(conversation) -> str:
    return reverse("collaboration:conversation", args=[conversation.pk])


def _badge_of(page: str) -> str:
    match = re.search(r'<a id="inbox-link".*?</a>', page, re.DOTALL)
    assert match, "no inbox link on the page"
    return match.group(0)


def _badge_number(client) -> int:
    fragment = client.get(reverse("collaboration:inbox-badge")).content.decode()
    match = re.search(r'aria-label="(\d+) unread"', fragment)
    return int(match.group(1)) if match else 0


# --- item 4: the badge while reading the very message --------------------------------------


def test_the_conversation_page_badge_does_not_count_the_message_being_read(
    alice, bob, bob_client, conversation
):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Read me")
    assert _badge_number(bob_client) == 1  # cached now

    page = bob_client.get(_url(conversation)).content.decode()

    assert "unread" not in _badge_of(page)
    assert _badge_number(bob_client) == 0


def test_a_refused_message_is_said_once_and_keeps_its_text(alice, bob, alice_client, conversation):
    services.block_create(blocker=bob, researcher=alice.record)

    response = alice_client.post(
        reverse("collaboration:message-send", args=[conversation.pk]),
        {"body": "My long draft <b>about</b> the paper"},
    )

    page = response.content.decode()
    assert response.status_code == 200  # the form again, with the refusal said
    assert page.count("This researcher is unavailable.") == 1
    assert "My long draft &lt;b&gt;about&lt;/b&gt; the paper</textarea>" in page
    assert not Message.objects.exists()
    # Not carried over to the next page either.
    assert "unavailable" not in alice_client.get(reverse("claims:account")).content.decode()


def test_a_refused_message_in_someone_elses_conversation_is_a_404(charlie_client, conversation):
    response = charlie_client.post(
        reverse("collaboration:message-send", args=[conversation.pk]), {"body": "Hello"}
    )
    assert response.status_code == 404


# --- item 15: the badge cached per user ------------------------------------------------------


def test_a_signed_in_page_reads_no_badge_on_a_cache_hit(
    bob, bob_client, conversation, django_assert_num_queries
):
    url = reverse("collaboration:inbox-badge")
    bob_client.get(url)  # fills the cache

    with django_assert_num_queries(1):  # the user only (sessions live in the cache)
        response = bob_client.get(url)
    assert response["Cache-Control"] == "private, no-store"


def test_the_badge_is_right_right_after_send_read_mute_and_invite(
    alice, bob, charlie, bob_client, conversation
):
    assert _badge_number(bob_client) == 0

    services.message_send(author=alice, conversation_id=conversation.pk, body="One")
    assert _badge_number(bob_client) == 1

    services.message_send(author=alice, conversation_id=conversation.pk, body="Two")
    assert _badge_number(bob_client) == 2

    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=True)
    assert _badge_number(bob_client) == 0
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=False)
    assert _badge_number(bob_client) == 2

    services.conversation_mark_read(user=bob, conversation_id=conversation.pk)
    assert _badge_number(bob_client) == 0

    invitation = invite(charlie, bob)
    assert _badge_number(bob_client) == 1

    services.invitation_decline(user=bob, invitation_id=invitation.pk)
    assert _badge_number(bob_client) == 0


def test_the_badge_drops_when_the_sender_withdraws_or_is_blocked(alice, bob, charlie, bob_client):
    invitation = invite(charlie, bob)
    assert _badge_number(bob_client) == 1
    services.invitation_withdraw(user=charlie, invitation_id=invitation.pk)
    assert _badge_number(bob_client) == 0

    invite(charlie, bob)
    assert _badge_number(bob_client) == 1
    services.block_create(blocker=charlie, researcher=bob.record)
    assert _badge_number(bob_client) == 0


def test_the_badge_of_one_user_is_not_another_users(alice, bob, charlie, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="For bob")
    bob_client, charlie_client = client_for(bob), client_for(charlie)

    assert _badge_number(bob_client) == 1
    assert _badge_number(charlie_client) == 0


# --- item 16: nothing offered that cannot apply -----------------------------------------------


def test_a_conversation_with_a_deleted_account_offers_no_mute_or_block(
    alice, bob, bob_client, conversation
):
    services.account_delete(user=alice)

    page = bob_client.get(_url(conversation)).content.decode()

    assert "Deleted researcher" in page
    assert "conversation-mute" not in page and ">Mute<" not in page
    assert ">Block<" not in page and 'name="body"' not in page


def test_a_conversation_with_a_present_account_still_offers_mute(bob_client, conversation):
    page = bob_client.get(_url(conversation)).content.decode()
    assert ">Mute<" in page and ">Block<" in page
