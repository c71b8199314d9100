"""The collaboration API: the same rules as the services, answered with the statuses the
issue names; alice owns, bob is the other party, charlie has no access (404 on every object
URL, GET and POST); anonymous is a 403; nothing answers a 500."""

from __future__ import annotations

import pytest
from django.test import Client

from collaboration import services
from collaboration.models import (
    CollaborationReport,
    ConversationParticipant,
    Invitation,
    InvitationStatus,
)
from tests.support.people import client_for

from .factories import PURPOSE, invite, others

pytestmark = pytest.mark.django_db

API = "/api/v1"


def post(client, url, data=None):
    return client.post(url, data or {}, content_type="application/json")


def invitation_payload(recipient, **extra):
    return {"recipient": recipient.record.slug, "kind": "coauthor", "purpose": PURPOSE, **extra}


# --- sending -----------------------------------------------------------------------------------


def test_a_verified_researcher_invites_and_gets_201_with_id_and_status(alice_client, bob):
    response = post(alice_client, f"{API}/invitations/", invitation_payload(bob))
    assert response.status_code == 201, response.json()
    invitation = Invitation.objects.get()
    assert response.json() == {"id": invitation.pk, "status": "pending"}


def test_anchors_are_sent_as_work_and_topic_ids(alice_client, alice, bob):
    work = bob.record.authorships.get().work
    topic = alice.record.authorships.get().work.work_topics.get().topic
    response = post(
        alice_client,
        f"{API}/invitations/",
        invitation_payload(bob, works=[work.pk], topics=[topic.pk]),
    )
    assert response.status_code == 201
    invitation = Invitation.objects.get()
    assert list(invitation.anchor_works.all()) == [work]
    assert list(invitation.anchor_topics.all()) == [topic]


def test_a_user_without_an_approved_claim_gets_403(newcomer, bob):
    response = post(client_for(newcomer), f"{API}/invitations/", invitation_payload(bob))
    assert response.status_code == 403
    assert "Claim this author entity first" in response.json()["detail"]


@pytest.mark.parametrize("purpose", ["short", " " * 80, "y" * 1001])
def test_a_bad_purpose_gets_400(alice_client, bob, purpose):
    response = post(alice_client, f"{API}/invitations/", invitation_payload(bob, purpose=purpose))
    assert response.status_code == 400
    assert not Invitation.objects.exists()


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"recipient": "bob-bobson", "kind": "nope", "purpose": PURPOSE},
        {"recipient": "bob-bobson", "kind": "coauthor", "purpose": PURPOSE, "works": ["x"]},
        {"recipient": "bob-bobson", "kind": "coauthor", "purpose": PURPOSE, "works": [2**70]},
        {"recipient": "bob-bobson", "kind": "coauthor", "purpose": PURPOSE, "topics": 5},
        {"recipient": "bob-bobson", "kind": "coauthor", "purpose": 12},
    ],
)
def test_malformed_invitations_get_400(alice_client, bob, payload):
    assert post(alice_client, f"{API}/invitations/", payload).status_code == 400


def test_an_unknown_recipient_is_a_404(alice_client):
    payload = {"recipient": "nobody-here", "kind": "coauthor", "purpose": PURPOSE}
    assert post(alice_client, f"{API}/invitations/", payload).status_code == 404


def test_a_second_pending_invitation_to_the_same_person_gets_409(alice_client, bob):
    assert post(alice_client, f"{API}/invitations/", invitation_payload(bob)).status_code == 201
    response = post(alice_client, f"{API}/invitations/", invitation_payload(bob))
    assert response.status_code == 409
    assert "pending invitation with Bob Bobson" in response.json()["detail"]


def test_over_the_quota_gets_429_with_retry_after(alice_client, alice, settings):
    settings.INVITATIONS_PER_DAY_L3 = 1
    first, second = others(2)
    assert post(alice_client, f"{API}/invitations/", invitation_payload(first)).status_code == 201
    response = post(alice_client, f"{API}/invitations/", invitation_payload(second))
    assert response.status_code == 429
    assert 86_000 < int(response["Retry-After"]) <= 86_400
    assert "The next one can go at" in response.json()["detail"]


def test_a_blocked_sender_gets_403_unavailable(alice_client, alice, bob):
    services.block_create(blocker=bob, researcher=alice.record)
    response = post(alice_client, f"{API}/invitations/", invitation_payload(bob))
    assert response.status_code == 403
    assert response.json() == {"detail": "This researcher is unavailable."}


# --- listing and answering ---------------------------------------------------------------------


