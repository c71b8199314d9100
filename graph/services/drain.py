"""The edge drain: queueing it after a change committed, and applying what waits (pending
bylines from import batches, researcher ids from merges) until nothing is left."""

from __future__ import annotations

import logging
from collections.abc import Collection

from django.conf import settings
from django.db import connection, transaction

from bzpeer.queueing import registered_task
from researchers.services import researcher_pages_invalidate

from .. import keys
from .bylines import coauthor_bylines_apply, coauthor_bylines_record
from .edges import EDGES_LOCK_KEY, coauthor_edges_refresh, researcher_ids_with_coauthors
from .slice_cache import graph_slices_invalidate

logger = logging.getLogger(__name__)

DRAIN_TASK = "graph.tasks.coauthor_edges_drain"

# A queued drain that never ran (its message lost) no longer blocks new ones after this.
DRAIN_QUEUED_SECONDS = 10 * 60


def coauthor_edges_mark_pending(
    *, researcher_ids: Collection[int], refresh_researchers: bool = False
) -> bool:
    """After a change committed: invalidate these researchers' slices (their works changed)
    and, with refresh_researchers (a merge), queue a refresh of every edge among them.
    Returns True when the caller should queue a drain (none was queued yet)."""
    ids = sorted({int(i) for i in researcher_ids})
    redis = keys.redis_client()
    if refresh_researchers:
        for start in range(0, len(ids), 10_000):
            redis.sadd(keys.key(keys.EDGES_PENDING), *ids[start : start + 10_000])
    graph_slices_invalidate(researcher_ids=ids)
    if not (refresh_researchers and ids):
        return False
    return coauthor_edges_drain_wanted()


def coauthor_edges_drain_wanted() -> bool:
    """True when no drain is queued yet: the caller queues one (a Redis flag, so a burst of
    batches sends one message; it expires, so a lost message does not block the next)."""
    return bool(
        keys.redis_client().set(
            keys.key(keys.EDGES_DRAIN_QUEUED), "1", nx=True, ex=DRAIN_QUEUED_SECONDS
        )
    )


def _pending_bylines() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM graph_pendingbyline)")
        return cursor.fetchone()[0]


def coauthor_edges_drain() -> int:
    """Apply every pending byline and refresh every pending researcher until none is left.

    One drain runs at a time (a transaction-level advisory lock, tried, not waited for): a
    second one returns at once, and the first looks again after each commit, so nothing added
    meanwhile is stranded. Bylines are applied exactly once (they are deleted in the
    transaction that applies them), in transactions of at most PENDING_BYLINES_PER_TRANSACTION.
    Researcher ids (merges) are moved to a processing set first and dropped only after the
    commit, so a drain that dies loses nothing; their refresh is idempotent.
    Returns the number of bylines and researcher ids handled.
    """
    redis = keys.redis_client()
    pending, processing = keys.key(keys.EDGES_PENDING), keys.key(keys.EDGES_PROCESSING)
    redis.delete(keys.key(keys.EDGES_DRAIN_QUEUED))
    handled = 0
    while _pending_bylines() or redis.exists(pending, processing):
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [EDGES_LOCK_KEY])
                if not cursor.fetchone()[0]:
                    logger.info("edges drain: another drain or a rebuild holds the lock")
                    return handled
            applied, changed = coauthor_bylines_apply()
            ids: list[int] = []
            if not applied:
                pipe = redis.pipeline(transaction=True)
                pipe.sunionstore(processing, [processing, pending])
                pipe.delete(pending)
                pipe.smembers(processing)
                ids = sorted(int(raw) for raw in pipe.execute()[2])
                changed |= coauthor_edges_refresh(researcher_ids=ids).changed_researcher_ids
        if ids:
            redis.delete(processing)
        graph_slices_invalidate(researcher_ids=changed)
        # Profile pages show the close-collaborators count, which may have changed.
        researcher_pages_invalidate(researcher_ids=changed)
        handled += applied + len(ids)
        logger.info(
            "edges drain: %d bylines applied, %d researchers refreshed, %d changed",
            applied,
            len(ids),
            len(changed),
        )
    return handled


def _drain_send() -> None:
    """Queue the drain task (by its name: services never import the tasks that call them)."""
    registered_task(DRAIN_TASK).apply_async(queue=settings.GRAPH_QUEUE)


def _drain_send_if_wanted() -> None:
    if coauthor_edges_drain_wanted():
        _drain_send()


def coauthor_edges_record_batch(
    *, work_openalex_ids: Collection[str] = (), work_ids: Collection[int] = ()
) -> None:
    """In an import batch's transaction, after it wrote these works: record the bylines that
    changed (graph.services.coauthor_bylines_before must have run before the writes) and,
    once the batch commits, queue a drain (one for many batches)."""
    if coauthor_bylines_record(work_openalex_ids=work_openalex_ids, work_ids=work_ids):
        transaction.on_commit(_drain_send_if_wanted, robust=True)


def coauthor_edges_schedule(
    *, researcher_ids: Collection[int], include_coauthors: bool = False
) -> None:
    """Once the current transaction commits, invalidate the graph slices of researchers whose
    works changed. Their edges follow from the bylines the import recorded.

    A change that moves authorships between records (a merge, a split) passes
    include_coauthors=True, after the authorships moved: every edge among those records and
    their coauthors (now, and by the edges they had) is then refreshed by the drain.
    A failure to reach Redis is logged with the ids and does not fail the committed change.
    """
    ids = sorted(set(researcher_ids))
    if include_coauthors:
        ids = researcher_ids_with_coauthors(researcher_ids=ids)
    if not ids:
        return

    def enqueue() -> None:
        try:
            if coauthor_edges_mark_pending(
                researcher_ids=ids, refresh_researchers=include_coauthors
            ):
                _drain_send()
        except Exception:
            logger.exception(
                "could not queue the graph follow-up of %d researchers (first ids %s)",
                len(ids),
                ids[:20],
            )

    transaction.on_commit(enqueue)
