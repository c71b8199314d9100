"""Celery tasks of the collaborator graph: thin wrappers that call graph.services."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

from . import services

logger = logging.getLogger(__name__)


# A drain covers whatever queued up since the last one; even after a bulk import of a million
# works it takes minutes. The limit keeps a stuck one from holding the graph queue; what it had
# taken is rolled back with its transaction and the next drain picks it up. A deadlock with an
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
