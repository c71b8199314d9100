"""The claims API: POST /api/v1/claims/, GET of one's own claims, POST .../withdraw/."""

from __future__ import annotations

import pytest
from django.urls import reverse

from claims.models import Claim, ClaimStatus
from tests.support.people import approved_claimant, reauthenticated, submit

pytestmark = pytest.mark.django_db


def body(record, user, **extra):
    return {
        "researcher": record.slug,
        "claimant_name": "Alice Liddell",
        "statement": "I am the author of these works, at Wonderland.",
        "presented_email": user.email,
        "evidence_links": ["https://wonderland.example.edu/~alice"],
        **extra,
    }


def test_a_user_opens_a_claim_and_its_checks_run(alice, alice_client, record, commit):
    with commit():
        response = alice_client.post(
            reverse("api:claim-list"), body(record, alice), content_type="application/json"
        )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["researcher"] == record.slug and data["status"] == "pending" and data["level"] == 2
    claim_id = data["id"]
    detail = alice_client.get(reverse("api:claim-detail", args=[claim_id])).json()
    assert {check["kind"] for check in detail["checks"]} == {
        "orcid",
        "institution_email",
        "name",
        "vouches",
    }


def test_the_list_holds_only_the_users_own_claims(alice, bob, alice_client, record):
    submit(alice, record)
    from tests.factories import ResearcherFactory

    submit(bob, ResearcherFactory())
    results = alice_client.get(reverse("api:claim-list")).json()["results"]
    assert [r["researcher"] for r in results] == [record.slug]


def test_withdraw_through_the_api(alice, alice_client, record):
    claim = submit(alice, record)
    response = reauthenticated(alice_client).post(reverse("api:claim-withdraw", args=[claim.pk]))
    assert response.status_code == 200 and response.json()["status"] == "withdrawn"
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.WITHDRAWN


def test_a_claimed_record_answers_409_with_a_clear_message(
    alice, bob, bob_client, record, moderator
):
    approved_claimant(alice, record, moderator=moderator)
    response = bob_client.post(
        reverse("api:claim-list"), body(record, bob), content_type="application/json"
    )
    assert response.status_code == 409
    assert "already been claimed by another user" in response.json()["detail"]


def test_bad_input_is_a_400(alice, alice_client, record):
    response = alice_client.post(
        reverse("api:claim-list"),
        body(record, alice, statement="short"),
        content_type="application/json",
    )
    assert response.status_code == 400 and "statement" in response.json()
    response = alice_client.post(
        reverse("api:claim-list"),
        body(record, alice, researcher="nobody"),
        content_type="application/json",
    )
    assert response.status_code == 404
    assert not Claim.objects.exists()


def test_the_api_needs_a_signed_in_user(client, record):
    assert client.get(reverse("api:claim-list")).status_code == 403
    assert (
        client.post(reverse("api:claim-list"), {}, content_type="application/json").status_code
        == 403
    )


def test_withdraw_refuses_get(alice, alice_client, record):
    claim = submit(alice, record)
    assert alice_client.get(reverse("api:claim-withdraw", args=[claim.pk])).status_code == 405


def test_the_researcher_json_carries_trust_and_verification(client, record):
    data = client.get(reverse("api:researcher-detail", args=[record.slug])).json()
    assert {"verification_level", "trust_score"} <= set(data)
