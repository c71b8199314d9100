"""Vouching: verified coauthors (L3+) vouch; two vouches corroborate at L3; at most five
vouches per user a month; no vouching for one's own claim."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from claims import services
from claims.models import ApprovalRoute, ClaimStatus, Vouch
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, client_for, make_member, submit

from .conftest import coauthored

pytestmark = pytest.mark.django_db


def verified_coauthor(record, email: str, moderator, *, level: int = 3):
    user = make_member(email)
    own = ResearcherFactory()
    coauthored(own, record)
    approved_claimant(user, own, level=level, moderator=moderator)
    return user


def test_two_vouches_from_verified_coauthors_corroborate_a_claim_at_l3(
    alice, record, moderator, commit
):
    claim = submit(alice, record)
    first = verified_coauthor(record, "v1@example.org", moderator)
    second = verified_coauthor(record, "v2@example.org", moderator, level=4)
    with commit():
        services.vouch_submit(voucher=first, claim=claim)
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    with commit():
        response = client_for(second).post(
            reverse("claims:vouch", args=[claim.pk]), {"note": "We wrote a paper together."}
        )
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED and claim.level == 3
    assert claim.approved_via == ApprovalRoute.VOUCHES
    assert Vouch.objects.filter(claim=claim).count() == 2


def test_the_profile_panel_offers_a_vouch_to_a_verified_coauthor(alice, record, moderator):
    from claims.selectors import claim_panel

    claim = submit(alice, record)
    voucher = verified_coauthor(record, "v1@example.org", moderator)
    assert claim_panel(researcher=record, user=voucher).vouchable_claims == [claim]
    stranger = make_member("stranger@example.org")
    assert claim_panel(researcher=record, user=stranger).vouchable_claims == []


def test_no_one_can_vouch_for_their_own_claim(record, moderator):
    # The claimant is a verified coauthor of the record through another record they hold
    # (a duplicate of themselves): still no self-vouching.
    claimant = verified_coauthor(record, "self@example.org", moderator)
    claim = submit_ignoring_approved_record(claimant, record)
    with pytest.raises(services.ClaimError, match="your own claim"):
        services.vouch_submit(voucher=claimant, claim=claim)
    response = client_for(claimant).post(reverse("claims:vouch", args=[claim.pk]), follow=True)
    assert "You cannot vouch for your own claim." in response.content.decode()
    assert not Vouch.objects.exists()


def submit_ignoring_approved_record(user, record):
    from claims.models import Claim

    return Claim.objects.create(
        researcher=record,
        user=user,
        claimant_name="Me",
        statement="Mine too.",
        presented_email=user.email,
    )


def test_only_verified_coauthors_can_vouch(alice, record, moderator):
    claim = submit(alice, record)
    unverified = make_member("plain@example.org")
    with pytest.raises(services.ClaimError, match="L3 or L4"):
        services.vouch_submit(voucher=unverified, claim=claim)
    not_coauthor = make_member("far@example.org")
    approved_claimant(not_coauthor, ResearcherFactory(), moderator=moderator)
    with pytest.raises(services.ClaimError, match="coauthors"):
        services.vouch_submit(voucher=not_coauthor, claim=claim)
    assert not Vouch.objects.exists()


def test_a_user_vouches_at_most_five_times_a_month(moderator):
    voucher = make_member("busy@example.org")
    own = ResearcherFactory()
    approved_claimant(voucher, own, moderator=moderator)
    claims = []
    for index in range(6):
        record = ResearcherFactory()
        coauthored(own, record)
        claims.append(submit(make_member(f"c{index}@example.org"), record))
    for claim in claims[:5]:
        services.vouch_submit(voucher=voucher, claim=claim)
    with pytest.raises(services.ClaimError, match="5 vouches for this month"):
        services.vouch_submit(voucher=voucher, claim=claims[5])
    assert Vouch.objects.filter(voucher=voucher).count() == 5
    # Vouches older than 30 days no longer count.
    Vouch.objects.filter(voucher=voucher).update(
        created_at=timezone.now() - datetime.timedelta(days=31)
    )
    services.vouch_submit(voucher=voucher, claim=claims[5])
    assert Vouch.objects.filter(voucher=voucher).count() == 6


def test_a_user_vouches_once_per_claim(alice, record, moderator):
    claim = submit(alice, record)
    voucher = verified_coauthor(record, "v1@example.org", moderator)
    services.vouch_submit(voucher=voucher, claim=claim)
    with pytest.raises(services.ClaimError, match="already vouched"):
        services.vouch_submit(voucher=voucher, claim=claim)


def test_vouching_for_a_claim_that_is_not_pending_is_a_404(alice, record, moderator):
    claim = submit(alice, record)
    services.claim_withdraw(claim=claim, user=alice)
    voucher = verified_coauthor(record, "v1@example.org", moderator)
    assert client_for(voucher).post(reverse("claims:vouch", args=[claim.pk])).status_code == 404


def test_a_re_check_after_a_vouch_whose_message_was_lost_is_swept_and_runs_once(
    alice, record, moderator, commit, monkeypatch
):
    from bzpeer.queueing import registered_task
    from claims.models import Claim, ModerationAction, ModerationEvent
    from claims.services.checks_queue import claim_checks_owed_send

    claim_checks_run = registered_task("claims.tasks.claim_checks_run")

    claim = submit(alice, record)
    claim_checks_run.run(claim.pk)  # the claim's first checks: left at L2 for a moderator
    first = verified_coauthor(record, "v1@example.org", moderator)
    second = verified_coauthor(record, "v2@example.org", moderator)
    with commit():
        services.vouch_submit(voucher=first, claim=claim)
    queued: list[tuple] = []
    # The broker loses the re-check of the second vouch: its message never reaches a worker.
    monkeypatch.setattr(
        claim_checks_run, "apply_async", lambda args=(), kwargs=None, **options: queued.append(args)
    )
    with commit():
        services.vouch_submit(voucher=second, claim=claim)
    assert queued == [(claim.pk,)]
    queued.clear()
    assert claim_checks_owed_send() == 0  # within the grace period its task may only be late
    Claim.objects.filter(pk=claim.pk).update(
        recheck_requested_at=timezone.now() - datetime.timedelta(minutes=3)
    )

    with commit():
        assert claim_checks_owed_send() == 1
    assert queued == [(claim.pk,)]
    claim_checks_run.run(claim.pk)
    claim_checks_run.run(claim.pk)  # the lost message turns up after all
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED and claim.approved_via == ApprovalRoute.VOUCHES
    assert claim.recheck_requested_at is None
    approvals = ModerationEvent.objects.filter(
        claim=claim,
        action__in=[ModerationAction.CLAIM_AUTO_APPROVED, ModerationAction.CLAIM_APPROVED],
    )
    assert approvals.count() == 1
    assert claim_checks_owed_send() == 0


def test_a_re_check_that_ran_leaves_the_claim_owed_nothing(alice, record, moderator, commit):
    from claims.models import Claim
    from claims.services.checks_queue import claim_checks_owed_send

    claim = submit(alice, record)
    with commit():
        services.vouch_submit(
            voucher=verified_coauthor(record, "v1@example.org", moderator), claim=claim
        )
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    assert claim.checks_completed_at is not None and claim.recheck_requested_at is None
    Claim.objects.filter(pk=claim.pk).update(
        created_at=timezone.now() - datetime.timedelta(hours=1)
    )
    assert claim_checks_owed_send() == 0
