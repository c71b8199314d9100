"""/readyz (issue 16): PostgreSQL, Redis and the broker asked; 503 naming what failed.
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
    assert body["status"] == "ok" and body["failed"] == []
    assert body["checks"] == {"postgres:default": "ok", "redis": "ok", "broker": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_an_unreachable_broker_is_a_503_naming_it(client, settings):
    settings.CELERY_BROKER_URL = UNREACHABLE_REDIS

    response = client.get(reverse("readyz"))

    assert response.status_code == 503
    body = response.json()
    assert body["failed"] == ["broker"]
    assert body["checks"]["broker"].startswith("failed: ")
    assert body["checks"]["postgres:default"] == "ok"


def test_an_unreachable_cache_is_a_503_naming_redis(client, settings):
    settings.CACHES = {
        "default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": UNREACHABLE_REDIS}
    }

    response = client.get(reverse("readyz"))

    assert response.status_code == 503
    assert response.json()["failed"] == ["redis"]


# The readiness view lists the databases from settings; the connection comes from the handler.
@pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")
def test_an_unreachable_database_is_a_503_naming_it(client, settings):
    from django.db import connections

    # A second database whose server is not there (port 1), as a replica that went away.
    connections.settings["broken"] = {**connections.settings["default"], "PORT": "1"}
    settings.DATABASES = {**settings.DATABASES, "broken": connections.settings["broken"]}
    try:
        response = client.get(reverse("readyz"))
    finally:
        connections["broken"].close()
        del connections["broken"]
        del connections.settings["broken"]

    assert response.status_code == 503
    assert response.json()["failed"] == ["postgres:broken"]


def test_liveness_asks_nothing(client, settings, django_assert_num_queries):
    settings.CELERY_BROKER_URL = UNREACHABLE_REDIS
    with django_assert_num_queries(0):
        assert client.get(reverse("healthz")).status_code == 200


def test_readiness_refuses_a_post(client):
    assert client.post(reverse("readyz")).status_code == 405
