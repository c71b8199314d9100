"""Invalidation of the cached graph slices (graph.selectors.slices caches them in Redis under
a per-researcher version and a global generation)."""

from __future__ import annotations

import time
from collections.abc import Collection

from .. import keys


def graph_slices_invalidate(*, researcher_ids: Collection[int]) -> None:
    """Give these researchers a new slice version: their cached slices are never read again."""
    ids = sorted({int(i) for i in researcher_ids})
    if not ids:
        return
    version = str(time.time_ns())
    redis = keys.redis_client()
    pipe = redis.pipeline(transaction=False)
    for researcher_id in ids:
        pipe.set(
            keys.key(keys.SLICE_VERSION.format(id=researcher_id)),
            version,
            ex=keys.SLICE_VERSION_SECONDS,
        )
    pipe.execute()


def graph_slices_invalidate_all() -> None:
    """Start a new slice generation (after a rebuild): no cached slice is read again."""
    keys.redis_client().set(keys.key(keys.SLICE_GENERATION), str(time.time_ns()))
