"""After approval only the claimant edits tagline, homepage, links and "Open to collaborate",
and flags works as "not mine" (a split request a moderator resolves)."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.urls import reverse

from claims import services
from claims.models import ModerationEvent, SplitRequest, SplitRequestStatus
from publications.models import Authorship
from tests.support.people import approved_claimant, client_for, reauthenticated, submit

pytestmark = pytest.mark.django_db

EDIT = {
    "tagline": "Optical networks for ML systems",
    "homepage": "zhong.example.org",
    "links": "Lab | https://lab.example.org\nhttps://example.org/cv.pdf",
    "open_to_collaborate": "on",
}


def test_the_claimant_edits_the_profile(alice, alice_client, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    type(record).objects.filter(pk=record.pk).update(open_to_collaborate=False)
    assert alice_client.get(reverse("claims:profile-edit", args=[record.slug])).status_code == 200
    response = alice_client.post(reverse("claims:profile-edit", args=[record.slug]), EDIT)
    assert response.status_code == 302
    record.refresh_from_db()
    assert record.tagline == "Optical networks for ML systems"
    assert record.homepage == "https://zhong.example.org"
    assert record.links == [
        {"label": "Lab", "url": "https://lab.example.org"},
        {"label": "https://example.org/cv.pdf", "url": "https://example.org/cv.pdf"},
    ]
    assert record.open_to_collaborate is True


def test_nobody_else_can_edit_the_profile(alice, bob_client, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    assert bob_client.get(reverse("claims:profile-edit", args=[record.slug])).status_code == 404
    assert (
        bob_client.post(reverse("claims:profile-edit", args=[record.slug]), EDIT).status_code == 404
    )
    record.refresh_from_db()
    assert record.tagline == ""


def test_a_pending_claimant_cannot_edit_the_profile_yet(alice, alice_client, record):
    submit(alice, record)
    assert (
        alice_client.post(reverse("claims:profile-edit", args=[record.slug]), EDIT).status_code
        == 404
    )


def test_a_bad_link_is_refused(alice, alice_client, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    response = alice_client.post(
        reverse("claims:profile-edit", args=[record.slug]),
        {**EDIT, "links": "Lab | javascript:alert(1)"},
    )
    assert response.status_code == 400
    record.refresh_from_db()
    assert record.links == []


def test_the_claimant_flags_a_work_as_not_mine_and_a_moderator_detaches_it(
    alice, alice_client, record, moderator
):
    approved_claimant(alice, record, moderator=moderator)
    work = record.authorships.first().work
    response = alice_client.post(reverse("claims:work-not-mine", args=[record.slug, work.pk]))
    assert response.status_code == 302
    split = SplitRequest.objects.get(researcher=record, work=work)
    assert split.status == SplitRequestStatus.OPEN
    assert (
        "Flagged as not mine"
        in alice_client.get(reverse("claims:profile-edit", args=[record.slug])).content.decode()
    )
    client_for(moderator).post(
        reverse("admin:claims_splitrequest_changelist"),
        {"action": "accept", helpers.ACTION_CHECKBOX_NAME: [split.pk], "index": 0},
    )
    split.refresh_from_db()
    record.refresh_from_db()
    assert split.status == SplitRequestStatus.ACCEPTED
    assert not Authorship.objects.filter(researcher=record, work=work).exists()
    assert record.works_count == 1


def test_only_the_claimant_can_flag_a_work(alice, bob_client, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    work = record.authorships.first().work
    assert (
        bob_client.post(reverse("claims:work-not-mine", args=[record.slug, work.pk])).status_code
        == 404
    )
    assert not SplitRequest.objects.exists()


PHISHING = {
    "tagline": "Official account: verify your grant at the link",
    "homepage": "https://phishing.example.net/login",
    "links": "Grant portal | https://phishing.example.net/grants",
    "open_to_collaborate": "",
}


def _profile_text(client, record) -> str:
    return client.get(reverse("researcher-profile", args=[record.slug])).content.decode()


@pytest.mark.parametrize("how", ["revoked", "withdrawn"])
def test_what_a_claimant_wrote_goes_when_the_record_loses_them(
    how, alice, alice_client, client, record, moderator, commit
):
    claim = approved_claimant(alice, record, moderator=moderator)
    alice_client.post(reverse("claims:profile-edit", args=[record.slug]), PHISHING)
    assert "phishing.example.net" in _profile_text(client, record)

    with commit():
        if how == "revoked":
            services.claim_revoke(claim=claim, moderator=moderator, reason="Impersonation.")
        else:
            reauthenticated(alice_client).post(reverse("claims:claim-withdraw", args=[claim.pk]))

    record.refresh_from_db()
    assert record.claimed_by is None
    assert (record.tagline, record.homepage, record.links) == ("", "", [])
    assert record.open_to_collaborate is True  # the unclaimed record's own default
    page = _profile_text(client, record)
    assert "phishing.example.net" not in page
    assert "verify your grant" not in page
    # Moderators still see what was shown, in the audit log entry of the decision.
    event = ModerationEvent.objects.filter(claim=claim).order_by("-id").first()
    assert event.action == f"claim_{how}"
    removed = event.details["claimant_content_removed"]
    assert removed["homepage"] == "https://phishing.example.net/login"
    assert removed["tagline"] == PHISHING["tagline"]
    assert removed["links"] == [
        {"label": "Grant portal", "url": "https://phishing.example.net/grants"}
    ]
    assert removed["open_to_collaborate"] is False


def test_withdrawing_a_pending_claim_leaves_the_record_as_it_was(alice, alice_client, record):
    type(record).objects.filter(pk=record.pk).update(
        tagline="Set before any claim", open_to_collaborate=False
    )
    claim = submit(alice, record)
    claim.refresh_from_db()
    assert claim.status == "pending"
    reauthenticated(alice_client).post(reverse("claims:claim-withdraw", args=[claim.pk]))
    record.refresh_from_db()
    assert (record.tagline, record.open_to_collaborate) == ("Set before any claim", False)
