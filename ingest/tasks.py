"""Celery tasks for imports: thin wrappers that call ingest.services."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import group, shared_task
from django.core.cache import cache
from django.db import InterfaceError, OperationalError, transaction

from ingest.models import ImportChunk
from ingest.openalex.client import OpenAlexClient
from ingest.records import ORCID

from . import services

logger = logging.getLogger(__name__)


# A chunk is at most IMPORT_CHUNK_LINES records; an hour is far beyond what one needs, and a
# hard limit keeps a stuck chunk from holding a worker forever (it resumes when redelivered).
# The database unreachable (a restart, a failover) fails no run: the chunk is tried again with
# backoff and resumes where its last batch committed (issue 29).
@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, time_limit=60 * 60)
def import_chunk(self, chunk_id: int) -> None:
    try:
        finished_run = services.import_chunk_process(chunk_id=chunk_id)
    except (OperationalError, InterfaceError) as exc:
        logger.warning("import chunk %s: database unavailable, retrying: %s", chunk_id, exc)
        raise self.retry(
            exc=exc, countdown=min(30, 2**self.request.retries), max_retries=20
        ) from exc
    except Exception as exc:
        run_id = ImportChunk.objects.filter(id=chunk_id).values_list("run_id", flat=True).first()
        if run_id:
            services.import_run_fail(run_id=run_id, error=f"chunk {chunk_id}: {exc!r}")
        raise
    if finished_run:
        # The run's last chunk: its researchers' metrics, trust and pages catch up now.
        researchers_follow_up_drain_queue()


@shared_task(acks_late=True, reject_on_worker_lost=True, time_limit=6 * 60 * 60)
def import_query(run_id: int, query: str) -> None:
    try:
        with OpenAlexClient() as client:
            services.import_query_process(run_id=run_id, query=query, client=client)
    except Exception as exc:
        services.import_run_fail(run_id=run_id, error=repr(exc))
        raise


@shared_task(acks_late=True, reject_on_worker_lost=True, time_limit=6 * 60 * 60)
def import_fetch(run_id: int, source: str, option: str, values: list[str]) -> None:
    """Records fetched from a source's API (rate-limited clients: hours for a large query)."""
    try:
        services.import_fetch_process(run_id=run_id, source=source, option=option, values=values)
    except Exception as exc:
        services.import_run_fail(run_id=run_id, error=repr(exc))
        raise


@shared_task(acks_late=True, reject_on_worker_lost=True, time_limit=60 * 60)
def orcid_record_import(orcid: str, request_id: int | None = None) -> None:
    """A claimant's ORCID record, queued by claims (on approval, on "Refresh from ORCID") by
    this task's name: claims sits below this app and cannot create the run itself. It owes the
    import as an OrcidImportRequest (request_id), handed over to the run created here."""
    run = services.orcid_record_run_create(orcid=orcid, request_id=request_id)
    if run is None:
        logger.info("ORCID import request %s was taken already; nothing to do", request_id)
        return
    import_fetch(run.pk, ORCID, "orcid", [orcid])


# Longer than any batch takes, so a slow but healthy run is never sent out twice; a chunk sent
# twice would still count once (the chunk's compare-and-set), it would only cost work.
STALLED_AFTER = timedelta(minutes=30)


@shared_task
def citations_resolve_waiting() -> None:
    """Periodic (beat): references that waited for a work a concurrent batch brought."""
    resolved = services.citations_resolve_waiting()
    if resolved:
        logger.info("%s waiting references became citations", resolved)


@shared_task
def import_runs_resume_stalled() -> None:
    """Periodic (beat): send the unfinished chunks of stalled runs to the workers again, and
    the task of an API run whose message was lost."""
    for run_id in services.import_runs_claim_stalled(idle_for=STALLED_AFTER):
        logger.warning("import run %s is owed its task messages; re-sending them", run_id)
        if not services.import_run_fetch_resend(run_id=run_id):
            import_run_enqueue(run_id)


def import_run_enqueue(run_id: int) -> None:
    """Fan the run's chunks out to the workers, once the run is committed."""
    chunk_ids = list(
        ImportChunk.objects.filter(run_id=run_id, done=False).values_list("id", flat=True)
    )
    if chunk_ids:
        transaction.on_commit(
            lambda: group(import_chunk.si(chunk_id) for chunk_id in chunk_ids).apply_async()
        )


# One drain refreshes what every batch committed so far; after a run of a million works that is
# a few hundred thousand researchers, minutes of work. The limit keeps a stuck one from holding a
# worker; the rows it had taken are taken again by the next drain once their lease ends. A
# deadlock with a concurrent writer of researcher rows is retried after a short pause.
@shared_task(
    acks_late=True,
    time_limit=60 * 60,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def researchers_follow_up_drain() -> int:
    cache.delete(_DRAIN_QUEUED)
    return services.researchers_follow_up_drain(slices_send=_slices_send)


# One slice is one transaction of at most a tenth of a drain's researchers (a few tens of
# seconds at 1M works); the limit, the retry and the late ack are the drain's, for its reasons.
@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=60 * 60,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def researchers_follow_up_slice(row_id: int) -> int:
    return services.researchers_follow_up_slice(row_id=row_id)


def _slices_send(row_ids: list[int]) -> None:
    group(researchers_follow_up_slice.si(row_id) for row_id in row_ids).apply_async()


# Set while a drain waits in the queue, so beat and finishing runs queue one, not one a minute
# behind a long queue of chunks; it expires, so a lost message does not block the next drain.
_DRAIN_QUEUED = "imports:follow-up-drain-queued"
_DRAIN_QUEUED_SECONDS = 60 * 60


def _drain_send() -> None:
    if cache.add(_DRAIN_QUEUED, 1, timeout=_DRAIN_QUEUED_SECONDS):
        researchers_follow_up_drain.delay()


def researchers_follow_up_drain_queue() -> None:
    """Queue a drain once the current transaction commits (unless one is queued already)."""
    transaction.on_commit(_drain_send, robust=True)


@shared_task
def researchers_follow_up_drain_if_due() -> None:
    """Periodic (beat): queue a drain when batches left researchers pending and no run is
    importing them (a run that failed, was stopped, or has run longer than the allowed lag)."""
    if services.researchers_follow_up_drain_due():
        _drain_send()


# Weekly, and a singleton: a second beat (or a manual run) while one is going finds the lock.
# Six hours: the re-run reads every L0 record once, a few statements per batch of 500.
@shared_task(acks_late=True, time_limit=6 * 60 * 60)
def researchers_resolve_rerun() -> None:
    from ingest.services.researchers_rerun import researchers_rerun

    if not cache.add("ingest:researchers-resolve-rerun", "1", timeout=6 * 60 * 60):
        logger.info("resolver re-run already running; skipped")
        return
    try:
        researchers_rerun()
    finally:
        cache.delete("ingest:researchers-resolve-rerun")
