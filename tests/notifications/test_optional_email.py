"""Optional emails: a text and an HTML part, List-Id, and RFC 8058 one-click unsubscribe with a
signed https URL; sent only to a user whose delivery for the category is "immediately"."""

from __future__ import annotations

import re

import pytest
from django.core import mail, signing
from django.urls import resolve

from bzpeer.errors import InvalidRequest
from notifications import services
from notifications.kinds import Delivery, NotificationCategory

from .conftest import SITE

pytestmark = pytest.mark.django_db

MESSAGES = NotificationCategory.MESSAGES


def send(user, category=MESSAGES) -> bool:
    return services.optional_email_send(
        user=user,
        category=category,
        subject="Bob sent you a message",
        text_body="Hello Alice,\n\nBob wrote to you.\n",
        html_body="<!doctype html><html><body><p>Bob wrote to you.</p></body></html>",
    )


def unsubscribe_link(message) -> str:
    return re.fullmatch(r"<(.+)>", message.extra_headers["List-Unsubscribe"]).group(1)


def test_an_optional_email_has_a_text_and_an_html_part(alice):
    assert send(alice) is True
    (message,) = mail.outbox
    assert message.to == [alice.email]
    assert message.subject == "Bob sent you a message"
    assert "Bob wrote to you." in message.body
    (html, mimetype) = message.alternatives[0]
    assert mimetype == "text/html" and "<p>Bob wrote to you.</p>" in html


def test_an_optional_email_has_list_id_and_one_click_unsubscribe_headers(alice):
    send(alice)
    (message,) = mail.outbox
    headers = message.message()
    assert headers["List-Id"] == "bzpeer messages <messages.bzpeer.invalid>"
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = unsubscribe_link(message)
    assert link.startswith(f"{SITE}/notifications/unsubscribe/")
    assert resolve(link.removeprefix(SITE)).url_name == "unsubscribe"


def test_the_list_id_is_stable_per_category_and_differs_between_categories(alice):
    send(alice)
    send(alice)
    send(alice, NotificationCategory.INVITATIONS)
    ids = [message.extra_headers["List-Id"] for message in mail.outbox]
    assert ids[0] == ids[1] != ids[2]


def test_both_parts_show_the_unsubscribe_link(alice):
    send(alice)
    (message,) = mail.outbox
    link = unsubscribe_link(message)
    html = message.alternatives[0][0]
    assert link in message.body
    assert f'href="{link}"' in html and "Unsubscribe" in html
    # Inside the document, not after it.
    assert html.index(link) < html.index("</body>")


def test_the_unsubscribe_token_names_the_user_and_the_category(alice):
    url = services.unsubscribe_url(user=alice, category=MESSAGES)
    token = url.rstrip("/").rsplit("/", 1)[1]
    assert services.unsubscribe_token_read(token) == (alice.pk, "messages")


@pytest.mark.parametrize(
    "token",
    [
        "nonsense",
        "",
        "W1wiY2xhaW1zXCJd:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        # Signed with the right key but for something else (another salt).
        signing.dumps([1, "claims"], salt="somewhere.else"),
        signing.dumps([1, "claims"]),
    ],
    # Named, not shown: a signed value carries its time, and the processes of a parallel run
    # must collect the same test ids.
    ids=["nonsense", "empty", "forged", "another-salt", "no-salt"],
)
def test_a_tampered_or_foreign_token_is_refused(token):
    with pytest.raises(InvalidRequest, match="damaged"):
        services.unsubscribe_token_read(token)


def test_a_token_with_an_altered_payload_is_refused(alice):
    token = services.unsubscribe_url(user=alice, category="claims").rstrip("/").rsplit("/", 1)[1]
    payload, signature = token.split(":", 1)
    forged = signing.b64_encode(f'[{alice.pk + 1},"claims"]'.encode()).decode()
    with pytest.raises(InvalidRequest):
        services.unsubscribe_token_read(f"{forged}:{signature}")
    with pytest.raises(InvalidRequest):
        services.unsubscribe_token_read(f"{payload}:{signature[:-1]}x")


@pytest.mark.parametrize("delivery", [Delivery.DAILY, Delivery.OFF])
def test_it_sends_nothing_unless_the_delivery_is_immediately(alice, delivery):
    services.notification_preference_set(user=alice, category=MESSAGES, delivery=delivery)
    assert send(alice) is False
    assert mail.outbox == []


def test_it_sends_nothing_when_email_is_switched_off_for_the_site(alice, settings):
    settings.NOTIFICATIONS_EMAIL_ENABLED = False
    assert send(alice) is False and mail.outbox == []


def test_it_sends_nothing_to_a_deactivated_account(alice):
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert send(alice) is False and mail.outbox == []


def test_a_subject_with_a_line_break_still_sends_on_one_line(alice):
    services.optional_email_send(
        user=alice,
        category=MESSAGES,
        subject="A name\nwith a break",
        text_body="x",
        html_body="<p>x</p>",
    )
    assert mail.outbox[0].subject == "A name with a break"
