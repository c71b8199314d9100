"""Collaborator suggestions (discovery.selectors.suggestions): who is suggested to whom, why,
and who never is (coauthors, conflicts of interest, blocks either way, whoever would refuse an
invitation, merged and unclaimed records)."""

from __future__ import annotations

import pytest

from collaboration import services as collaboration_services
from discovery.models import ResearcherEmbedding
from discovery.selectors.suggestions import suggestions_for
from discovery.vectors import vector_to_bytes
from researchers.models import Researcher
from tests.collaboration.factories import invite
from tests.factories import AffiliationFactory, InstitutionFactory

from .builders import claimed, edges_refreshed, unclaimed, work_by


def suggested(user) -> list[str]:
    return [s.researcher.slug for s in suggestions_for(user).suggestions]


def reasons(user) -> dict[str, str]:
    return {s.researcher.slug: s.reason for s in suggestions_for(user).suggestions}


def test_it_suggests_people_two_steps_away_on_her_topics_and_citing_her(alice, web):
    assert set(suggested(alice)) == {"dave-twostep", "erin-topical", "frank-citer"}


def test_each_suggestion_says_why_from_its_strongest_signal(alice, web):
    why = reasons(alice)
    assert why["dave-twostep"] == "1 of your coauthors has written with them"
    assert why["erin-topical"] == "You both write about Graph neural networks"
    assert why["frank-citer"] == "They cited you 4 times"


def test_it_never_suggests_her_coauthors_herself_or_unclaimed_records(alice, web):
    slugs = suggested(alice)
    assert "gina-coauthor" not in slugs
    assert alice.record.slug not in slugs
    assert web["yann"].slug not in slugs


def test_it_never_suggests_a_merged_record(alice, web):
    Researcher.objects.filter(pk=web["dave"].record.pk).update(merged_into=web["erin"].record)
    assert "dave-twostep" not in suggested(alice)


def test_a_conflict_of_interest_excludes_both_ways(alice, web):
    dave = web["dave"]
    assert "dave-twostep" in suggested(alice)
    assert alice.record.slug in suggested(dave)
    institution = InstitutionFactory(name="Wonderland University")
    AffiliationFactory(researcher=alice.record, institution=institution, start_year=2020)
    AffiliationFactory(researcher=dave.record, institution=institution, start_year=2021)
    assert "dave-twostep" not in suggested(alice)
    assert alice.record.slug not in suggested(dave)


def test_a_recent_joint_work_of_any_size_is_a_conflict_and_a_coauthorship(alice, web):
    # A 150-author work adds no coauthor edge, but its authors have written together.
    crowd = [unclaimed(f"Crowd Member{i}") for i in range(148)]
    work_by(alice.record, web["erin"].record, *crowd, year=2024)
    assert "erin-topical" not in suggested(alice)


@pytest.mark.parametrize("blocker", ["alice", "dave"])
def test_a_block_either_way_excludes_both_sides(alice, web, blocker):
    dave = web["dave"]
    if blocker == "alice":
        collaboration_services.block_create(blocker=alice, researcher=dave.record)
    else:
        collaboration_services.block_create(blocker=dave, researcher=alice.record)
    assert "dave-twostep" not in suggested(alice)
    assert alice.record.slug not in suggested(dave)


def test_it_leaves_out_who_accepts_no_invitations(alice, web):
    collaboration_services.collaboration_settings_update(user=web["erin"], who_may_invite="nobody")
    collaboration_services.collaboration_settings_update(
        user=web["frank"], who_may_invite="coauthors"
    )
    assert suggested(alice) == ["dave-twostep"]


def test_it_leaves_out_who_declined_her_invitation_lately(alice, web):
    erin = web["erin"]
    invitation = invite(alice, erin)
    collaboration_services.invitation_decline(user=erin, invitation_id=invitation.pk)
    assert "erin-topical" not in suggested(alice)


def test_it_leaves_out_who_she_already_invited(alice, web):
    invite(alice, web["frank"])
    assert "frank-citer" not in suggested(alice)


def test_open_to_collaborate_comes_first_then_the_score(alice, web):
    xavier = Researcher.objects.get(display_name="Xavier Unclaimed")
    second = unclaimed("Second Link")
    lena = claimed("Lena Closed", open_to_collaborate=False)
    work_by(alice.record, second)
    work_by(second, lena.record)
    work_by(xavier, lena.record)
    edges_refreshed(alice.record, second, xavier, lena.record)
    ranked = suggestions_for(alice).suggestions
    scores = {s.researcher.slug: s.score for s in ranked}
    assert scores["lena-closed"] > scores["dave-twostep"]
    assert [s.researcher.slug for s in ranked][-1] == "lena-closed"
    assert ranked[-1].reason == "2 of your coauthors have written with them"


def test_closeness_in_meaning_suggests_and_explains(alice, web):
    ivan, judy = claimed("Ivan Near"), claimed("Judy Far")
    for record, vector in (
        (alice.record, [1.0, 0.0, 0.0]),
        (ivan.record, [0.9, 0.1, 0.0]),
        (judy.record, [0.0, 0.0, 1.0]),
    ):
        ResearcherEmbedding.objects.create(
            researcher=record,
            model_name="test-model",
            works_count=1,
            dimensions=3,
            vector=vector_to_bytes(vector),
        )
    why = reasons(alice)
    assert why["ivan-near"] == "Your work and theirs are close in meaning"
    assert "judy-far" not in why


def test_a_user_without_an_approved_claim_gets_no_suggestions(charlie, web):
    found = suggestions_for(charlie)
    assert found.record is None
    assert found.suggestions == []


def test_bob_never_sees_alices_suggestions_and_sees_his_own(alice, verified_person, web):
    bob = verified_person("bob")
    assert suggested(bob) == []
    link = unclaimed("Bobs Coauthor")
    henry = claimed("Henry Bobsfriend")
    work_by(bob.record, link)
    work_by(link, henry.record)
    edges_refreshed(bob.record, link, henry.record)
    assert suggested(bob) == ["henry-bobsfriend"]
    assert "henry-bobsfriend" not in suggested(alice)
