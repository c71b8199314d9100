"""'Download my data' (issue 28, item 9): a JSON export of everything bzpeer holds about a
user, built by a task after commit, offered through a signed link that expires.

alice and bob talk in a conversation; bob and charlie in another; each has notifications,
follows, reports and claims of their own. Nobody's export holds another person's private data,
and the link works for its owner only, and only until it expires.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from claims.services import report_submit
from collaboration import services
from collaboration.models import AccountExport
from feed.services.follows import follow_create
from notifications.services.notifications import notification_create
from notifications.services.preferences import notification_preference_set
from tests.collaboration.factories import accepted_conversation, invite
from tests.factories import TopicFactory
from tests.support.people import client_for

pytestmark = pytest.mark.django_db

EXPORT = reverse("collaboration:account-export")


@pytest.fixture
def world(alice, bob, charlie):
    """Private things of each of the three, each a marker only its owner may see."""
    with_bob = accepted_conversation(alice, bob)
    services.message_send(author=alice, conversation_id=with_bob.pk, body="ALICE-TO-BOB secret")
    services.message_send(author=bob, conversation_id=with_bob.pk, body="BOB-TO-ALICE reply")
    bob_charlie = accepted_conversation(bob, charlie)
    services.message_send(
        author=charlie, conversation_id=bob_charlie.pk, body="CHARLIE-TO-BOB private"
    )
    invite(charlie, alice, purpose="CHARLIE-INVITES-ALICE " + "to write a survey together. " * 2)
    reported = {"ALICE": bob.record, "BOB": charlie.record, "CHARLIE": alice.record}
    for user, marker in ((alice, "ALICE"), (bob, "BOB"), (charlie, "CHARLIE")):
        notification_create(
            user=user,
            category="claims",
            kind="test",
            subject=f"{marker}-NOTIFICATION",
            message=f"{marker}-NOTE-BODY",
        )
        report_submit(
            reporter=user,
            researcher=reported[marker],
            reason=f"{marker}-REPORT-REASON: this record impersonates someone I know.",
        )
        follow_create(user=user, target=TopicFactory(name=f"{marker}-TOPIC"))
    notification_preference_set(user=alice, category="messages", delivery="off")
    return with_bob


def test_an_export_holds_everything_about_its_owner(alice, world, commit):
    client = client_for(alice)
    with commit():
        client.post(EXPORT)
    data = built_after(client)
    text = json.dumps(data)
    assert data["account"]["email"] == "alice@example.org"
    assert data["claims"][0]["statement"] and data["claims"][0]["evidence_links"]
    assert "ALICE-NOTIFICATION" in text and "ALICE-REPORT-REASON" in text
    assert "ALICE-TOPIC" in text
    assert {"category": "messages", "delivery": "off"} in data["email_preferences"]
    # Her conversation with bob, both sides: she reads bob's answers in her inbox too.
    [conversation] = data["collaboration"]["conversations"]
    bodies = [message["body"] for message in conversation["messages"]]
    assert "ALICE-TO-BOB secret" in bodies and "BOB-TO-ALICE reply" in bodies
    assert conversation["with"]["name"] == "Bob Bobson"
    directions = {invitation["direction"] for invitation in data["collaboration"]["invitations"]}
    assert directions == {"sent", "received"}


def built_after(client: Client) -> dict:
    """The export through the page's link, checking the answers say private, no-store."""
    page = client.get(EXPORT)
    assert "no-store" in page["Cache-Control"] and "private" in page["Cache-Control"]
    link = re.search(r'href="(/account/export/[^"]+/)"', page.content.decode())
    assert link is not None, page.content.decode()
    download = client.get(link.group(1))
    assert download.status_code == 200
    assert download["Content-Type"] == "application/json"
    assert "attachment" in download["Content-Disposition"]
    assert "no-store" in download["Cache-Control"] and "private" in download["Cache-Control"]
    return json.loads(download.content)


