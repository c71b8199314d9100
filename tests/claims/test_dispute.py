"""Disputes: any signed-in user reports a claimed profile as impersonation; the report enters
the moderation queue, the profile shows a notice and the trust score counts it."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse

from claims import services
from claims.models import ClaimStatus, Report, ReportStatus
from claims.trust import OPEN_DISPUTE_POINTS
from tests.support.people import approved_claimant, client_for, submit

pytestmark = pytest.mark.django_db


def panel(researcher, user) -> str:
    request = RequestFactory().get("/")
    request.user = user
    return render_to_string(
        "claims/_profile_claim_panel.html",
        {"researcher": researcher, "user": user, "request": request},
    )


def test_a_dispute_lowers_trust_and_shows_a_notice(
    alice, bob, bob_client, record, moderator, commit
):
    with commit():
        approved_claimant(alice, record, level=4, moderator=moderator)
    record.refresh_from_db()
    before = record.trust_score
    with commit():
        response = bob_client.post(
            reverse("claims:report", args=[record.slug]),
            {"reason": "I know her: this is not her account."},
        )
    assert response.status_code == 302
    record.refresh_from_db()
    assert record.trust_score == before + OPEN_DISPUTE_POINTS
    assert record.trust_breakdown["components"]["open_disputes"] == {
        "input": 1,
        "points": OPEN_DISPUTE_POINTS,
    }
    assert "impersonation report" in panel(record, bob)
    queue = client_for(moderator).get(reverse("admin:claims_report_changelist")).content.decode()
    assert "I know her" in queue


def test_dismissing_a_dispute_restores_trust(alice, bob, record, moderator, commit):
    with commit():
        approved_claimant(alice, record, level=4, moderator=moderator)
    record.refresh_from_db()
    before = record.trust_score
    with commit():
        report = services.report_submit(reporter=bob, researcher=record, reason="Not her.")
        services.report_resolve(
            report=report, moderator=moderator, uphold=False, note="Checked her staff page."
        )
    record.refresh_from_db()
    assert record.trust_score == before
    assert "impersonation report" not in panel(record, bob)


def test_upholding_a_dispute_revokes_the_claim(alice, bob, record, moderator, commit):
    claim = approved_claimant(alice, record, level=4, moderator=moderator)
    report = services.report_submit(reporter=bob, researcher=record, reason="Not her.")
    with commit():
        client_for(moderator).post(
            reverse("admin:claims_report_changelist"),
            {
                "action": "uphold",
                "_selected_action": [report.pk],
                "index": 0,
                "apply": "1",
                "reason": "Confirmed by the university.",
            },
        )
    report.refresh_from_db()
    claim.refresh_from_db()
    record.refresh_from_db()
    assert report.status == ReportStatus.UPHELD
    assert claim.status == ClaimStatus.REVOKED
    assert record.claimed_by is None


def test_only_claimed_profiles_can_be_reported(bob, record):
    with pytest.raises(services.ClaimError, match="Only a claimed profile"):
        services.report_submit(reporter=bob, researcher=record, reason="Who is this?")


def test_the_claimant_cannot_report_their_own_profile(alice, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    with pytest.raises(services.ClaimError, match="your own profile"):
        services.report_submit(reporter=alice, researcher=record, reason="Testing.")


def test_one_open_report_per_user_and_profile(alice, bob, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    services.report_submit(reporter=bob, researcher=record, reason="Not her.")
    with pytest.raises(services.ClaimError, match="already reported"):
        services.report_submit(reporter=bob, researcher=record, reason="Not her, again.")
    assert Report.objects.count() == 1


def test_the_panel_shows_each_visitor_what_they_can_do(
    alice, bob, record, moderator, django_user_model
):
    from django.contrib.auth.models import AnonymousUser

    assert "Log in to claim" in panel(record, AnonymousUser())
    assert "Claim this record" in panel(record, bob)
    claim = submit(alice, record)
    assert "Your claim is pending" in panel(record, alice)
    assert "A claim on this record is under review." in panel(record, bob)
    services.claim_approve(claim=claim, moderator=moderator, level=4)
    record.refresh_from_db()
    claimed = panel(record, bob)
    assert (
        "Claimed" in claimed and "Verification L4" in claimed and "Report impersonation" in claimed
    )
    assert "Edit your profile" in panel(record, alice)
