"""The researchers app's Celery tasks: thin, each calls a service."""

from __future__ import annotations

from celery import shared_task

from .name_words import name_words_refresh as name_words_refresh_service


# Reads only the researchers added since the last refresh (one index range of the primary key),
# or everyone with from_start (a few seconds at a million works); the limit keeps a stuck one
# from holding a worker. Idempotent: words already there are skipped, so a lost or repeated
# run changes nothing.
@shared_task(acks_late=True, time_limit=10 * 60)
def name_words_refresh(from_start: bool = False) -> int:
    return name_words_refresh_service(from_start=from_start).words_added
