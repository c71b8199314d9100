"""The invitation rule for many recipients at once (collaboration.selectors.invite_refusals):
the same verdict as invite_refusal, one recipient at a time, on each reason the rule has, and
the same number of queries for 1 and 20 recipients.

Pending invitations and the quota are not part of the rule (the service checks them on the
rows it locks), so they have no case here."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from collaboration import services
from collaboration.models import Invitation, WhoMayInvite
from collaboration.selectors.access import invite_refusal, invite_refusals, verified_record_of
from graph.models import CoauthorEdge
from researchers.models import Researcher
from tests.factories import ResearcherFactory

from .factories import invite, others

pytestmark = pytest.mark.django_db


def _coauthor_edge(a: Researcher, b: Researcher) -> None:
    low, high = sorted((a.pk, b.pk))
    CoauthorEdge.objects.create(
        researcher_a_id=low, researcher_b_id=high, joint_works_count=1, weight=1
    )


def _declined(sender, recipient, *, days_ago: int) -> None:
    invitation = invite(sender, recipient)
    services.invitation_decline(user=recipient, invitation_id=invitation.pk)
    Invitation.objects.filter(pk=invitation.pk).update(
        responded_at=timezone.now() - datetime.timedelta(days=days_ago)
    )


def _merged(bob) -> Researcher:
    Researcher.objects.filter(pk=bob.record.pk).update(merged_into=ResearcherFactory())
    return Researcher.objects.get(pk=bob.record.pk)


# Each case: arrange the state, then (sender, recipient record), and the words of the verdict
# (None: alice may invite).
CASES = {
    "a visitor": (lambda a, b, m: (AnonymousUser(), b.record), "Claim this author entity first"),
    "an unclaimed record": (lambda a, b, m: (a, ResearcherFactory()), "has not claimed"),
    "a merged record": (lambda a, b, m: (a, _merged(b)), "has not claimed"),
    "herself": (lambda a, b, m: (a, a.record), "You cannot invite yourself."),
    "a suspended sender": (
        lambda a, b, m: (
            services.messaging_suspend(moderator=m, user_id=a.pk, reason="spam") or a,
            b.record,
        ),
        "suspended your messaging",
    ),
    "blocked by the recipient": (
        lambda a, b, m: (services.block_create(blocker=b, researcher=a.record) or a, b.record),
        "This researcher is unavailable.",
    ),
    "blocking the recipient": (
        lambda a, b, m: (services.block_create(blocker=a, researcher=b.record) or a, b.record),
        "This researcher is unavailable.",
    ),
    "blocked and accepting nobody (the block hides the setting)": (
        lambda a, b, m: (
            services.collaboration_settings_update(user=b, who_may_invite=WhoMayInvite.NOBODY)
            or services.block_create(blocker=b, researcher=a.record)
            or a,
            b.record,
        ),
        "This researcher is unavailable.",
    ),
    "a suspended recipient": (
        lambda a, b, m: (
            services.messaging_suspend(moderator=m, user_id=b.pk, reason="spam") or a,
            b.record,
        ),
        "This researcher is unavailable.",
    ),
    "a recipient accepting nobody": (
        lambda a, b, m: (
            services.collaboration_settings_update(user=b, who_may_invite=WhoMayInvite.NOBODY) or a,
            b.record,
        ),
        "does not accept invitations",
    ),
    "coauthors only, not a coauthor": (
        lambda a, b, m: (
            services.collaboration_settings_update(user=b, who_may_invite=WhoMayInvite.COAUTHORS)
            or a,
            b.record,
        ),
        "accepts invitations from coauthors only",
    ),
    "coauthors only, a coauthor": (
        lambda a, b, m: (
            services.collaboration_settings_update(user=b, who_may_invite=WhoMayInvite.COAUTHORS)
            or _coauthor_edge(a.record, b.record)
            or a,
            b.record,
        ),
        None,
    ),
    "declined 10 days ago": (
        lambda a, b, m: (_declined(a, b, days_ago=10) or a, b.record),
        "declined your last invitation; you can invite them again from",
    ),
    "declined 91 days ago": (lambda a, b, m: (_declined(a, b, days_ago=91) or a, b.record), None),
    "nothing in the way": (lambda a, b, m: (a, b.record), None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_set_based_rule_agrees_with_the_single_one(case, alice, bob, charlie, moderator):
    arrange, expected = CASES[case]
    sender, recipient = arrange(alice, bob, moderator)
    sender_record = verified_record_of(sender)
    single = invite_refusal(
        sender=sender, sender_record=sender_record, recipient_researcher=recipient
    )
    # Among other recipients, charlie (whom nothing keeps from alice) first.
    many = invite_refusals(
        sender=sender, sender_record=sender_record, recipients=[charlie.record, recipient]
    )
    verdict = many[recipient.pk]
    if expected is None:
        assert single is None and verdict is None
    else:
        assert single is not None and verdict is not None
        assert type(verdict) is type(single)
        assert verdict.message == single.message
        assert expected in verdict.message
        assert verdict.status_code == single.status_code


def test_charlie_stays_invitable_among_refused_recipients(alice, bob, charlie):
    services.block_create(blocker=bob, researcher=alice.record)
    refusals = invite_refusals(
        sender=alice,
        sender_record=verified_record_of(alice),
        recipients=[bob.record, charlie.record, ResearcherFactory()],
    )
    assert refusals[charlie.record.pk] is None
    assert refusals[bob.record.pk] is not None
    assert len(refusals) == 3


def test_a_visitor_or_own_record_costs_no_query(alice, bob, django_assert_num_queries):
    unclaimed = ResearcherFactory()
    with django_assert_num_queries(0):
        for_visitor = invite_refusals(
            sender=AnonymousUser(), sender_record=None, recipients=[bob.record]
        )
        for_alice = invite_refusals(
            sender=alice, sender_record=alice.record, recipients=[alice.record, unclaimed]
        )
    assert for_visitor[bob.record.pk] is not None
    assert for_alice[alice.record.pk] is not None and for_alice[unclaimed.pk] is not None


@pytest.fixture
def twenty(alice):
    """Twenty recipients with every kind of verdict among them (a block, a setting each way, a
    coauthor, a cool-down) and the rest free."""
    people = others(20)
    services.block_create(blocker=people[0], researcher=alice.record)
    services.collaboration_settings_update(user=people[1], who_may_invite=WhoMayInvite.NOBODY)
    services.collaboration_settings_update(user=people[2], who_may_invite=WhoMayInvite.COAUTHORS)
    services.collaboration_settings_update(user=people[3], who_may_invite=WhoMayInvite.COAUTHORS)
    _coauthor_edge(alice.record, people[3].record)
    _declined(alice, people[4], days_ago=3)
    return [person.record for person in people]


# The settings of the sender and recipients, blocks, coauthor edges, declines: four.
QUERIES_INVITE_REFUSALS = 4


@pytest.mark.parametrize("count", [1, 20])
def test_it_runs_the_same_queries_for_1_and_20_recipients(
    count, alice, bob, twenty, django_assert_num_queries
):
    recipients = [bob.record, *twenty][:count]
    sender_record = verified_record_of(alice)
    with django_assert_num_queries(QUERIES_INVITE_REFUSALS):
        refusals = invite_refusals(sender=alice, sender_record=sender_record, recipients=recipients)
    assert len(refusals) == count
    assert set(refusals) == {r.pk for r in recipients}
    for recipient in recipients:
        single = invite_refusal(
            sender=alice, sender_record=sender_record, recipient_researcher=recipient
        )
        assert (single and single.message) == (
            refusals[recipient.pk] and refusals[recipient.pk].message
        )
    if count == 20:
        refused = sum(1 for verdict in refusals.values() if verdict is not None)
        assert refused == 4  # the block, nobody, coauthors only without an edge, the cool-down


def test_a_suspended_sender_is_refused_for_all_after_one_query(
    alice, moderator, twenty, django_assert_num_queries
):
    services.messaging_suspend(moderator=moderator, user_id=alice.pk, reason="spam")
    sender_record = verified_record_of(alice)
    with django_assert_num_queries(1):
        refusals = invite_refusals(sender=alice, sender_record=sender_record, recipients=twenty)
    assert {verdict.message for verdict in refusals.values() if verdict} == {
        "A moderator has suspended your messaging."
    }
    assert all(refusals.values())
