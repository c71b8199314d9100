"""Stored follower counts against the follow rows after every path that removes or moves
follows (issue 24, item 2): each test takes the path through its real service and then asks
the recompute, in report-only mode, whether any stored count is off."""

from __future__ import annotations

import pytest
from django.urls import reverse

from claims import services as claim_services
from collaboration import services as collaboration_services
from feed import services as feed_services
from feed.models import InstitutionFollow, TopicFollow
from feed.services.follower_counts import follower_counts_recompute
from publications.models import Topic
from researchers.models import Follow, Institution, Researcher
from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def assert_counts_match_follow_rows() -> None:
    drift = follower_counts_recompute(fix=False)
    assert drift.total_off == 0, drift.off
    # And the figures themselves, for the records these tests make.
    for model, follows, column in (
        (Researcher, Follow, "researcher_id"),
        (Topic, TopicFollow, "topic_id"),
        (Institution, InstitutionFollow, "institution_id"),
    ):
        for record in model.objects.all():
            counted = follows.objects.filter(**{column: record.pk}).count()
            assert record.followers_count == counted, (model.__name__, record.pk)


def follow_everything(user, *targets) -> None:
    for target in targets:
        assert feed_services.follow_create(user=user, target=target)


def test_deleting_an_account_brings_down_every_count_it_followed():
    leaving, staying = UserFactory(), UserFactory()
    researchers = ResearcherFactory.create_batch(3)
    topic, institution = TopicFactory(), InstitutionFactory()
    follow_everything(leaving, *researchers, topic, institution)
    follow_everything(staying, researchers[0], topic)

    collaboration_services.account_delete(user=leaving)

    assert not Follow.objects.filter(user_id=leaving.pk).exists()
    assert [r.followers_count for r in Researcher.objects.order_by("pk")] == [1, 0, 0]
    topic.refresh_from_db()
    institution.refresh_from_db()
    assert (topic.followers_count, institution.followers_count) == (1, 0)
    assert_counts_match_follow_rows()


def test_deleting_the_account_of_an_approved_claimant_keeps_counts_exact(alice, bob):
    record = ResearcherFactory()
    AuthorshipFactory(researcher=record)
    claim_services.claim_approve(
        claim=claim_services.claim_submit(
            user=alice,
            researcher=record,
            claimant_name="Alice",
            statement="These are my papers.",
            presented_email=alice.email,
            evidence_links=[],
        ),
        moderator=None,
        level=3,
    )
    follow_everything(alice, ResearcherFactory())
    follow_everything(bob, record)

    collaboration_services.account_delete(user=alice)

    assert_counts_match_follow_rows()


def test_unfollowing_keeps_counts_exact():
    user = UserFactory()
    researcher, topic, institution = ResearcherFactory(), TopicFactory(), InstitutionFactory()
    follow_everything(user, researcher, topic, institution)
    for target in (researcher, topic, institution):
        assert feed_services.follow_delete(user=user, target=target)
        assert not feed_services.follow_delete(user=user, target=target)

    assert_counts_match_follow_rows()


def test_a_merge_moves_the_follows_and_their_count(moderator):
    source, survivor = ResearcherFactory(), ResearcherFactory()
    both, only_source, only_survivor = UserFactory(), UserFactory(), UserFactory()
    follow_everything(both, source, survivor)
    follow_everything(only_source, source)
    follow_everything(only_survivor, survivor)

    claim_services.researcher_merge(
        source=source, survivor=survivor, moderator=moderator, reason="Same person."
    )

    survivor.refresh_from_db()
    assert survivor.followers_count == 3
    assert_counts_match_follow_rows()


def test_an_accepted_split_leaves_the_follows_and_their_count(alice, moderator):
    record = ResearcherFactory()
    authorship = AuthorshipFactory(researcher=record)
    AuthorshipFactory(researcher=record)
    claim = claim_services.claim_submit(
        user=alice,
        researcher=record,
        claimant_name="Alice",
        statement="These are my papers.",
        presented_email=alice.email,
        evidence_links=[],
    )
    claim_services.claim_approve(claim=claim, moderator=moderator, level=4)
    follow_everything(UserFactory(), record)
    record.refresh_from_db()
    split = claim_services.split_request_submit(user=alice, researcher=record, work=authorship.work)

    claim_services.split_request_resolve(split_request=split, moderator=moderator, accept=True)

    record.refresh_from_db()
    assert record.followers_count == 1
    assert_counts_match_follow_rows()


def test_a_suspended_user_keeps_following_and_counting(moderator):
    suspended = UserFactory()
    researcher = ResearcherFactory()
    follow_everything(suspended, researcher)

    collaboration_services.messaging_suspend(
        moderator=moderator, user_id=suspended.pk, reason="Spam."
    )

    # A suspension stops their messages, not their reading: the follow and its count stay.
    researcher.refresh_from_db()
    assert researcher.followers_count == 1
    assert_counts_match_follow_rows()


def test_a_deactivated_user_keeps_following_and_counting():
    deactivated = UserFactory()
    researcher = ResearcherFactory()
    follow_everything(deactivated, researcher)

    deactivated.is_active = False
    deactivated.save(update_fields=["is_active"])

    # Deactivation is reversible ("unselect this instead of deleting accounts"): follows stay.
    researcher.refresh_from_db()
    assert researcher.followers_count == 1
    assert_counts_match_follow_rows()


def test_deleting_users_from_the_admin_brings_down_the_counts_they_added(admin_client):
    researcher, topic = ResearcherFactory(), TopicFactory()
    one, another, staying = UserFactory(), UserFactory(), UserFactory()
    for user in (one, another, staying):
        follow_everything(user, researcher, topic)
    url = reverse("admin:users_user_changelist")

    response = admin_client.post(
        url, {"action": "delete_selected", "_selected_action": [one.pk, another.pk], "post": "yes"}
    )

    assert response.status_code == 302
    researcher.refresh_from_db()
    topic.refresh_from_db()
    assert (researcher.followers_count, topic.followers_count) == (1, 1)
    assert_counts_match_follow_rows()


def test_deleting_a_user_on_its_admin_page_brings_down_the_counts_it_added(admin_client):
    researcher = ResearcherFactory()
    leaving = UserFactory()
    follow_everything(leaving, researcher)

    response = admin_client.post(
        reverse("admin:users_user_delete", args=[leaving.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert Researcher.objects.get(pk=researcher.pk).followers_count == 0
    assert_counts_match_follow_rows()
