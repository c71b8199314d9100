"""The edge drain: queueing it after a change committed, and applying what waits (pending
bylines from import batches, pending researcher refreshes from merges and splits) until nothing
is left. Both wait as rows in PostgreSQL, written in the change's transaction: a drain message
lost with the broker leaves them for the next drain (beat sends one every five minutes)."""

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


def coauthor_edges_refresh_record(*, researcher_ids: Collection[int]) -> None:
    """Record, in the caller's transaction, that every edge among these researchers and their
    coauthors waits for a refresh (one statement, whatever the number of ids)."""
    ids = sorted({int(i) for i in researcher_ids})
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO graph_pendingedgerefresh (researcher_id) SELECT unnest(%s::bigint[])",
            [ids],
        )


def coauthor_edges_mark_pending(
    *, researcher_ids: Collection[int], refresh_researchers: bool = False
) -> bool:
    """Invalidate these researchers' slices (their works changed) and, with
    refresh_researchers (a merge), record a refresh of every edge among them (in the current
    transaction, if any). Returns True when the caller should queue a drain (none was queued
    yet)."""
    ids = sorted({int(i) for i in researcher_ids})
    if refresh_researchers:
        coauthor_edges_refresh_record(researcher_ids=ids)
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


def _pending_work() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM graph_pendingbyline)"
            " OR EXISTS (SELECT 1 FROM graph_pendingedgerefresh)"
        )
        return cursor.fetchone()[0]


def _pending_refreshes_take() -> list[int]:
    """Delete every pending refresh in the caller's transaction; the distinct ids they named."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM graph_pendingedgerefresh RETURNING researcher_id")
        return sorted({row[0] for row in cursor.fetchall()})


def coauthor_edges_drain() -> int:
    """Apply every pending byline and refresh every pending researcher until none is left.

    One drain runs at a time (a transaction-level advisory lock, tried, not waited for): a
    second one returns at once, and the first looks again after each commit, so nothing added
    meanwhile is stranded. Bylines are applied exactly once (they are deleted in the
    transaction that applies them), in transactions of at most PENDING_BYLINES_PER_TRANSACTION.
    Pending refreshes (merges, splits) are deleted in the transaction that refreshes their
    researchers, all at once, so a drain that dies loses nothing; their refresh is idempotent.
    Returns the number of bylines and researcher ids handled.
    """
    keys.redis_client().delete(keys.key(keys.EDGES_DRAIN_QUEUED))
    handled = 0
    while _pending_work():
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [EDGES_LOCK_KEY])
                if not cursor.fetchone()[0]:
                    logger.info("edges drain: another drain or a rebuild holds the lock")
                    return handled
            applied, changed = coauthor_bylines_apply()
            ids: list[int] = []
            if not applied:
                ids = _pending_refreshes_take()
                changed |= coauthor_edges_refresh(researcher_ids=ids).changed_researcher_ids
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
    their coauthors (now, and by the edges they had) is then recorded as pending in the
    caller's transaction, and refreshed by the drain queued once it commits. Redis or the
    broker failing then is logged with the ids and does not fail the committed change: the
    pending rows wait for beat's drain.
    """
    ids = sorted(set(researcher_ids))
    if include_coauthors:
        ids = researcher_ids_with_coauthors(researcher_ids=ids)
        coauthor_edges_refresh_record(researcher_ids=ids)
    if not ids:
        return

    def after_commit() -> None:
        try:
            graph_slices_invalidate(researcher_ids=ids)
            if include_coauthors:
                _drain_send_if_wanted()
        except Exception:
            logger.exception(
                "could not queue the graph follow-up of %d researchers (first ids %s); their "
                "edges wait for the next drain",
                len(ids),
                ids[:20],
            )

    transaction.on_commit(after_commit)
