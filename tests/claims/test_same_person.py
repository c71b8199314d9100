"""'Possibly the same person' (issue 15, item 7): the name resolver's close calls in the admin,
the two records side by side, merged or kept apart by a moderator, audited, and a pair kept
apart never proposed again."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from claims import services
from claims.models import ModerationEvent, SamePersonCandidate, SamePersonStatus
from publications.models import Authorship
from researchers.models import Follow, Researcher
from researchers.resolution import Decision, Outcome, RecordedDecision
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.support.people import client_for, two_factor_on

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:claims_samepersoncandidate_changelist"


@pytest.fixture
def moderator_with_queue(moderator):
    moderator.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["view_samepersoncandidate", "change_samepersoncandidate"]
        )
    )
    return moderator


def _close_call(record: Researcher, candidate: Researcher, **evidence) -> RecordedDecision:
    return RecordedDecision(
        origin="crossref",
        origin_id="10.1/x",
        name_key="j smith",
        display_name=record.display_name,
        researcher_id=record.pk,
        decision=Decision(
            Outcome.CLOSE_CALL,
            score=2.1,
            close_calls=(
                (
                    candidate.pk,
                    2.1,
                    {"given_names": "initials", "why_not_linked": "initials", **evidence},
                ),
            ),
        ),
    )


@pytest.fixture
def pair():
    record = ResearcherFactory(display_name="J. Smith", openalex_id=None, slug="j-smith-n1")
    existing = ResearcherFactory(display_name="John Smith", slug="john-smith")
    coauthor = ResearcherFactory(display_name="Alice <b>Ames</b>")
    AuthorshipFactory(researcher=record, work=WorkFactory(title="Name-only <i>work</i>"))
    AuthorshipFactory(researcher=existing)
    services.name_resolutions_record(
        [_close_call(record, existing, shared_coauthors=[coauthor.pk], same_institution=True)]
    )
    return SamePersonCandidate.objects.get()


def _post_action(client, action: str, candidate: SamePersonCandidate, **extra):
    return client.post(
        reverse(CHANGELIST),
        {"action": action, helpers.ACTION_CHECKBOX_NAME: [candidate.pk], "index": 0, **extra},
    )


def test_a_close_call_is_queued_once_whatever_the_order(pair) -> None:
    record, existing = pair.record, pair.candidate
    services.name_resolutions_record([_close_call(record, existing)])
    services.name_resolutions_record([_close_call(existing, record)])
    assert SamePersonCandidate.objects.count() == 1
    assert pair.status == SamePersonStatus.OPEN


def test_two_records_with_different_orcid_ids_are_never_proposed() -> None:
    one = ResearcherFactory(display_name="John Smith", orcid="0000-0002-1825-0097")
    two = ResearcherFactory(display_name="John Smith", orcid="0000-0001-5109-3700")
    services.name_resolutions_record([_close_call(one, two)])
    assert not SamePersonCandidate.objects.exists()


def test_the_queue_shows_both_records_side_by_side_escaped(moderator_with_queue, pair) -> None:
    client = client_for(moderator_with_queue)
    listing = client.get(reverse(CHANGELIST))
    assert listing.status_code == 200 and "J. Smith" in listing.content.decode()
    page = client.get(reverse("admin:claims_samepersoncandidate_change", args=[pair.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert "New record (from the name)" in body and "Existing record" in body
    assert "john-smith" in body and "j-smith-n1" in body
    assert "Alice &lt;b&gt;Ames&lt;/b&gt;" in body  # the shared coauthor, escaped
    assert "Name-only &lt;i&gt;work&lt;/i&gt;" in body
    assert "same institution: yes" in body


def test_merge_moves_the_new_record_into_the_existing_one(
    moderator_with_queue, pair, bob, commit
) -> None:
    record, existing = pair.record, pair.candidate
    Follow.objects.create(user=bob, researcher=record)
    other = ResearcherFactory(display_name="Johnny Smith")
    services.name_resolutions_record([_close_call(record, other)])
    client = client_for(moderator_with_queue)
    assert _post_action(client, "merge", pair).status_code == 200  # asks for a reason
    with commit():
        response = _post_action(client, "merge", pair, apply="1", reason="Same coauthors.")
    assert response.status_code == 302
    pair.refresh_from_db()
    record.refresh_from_db()
    assert pair.status == SamePersonStatus.MERGED and pair.decided_by == moderator_with_queue
    assert record.merged_into == existing
    assert Authorship.objects.filter(researcher=existing).count() == 2
    assert Follow.objects.filter(researcher=existing, user=bob).exists()
    # The other pair of the merged-away record has nothing left to decide.
    assert SamePersonCandidate.objects.get(candidate=other).status == SamePersonStatus.CLOSED
    event = ModerationEvent.objects.get(action="researcher_merged")
    assert event.researcher_id == existing.pk and f"#{pair.pk}" in event.reason


def test_keep_apart_is_audited_and_never_proposed_again(moderator_with_queue, pair) -> None:
    client = client_for(moderator_with_queue)
    response = _post_action(client, "keep_apart", pair, apply="1", reason="Different fields.")
    assert response.status_code == 302
    pair.refresh_from_db()
    assert pair.status == SamePersonStatus.KEPT_APART and pair.note == "Different fields."
    assert pair.record.merged_into is None
    event = ModerationEvent.objects.get(action="same_person_kept_apart")
    assert event.actor == moderator_with_queue and event.details["record"] == pair.record_id
    services.name_resolutions_record([_close_call(pair.record, pair.candidate)])
    services.name_resolutions_record([_close_call(pair.candidate, pair.record)])
    assert list(SamePersonCandidate.objects.values_list("status", flat=True)) == ["kept_apart"]


def test_a_decided_pair_cannot_be_decided_again(moderator_with_queue, pair) -> None:
    services.same_person_keep_apart(candidate=pair, moderator=moderator_with_queue)
    with pytest.raises(services.ClaimError):
        services.same_person_merge(candidate=pair, moderator=moderator_with_queue)
    assert pair.record.merged_into is None


def test_merge_is_refused_when_both_records_have_different_claimants(
    moderator_with_queue, pair, alice, bob
) -> None:
    Researcher.objects.filter(pk=pair.record_id).update(claimed_by=alice)
    Researcher.objects.filter(pk=pair.candidate_id).update(claimed_by=bob)
    client = client_for(moderator_with_queue)
    response = _post_action(client, "merge", pair, apply="1", reason="Looks the same.")
    assert response.status_code == 302
    pair.refresh_from_db()
    assert pair.status == SamePersonStatus.OPEN


def test_only_moderators_reach_the_queue(pair, alice, bob, charlie) -> None:
    # alice: a member; bob: staff without the queue's permissions; charlie: signed out.
    bob.is_staff = True
    bob.save()
    two_factor_on(bob)  # the admin requires it of staff
    assert client_for(alice).get(reverse(CHANGELIST)).status_code == 302
    assert client_for(bob).get(reverse(CHANGELIST)).status_code == 403
    assert Client().get(reverse(CHANGELIST)).status_code == 302
    response = _post_action(client_for(bob), "keep_apart", pair, apply="1", reason="x")
    assert response.status_code == 403
    pair.refresh_from_db()
    assert pair.status == SamePersonStatus.OPEN


def test_the_queue_cannot_be_added_to_or_edited_by_hand(moderator_with_queue, pair) -> None:
    client = client_for(moderator_with_queue)
    assert client.get(reverse("admin:claims_samepersoncandidate_add")).status_code == 403
    # Every field is read-only: a hand-made POST saves nothing.
    client.post(
        reverse("admin:claims_samepersoncandidate_change", args=[pair.pk]),
        {"status": "merged", "note": "edited"},
    )
    pair.refresh_from_db()
    assert pair.status == SamePersonStatus.OPEN and pair.note == ""
