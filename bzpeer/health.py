"""Readiness: /readyz answers 200 only when this process can reach what a request needs.

/healthz (bzpeer.urls) is liveness: the process answers, nothing else is asked, so a load
balancer never restarts every web process because the database blinked. /readyz asks
PostgreSQL (the primary and each replica), Redis (cache and sessions) and the Celery broker,
each with a short timeout, and answers 503 naming what failed, so a load balancer or an
orchestrator stops sending traffic to this process until it is ready again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django_redis import get_redis_connection

logger = logging.getLogger(__name__)

_TIMEOUT_SECONDS = 2


def _database(alias: str) -> Callable[[], None]:
    def check() -> None:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")

    return check


def _redis() -> None:
    get_redis_connection("default").ping()


def _broker() -> None:
    if settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        client = redis.Redis.from_url(
            settings.CELERY_BROKER_URL,
            socket_timeout=_TIMEOUT_SECONDS,
            socket_connect_timeout=_TIMEOUT_SECONDS,
        )
        try:
            client.ping()
        finally:
            client.close()
        return
    # Any other broker: kombu's own connection, tried once.
    from .celery import app

    with app.connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, timeout=_TIMEOUT_SECONDS)


def _checks() -> dict[str, Callable[[], None]]:
    checks = {f"postgres:{alias}": _database(alias) for alias in settings.DATABASES}
    checks["redis"] = _redis
    checks["broker"] = _broker
    return checks


@require_safe
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    results: dict[str, str] = {}
    for name, check in _checks().items():
        try:
            check()
        except Exception as error:  # noqa: BLE001  # any failure means not ready, and says why
            logger.warning("readiness: %s failed: %s", name, error)
            results[name] = f"failed: {type(error).__name__}"
        else:
            results[name] = "ok"
    failed = sorted(name for name, result in results.items() if result != "ok")
    return JsonResponse(
        {"status": "unavailable" if failed else "ok", "failed": failed, "checks": results},
        status=503 if failed else 200,
    )
