"""The inbox: conversations with unread counts and paging, invitations received (accept,
decline, report) and sent (withdraw), the invitation page, and the header badge."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from collaboration import services
from collaboration.models import (
    CollaborationReport,
    Conversation,
    ConversationParticipant,
    Invitation,
)
from tests.collaboration.pages.conftest import invite
from tests.support.people import client_for, verified_researcher

pytestmark = pytest.mark.django_db

INBOX = reverse("collaboration:inbox")


def _invitation_urls(pk: int) -> dict[str, str]:
    return {
        name: reverse(f"collaboration:invitation-{name}", args=[pk])
        for name in ("accept", "decline", "withdraw", "report")
    }


# --- the inbox page ----------------------------------------------------------------------------


def test_the_inbox_lists_the_conversation_with_its_unread_count_and_preview(
    alice, bob_client, conversation
):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Hello <b>Bob</b>")
    services.message_send(author=alice, conversation_id=conversation.pk, body="Are you there?")

    page = bob_client.get(INBOX).content.decode()

    assert reverse("collaboration:conversation", args=[conversation.pk]) in page
    assert "Alice Liddell" in page and "Are you there?" in page
    assert 'aria-label="2 unread"' in page


def test_a_muted_conversation_is_marked(bob, bob_client, conversation):
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=True)

    page = bob_client.get(INBOX).content.decode()

    assert ">Muted</span>" in page


def test_the_inbox_shows_received_and_sent_invitations_with_their_buttons(
    alice, bob, charlie, bob_client, invitation
):
    sent = invite(bob, charlie)

    page = bob_client.get(INBOX).content.decode()

    received_urls = _invitation_urls(invitation.pk)
    assert received_urls["accept"] in page and received_urls["decline"] in page
    assert reverse("collaboration:invitation-detail", args=[invitation.pk]) in page
    assert _invitation_urls(sent.pk)["withdraw"] in page
    assert received_urls["withdraw"] not in page
    # The buttons submit the page's one form: one token for the page (and the header's log-out).
    assert page.count('form="invitation-actions"') == 3
    assert page.count('name="csrfmiddlewaretoken"') == 2


def test_the_inbox_pages_its_conversations(alice, settings, monkeypatch):
    monkeypatch.setattr("collaboration.views.CONVERSATIONS_PER_PAGE", 2)
    others = [
        verified_researcher(f"peer{n}@example.org", f"Peer Number{n}", f"peer-{n}")
        for n in range(3)
    ]
    for other in others:
        services.invitation_accept(user=other, invitation_id=invite(alice, other).pk)
    client = client_for(alice)

    first = client.get(INBOX).content.decode()
    second = client.get(INBOX, {"page": 2}).content.decode()

    assert 'rel="next"' in first and 'rel="prev"' not in first
    assert 'rel="prev"' in second and 'rel="next"' not in second
    assert client.get(INBOX, {"page": "zz"}).status_code == 200


def _conversations_with(user, count: int) -> None:
    """`count` accepted conversations of `user`, each with one message, built in bulk."""
    others = [
        verified_researcher(f"bulk{n}@example.org", f"Bulk Person{n}", f"bulk-{n}")
        for n in range(count)
    ]
    for other in others:
        # Invited by each of them: one sender's quota would stop at 10.
        conversation = services.invitation_accept(user=user, invitation_id=invite(other, user).pk)
        services.message_send(author=other, conversation_id=conversation.pk, body="Hi there")


@pytest.mark.parametrize("count", [1, 30])
def test_the_inbox_runs_the_same_queries_for_1_and_30_conversations(
    count, alice, django_assert_num_queries
):
    _conversations_with(alice, count)
    client = client_for(alice)
    client.get(INBOX)  # the session and the user, loaded once like on any page

    # user, the conversations, the invitations received, the invitations sent (the inbox
    # shows no anchors: nothing prefetched); the badge comes from the cache the first visit
    # filled
    with django_assert_num_queries(4):
        response = client.get(INBOX)

    assert response.content.decode().count('class="conversation-row') == count


def test_the_inbox_requires_login_and_a_safe_method(client, alice_client):
    assert client.get(INBOX).status_code == 302
    assert alice_client.post(INBOX).status_code == 405


# --- the invitation and its buttons ------------------------------------------------------------


def test_the_invitation_page_shows_the_escaped_purpose_with_links(alice, bob, bob_client):
    hostile = invite(
        alice,
        bob,
        purpose="<script>alert('x')</script> Our draft is at https://example.org/draft?a=1&b=2 "
        "and I would value your review of its second section.",
    )

    page = bob_client.get(
        reverse("collaboration:invitation-detail", args=[hostile.pk])
    ).content.decode()

    assert (
        "<script>alert" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    )
    assert '<a href="https://example.org/draft?a=1&amp;b=2" rel="nofollow noopener">' in page
    assert _invitation_urls(hostile.pk)["accept"] in page


def test_accepting_opens_the_conversation(bob, bob_client, invitation):
    response = bob_client.post(_invitation_urls(invitation.pk)["accept"])

    conversation = Conversation.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("collaboration:conversation", args=[conversation.pk])
    assert Invitation.objects.get().status == "accepted"


def test_declining_and_withdrawing_come_back_to_the_inbox(
    alice, bob, alice_client, bob_client, charlie
):
    received = invite(alice, bob)
    response = bob_client.post(_invitation_urls(received.pk)["decline"])
    assert response.url == INBOX and Invitation.objects.get(pk=received.pk).status == "declined"

    sent = invite(alice, charlie)
    response = alice_client.post(_invitation_urls(sent.pk)["withdraw"])
    assert response.url == INBOX and Invitation.objects.get(pk=sent.pk).status == "withdrawn"


def test_the_sender_cannot_accept_their_own_invitation(alice_client, invitation):
    response = alice_client.post(_invitation_urls(invitation.pk)["accept"], follow=True)

    assert Invitation.objects.get().status == "pending"
    assert response.status_code in (200, 404)


def test_reporting_an_invitation_files_a_report(bob, bob_client, invitation):
    response = bob_client.post(_invitation_urls(invitation.pk)["report"], {"reason": "Spam."})

    assert response.status_code == 302
    report = CollaborationReport.objects.get()
    assert report.invitation_id == invitation.pk and report.reporter == bob


def test_a_report_without_a_reason_files_nothing(bob_client, invitation):
    bob_client.post(_invitation_urls(invitation.pk)["report"], {"reason": ""})

    assert not CollaborationReport.objects.exists()


def test_charlie_gets_404_for_someone_elses_invitation(charlie_client, invitation):
    assert (
        charlie_client.get(
            reverse("collaboration:invitation-detail", args=[invitation.pk])
        ).status_code
        == 404
    )
    for url in _invitation_urls(invitation.pk).values():
        assert charlie_client.post(url, {"reason": "Spam."}).status_code == 404, url
    assert Invitation.objects.get().status == "pending"
    assert not CollaborationReport.objects.exists()


def test_an_unknown_invitation_is_a_404(alice_client):
    assert (
        alice_client.get(reverse("collaboration:invitation-detail", args=[999999])).status_code
        == 404
    )
    assert alice_client.post(_invitation_urls(999999)["accept"]).status_code == 404


def test_the_invitation_buttons_require_login_and_post(client, bob_client, invitation):
    for url in _invitation_urls(invitation.pk).values():
        assert client.post(url).status_code == 302, url
        assert bob_client.get(url).status_code == 405, url
    detail = reverse("collaboration:invitation-detail", args=[invitation.pk])
    assert client.get(detail).status_code == 302
    assert bob_client.post(detail).status_code == 405
    assert Invitation.objects.get().status == "pending"


def test_the_invitation_buttons_need_the_csrf_token(bob, invitation):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)

    assert client.post(_invitation_urls(invitation.pk)["accept"]).status_code == 403
    assert Invitation.objects.get().status == "pending"


# --- the header badge --------------------------------------------------------------------------


def test_the_badge_counts_unread_messages_and_pending_invitations(
    alice, bob, bob_client, conversation, charlie
):
    services.message_send(author=alice, conversation_id=conversation.pk, body="One")
    invite(charlie, bob)

    fragment = bob_client.get(reverse("collaboration:inbox-badge")).content.decode()

    assert 'id="inbox-link"' in fragment and 'aria-label="2 unread"' in fragment
    assert 'hx-trigger="every 60s, visibilitychange from:document"' in fragment


def test_the_badge_is_in_both_page_shells_for_signed_in_users_only(
    client, bob_client, invitation, bob
):
    django_page = bob_client.get(reverse("claims:account")).content.decode()
    jinja_page = bob_client.get(
        reverse("researcher-profile", args=[bob.record.slug])
    ).content.decode()

    for page in (django_page, jinja_page):
        assert 'id="inbox-link"' in page and 'aria-label="1 unread"' in page
        assert "/static/collaboration/collaboration.js" in page
    visitor_page = client.get(
        reverse("researcher-profile", args=[bob.record.slug])
    ).content.decode()
    assert "inbox-link" not in visitor_page and "collaboration.js" not in visitor_page


def test_a_muted_conversation_does_not_count_in_the_badge(alice, bob, bob_client, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="One")
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=True)

    fragment = bob_client.get(reverse("collaboration:inbox-badge")).content.decode()

    assert "unread" not in fragment


def test_a_poll_after_signing_out_stops_polling_and_a_visit_goes_to_log_in(client):
    url = reverse("collaboration:inbox-badge")

    assert client.get(url, headers={"HX-Request": "true"}).status_code == 286
    assert client.get(url).status_code == 302
    assert client_for_anyone_post(url) == 405


def client_for_anyone_post(url: str) -> int:
    return Client().post(url).status_code


def test_the_badge_is_one_query_on_a_cache_miss(
    bob, bob_client, django_assert_num_queries, conversation
):
    bob_client.get(reverse("collaboration:inbox-badge"))
    assert ConversationParticipant.objects.filter(user=bob).exists()
    services.conversation_mark_read(user=bob, conversation_id=conversation.pk)  # forgets it

    with django_assert_num_queries(2):  # the user, the count (sessions live in the cache)
        bob_client.get(reverse("collaboration:inbox-badge"))
