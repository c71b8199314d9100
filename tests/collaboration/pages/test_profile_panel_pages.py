"""The profile's "Direct collaboration" panel: what each viewer sees, the invitation sent from
it (a form post and an htmx post), block and unblock, and the anonymous page cache."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from collaboration import services
from collaboration.models import Block, Invitation, WhoMayInvite
from researchers.models import Researcher
from tests.collaboration.pages.conftest import PURPOSE
from tests.factories import ResearcherFactory, UserFactory
from tests.support.people import client_for

pytestmark = pytest.mark.django_db


def _profile(researcher) -> str:
    return reverse("researcher-profile", args=[researcher.slug])


def _panel(page: str) -> str:
    match = re.search(r'<section class="card collab-panel".*?</section>', page, flags=re.S)
    assert match, "no collaboration panel on the page"
    return match.group(0)


def _panel_of(client: Client, researcher) -> str:
    response = client.get(_profile(researcher))
    assert response.status_code == 200
    return _panel(response.content.decode())


# --- what each viewer sees ---------------------------------------------------------------------


def test_a_visitor_is_told_to_claim_first_with_a_disabled_button(client, bob):
    panel = _panel_of(client, bob.record)

    assert "Claim this author entity first to unlock direct invitations" in panel
    assert '<span class="button" aria-disabled="true">Invite to collaborate</span>' in panel
    assert "<form" not in panel


def test_a_visitor_on_an_unclaimed_record_is_told_nobody_claimed_it(client, db):
    panel = _panel_of(client, ResearcherFactory())

    assert "Nobody has claimed this author record yet" in panel
    assert "Claim this author entity first to unlock direct invitations" in panel


def test_a_user_without_an_approved_claim_is_told_to_claim_first(newcomer, bob):
    panel = _panel_of(client_for(newcomer), bob.record)

    assert "Claim this author entity first to unlock direct invitations" in panel
    assert 'aria-disabled="true"' in panel
    assert 'name="purpose"' not in panel


def test_a_verified_researcher_on_an_unclaimed_record_is_told_it_is_unclaimed(alice_client):
    panel = _panel_of(alice_client, ResearcherFactory(display_name="Una Claimed"))

    assert "has not claimed this profile" in panel
    assert 'name="purpose"' not in panel


def test_a_record_whose_owner_accepts_nobody_says_so(alice_client, bob):
    services.collaboration_settings_update(user=bob, who_may_invite=WhoMayInvite.NOBODY)

    panel = _panel_of(alice_client, bob.record)

    assert "does not accept invitations" in panel
    assert 'name="purpose"' not in panel


def test_an_l3_claimant_sees_the_invitation_form_with_the_anchors_of_both(alice, alice_client, bob):
    panel = _panel_of(alice_client, bob.record)

    assert reverse("collaboration:invite", args=[bob.record.slug]) in panel
    assert '<select id="invite-kind" name="kind"' in panel and "Co-author a paper" in panel
    assert 'minlength="50" maxlength="1000"' in panel
    assert 'data-count-target="invite-purpose-count"' in panel
    assert "Topic of Alice Liddell" in panel and "Topic of Bob Bobson" in panel
    assert panel.count('name="works"') == 2
    assert "Block this researcher" in panel


@pytest.mark.parametrize("who_blocks", ["alice", "bob"])
def test_a_block_either_way_shows_only_unavailable(who_blocks, alice, alice_client, bob):
    blocker, blocked = (alice, bob) if who_blocks == "alice" else (bob, alice)
    services.block_create(blocker=blocker, researcher=blocked.record)

    panel = _panel_of(alice_client, bob.record)

    assert "Direct collaboration with this researcher is unavailable." in panel
    assert 'name="purpose"' not in panel
    # Alice may undo her own block; bob's stays silent (she sees the ordinary block button).
    assert ("Unblock" in panel) is (who_blocks == "alice")


def test_a_pending_invitation_shows_its_state_and_a_withdraw_button(alice_client, invitation, bob):
    panel = _panel_of(alice_client, bob.record)

    assert "Invitation pending" in panel
    assert reverse("collaboration:invitation-withdraw", args=[invitation.pk]) in panel


def test_the_recipient_of_a_pending_invitation_is_sent_to_answer_it(bob_client, invitation, alice):
    panel = _panel_of(bob_client, alice.record)

    assert "Invitation received" in panel
    assert reverse("collaboration:invitation-detail", args=[invitation.pk]) in panel


def test_an_accepted_invitation_links_to_the_conversation(alice_client, conversation, bob):
    panel = _panel_of(alice_client, bob.record)

    assert reverse("collaboration:conversation", args=[conversation.pk]) in panel


def test_the_open_to_collaborate_badge_stays_in_the_identity_card(client, bob):
    Researcher.objects.filter(pk=bob.record.pk).update(open_to_collaborate=True)

    page = client.get(_profile(bob.record)).content.decode()

    assert '<span class="badge badge-good">Open to collaborate</span>' in page
    assert page.index("Open to collaborate") < page.index("How to connect with this researcher")
    assert page.index("How to connect with this researcher") < page.index("Direct collaboration")


# --- sending the invitation --------------------------------------------------------------------


def test_the_form_post_sends_the_invitation_and_redirects_back_with_a_message(
    alice, alice_client, bob
):
    work_id = bob.record.authorships.get().work_id
    response = alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "review", "purpose": PURPOSE, "works": [work_id]},
        follow=True,
    )

    assert response.redirect_chain[-1][0] == _profile(bob.record)
    assert "Your invitation is sent to Bob Bobson" in response.content.decode()
    sent = Invitation.objects.get(sender=alice)
    assert sent.kind == "review" and sent.recipient == bob and sent.purpose == PURPOSE
    assert list(sent.anchor_works.values_list("id", flat=True)) == [work_id]


def test_an_htmx_post_answers_the_panel_fragment_with_the_message(alice, alice_client, bob):
    response = alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE},
        headers={"HX-Request": "true"},
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith("<link") and "<html" not in page
    assert "Your invitation is sent to Bob Bobson" in page and "Invitation pending" in page


def test_a_short_purpose_is_refused_with_a_message_and_nothing_sent(alice, alice_client, bob):
    response = alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": "Hello, shall we talk?"},
        headers={"HX-Request": "true"},
    )

    page = response.content.decode()
    assert "The invitation was not sent" in page and "at least 50 characters" in page
    assert not Invitation.objects.exists()


def test_an_anchor_that_the_panel_did_not_offer_is_refused(alice, alice_client, bob, charlie):
    foreign_work = charlie.record.authorships.get().work_id

    alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE, "works": [foreign_work]},
    )

    assert not Invitation.objects.exists()


def test_a_refusal_of_the_service_is_shown_as_a_message(alice, alice_client, bob):
    services.block_create(blocker=bob, researcher=alice.record)

    response = alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE},
        follow=True,
    )

    assert "unavailable" in response.content.decode()
    assert not Invitation.objects.exists()


def test_a_user_without_a_claim_cannot_invite(newcomer, bob):
    response = client_for(newcomer).post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE},
        follow=True,
    )

    assert "Claim this author entity first" in response.content.decode()
    assert not Invitation.objects.exists()


def test_inviting_requires_login_and_post(client, alice_client, bob):
    url = reverse("collaboration:invite", args=[bob.record.slug])

    assert client.post(url, {"purpose": PURPOSE}).status_code == 302
    assert alice_client.get(url).status_code == 405
    assert (
        alice_client.post(reverse("collaboration:invite", args=["nobody-here"])).status_code == 404
    )


def test_inviting_needs_the_csrf_token(alice, bob):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE},
    )

    assert response.status_code == 403
    assert not Invitation.objects.exists()


# --- block and unblock -------------------------------------------------------------------------


def test_block_and_unblock_from_the_profile_are_silent_and_return_to_it(alice, alice_client, bob):
    block_url = reverse("collaboration:block", args=[bob.record.slug])
    response = alice_client.post(block_url, {"next": _profile(bob.record)})

    assert response.status_code == 302 and response.url == _profile(bob.record)
    assert Block.objects.filter(blocker=alice, blocked=bob).exists()
    assert "Unblock" in _panel_of(alice_client, bob.record)

    alice_client.post(reverse("collaboration:unblock", args=[bob.record.slug]))

    assert not Block.objects.exists()


def test_the_block_form_refuses_an_outside_next_address(alice_client, bob):
    response = alice_client.post(
        reverse("collaboration:block", args=[bob.record.slug]), {"next": "https://evil.example/"}
    )

    assert response.url == _profile(bob.record)


def test_blocking_requires_login_post_and_a_record(client, alice_client, bob):
    url = reverse("collaboration:block", args=[bob.record.slug])

    assert client.post(url).status_code == 302 and not Block.objects.exists()
    assert alice_client.get(url).status_code == 405
    assert (
        alice_client.get(reverse("collaboration:unblock", args=[bob.record.slug])).status_code
        == 405
    )
    assert (
        alice_client.post(reverse("collaboration:block", args=["nobody-here"])).status_code == 404
    )


def test_nobody_but_the_profile_viewer_sees_the_block_button(client, alice_client, alice):
    assert "Block this researcher" not in _panel_of(client, alice.record)
    assert "Block this researcher" not in _panel_of(alice_client, alice.record)


# --- the anonymous page cache ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_profile_is_still_served_from_the_cache_to_visitors(
    client, settings, django_assert_max_num_queries
):
    settings.PROFILE_PAGE_CACHE_SECONDS = 600
    owner = UserFactory()
    record = ResearcherFactory(claimed_by=owner, verification_level=3)
    first = client.get(_profile(record))

    with django_assert_max_num_queries(1):  # the record's state, to check it has not changed
        second = client.get(_profile(record))

    assert second.content == first.content
    assert "Claim this author entity first" in _panel(second.content.decode())


@pytest.mark.django_db(transaction=True)
def test_a_signed_in_reader_gets_their_own_panel_after_a_visitor_filled_the_cache(settings, bob):
    settings.PROFILE_PAGE_CACHE_SECONDS = 600
    Client().get(_profile(bob.record))

    panel = _panel_of(client_for(bob), bob.record)

    assert "Claim this author entity first" not in panel


def test_hostile_text_in_the_panel_is_escaped(alice_client, bob):
    Researcher.objects.filter(pk=bob.record.pk).update(display_name="<script>alert(1)</script>")
    services.collaboration_settings_update(user=bob, who_may_invite=WhoMayInvite.NOBODY)

    panel = _panel_of(alice_client, bob.record)

    assert "<script>" not in panel and "&lt;script&gt;" in panel


def test_the_invitation_kind_choices_are_the_models(alice_client, bob):
    panel = _panel_of(alice_client, bob.record)

    for value in ("coauthor", "review", "talk", "data_code", "other"):
        assert f'<option value="{value}">' in panel


@pytest.mark.parametrize("next_value", ["abc", "-44", "a\x00b", "1e400", "//evil.example/x"])
def test_the_block_form_goes_back_to_the_profile_for_a_next_that_is_not_a_path(
    alice_client, bob, next_value
):
    block_url = reverse("collaboration:block", args=[bob.record.slug])
    response = alice_client.post(block_url, {"next": next_value})
    assert response.status_code == 302
    assert response["Location"] == _profile(bob.record)
