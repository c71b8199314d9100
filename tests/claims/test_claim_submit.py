"""Claim submission rules, and the rules the database enforces by itself."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from claims import services
from claims.models import Claim, ClaimStatus
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, make_member, reauthenticated, submit

pytestmark = pytest.mark.django_db


def test_it_requires_a_verified_email(record):
    unverified = make_member("new@example.org", verified=False)
    with pytest.raises(services.ClaimError, match="Verify your email"):
        submit(unverified, record)


def test_it_refuses_to_present_an_email_that_is_not_verified(alice, record):
    alice.emailaddress_set.create(email="alice@wonderland.edu", verified=False)
    with pytest.raises(services.ClaimError, match="verified email"):
        submit(alice, record, email="alice@wonderland.edu")


def test_it_rejects_a_second_claimant_of_a_claimed_record(alice, bob, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    with pytest.raises(services.ClaimConflict, match="already been claimed"):
        submit(bob, record)


def test_it_allows_one_open_claim_per_user_and_record(alice, record):
    submit(alice, record)
    with pytest.raises(services.ClaimError, match="already have an open claim"):
        submit(alice, record)


def test_a_user_holds_at_most_one_approved_record(alice, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    with pytest.raises(services.ClaimError, match="already holds an approved record"):
        submit(alice, ResearcherFactory())


def test_a_merged_record_cannot_be_claimed(alice):
    merged = ResearcherFactory(merged_into=ResearcherFactory())
    with pytest.raises(services.ClaimError, match="merged"):
        submit(alice, merged)


def test_the_database_allows_one_approved_claimant_per_record(alice, bob, record):
    Claim.objects.create(
        researcher=record,
        user=alice,
        status="approved",
        level=3,
        claimant_name="A",
        statement="s",
        presented_email=alice.email,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.create(
            researcher=record,
            user=bob,
            status="approved",
            level=3,
            claimant_name="B",
            statement="s",
            presented_email=bob.email,
        )


def test_the_database_allows_one_approved_record_per_user(alice, record):
    Claim.objects.create(
        researcher=record,
        user=alice,
        status="approved",
        level=3,
        claimant_name="A",
        statement="s",
        presented_email=alice.email,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.create(
            researcher=ResearcherFactory(),
            user=alice,
            status="approved",
            level=4,
            claimant_name="A",
            statement="s",
            presented_email=alice.email,
        )


def test_the_database_allows_one_open_claim_per_user_and_record(alice, record):
    Claim.objects.create(
        researcher=record, user=alice, claimant_name="A", statement="s", presented_email=alice.email
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.create(
            researcher=record,
            user=alice,
            claimant_name="A",
            statement="s",
            presented_email=alice.email,
        )


def test_the_database_refuses_an_approved_claim_below_l3(alice, record):
    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.create(
            researcher=record,
            user=alice,
            status="approved",
            level=2,
            claimant_name="A",
            statement="s",
            presented_email=alice.email,
        )


def test_claims_can_be_withdrawn(alice, alice_client, record):
    claim = submit(alice, record)
    response = reauthenticated(alice_client).post(reverse("claims:claim-withdraw", args=[claim.pk]))
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.WITHDRAWN
    submit(alice, record)  # a new claim can be opened afterwards


def test_withdrawing_an_approved_claim_gives_the_record_up(alice, record, moderator):
    claim = approved_claimant(alice, record, level=4, moderator=moderator)
    services.claim_withdraw(claim=claim, user=alice)
    record.refresh_from_db()
    assert record.claimed_by is None and record.verification_level == 1


def test_the_claim_form_submits_a_claim_and_shows_the_profile_panel_state(
    alice, alice_client, record, commit
):
    form_page = alice_client.get(reverse("claims:claim-start", args=[record.slug]))
    assert form_page.status_code == 200
    assert alice.email in form_page.content.decode()
    with commit():
        response = alice_client.post(
            reverse("claims:claim-start", args=[record.slug]),
            {
                "claimant_name": "Alice Liddell",
                "statement": "I am the author of these two works.",
                "evidence_links": "https://wonderland.example.edu/~alice\nhttps://example.org/cv.pdf",
                "presented_email": alice.email,
            },
        )
    assert response.status_code == 302 and response["Location"] == reverse("claims:account")
    claim = Claim.objects.get(user=alice)
    assert claim.evidence_links == [
        "https://wonderland.example.edu/~alice",
        "https://example.org/cv.pdf",
    ]


def test_the_claim_form_refuses_a_bad_evidence_link(alice, alice_client, record):
    response = alice_client.post(
        reverse("claims:claim-start", args=[record.slug]),
        {
            "claimant_name": "Alice Liddell",
            "statement": "I am the author of these two works.",
            "evidence_links": "javascript:alert(1)",
            "presented_email": alice.email,
        },
    )
    assert response.status_code == 400
    assert not Claim.objects.exists()


def test_the_claim_form_shows_a_clear_message_when_the_record_was_taken(
    alice, bob, bob_client, record, moderator
):
    approved_claimant(alice, record, moderator=moderator)
    response = bob_client.post(
        reverse("claims:claim-start", args=[record.slug]),
        {
            "claimant_name": "Bob",
            "statement": "I am the author of these two works.",
            "presented_email": "bob@example.org",
        },
        follow=True,
    )
    assert "This record has already been claimed by another user." in response.content.decode()
    assert not Claim.objects.filter(user=bob).exists()
