"""Prometheus metrics at /metrics (prometheus_client's text format).

- bzpeer_http_request_duration_seconds{view,method}: latency per view (the URL's name);
- bzpeer_db_queries_per_request{view} and bzpeer_db_queries_total{database}: queries per
  request, and on which database (the primary or a replica, bzpeer.db_router);
- bzpeer_celery_queue_depth{workload,queue}: messages waiting on each queue, read from the
  broker (Redis LLEN) at scrape time;
- the collectors named in METRICS_COLLECTORS, asked at scrape time too (import and email
  throughput, counted from the database, so workers on other machines count as well).

Off unless METRICS_TOKEN or METRICS_ALLOWED_IPS is set: then the middleware is not installed
and /metrics answers 404.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import redis
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .health import dependency_states
from .http import client_address

logger = logging.getLogger(__name__)

REQUEST_SECONDS = Histogram(
    "bzpeer_http_request_duration_seconds",
    "Time from the request entering Django to the response leaving it, per view.",
    ["view", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
QUERIES_PER_REQUEST = Histogram(
    "bzpeer_db_queries_per_request",
    "Database queries a request ran, per view.",
    ["view"],
    buckets=(0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89),
)
QUERIES = Counter(
    "bzpeer_db_queries_total",
    "Database queries run by requests, per database alias.",
    ["database"],
)


def metrics_enabled() -> bool:
    return bool(settings.METRICS_TOKEN or settings.METRICS_ALLOWED_IPS)


class _QueryCounter:
    """A connection's execute_wrapper: counts each statement on its database."""

    def __init__(self) -> None:
        self.by_alias: dict[str, int] = {}

    def wrapper_for(self, alias: str) -> Callable[..., Any]:
        def count(execute: Callable[..., Any], *args: Any) -> Any:
            self.by_alias[alias] = self.by_alias.get(alias, 0) + 1
            return execute(*args)

        return count


def _view_name(request: HttpRequest) -> str:
    match = request.resolver_match
    # The URL's name (bounded: one per route), never the path (unbounded: one per record).
    return match.view_name if match else "<unmatched>"


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        if not metrics_enabled():
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        counter = _QueryCounter()
        started = time.perf_counter()
        with ExitStack() as stack:
            for alias in settings.DATABASES:
                stack.enter_context(connections[alias].execute_wrapper(counter.wrapper_for(alias)))
            response = self.get_response(request)
        view = _view_name(request)
        REQUEST_SECONDS.labels(view=view, method=request.method).observe(
            time.perf_counter() - started
        )
        QUERIES_PER_REQUEST.labels(view=view).observe(sum(counter.by_alias.values()))
        for alias, count in counter.by_alias.items():
            QUERIES.labels(database=alias).inc(count)
        return response


# kombu's Redis transport keeps a queue's messages of priority p > 0 in a list of its own.
_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITY_STEPS = (3, 6, 9)