def test_the_invitation_lists_are_received_by_default_and_sent_on_request(
    alice_client, bob_client, invitation
):
    received = bob_client.get(f"{API}/invitations/").json()
    assert [(i["id"], i["is_received"], i["other_name"]) for i in received] == [
        (invitation.pk, True, "Alice Liddell")
    ]
    assert received[0]["purpose"] == PURPOSE
    assert bob_client.get(f"{API}/invitations/?box=sent").json() == []
    sent = alice_client.get(f"{API}/invitations/?box=sent").json()
    assert [(i["id"], i["status"], i["other_slug"]) for i in sent] == [
        (invitation.pk, "pending", "bob-bobson")
    ]


def test_an_unknown_box_is_a_400(alice_client):
    assert alice_client.get(f"{API}/invitations/?box=trash").status_code == 400


def test_accepting_answers_200_with_the_conversation(bob_client, invitation):
    response = post(bob_client, f"{API}/invitations/{invitation.pk}/accept/")
    assert response.status_code == 200
    invitation.refresh_from_db()
    assert response.json() == {"conversation": invitation.conversation_id}


def test_declining_and_withdrawing_answer_the_invitation(alice_client, bob_client, alice, bob):
    first = invite(alice, bob)
    response = post(bob_client, f"{API}/invitations/{first.pk}/decline/")
    assert (response.status_code, response.json()["status"]) == (200, "declined")
    second = invite(bob, alice)
    response = post(bob_client, f"{API}/invitations/{second.pk}/withdraw/")
    assert (response.status_code, response.json()["status"]) == (200, "withdrawn")


def test_a_declined_invitation_cannot_be_accepted_409(bob_client, invitation):
    post(bob_client, f"{API}/invitations/{invitation.pk}/decline/")
    assert post(bob_client, f"{API}/invitations/{invitation.pk}/accept/").status_code == 409


def test_the_sender_cannot_accept_their_own_invitation_403(alice_client, invitation):
    assert post(alice_client, f"{API}/invitations/{invitation.pk}/accept/").status_code == 403


# --- conversations -----------------------------------------------------------------------------


def test_the_conversation_list_carries_the_unread_count(alice_client, bob_client, conversation):
    post(alice_client, f"{API}/conversations/{conversation.pk}/messages/", {"body": "Hello Bob"})
    post(alice_client, f"{API}/conversations/{conversation.pk}/messages/", {"body": "Still?"})
    page = bob_client.get(f"{API}/conversations/").json()
    assert page["has_next"] is False
    [row] = page["results"]
    assert (row["id"], row["unread_count"], row["other_name"]) == (
        conversation.pk,
        2,
        "Alice Liddell",
    )
    assert row["last_message_preview"] == "Still?"
    assert alice_client.get(f"{API}/conversations/").json()["results"][0]["unread_count"] == 0


@pytest.mark.parametrize("page", ["0", "x", "²", "9" * 40, "-1"])
def test_a_bad_conversation_page_is_a_400(alice_client, page):
    assert alice_client.get(f"{API}/conversations/", {"page": page}).status_code == 400


def test_messages_are_posted_and_listed_oldest_first(alice_client, bob_client, conversation):
    url = f"{API}/conversations/{conversation.pk}/messages/"
    response = post(alice_client, url, {"body": "  <b>Hi</b> Bob  "})
    assert response.status_code == 201
    assert response.json()["body"] == "<b>Hi</b> Bob"
    post(bob_client, url, {"body": "Hi Alice"})
    listed = bob_client.get(url).json()
    assert listed["can_send"] is True
    assert [(m["author_name"], m["author_is_viewer"], m["body"]) for m in listed["results"]] == [
        ("Alice Liddell", False, "<b>Hi</b> Bob"),
        ("Bob Bobson", True, "Hi Alice"),
    ]


@pytest.mark.parametrize("body", ["", "   ", "z" * 10_001])
def test_an_empty_or_too_long_message_is_a_400(alice_client, conversation, body):
    url = f"{API}/conversations/{conversation.pk}/messages/"
    assert post(alice_client, url, {"body": body}).status_code == 400


def test_a_blocked_sender_gets_403_on_a_message(alice_client, alice, bob, conversation):
    services.block_create(blocker=bob, researcher=alice.record)
    url = f"{API}/conversations/{conversation.pk}/messages/"
    response = post(alice_client, url, {"body": "Hello?"})
    assert response.status_code == 403
    assert response.json() == {"detail": "This researcher is unavailable."}


def test_reading_zeroes_the_unread_count(alice_client, bob_client, bob, conversation):
    post(alice_client, f"{API}/conversations/{conversation.pk}/messages/", {"body": "Hello"})
    response = post(bob_client, f"{API}/conversations/{conversation.pk}/read/")
    assert response.status_code == 204
    side = ConversationParticipant.objects.get(conversation=conversation, user=bob)
    assert (side.unread_count, side.unread_since) == (0, None)


