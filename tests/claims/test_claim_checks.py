"""Automatic checks: ORCID match and institution email approve at L3; a contested record and
uncorroborated claims wait for a moderator at L2; each result is stored on the claim."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from claims import checks, services
from claims.models import (
    ApprovalRoute,
    CheckKind,
    CheckOutcome,
    Claim,
    ClaimStatus,
    ModerationAction,
    ModerationEvent,
)
from claims.tasks import claim_checks_run
from notifications.models import Notification
from researchers.models import VerificationLevel
from tests.factories import ResearcherFactory
from tests.support.people import make_member, reauthenticated, submit

from .conftest import record_at_institution
from .orcid_fake import orcid_record, orcid_sign_in

pytestmark = pytest.mark.django_db


def outcomes(claim: Claim) -> dict[str, str]:
    return dict(claim.checks.values_list("kind", "outcome"))


def test_automatic_approval_by_orcid(alice, alice_client, orcid_app, testdata_dir, commit):
    record = ResearcherFactory(display_name="Three releasecandidate1", orcid="0000-0002-7319-2192")
    orcid_sign_in(
        reauthenticated(alice_client),
        orcid_record(testdata_dir, "orcid-model_record-full-3.0.json"),
        process="connect",
    )
    with commit():
        response = alice_client.post(
            reverse("claims:claim-start", args=[record.slug]),
            {
                "claimant_name": "Three releasecandidate1",
                "statement": "This is my ORCID record and these are my works.",
                "evidence_links": "",
                "presented_email": alice.email,
            },
        )
    assert response.status_code == 302
    claim = Claim.objects.get(user=alice, researcher=record)
    assert claim.status == ClaimStatus.APPROVED
    assert claim.level == VerificationLevel.CORROBORATED
    assert claim.approved_via == ApprovalRoute.ORCID
    assert outcomes(claim)[CheckKind.ORCID] == CheckOutcome.PASSED
    assert outcomes(claim)[CheckKind.NAME] == CheckOutcome.PASSED
    record.refresh_from_db()
    assert record.claimed_by == alice and record.verification_level == 3
    assert ModerationEvent.objects.filter(
        claim_id=claim.pk, action=ModerationAction.CLAIM_AUTO_APPROVED, actor_label="system"
    ).exists()
    # The claimant is told, in the app and by email.
    assert Notification.objects.filter(user=alice, kind="claim_approved").exists()
    assert any("approved" in message.subject for message in mail.outbox)


def test_a_connected_orcid_of_someone_else_does_not_approve(
    alice, alice_client, orcid_app, testdata_dir, commit
):
    record = ResearcherFactory(orcid="0000-0001-5109-3700")
    orcid_sign_in(
        reauthenticated(alice_client),
        orcid_record(testdata_dir, "orcid-model_record-full-3.0.json"),
        process="connect",
    )
    with commit():
        claim = submit(alice, record)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING and claim.level == VerificationLevel.CLAIMED
    assert outcomes(claim)[CheckKind.ORCID] == CheckOutcome.FAILED


def test_automatic_approval_by_institution_email(record, commit):
    record_at_institution(record, "wonderland.edu")
    claimant = make_member("alice@wonderland.edu", display_name="Alice Liddell")
    with commit():
        claim = submit(claimant, record)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert claim.approved_via == ApprovalRoute.INSTITUTION_EMAIL
    assert claim.level == 3
    check = claim.checks.get(kind=CheckKind.INSTITUTION_EMAIL)
    assert check.outcome == CheckOutcome.PASSED and "wonderland.edu" in check.detail


def test_automatic_approval_by_institution_email_at_a_subdomain(record, commit):
    record_at_institution(record, "wonderland.edu")
    claimant = make_member("alice@cs.wonderland.edu", display_name="Alice Liddell")
    with commit():
        claim = submit(claimant, record)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert claim.approved_via == ApprovalRoute.INSTITUTION_EMAIL


def test_a_lookalike_domain_is_not_an_institution_email(record, commit):
    record_at_institution(record, "wonderland.edu")
    claimant = make_member("alice@notwonderland.edu", display_name="Alice Liddell")
    with commit():
        claim = submit(claimant, record)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    assert outcomes(claim)[CheckKind.INSTITUTION_EMAIL] == CheckOutcome.FAILED


def test_an_institution_email_that_is_no_longer_verified_does_not_approve(record, commit):
    record_at_institution(record, "wonderland.edu")
    claimant = make_member("alice@wonderland.edu", display_name="Alice Liddell")
    claim = submit(claimant, record)
    claimant.emailaddress_set.update(verified=False)
    claim_checks_run(claim.pk)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    assert outcomes(claim)[CheckKind.INSTITUTION_EMAIL] == CheckOutcome.FAILED


def test_without_corroboration_a_claim_waits_at_l2_for_a_moderator(alice, record, commit):
    with commit():
        claim = submit(alice, record)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    assert claim.level == VerificationLevel.CLAIMED
    assert claim.checks_completed_at is not None
    assert claim.moderation_note == services.MODERATION_NOTE_UNCORROBORATED
    assert outcomes(claim) == {
        CheckKind.ORCID: CheckOutcome.NOT_APPLICABLE,
        CheckKind.INSTITUTION_EMAIL: CheckOutcome.NOT_APPLICABLE,
        CheckKind.NAME: CheckOutcome.PASSED,
        CheckKind.VOUCHES: CheckOutcome.FAILED,
    }
    record.refresh_from_db()
    assert record.claimed_by is None and record.verification_level == VerificationLevel.IDENTIFIED


def test_an_institution_email_match_goes_to_moderation_when_another_claim_is_open(
    bob, record, commit
):
    record_at_institution(record, "wonderland.edu")
    with commit():
        first = submit(bob, record)
    claimant = make_member("alice@wonderland.edu", display_name="Alice Liddell")
    with commit():
        second = submit(claimant, record)
    first.refresh_from_db()
    second.refresh_from_db()
    assert second.status == first.status == ClaimStatus.PENDING
    assert second.moderation_note == first.moderation_note == services.MODERATION_NOTE_CONTESTED
    assert outcomes(second)[CheckKind.INSTITUTION_EMAIL] == CheckOutcome.PASSED


def test_the_claimant_sees_each_check_result_on_the_account_page(
    alice, alice_client, record, commit
):
    with commit():
        submit(alice, record)
    page = alice_client.get(reverse("claims:account")).content.decode()
    assert "claim pending" in page
    for label in ("ORCID match", "Institution email", "Name match", "Coauthor vouches"):
        assert label in page
    assert "Not applicable" in page and "Passed" in page


def test_the_checks_of_a_claim_that_is_gone_or_decided_do_nothing(alice, record):
    claim_checks_run(987654)  # returns quietly
    claim = submit(alice, record)
    services.claim_withdraw(claim=claim, user=alice)
    claim_checks_run(claim.pk)
    assert not claim.checks.exists()


# The pure check functions ---------------------------------------------------------------------


def test_email_domain_candidates_stop_before_the_top_level_domain():
    assert checks.email_domain_candidates("a@cs.Wonderland.EDU") == [
        "cs.wonderland.edu",
        "wonderland.edu",
    ]
    assert checks.email_domain_candidates("a@localhost") == []


@pytest.mark.parametrize(
    ("claimant", "record", "passes"),
    [
        ("Zhizhen Zhong", "Zhizhen Zhong", True),
        ("Zhong Zhizhen", "Zhizhen Zhong", True),
        ("zhízhen  ZHONG", "Zhizhen Zhong", True),
        ("Z. Zhong", "Zhizhen Zhong", False),
        ("Zhenhua Zhu", "Zhizhen Zhong", False),
    ],
)
def test_name_matching(claimant, record, passes):
    result = checks.name_check(claimant_names=[claimant], record_names=[record])
    assert result.passed is passes
    assert 0 <= result.score <= 100


def test_orcid_ids_are_compared_in_their_bare_form():
    result = checks.orcid_check(
        connected_orcids=["0000-0002-1825-009x"],
        record_orcid="https://orcid.org/0000-0002-1825-009X",
    )
    assert result.passed
