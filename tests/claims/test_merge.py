"""Merging two researcher records (a moderation action): authorships, follows and claims move
to the survivor, counts are refreshed and the old slug redirects."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.urls import reverse

from claims import services
from claims.models import Claim, ClaimStatus, ModerationEvent
from publications.models import Authorship, WorkListedBy
from researchers.models import Follow, Researcher
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.support.people import approved_claimant, client_for, submit

pytestmark = pytest.mark.django_db


def test_merge_moves_everything_and_redirects(alice, bob, charlie, moderator, commit):
    survivor = ResearcherFactory(display_name="Zhizhen Zhong", slug="zhizhen-zhong")
    duplicate = ResearcherFactory(
        display_name="Z. Zhong", slug="z-zhong", orcid="0000-0002-1825-0097"
    )
    for _ in range(2):
        AuthorshipFactory(researcher=survivor)
    for _ in range(3):
        AuthorshipFactory(researcher=duplicate)
    Follow.objects.create(user=bob, researcher=duplicate)
    Follow.objects.create(user=charlie, researcher=duplicate)
    Follow.objects.create(user=charlie, researcher=survivor)  # follows both: kept once
    claim = approved_claimant(alice, duplicate, level=4, moderator=moderator)
    client = client_for(moderator)
    url = reverse("admin:researchers_researcher_changelist")
    selected = {
        "action": "merge_researchers",
        helpers.ACTION_CHECKBOX_NAME: [survivor.pk, duplicate.pk],
        "index": 0,
    }
    page = client.post(url, selected)
    assert page.status_code == 200 and "Keep (the survivor)" in page.content.decode()
    with commit():
        response = client.post(
            url,
            {
                **selected,
                "apply": "1",
                "survivor": survivor.pk,
                "reason": "Same person: same ORCID on the papers.",
            },
        )
    assert response.status_code == 302
    survivor.refresh_from_db()
    duplicate.refresh_from_db()
    assert duplicate.merged_into == survivor
    assert Authorship.objects.filter(researcher=survivor).count() == 5
    assert not Authorship.objects.filter(researcher=duplicate).exists()
    assert set(
        Follow.objects.filter(researcher=survivor).values_list("user__email", flat=True)
    ) == {bob.email, charlie.email}
    assert survivor.followers_count == 2
    assert survivor.works_count == 5
    claim.refresh_from_db()
    assert claim.researcher == survivor and claim.status == ClaimStatus.APPROVED
    assert survivor.claimed_by == alice and survivor.verification_level == 4
    assert duplicate.claimed_by is None
    assert survivor.orcid == "0000-0002-1825-0097" and duplicate.orcid is None
    assert "Z. Zhong" in survivor.alternate_names
    assert ModerationEvent.objects.filter(
        action="researcher_merged", researcher_id=survivor.pk, reason__startswith="Same person"
    ).exists()
    assert survivor.trust_breakdown["components"]["works_with_doi"]["input"] == 5
    # The old address answers with a permanent redirect to the survivor.
    old = client.get(reverse("researcher-profile", args=["z-zhong"]))
    assert old.status_code == 301 and old["Location"] == reverse(
        "researcher-profile", args=["zhizhen-zhong"]
    )


def test_merge_moves_open_claims_and_keeps_one_per_user(alice, moderator):
    survivor, duplicate = ResearcherFactory(), ResearcherFactory()
    submit(alice, survivor)
    submit(alice, duplicate)
    services.researcher_merge(
        source=duplicate, survivor=survivor, moderator=moderator, reason="dup"
    )
    assert list(
        Claim.objects.filter(researcher=survivor)
        .values_list("status", flat=True)
        .order_by("status")
    ) == ["pending", "withdrawn"]


def test_merge_moves_the_works_the_sources_orcid_record_lists_once(moderator):
    survivor, duplicate = ResearcherFactory(), ResearcherFactory(orcid="0000-0002-1825-0097")
    listed_by_both, listed_by_duplicate = WorkFactory(), WorkFactory()
    for work, researcher in [
        (listed_by_both, survivor),
        (listed_by_both, duplicate),
        (listed_by_duplicate, duplicate),
    ]:
        WorkListedBy.objects.create(
            work=work, researcher=researcher, origin="orcid", origin_id=f"{researcher.pk}:1"
        )

    services.researcher_merge(
        source=duplicate, survivor=survivor, moderator=moderator, reason="dup"
    )

    assert sorted(WorkListedBy.objects.values_list("work_id", "researcher_id")) == sorted(
        [(listed_by_both.pk, survivor.pk), (listed_by_duplicate.pk, survivor.pk)]
    )
    event = ModerationEvent.objects.get(action="researcher_merged")
    assert event.details["listed_works"] == 1


def test_merge_refuses_records_with_different_orcids(moderator):
    a = ResearcherFactory(orcid="0000-0002-1825-0097")
    b = ResearcherFactory(orcid="0000-0001-5109-3700")
    with pytest.raises(services.ClaimError, match="different ORCID"):
        services.researcher_merge(source=a, survivor=b, moderator=moderator, reason="dup")
    assert not Researcher.objects.filter(merged_into__isnull=False).exists()


def test_merge_refuses_records_with_two_different_claimants(alice, bob, moderator):
    a, b = ResearcherFactory(), ResearcherFactory()
    approved_claimant(alice, a, moderator=moderator)
    approved_claimant(bob, b, moderator=moderator)
    with pytest.raises(services.ClaimError, match="different approved claimants"):
        services.researcher_merge(source=a, survivor=b, moderator=moderator, reason="dup")


def test_the_merge_action_needs_exactly_two_records(moderator):
    records = [ResearcherFactory() for _ in range(3)]
    response = client_for(moderator).post(
        reverse("admin:researchers_researcher_changelist"),
        {
            "action": "merge_researchers",
            helpers.ACTION_CHECKBOX_NAME: [r.pk for r in records],
            "index": 0,
        },
        follow=True,
    )
    assert "Select exactly two records to merge." in response.content.decode()
    assert not Researcher.objects.filter(merged_into__isnull=False).exists()