# --- blocks and reports ------------------------------------------------------------------------


def test_blocking_and_unblocking_by_slug(alice_client, alice, bob, invitation):
    response = post(alice_client, f"{API}/blocks/", {"researcher": "bob-bobson"})
    assert response.status_code == 204
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.WITHDRAWN
    assert alice.blocks_made.filter(blocked=bob).exists()
    assert alice_client.delete(f"{API}/blocks/bob-bobson/").status_code == 204
    assert not alice.blocks_made.exists()


def test_blocking_an_unknown_slug_is_a_404(alice_client):
    assert post(alice_client, f"{API}/blocks/", {"researcher": "nobody"}).status_code == 404
    assert alice_client.delete(f"{API}/blocks/nobody/").status_code == 404


def test_reporting_a_message_and_an_invitation(alice_client, bob_client, alice, bob, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Buy!")
    url = f"{API}/messages/{message.pk}/report/"
    response = post(bob_client, url, {"reason": "Spam"})
    assert response.status_code == 201
    assert response.json()["status"] == "open"
    assert post(bob_client, url, {"reason": "Spam again"}).status_code == 409
    assert post(alice_client, url, {"reason": "Mine"}).status_code == 403
    received = invite(alice, others(1)[0])
    assert (
        post(alice_client, f"{API}/invitations/{received.pk}/report/", {"reason": "x"}).status_code
        == 403
    )
    assert CollaborationReport.objects.count() == 1


def test_a_report_needs_a_reason(bob_client, alice, conversation):
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    assert (
        post(bob_client, f"{API}/messages/{message.pk}/report/", {"reason": ""}).status_code == 400
    )


# --- access ------------------------------------------------------------------------------------


def object_urls(invitation, conversation, message):
    return [
        ("post", f"{API}/invitations/{invitation.pk}/accept/", {}),
        ("post", f"{API}/invitations/{invitation.pk}/decline/", {}),
        ("post", f"{API}/invitations/{invitation.pk}/withdraw/", {}),
        ("post", f"{API}/invitations/{invitation.pk}/report/", {"reason": "x"}),
        ("get", f"{API}/conversations/{conversation.pk}/messages/", None),
        ("post", f"{API}/conversations/{conversation.pk}/messages/", {"body": "hi"}),
        ("post", f"{API}/conversations/{conversation.pk}/read/", {}),
        ("post", f"{API}/messages/{message.pk}/report/", {"reason": "x"}),
    ]


@pytest.fixture
def objects(alice, bob):
    conversation_invitation = invite(alice, bob)
    conversation = services.invitation_accept(user=bob, invitation_id=conversation_invitation.pk)
    message = services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    pending = invite(bob, others(1, prefix="third")[0])
    return pending, conversation, message


def test_charlie_gets_404_on_every_object_url(charlie_client, objects):
    for method, url, data in object_urls(*objects):
        if method == "get":
            response = charlie_client.get(url)
        else:
            response = post(charlie_client, url, data)
        assert response.status_code == 404, (method, url, response.content)


def test_anonymous_gets_403_everywhere(objects):
    client = Client()
    urls = [
        *object_urls(*objects),
        ("get", f"{API}/invitations/", None),
        ("post", f"{API}/invitations/", {}),
        ("get", f"{API}/conversations/", None),
        ("post", f"{API}/blocks/", {"researcher": "bob-bobson"}),
        ("delete", f"{API}/blocks/bob-bobson/", None),
    ]
    for method, url, data in urls:
        if method == "post":
            response = post(client, url, data)
        else:
            response = getattr(client, method)(url)
        assert response.status_code == 403, (method, url)


def test_state_changes_need_the_csrf_token(alice, bob):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = post(client, f"{API}/invitations/", invitation_payload(bob))
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


@pytest.mark.parametrize(
    "method,url",
    [
        ("get", "/invitations/1/accept/"),
        ("put", "/invitations/"),
        ("get", "/conversations/1/read/"),
        ("post", "/conversations/"),
        ("get", "/blocks/"),
        ("post", "/blocks/bob-bobson/"),
        ("get", "/messages/1/report/"),
    ],
)
def test_a_wrong_method_is_a_405(alice_client, method, url):
    assert getattr(alice_client, method)(f"{API}{url}").status_code == 405


@pytest.mark.parametrize("pk", ["0", "9" * 19, "9" * 30])
def test_ids_out_of_range_are_a_404_not_a_500(alice_client, pk):
    assert post(alice_client, f"{API}/invitations/{pk}/accept/").status_code == 404
    assert alice_client.get(f"{API}/conversations/{pk}/messages/").status_code == 404
    assert post(alice_client, f"{API}/messages/{pk}/report/", {"reason": "x"}).status_code == 404
