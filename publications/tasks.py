"""Celery tasks of the scholarly model: thin wrappers around publications.services."""

from __future__ import annotations

from celery import shared_task

from .services import novelty


# The full computation is one transaction over the citation table (minutes at a million works);
# the limit keeps a stuck one from holding a worker. It replaces every row, so a lost run is
# simply run again.
@shared_task(acks_late=True, time_limit=2 * 60 * 60)
def novelty_compute() -> int:
    return novelty.novelty_compute().works
