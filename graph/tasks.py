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


def coauthor_edges_schedule(
    *, researcher_ids: Collection[int], include_coauthors: bool = False
) -> None:
    """Queue an edge refresh for researchers whose works the current transaction changed.

    Called inside an import batch's transaction; nothing happens unless it commits. Many
    batches share one queued drain (coalesced through a Redis set). A failure to reach Redis
    is logged with the ids and does not fail the committed batch.

    An import touches every author of every work it changes, which is all an edge refresh
    needs. A change that moves authorships between records (a merge, a split) must pass
    include_coauthors=True, so the coauthors of those records are refreshed with them: call
    it after the authorships moved, in the same transaction.
    """
    ids = sorted(set(researcher_ids))
    if include_coauthors:
        ids = services.researcher_ids_with_coauthors(researcher_ids=ids)
    if not ids:
        return

    def enqueue() -> None:
        try:
            if services.coauthor_edges_mark_pending(researcher_ids=ids):
                coauthor_edges_drain.apply_async(queue=settings.GRAPH_QUEUE)
        except Exception:
            # The batch is committed; `manage.py rebuild_graph` or a later batch touching the
            # same people repairs the edges. Say which ones are behind.
            logger.exception(
                "could not queue the edge refresh of %d researchers (first ids %s)",
                len(ids),
                ids[:20],
            )

    transaction.on_commit(enqueue)
