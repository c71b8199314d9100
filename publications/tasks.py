"""Celery tasks of the scholarly model: thin wrappers around publications.services."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache
from django.db import OperationalError

from . import services
from .services import novelty


# A range is about RANGE_SIZE works' estimated cost (related_works_ranges) with bounded fan-out
# each (CITERS_CAP x REFERENCES_CAP rows at most a work): seconds, a minute on a slow machine; the limit keeps a stuck one from holding
# a worker. It is idempotent (its rows are rewritten), so a lost one is simply run again.
@shared_task(acks_late=True, time_limit=20 * 60)
def related_works_compute_range(first_id: int, last_id: int, done_key: str = "") -> int:
    rows = services.related_works_compute_range(first_id=first_id, last_id=last_id)
    if done_key:
        # The command that queued the ranges counts them done here (progress, and its end).
        cache.incr(done_key)
    return rows


# A drain covers what the import batches left since the last one; a lock conflict with a
# batch writing citations is retried after a pause.
@shared_task(
    acks_late=True,
    time_limit=30 * 60,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def related_works_drain() -> int:
    return services.related_works_drain()


# Counts the degrees (one statement over the citations) and queues a task per range.
@shared_task(acks_late=True, time_limit=30 * 60)
def related_works_compute_all() -> int:
    return services.related_works_queue_all()


# The full computation is one transaction over the citation table (minutes at a million works);
# the limit keeps a stuck one from holding a worker. It replaces every row, so a lost run is
# simply run again.
@shared_task(acks_late=True, time_limit=2 * 60 * 60)
def novelty_compute() -> int:
    return novelty.novelty_compute().works
