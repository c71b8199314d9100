"""/readyz (issues 16 and 29): the primary, each replica, the cache and the broker asked; 503
only when the primary failed, a degraded cache, broker or replica reported with a 200.
/healthz stays a liveness check that asks nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def test_it_is_ready_when_everything_answers(client):
    response = client.get(reverse("readyz"))

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["failed"] == [] and body["degraded"] == []
    assert body["checks"] == {"postgres:default": "ok", "cache": "ok", "broker": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_an_unreachable_broker_is_degraded_and_still_ready(client, settings):
    settings.CELERY_BROKER_URL = UNREACHABLE_REDIS

    response = client.get(reverse("readyz"))

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["failed"] == [] and body["degraded"] == ["broker"]
    assert body["checks"]["broker"].startswith("failed: ")
    assert body["checks"]["postgres:default"] == "ok"


def test_an_unreachable_cache_is_degraded_and_still_ready(client, settings):
    settings.CACHES = {
        "default": {
            **settings.CACHES["default"],
            "LOCATION": UNREACHABLE_REDIS,
        }
    }

    response = client.get(reverse("readyz"))

    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["degraded"] == ["cache"]


# The readiness view lists the databases from settings; the connection comes from the handler.
@pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")
def test_an_unreachable_replica_is_degraded_and_leaves_the_read_pool(client, settings):
    from django.db import connections

    from bzpeer import db_router

    # A second database whose server is not there (port 1), as a replica that went away.
    connections.settings["replica_9"] = {**connections.settings["default"], "PORT": "1"}
    settings.DATABASES = {**settings.DATABASES, "replica_9": connections.settings["replica_9"]}
    settings.DATABASE_REPLICAS = ["replica_9"]
    try:
        assert db_router.replicas_up(["replica_9"]) == ["replica_9"]
        response = client.get(reverse("readyz"))
        assert db_router.replicas_up(["replica_9"]) == []
    finally:
        db_router._replica_down_until.clear()
        connections["replica_9"].close()
        del connections["replica_9"]
        del connections.settings["replica_9"]

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded" and body["degraded"] == ["postgres:replica_9"]
    assert body["checks"]["postgres:default"] == "ok"


@pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")
def test_an_unreachable_primary_is_a_503_naming_it(client, settings):
    from django.db import connections

    # The primary's settings pointed at a port where nothing listens, for this request only.
    saved = connections["default"]
    connections["default"] = type(saved)({**saved.settings_dict, "PORT": "1"}, "default")
    try:
        response = client.get(reverse("readyz"))
    finally:
        connections["default"].close()
        connections["default"] = saved

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["failed"] == ["postgres:default"]


def test_liveness_asks_nothing(client, settings, django_assert_num_queries):
    settings.CELERY_BROKER_URL = UNREACHABLE_REDIS
    with django_assert_num_queries(0):
        assert client.get(reverse("healthz")).status_code == 200


def test_readiness_refuses_a_post(client):
    assert client.post(reverse("readyz")).status_code == 405
