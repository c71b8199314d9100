"""A conversation: its messages (escaped, links made clickable, deleted, hidden, a deleted
account), sending, deleting, reporting, muting, and that opening it marks it read."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from collaboration import services
from collaboration.models import (
    CollaborationReport,
    ConversationParticipant,
    Message,
)
from tests.support.people import client_for

pytestmark = pytest.mark.django_db


def _url(conversation) -> str:
    return reverse("collaboration:conversation", args=[conversation.pk])


def _send_url(conversation) -> str:
    return reverse("collaboration:message-send", args=[conversation.pk])


def test_the_conversation_shows_messages_oldest_first(alice, bob, alice_client, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="First from Alice")
    services.message_send(author=bob, conversation_id=conversation.pk, body="Then Bob answers")

    page = alice_client.get(_url(conversation)).content.decode()

    assert page.index("First from Alice") < page.index("Then Bob answers")
    assert "Bob Bobson" in page


def test_a_hostile_message_is_escaped_and_its_links_made_clickable(alice, bob_client, conversation):
    services.message_send(
        author=alice,
        conversation_id=conversation.pk,
        body='<script>alert("x")</script> see https://example.org/paper?x=1&y=2 or <img src=x onerror=alert(1)>',
    )

    page = bob_client.get(_url(conversation)).content.decode()

    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert '<a href="https://example.org/paper?x=1&amp;y=2" rel="nofollow noopener">' in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_only_the_authors_own_messages_have_a_delete_button(alice, bob, alice_client, conversation):
    mine = services.message_send(author=alice, conversation_id=conversation.pk, body="Mine")
    theirs = services.message_send(author=bob, conversation_id=conversation.pk, body="Theirs")

    page = alice_client.get(_url(conversation)).content.decode()

    assert reverse("collaboration:message-delete", args=[mine.pk]) in page
    assert reverse("collaboration:message-delete", args=[theirs.pk]) not in page
    assert f'href="?report={theirs.pk}#m{theirs.pk}"' in page
    assert f"?report={mine.pk}#" not in page


def test_the_page_has_one_form_for_its_messages_whatever_their_number(
    alice, bob, alice_client, conversation
):
    _messages(conversation, alice, bob, 40)

    page = alice_client.get(_url(conversation)).content.decode()

    # The header's search and log-out, mute, block, the actions form and send: none per message.
    assert page.count("<form") == 6
    assert page.count('form="message-actions"') == 20
    assert page.count('name="csrfmiddlewaretoken"') == 5


def test_the_report_link_opens_the_one_report_form_under_its_message(
    alice, bob, alice_client, conversation
):
    theirs = services.message_send(author=bob, conversation_id=conversation.pk, body="Theirs")
    other = services.message_send(author=bob, conversation_id=conversation.pk, body="Other")

    page = alice_client.get(_url(conversation), {"report": theirs.pk}).content.decode()

    assert page.count('name="reason"') == 1
    form = page[page.index(f'id="m{theirs.pk}"') : page.index(f'id="m{other.pk}"')]
    assert reverse("collaboration:message-report", args=[theirs.pk]) in form
    assert alice_client.get(_url(conversation), {"report": "x"}).status_code == 200


def test_deleting_a_message_shows_it_as_deleted(alice, alice_client, bob_client, conversation):
    message = services.message_send(
        author=alice, conversation_id=conversation.pk, body="Oops, wrong"
    )

    response = alice_client.post(reverse("collaboration:message-delete", args=[message.pk]))

    assert response.status_code == 302 and response.url == _url(conversation)
    page = bob_client.get(_url(conversation)).content.decode()
    assert "Message deleted" in page and "Oops, wrong" not in page


def test_bob_cannot_delete_alices_message(alice, bob_client, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Stays")

    response = bob_client.post(reverse("collaboration:message-delete", args=[message.pk]))

    assert response.status_code == 302
    assert "You can delete only your own messages." in bob_client.get(response.url).content.decode()
    assert Message.objects.get(pk=message.pk).deleted_at is None


def test_a_hidden_message_and_a_deleted_account_read_as_such(alice, bob, bob_client, conversation):
    hidden = services.message_send(author=alice, conversation_id=conversation.pk, body="Rude words")
    Message.objects.filter(pk=hidden.pk).update(hidden_at=timezone.now())
    services.message_send(author=alice, conversation_id=conversation.pk, body="Goodbye")
    services.account_delete(user=alice)

    page = bob_client.get(_url(conversation)).content.decode()

    assert "Hidden by a moderator" in page and "Rude words" not in page
    assert "Deleted researcher" in page and "Goodbye" not in page


def test_sending_a_message_adds_it_and_comes_back_to_it(alice_client, conversation):
    response = alice_client.post(_send_url(conversation), {"body": "Shall we meet on Tuesday?"})

    message = Message.objects.get()
    assert response.status_code == 302
    assert response.url == _url(conversation) + f"#m{message.pk}"
    assert message.body == "Shall we meet on Tuesday?"


def test_an_empty_or_too_long_message_is_refused(alice_client, conversation):
    assert alice_client.post(_send_url(conversation), {"body": "   "}).status_code == 400
    assert alice_client.post(_send_url(conversation), {"body": "x" * 10_001}).status_code == 400
    assert not Message.objects.exists()


def test_a_blocked_sender_is_told_unavailable(alice, bob, alice_client, conversation):
    services.block_create(blocker=bob, researcher=alice.record)

    response = alice_client.post(_send_url(conversation), {"body": "Hello?"})

    # The conversation again (the typed text kept in the box), with the refusal said.
    assert response.status_code == 200
    assert "This researcher is unavailable." in response.content.decode()
    assert not Message.objects.exists()


def test_opening_the_conversation_marks_it_read(alice, bob, bob_client, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Unread one")
    assert ConversationParticipant.objects.get(user=bob).unread_count == 1

    bob_client.get(_url(conversation))

    assert ConversationParticipant.objects.get(user=bob).unread_count == 0


def test_mute_and_unmute(bob, bob_client, conversation):
    mute_url = reverse("collaboration:conversation-mute", args=[conversation.pk])

    bob_client.post(mute_url, {"muted": "1"})
    assert ConversationParticipant.objects.get(user=bob).muted
    assert "Unmute" in bob_client.get(_url(conversation)).content.decode()

    bob_client.post(mute_url, {"muted": "0"})
    assert not ConversationParticipant.objects.get(user=bob).muted


def test_reporting_a_message_files_a_report(alice, bob, bob_client, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Spam!")

    response = bob_client.post(
        reverse("collaboration:message-report", args=[message.pk]), {"reason": "Unsolicited ads"}
    )

    assert response.status_code == 302
    report = CollaborationReport.objects.get()
    assert report.message_id == message.pk and report.reporter == bob


def test_blocking_from_the_conversation_comes_back_to_it(alice, bob, bob_client, conversation):
    response = bob_client.post(
        reverse("collaboration:block", args=[alice.record.slug]), {"next": _url(conversation)}
    )

    assert response.url == _url(conversation)
    page = bob_client.get(_url(conversation)).content.decode()
    assert "Unblock" in page and 'name="body"' not in page


def test_charlie_gets_404_on_every_url_of_the_conversation(alice, charlie_client, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Private")

    assert charlie_client.get(_url(conversation)).status_code == 404
    for url, data in (
        (_send_url(conversation), {"body": "Let me in"}),
        (_send_url(conversation), {"body": ""}),
        (reverse("collaboration:conversation-mute", args=[conversation.pk]), {"muted": "1"}),
        (reverse("collaboration:message-delete", args=[message.pk]), {}),
        (reverse("collaboration:message-report", args=[message.pk]), {"reason": "Nosy"}),
    ):
        assert charlie_client.post(url, data).status_code == 404, url
    assert Message.objects.count() == 1 and not CollaborationReport.objects.exists()
    assert not ConversationParticipant.objects.filter(muted=True).exists()


def test_the_conversation_urls_require_login_and_the_right_method(
    client, alice, alice_client, conversation
):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    posts = [
        _send_url(conversation),
        reverse("collaboration:conversation-mute", args=[conversation.pk]),
        reverse("collaboration:message-delete", args=[message.pk]),
        reverse("collaboration:message-report", args=[message.pk]),
    ]

    assert client.get(_url(conversation)).status_code == 302
    assert alice_client.post(_url(conversation)).status_code == 405
    for url in posts:
        assert client.post(url, {"body": "x", "reason": "x"}).status_code == 302, url
        assert alice_client.get(url).status_code == 405, url
    assert Message.objects.count() == 1


def test_sending_needs_the_csrf_token(alice, conversation):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    assert client.post(_send_url(conversation), {"body": "Hello"}).status_code == 403
    assert not Message.objects.exists()


def _messages(conversation, author_a, author_b, count: int) -> None:
    Message.objects.bulk_create(
        Message(
            conversation=conversation,
            author=author_a if n % 2 else author_b,
            body=f"Message number {n} https://example.org/{n}",
        )
        for n in range(count)
    )


@pytest.mark.parametrize("count", [1, 200])
def test_the_conversation_runs_the_same_queries_for_1_and_200_messages(
    count, alice, bob, conversation, django_assert_num_queries
):
    _messages(conversation, alice, bob, count)
    client = client_for(alice)
    client.get(_url(conversation))

    with django_assert_num_queries(QUERIES_CONVERSATION_PAGE):
        response = client.get(_url(conversation))

    assert response.content.decode().count('class="chat-message') == count


# Counted once (the user, marking read, the thread's two queries, the badge: marking read
# forgot its cached count); the same for 1 and 200 messages is what matters.
QUERIES_CONVERSATION_PAGE = 5


def test_the_page_holds_the_last_200_messages(alice, bob, alice_client, conversation):
    _messages(conversation, alice, bob, 205)

    page = alice_client.get(_url(conversation)).content.decode()

    assert page.count('class="chat-message') == 200
    assert "Message number 204 " in page and "Message number 4 " not in page
