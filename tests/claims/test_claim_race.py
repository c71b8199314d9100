"""Two users claim the same record at the same moment (threads, real PostgreSQL): exactly one
claim ends approved, the other gets a clear message. Two moderators merge the same pair of
records at the same moment: one merge happens, the other is refused (no deadlock)."""

from __future__ import annotations

import pytest

from claims import services
from claims.models import Claim, ClaimStatus
from researchers.models import Researcher
from tests.factories import ResearcherFactory
from tests.support.concurrency import run_together
from tests.support.people import make_member, submit

from .conftest import record_at_institution

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_users_claim_and_get_approved_at_the_same_moment_only_one_wins(moderator):
    record = Researcher.objects.create(
        slug="contested", display_name="Contested Person", openalex_id="A77"
    )
    alice = make_member("alice@example.org", display_name="Contested Person")
    bob = make_member("bob@example.org", display_name="Contested Person")

    def claim_and_approve(user):
        def call():
            claim = submit(user, record)
            return services.claim_approve(claim=claim, moderator=moderator, level=4)

        return call

    for _ in range(3):  # a few rounds: the interleavings differ from run to run
        results = run_together(claim_and_approve(alice), claim_and_approve(bob))
        approved = Claim.objects.filter(researcher=record, status=ClaimStatus.APPROVED)
        assert approved.count() == 1
        errors = [r for r in results if isinstance(r, Exception)]
        assert len(errors) == 1, results
        assert isinstance(errors[0], services.ClaimError)
        assert "already been claimed by another user" in str(errors[0])
        record.refresh_from_db()
        assert record.claimed_by_id == approved.get().user_id
        # Reset for the next round.
        services.claim_revoke(claim=approved.get(), moderator=moderator, reason="next round")


def test_two_institutional_claims_checked_at_the_same_moment_both_go_to_a_moderator():
    record = Researcher.objects.create(slug="twins", display_name="Twin Person", openalex_id="A78")
    record_at_institution(record, "wonderland.edu")
    alice = make_member("alice@wonderland.edu", display_name="Twin Person")
    bob = make_member("bob@wonderland.edu", display_name="Twin Person")
    # Created directly so that neither claim's checks run before both exist.
    first, second = (
        Claim.objects.create(
            researcher=record,
            user=user,
            claimant_name="Twin Person",
            statement="Mine.",
            presented_email=user.email,
        )
        for user in (alice, bob)
    )
    results = run_together(
        lambda: services.claim_checks_run(claim_id=first.pk),
        lambda: services.claim_checks_run(claim_id=second.pk),
    )
    assert not any(isinstance(r, Exception) for r in results), results
    statuses = set(Claim.objects.filter(researcher=record).values_list("status", "moderation_note"))
    assert statuses == {(ClaimStatus.PENDING, services.MODERATION_NOTE_CONTESTED)}
    record.refresh_from_db()
    assert record.claimed_by_id is None


def test_two_merges_of_one_pair_in_opposite_directions_merge_it_once(moderator):
    def merge(source, survivor):
        def call():
            return services.researcher_merge(
                source=source, survivor=survivor, moderator=moderator, reason="duplicates"
            )

        return call

    for _ in range(3):  # a few rounds: the interleavings differ from run to run
        a, b = ResearcherFactory(), ResearcherFactory()
        results = run_together(merge(a, b), merge(b, a))
        # Neither is a deadlock (an OperationalError): the second to lock waits, then finds
        # the pair merged and is refused.
        errors = [r for r in results if isinstance(r, Exception)]
        assert len(errors) == 1, results
        assert isinstance(errors[0], services.ClaimError)
        assert "already merged" in str(errors[0])
        merged = Researcher.objects.filter(pk__in=[a.pk, b.pk], merged_into__isnull=False)
        assert merged.count() == 1
