"""What people write is counted as others will see it, with one rule for the forms and the API
(issue 28, item 4): text empty to the eye is empty, directional overrides are not stored, and a
line break counts once however the browser sent it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from bzpeer.errors import InvalidRequest
from bzpeer.text import typed_text, visible_length
from collaboration import services
from collaboration.models import Invitation, Message

from .factories import PURPOSE

pytestmark = pytest.mark.django_db

API = "/api/v1"
ZERO_WIDTH = "\u200b\u2060\ufeff"


def test_zero_width_and_format_characters_are_not_seen():
    assert visible_length(ZERO_WIDTH * 20) == 0
    assert visible_length(" a\u200bb ") == 2
    assert typed_text("\u202eevil\u202c name\r\nnext\rline ") == "evil name\nnext\nline"
    assert typed_text(f"{ZERO_WIDTH} hello {ZERO_WIDTH}") == "hello"


def test_a_message_of_zero_width_characters_is_refused_by_the_service_the_form_and_the_api(
    alice, alice_client, conversation
):
    invisible = ZERO_WIDTH * 20
    with pytest.raises(InvalidRequest):
        services.message_send(author=alice, conversation_id=conversation.pk, body=invisible)

    page = alice_client.post(
        reverse("collaboration:message-send", args=[conversation.pk]), {"body": invisible}
    )
    assert page.status_code == 400 and "Write a message first." in page.content.decode()
    api = alice_client.post(
        f"{API}/conversations/{conversation.pk}/messages/",
        {"body": invisible},
        content_type="application/json",
    )
    assert api.status_code == 400
    assert not Message.objects.exists()


def test_a_purpose_padded_with_invisible_characters_is_too_short(alice, bob, alice_client):
    padded = "Let us work." + ZERO_WIDTH * 20  # 60 characters, 10 of them seen
    assert len(padded) >= 50

    with pytest.raises(InvalidRequest, match="at least 50 characters"):
        services.invitation_send(
            sender=alice, recipient_researcher=bob.record, kind="coauthor", purpose=padded
        )
    api = alice_client.post(
        f"{API}/invitations/",
        {"recipient": bob.record.slug, "kind": "coauthor", "purpose": padded},
        content_type="application/json",
    )
    assert api.status_code == 400
    assert not Invitation.objects.exists()


def test_directional_overrides_are_not_stored(alice, conversation):
    message = services.message_send(
        author=alice, conversation_id=conversation.pk, body="see \u202egnp.exe\u202c here"
    )
    assert Message.objects.get(pk=message.pk).body == "see gnp.exe here"


def test_a_long_message_on_many_lines_is_the_same_to_the_form_and_the_api(
    alice_client, conversation
):
    """9,000 characters on 1,500 lines: 10,500 as a browser sends them (CRLF), 9,000 as read."""
    lines = ["x" * 5] * 1500
    crlf = "\r\n".join(lines)
    assert len(crlf) > 10_000 and len(typed_text(crlf)) < 10_000

    page = alice_client.post(
        reverse("collaboration:message-send", args=[conversation.pk]), {"body": crlf}
    )
    api = alice_client.post(
        f"{API}/conversations/{conversation.pk}/messages/",
        {"body": crlf},
        content_type="application/json",
    )

    assert page.status_code == 302
    assert api.status_code == 201
    bodies = list(Message.objects.values_list("body", flat=True))
    assert bodies == ["\n".join(lines)] * 2


def test_the_purpose_form_and_the_api_agree(alice, bob, alice_client):
    response = alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE.replace(" ", "\r\n")},
    )
    assert response.status_code in (200, 302)
    assert Invitation.objects.get().purpose == PURPOSE.replace(" ", "\n")
