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
    *,
    researcher_ids: Collection[int],
    work_openalex_ids: Collection[str] = (),
    pairs_before: Collection[tuple[int, int]] = (),
    include_coauthors: bool = False,
) -> None:
    """Queue the edge refresh for a change the current transaction made; nothing happens
    unless it commits. Many batches share one queued drain (coalesced through Redis sets). A
    failure to reach Redis is logged with the ids and does not fail the committed batch.

    An import batch passes the researchers it touched, the works it wrote and
    `pairs_before` (graph.services.coauthor_pairs_of_works of those works, taken before the
    write): the pairs on the old and the new bylines are all the edges it can change.
    A change that moves authorships between records (a merge, a split) passes
    include_coauthors=True instead, after the authorships moved: every edge among those
    records and their coauthors is refreshed.
    """
    ids = sorted(set(researcher_ids))
    pairs: set[tuple[int, int]] = set(pairs_before)
    if work_openalex_ids:
        pairs |= services.coauthor_pairs_of_works(work_openalex_ids=work_openalex_ids)
    if include_coauthors:
        ids = services.researcher_ids_with_coauthors(researcher_ids=ids)
    if not ids and not pairs:
        return

    def enqueue() -> None:
        try:
            if services.coauthor_edges_mark_pending(
                researcher_ids=ids, pairs=pairs, refresh_researchers=include_coauthors
            ):
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
