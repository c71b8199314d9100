"""Readiness: /readyz answers 503 only when this process cannot serve requests at all.

/healthz (bzpeer.urls) is liveness: the process answers, nothing else is asked, so an
orchestrator never restarts every web process because a dependency blinked. /readyz asks each
dependency with a short timeout (docs/operating.md, "When a dependency fails"):

- the primary database (postgres:default): without it no request can be answered, so a failure
  is a 503 and a load balancer stops sending traffic to this process;
- each read replica (postgres:replica_N): a failure takes that replica out of this process's
  read pool for a while (bzpeer.db_router.replica_mark_down) and is reported as degraded; its
  reads go to the primary meanwhile;
- the cache (Redis: pages, counters, the sessions' front) and the Celery broker: a failure is
  reported as degraded, 200 still. Every web node shares them, so taking nodes out for them
  would take the whole site out, while the site serves without them (bzpeer.cache).

/metrics carries the same answers as bzpeer_dependency_up{dependency=...} (bzpeer.metrics).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django_redis import get_redis_connection

from .db_router import replica_mark_down

logger = logging.getLogger(__name__)

_TIMEOUT_SECONDS = 2
PRIMARY = f"postgres:{DEFAULT_DB_ALIAS}"


def _database(alias: str) -> Callable[[], None]:
    def check() -> None:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")

    return check


def _cache() -> None:
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
    checks["cache"] = _cache
    checks["broker"] = _broker
    return checks


def dependency_states() -> dict[str, str]:
    """Each dependency's state: "ok" or "failed: <error class>". A replica that failed is taken
    out of this process's read pool."""
    results: dict[str, str] = {}
    for name, check in _checks().items():
        try:
            check()
        except Exception as error:  # noqa: BLE001  # any failure means not up, and says why
            logger.warning("readiness: %s failed: %s", name, error)
            results[name] = f"failed: {type(error).__name__}"
            alias = name.removeprefix("postgres:")
            if alias in settings.DATABASE_REPLICAS:
                replica_mark_down(alias)
            if name.startswith("postgres:"):
                # A connection that failed is not kept for the next request.
                connections[alias].close_if_unusable_or_obsolete()
        else:
            results[name] = "ok"
    return results


@require_safe
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    results = dependency_states()
    failed = sorted(name for name, result in results.items() if result != "ok")
    unavailable = PRIMARY in failed
    degraded = [name for name in failed if name != PRIMARY]
    status = "unavailable" if unavailable else "degraded" if degraded else "ok"
    return JsonResponse(
        {
            "status": status,
            "failed": [PRIMARY] if unavailable else [],
            "degraded": degraded,
            "checks": results,
        },
        status=503 if unavailable else 200,
    )
