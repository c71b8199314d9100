"""Celery tasks of the collaborator graph: thin wrappers that call graph.services."""

from __future__ import annotations

import logging
from collections.abc import Collection

from celery import shared_task
from django.conf import settings
from django.db import OperationalError, transaction

from . import services

logger = logging.getLogger(__name__)


# A drain covers whatever queued up since the last one; even after a bulk import of a million
# works it takes minutes. The limit keeps a stuck one from holding the graph queue; the ids it
# had taken stay in the processing set and the next drain picks them up. A deadlock with an
# import batch over researcher rows is retried (OperationalError) after a short pause.
@shared_task(
    acks_late=True,
    time_limit=30 * 60,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def coauthor_edges_drain() -> int:
    return services.coauthor_edges_drain()


def _queue_drain() -> None:
    if services.coauthor_edges_drain_wanted():
        coauthor_edges_drain.apply_async(queue=settings.GRAPH_QUEUE)


def coauthor_edges_record_batch(
    *, work_openalex_ids: Collection[str] = (), work_ids: Collection[int] = ()
) -> None:
    """In an import batch's transaction, after it wrote these works: record the bylines that
    changed (graph.services.coauthor_bylines_before must have run before the writes) and,
    once the batch commits, queue a drain (one for many batches)."""
    if services.coauthor_bylines_record(work_openalex_ids=work_openalex_ids, work_ids=work_ids):
        transaction.on_commit(_queue_drain, robust=True)


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
        ids = services.researcher_ids_with_coauthors(researcher_ids=ids)
    if not ids:
        return

    def enqueue() -> None:
        try:
            if services.coauthor_edges_mark_pending(
                researcher_ids=ids, refresh_researchers=include_coauthors
            ):
                coauthor_edges_drain.apply_async(queue=settings.GRAPH_QUEUE)
        except Exception:
            logger.exception(
                "could not queue the graph follow-up of %d researchers (first ids %s)",
                len(ids),
                ids[:20],
            )

    transaction.on_commit(enqueue)
