"""Redis keys of the collaborator graph, shared by its services, selectors and tasks.

Everything goes through the default cache's Redis connection, with the cache's key prefix, so
test runs and environments sharing one Redis keep apart.
"""

from __future__ import annotations

from django.core.cache import cache
from django.db import connection
from django_redis import get_redis_connection
from redis import Redis

# What the drain applies waits in PostgreSQL (graph.models.PendingByline, PendingEdgeRefresh):
# only the flag below, which spares messages, is kept in Redis.
# Set while a drain task is queued, so a burst of import batches sends one message, not many.
EDGES_DRAIN_QUEUED = "graph:edges:drain-queued"
# Graph slices: cached under the researcher's version; a change sets a new version, and the
# rebuild a new generation, so a stale slice is never read again (it just expires).
SLICE_GENERATION = "graph:slice:generation"
SLICE_VERSION = "graph:slice:version:{id}"
SLICE = "graph:slice:{generation}:{id}:{version}"


def redis_client() -> Redis:
    return get_redis_connection("default")


# A slice lives this long at most; its version key a little longer, so an expired version can
# never bring back a slice stored under it.
SLICE_CACHE_SECONDS = 6 * 60 * 60
SLICE_VERSION_SECONDS = SLICE_CACHE_SECONDS + 600


def cache_name(name: str) -> str:
    """The name to give Django's cache API (which adds its own prefix)."""
    return f"{connection.settings_dict['NAME']}:{name}"


def key(name: str) -> str:
    """The full Redis key: the cache's prefix, then the database name, so two databases served
    by one Redis (test runs of several checkouts, a bench beside the dev site) never share
    drain flags or cached slices."""
    return cache.make_key(cache_name(name))
