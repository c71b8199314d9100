"""The collaboration settings page (who may invite you) and the account deletion page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from collaboration import services
from collaboration.models import CollaborationSettings, Invitation, Message
from researchers.models import Researcher
from tests.collaboration.pages.conftest import invite
from tests.support.people import client_for, reauthenticated

pytestmark = pytest.mark.django_db

SETTINGS = reverse("collaboration:settings")
DELETE = reverse("collaboration:account-delete")


def test_the_settings_page_shows_the_three_choices_with_the_default(alice_client):
    page = alice_client.get(SETTINGS).content.decode()

    assert "Who may invite you" in page
    for label in ("Verified researchers", "Coauthors only", "Nobody"):
        assert label in page
    assert 'value="verified" required id="id_who_may_invite_0" checked' in page or (
        'value="verified"' in page and "checked" in page
    )


def test_saving_a_choice_keeps_it(alice, alice_client):
    response = alice_client.post(SETTINGS, {"who_may_invite": "coauthors"})

    assert response.status_code == 302 and response.url == SETTINGS
    assert CollaborationSettings.objects.get(user=alice).who_may_invite == "coauthors"


def test_an_unknown_choice_is_refused(alice, alice_client):
    assert alice_client.post(SETTINGS, {"who_may_invite": "everyone"}).status_code == 400
    assert (
        not CollaborationSettings.objects.filter(user=alice)
        .exclude(who_may_invite="verified")
        .exists()
    )


def test_the_settings_page_requires_login_and_csrf(client, alice, alice_client):
    assert client.get(SETTINGS).status_code == 302
    assert alice_client.put(SETTINGS).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(SETTINGS, {"who_may_invite": "nobody"}).status_code == 403


def test_the_account_page_links_to_the_settings(alice_client):
    page = alice_client.get(reverse("claims:account")).content.decode()

    assert SETTINGS in page and DELETE in page


def test_the_deletion_page_explains_what_happens(alice_client):
    page = alice_client.get(DELETE).content.decode()

    assert "Deleted researcher" in page and "alice@example.org" in page


def test_a_wrong_email_deletes_nothing(alice, alice_client):
    response = reauthenticated(alice_client).post(DELETE, {"email": "someone@example.org"})

    assert response.status_code == 400
    assert get_user_model().objects.filter(pk=alice.pk).exists()


def test_deleting_the_account_erases_messages_releases_the_claim_and_logs_out(
    alice, bob, charlie, alice_client, conversation
):
    services.message_send(author=alice, conversation_id=conversation.pk, body="My secret plan")
    services.message_send(author=bob, conversation_id=conversation.pk, body="Bob keeps this")
    pending = invite(alice, charlie)

    response = reauthenticated(alice_client).post(
        DELETE, {"email": "Alice@Example.org "}, follow=True
    )

    assert response.redirect_chain[-1][0] == reverse("home")
    assert "Your account is deleted" in response.content.decode()
    assert "Log in" in response.content.decode()
    assert not Message.objects.filter(body="My secret plan").exists()
    assert Message.objects.filter(body="Bob keeps this").exists()
    assert Invitation.objects.get(pk=pending.pk).status == "withdrawn"
    assert Researcher.objects.get(pk=alice.record.pk).claimed_by_id is None
    assert alice_client.get(reverse("collaboration:inbox")).status_code == 302


def test_the_deletion_page_requires_login_and_csrf(client, alice, alice_client):
    assert client.get(DELETE).status_code == 302
    assert client.post(DELETE, {"email": "alice@example.org"}).status_code == 302
    assert alice_client.delete(DELETE).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(DELETE, {"email": "alice@example.org"}).status_code == 403
    assert get_user_model().objects.filter(pk=alice.pk).exists()


def test_an_account_without_email_confirms_with_the_box(newcomer):
    get_user_model().objects.filter(pk=newcomer.pk).update(email="")
    newcomer.refresh_from_db()
    client = reauthenticated(client_for(newcomer))

    assert client.post(DELETE, {}).status_code == 400
    assert client.post(DELETE, {"confirm": "on"}).status_code == 302
    assert not get_user_model().objects.filter(pk=newcomer.pk).exists()