class CeleryQueueDepthCollector(Collector):
    """Messages waiting on each workload's queue, read from the broker at scrape time."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauge = GaugeMetricFamily(
            "bzpeer_celery_queue_depth",
            "Messages waiting on a Celery queue (not yet taken by a worker).",
            labels=["workload", "queue"],
        )
        if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
            return
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2)
        try:
            with client.pipeline(transaction=False) as pipeline:
                for queue in settings.CELERY_QUEUES_BY_WORKLOAD.values():
                    pipeline.llen(queue)
                    for step in _PRIORITY_STEPS:
                        pipeline.llen(f"{queue}{_PRIORITY_SEPARATOR}{step}")
                lengths = pipeline.execute()
        except redis.RedisError:
            logger.warning("metrics: the broker did not answer the queue lengths")
            return
        finally:
            client.close()
        per_queue = 1 + len(_PRIORITY_STEPS)
        for index, (workload, queue) in enumerate(settings.CELERY_QUEUES_BY_WORKLOAD.items()):
            depth = sum(lengths[index * per_queue : (index + 1) * per_queue])
            gauge.add_metric([workload, queue], depth)
        yield gauge


# 0 when the replica has replayed all the WAL it received; otherwise how long ago the last
# transaction it replayed committed on the primary. NULL on a server that is not a replica.
_REPLICA_LAG_SQL = """
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN NULL
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())
END
"""


class ReplicaLagCollector(Collector):
    """How far each read replica (DATABASE_REPLICA_URLS) is behind the primary, read from it at
    scrape time. A user who wrote reads the primary for DATABASE_REPLICA_STICKY_SECONDS: the
    window must stay above this lag (docs/scaling.md)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauge = GaugeMetricFamily(
            "bzpeer_database_replica_lag_seconds",
            "Seconds a read replica's replay is behind the primary (0: all it received).",
            labels=["replica"],
        )
        for alias in settings.DATABASE_REPLICAS:
            try:
                with connections[alias].cursor() as cursor:
                    cursor.execute(_REPLICA_LAG_SQL)
                    (lag,) = cursor.fetchone()
            except DatabaseError:
                logger.warning("metrics: replica %s did not answer its lag", alias)
                continue
            if lag is not None:
                gauge.add_metric([alias], float(lag))
        yield gauge


class DependencyCollector(Collector):
    """1 when a dependency answered at scrape time, else 0: the same checks as /readyz
    (bzpeer.health), the primary, each replica, the cache and the broker."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauge = GaugeMetricFamily(
            "bzpeer_dependency_up",
            "Whether a dependency answered this process at scrape time (1) or not (0).",
            labels=["dependency"],
        )
        for name, state in dependency_states().items():
            gauge.add_metric([name], 1.0 if state == "ok" else 0.0)
        yield gauge


def _scrape_registry() -> CollectorRegistry:
    if settings.METRICS_MULTIPROCESS_DIR:
        # Each gunicorn worker writes its figures to files there; the scrape adds them up.
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = CollectorRegistry()
        registry.register(_Forward(REGISTRY))
    registry.register(CeleryQueueDepthCollector())
    registry.register(DependencyCollector())
    if settings.DATABASE_REPLICAS:
        registry.register(ReplicaLagCollector())
    for path in settings.METRICS_COLLECTORS:
        registry.register(_Guarded(import_string(path)()))
    return registry


class _Guarded(Collector):
    """An app's collector that reads the database: with the database unreachable the scrape
    still answers (with bzpeer_dependency_up saying so), without that collector's figures."""

    def __init__(self, collector: Collector) -> None:
        self.collector = collector

    def collect(self) -> Iterator[Any]:
        try:
            families = list(self.collector.collect())
        except DatabaseError as error:
            logger.warning("metrics: %s failed: %s", type(self.collector).__name__, error)
            return
        yield from families


class _Forward(Collector):
    """This process's own metrics (the default registry), inside a scrape's registry."""

    def __init__(self, source: CollectorRegistry) -> None:
        self.source = source

    def collect(self) -> Iterator[Any]:
        yield from self.source.collect()


def _allowed(request: HttpRequest) -> bool:
    if settings.METRICS_TOKEN:
        authorization = request.headers.get("Authorization", "")
        if hmac.compare_digest(authorization.encode(), f"Bearer {settings.METRICS_TOKEN}".encode()):
            return True
    return bool(settings.METRICS_ALLOWED_IPS) and (
        client_address(request) in settings.METRICS_ALLOWED_IPS
    )


@require_safe
@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not metrics_enabled():
        return HttpResponse("Not found.\n", status=404, content_type="text/plain")
    if not _allowed(request):
        return HttpResponse(
            "Metrics need the bearer token or an allowed address.\n",
            status=403,
            content_type="text/plain",
        )
    return HttpResponse(generate_latest(_scrape_registry()), content_type=CONTENT_TYPE_LATEST)
