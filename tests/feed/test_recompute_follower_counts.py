"""`manage.py recompute_follower_counts`: the drift it reports and fixes, and beat's task."""

from __future__ import annotations

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from feed import services as feed_services
from feed import tasks
from researchers.models import Researcher
from tests.factories import InstitutionFactory, ResearcherFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("recompute_follower_counts", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def drifted():
    """Two researchers and a topic whose stored counts are off (as a cascade from an admin
    deletion leaves them), beside a researcher and an institution whose counts are right."""
    user = UserFactory()
    right, too_high, too_low = ResearcherFactory.create_batch(3)
    topic, institution = TopicFactory(), InstitutionFactory()
    for target in (right, too_high, too_low, topic, institution):
        feed_services.follow_create(user=user, target=target)
    Researcher.objects.filter(pk=too_high.pk).update(followers_count=7)
    Researcher.objects.filter(pk=too_low.pk).update(followers_count=0)
    type(topic).objects.filter(pk=topic.pk).update(followers_count=3)
    return right, too_high, too_low, topic, institution


def test_it_reports_the_drift_without_fixing_it_in_a_dry_run(drifted):
    out = run("--dry-run")

    assert "researchers: 2 off, 0 fixed" in out
    assert "topics: 1 off, 0 fixed" in out
    assert "institutions: 0 off, 0 fixed" in out
    assert "follower counts: 3 off, 0 fixed" in out
    assert Researcher.objects.get(pk=drifted[1].pk).followers_count == 7


def test_it_fixes_the_drift_and_reports_what_it_fixed(drifted):
    out = run()

    assert "researchers: 2 off, 2 fixed" in out
    assert "topics: 1 off, 1 fixed" in out
    assert "follower counts: 3 off, 3 fixed" in out
    right, too_high, too_low, topic, institution = drifted
    for record in drifted:
        record.refresh_from_db()
        assert record.followers_count == 1, record
    assert "follower counts: no drift, 0 fixed" in run()


def test_beat_runs_the_check_through_a_thin_task(drifted):
    scheduled = settings.CELERY_BEAT_SCHEDULE["feed-follower-counts-recompute"]
    assert scheduled["task"] == tasks.follower_counts_recompute.name

    assert tasks.follower_counts_recompute() == 3
    assert tasks.follower_counts_recompute() == 0
