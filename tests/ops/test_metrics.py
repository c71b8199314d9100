"""/metrics (issue 16): off unless configured, protected by a bearer token or an address list,
with request latency per view, queries per request and per database, Celery queue depth and
import and email throughput."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django_redis import get_redis_connection

from ingest.models import ImportRun
from tests.factories import ResearcherFactory

pytestmark = pytest.mark.django_db

TOKEN = "scrape-me-please"  # noqa: S105


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN
    return settings


def _scrape(client: Client) -> str:
    response = client.get(reverse("metrics"), headers={"authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def test_metrics_are_off_by_default(client):
    assert client.get(reverse("metrics")).status_code == 404


def test_a_scrape_without_the_token_is_refused(client, metrics_on):
    assert client.get(reverse("metrics")).status_code == 403
    wrong = client.get(reverse("metrics"), headers={"authorization": "Bearer wrong"})
    assert wrong.status_code == 403


def test_an_allowed_address_needs_no_token(client, settings):
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]
    assert client.get(reverse("metrics"), REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get(reverse("metrics"), REMOTE_ADDR="10.1.2.3").status_code == 403


def test_the_wrong_method_is_refused(client, metrics_on):
    response = client.post(reverse("metrics"), headers={"authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 405


def test_requests_are_timed_per_view_and_their_queries_counted(client, metrics_on):
    researcher = ResearcherFactory()
    assert client.get(reverse("researcher-profile", args=[researcher.slug])).status_code == 200

    text = _scrape(client)

    assert 'bzpeer_http_request_duration_seconds_count{method="GET",view="researcher-profile"}' in (
        text
    )
    assert 'bzpeer_db_queries_per_request_count{view="researcher-profile"}' in text
    assert 'bzpeer_db_queries_total{database="default"}' in text
    assert researcher.slug not in text  # views by name, never by path


def test_the_queue_depth_is_read_from_the_broker(client, metrics_on, settings):
    mail_queue = settings.CELERY_QUEUES_BY_WORKLOAD["mail"]
    redis = get_redis_connection("default")
    redis.delete(mail_queue)
    redis.lpush(mail_queue, b"{}", b"{}", b"{}")
    try:
        text = _scrape(client)
    finally:
        redis.delete(mail_queue)

    assert f'bzpeer_celery_queue_depth{{queue="{mail_queue}",workload="mail"}} 3.0' in text
    assert 'workload="imports"' in text and 'workload="graph"' in text


def test_import_and_email_throughput_come_from_the_database(client, metrics_on):
    ImportRun.objects.create(description="a", status="succeeded", created_count=7, chunks_done=2)
    ImportRun.objects.create(description="b", status="running", created_count=5, failed_count=1)

    text = _scrape(client)

    assert 'bzpeer_import_records_total{outcome="created"} 12.0' in text
    assert 'bzpeer_import_records_total{outcome="failed"} 1.0' in text
    assert "bzpeer_import_chunks_done_total 2.0" in text
    assert 'bzpeer_import_runs{status="running"} 1.0' in text
    assert "bzpeer_notification_digest_backlog 0.0" in text
    assert "# TYPE bzpeer_notification_emails_total counter" in text or (
        "# TYPE bzpeer_notification_emails counter" in text
    )


def test_the_follow_up_backlog_says_how_far_researchers_metrics_lag(client, metrics_on):
    from datetime import timedelta

    from django.utils import timezone

    from ingest.models import PendingFollowUp

    assert "bzpeer_import_follow_up_pending_batches 0.0" in _scrape(client)
    assert "bzpeer_import_follow_up_oldest_seconds 0.0" in _scrape(client)
    PendingFollowUp.objects.create(researcher_ids=[1, 2])
    PendingFollowUp.objects.create(researcher_ids=[3])
    PendingFollowUp.objects.filter(researcher_ids=[1, 2]).update(
        created_at=timezone.now() - timedelta(minutes=5)
    )

    text = _scrape(client)

    assert "bzpeer_import_follow_up_pending_batches 2.0" in text
    (age,) = (
        float(line.split()[1])
        for line in text.splitlines()
        if line.startswith("bzpeer_import_follow_up_oldest_seconds ")
    )
    assert 300 <= age < 360


def test_a_scrape_is_never_cached(client, metrics_on):
    response = client.get(reverse("metrics"), headers={"authorization": f"Bearer {TOKEN}"})
    assert "no-cache" in response["Cache-Control"]


def test_unfinished_digest_deliveries_are_counted_by_digest(client, metrics_on):
    from django.utils import timezone

    from notifications import services
    from notifications.kinds import Delivery, NotificationCategory
    from tests.support.people import make_member

    reader = make_member("reader@example.org")
    services.notification_preference_set(
        user=reader, category=NotificationCategory.CLAIMS, delivery=Delivery.DAILY
    )
    services.notification_create(
        user=reader, category=NotificationCategory.CLAIMS, kind="k", subject="s", message="m"
    )
    plan = services.notification_digests_plan(clock=timezone.now())

    text = _scrape(client)

    assert len(plan.pending) == 1
    assert 'bzpeer_digest_deliveries_unfinished{digest="daily-digest"} 1.0' in text


def test_each_dependency_has_a_gauge_that_is_1_while_it_answers(client, metrics_on):
    text = _scrape(client)

    for dependency in ("postgres:default", "cache", "broker"):
        assert f'bzpeer_dependency_up{{dependency="{dependency}"}} 1.0' in text


def test_an_unreachable_cache_and_broker_are_0_and_the_scrape_still_answers(client, metrics_on):
    unreachable = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    metrics_on.CELERY_BROKER_URL = unreachable
    metrics_on.CACHES = {"default": {**metrics_on.CACHES["default"], "LOCATION": unreachable}}

    text = _scrape(client)

    assert 'bzpeer_dependency_up{dependency="cache"} 0.0' in text
    assert 'bzpeer_dependency_up{dependency="broker"} 0.0' in text
    assert 'bzpeer_dependency_up{dependency="postgres:default"} 1.0' in text
