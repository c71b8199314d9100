"""After approval only the claimant edits tagline, homepage, links and "Open to collaborate",
and flags works as "not mine" (a split request a moderator resolves)."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.urls import reverse

from claims.models import SplitRequest, SplitRequestStatus
from publications.models import Authorship

from .conftest import client_for
from .helpers import approved_claimant, submit

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