@pytest.mark.parametrize("owner", ["alice", "bob", "charlie"])
def test_nobody_elses_private_data_is_in_anyones_export(owner, world, commit, request):
    user = request.getfixturevalue(owner)
    client = client_for(user)
    with commit():
        client.post(EXPORT)
    text = json.dumps(built_after(client))
    markers = {"ALICE", "BOB", "CHARLIE"} - {owner.upper()}
    for marker in markers:
        for private in ("NOTIFICATION", "NOTE-BODY", "REPORT-REASON", "TOPIC"):
            assert f"{marker}-{private}" not in text, (owner, marker, private)
    others_emails = {"alice@example.org", "bob@example.org", "charlie@example.org"} - {user.email}
    for email in others_emails:
        assert email not in text
    # Messages of conversations the owner is not in.
    if owner == "alice":
        assert "CHARLIE-TO-BOB" not in text
    if owner == "charlie":
        assert "ALICE-TO-BOB" not in text and "BOB-TO-ALICE" not in text


def test_the_link_does_not_work_for_another_user(alice, bob, world, commit):
    client = client_for(alice)
    with commit():
        client.post(EXPORT)
    link = re.search(r'href="(/account/export/[^"]+/)"', client.get(EXPORT).content.decode())
    assert link is not None
    assert client_for(bob).get(link.group(1)).status_code == 404
    assert Client().get(link.group(1)).status_code == 302  # to the login page
    assert client.get(link.group(1)).status_code == 200


def test_the_link_does_not_work_after_it_expires(alice, world, commit, settings):
    client = client_for(alice)
    with commit():
        client.post(EXPORT)
    link = re.search(r'href="(/account/export/[^"]+/)"', client.get(EXPORT).content.decode())
    assert link is not None
    AccountExport.objects.filter(user=alice).update(
        finished_at=timezone.now() - timedelta(seconds=settings.ACCOUNT_EXPORT_LINK_SECONDS + 1)
    )
    assert client.get(link.group(1)).status_code == 404
    assert 'href="/account/export/' not in client.get(EXPORT).content.decode()


def test_a_forged_or_changed_token_is_a_404(alice, world, commit):
    client = client_for(alice)
    with commit():
        client.post(EXPORT)
    link = re.search(r'href="(/account/export/([^"]+)/)"', client.get(EXPORT).content.decode())
    assert link is not None
    token = link.group(2)
    assert client.get(f"/account/export/{token[:-2]}xy/").status_code == 404
    assert client.get("/account/export/not-a-token/").status_code == 404


def test_the_task_runs_after_commit_and_not_before(alice, django_capture_on_commit_callbacks):
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client.post(EXPORT)
    assert AccountExport.objects.get(user=alice).status == "pending"
    assert len(callbacks) == 1
    callbacks[0]()
    assert AccountExport.objects.get(user=alice).status == "ready"


def test_asking_needs_a_post_with_csrf_and_a_login(alice):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(EXPORT).status_code == 403
    assert Client().post(EXPORT).status_code == 302
    assert client_for(alice).put(EXPORT).status_code == 405
    assert not AccountExport.objects.filter(user=alice).exists()


def test_asking_again_at_once_is_refused_politely(alice, commit):
    client = client_for(alice)
    with commit():
        client.post(EXPORT)
    response = client.post(EXPORT, follow=True)
    assert "only a few minutes old" in response.content.decode()
    assert AccountExport.objects.filter(user=alice).count() == 1


def test_the_account_page_links_to_the_export(alice):
    page = client_for(alice).get(reverse("claims:account")).content.decode()
    assert EXPORT in page


def test_the_sweep_deletes_expired_exports_only(alice, bob, commit, settings):
    with commit():
        services.account_export_request(user=alice)
        services.account_export_request(user=bob)
    AccountExport.objects.filter(user=alice).update(
        finished_at=timezone.now() - timedelta(seconds=settings.ACCOUNT_EXPORT_LINK_SECONDS + 1)
    )
    assert services.account_exports_delete_expired() == 1
    assert not AccountExport.objects.filter(user=alice).exists()
    assert AccountExport.objects.get(user=bob).status == "ready"
