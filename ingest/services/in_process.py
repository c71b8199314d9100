"""Whole imports run in one process: a planned run of snapshot files (the --sync path) and an
OpenAlex API query, page by page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from claims.services.orcid_import import orcid_import_request_take
from ingest import sources
from ingest.models import ImportChunk, ImportRun

from ..parsing import parse_batch
from ..records import OPENALEX, ORCID
from .batches import batch_write_isolating_refusals, run_counts_add
from .chunks import ProgressCallback, import_chunk_process
from .follow_up import researchers_follow_up_drain
from .runs import (
    QUERY,
    import_run_fail,
    import_run_finish_if_complete,
    import_run_mark_running,
)


def import_run_process(*, run_id: int, on_progress: ProgressCallback | None = None) -> ImportRun:
    """Process every chunk of a run in this process (the --sync path).

    Researchers whose works changed are followed up (metrics, trust, edges, pages) once for the
    whole run, by the same drain the workers use, after its last batch and before it is marked
    succeeded. What batches of an earlier process left pending (a run begun and stopped) is
    drained too: it was committed with those batches.
    """
    try:
        for chunk_id in ImportChunk.objects.filter(run_id=run_id, done=False).values_list(
            "id", flat=True
        ):
            import_chunk_process(chunk_id=chunk_id, on_progress=on_progress, finish_run=False)
        researchers_follow_up_drain()
        import_run_finish_if_complete(run_id=run_id)
        return ImportRun.objects.get(id=run_id)
    except BaseException as exc:
        # Never left "running": whatever stopped it is on the run (an interrupted run resumes
        # from its last committed batch when started again).
        import_run_fail(run_id=run_id, error=f"stopped in the importing process: {exc!r}")
        raise


def import_query_run_create(*, query: str) -> ImportRun:
    return ImportRun.objects.create(
        source="openalex-api", description=query, fetch_option=QUERY, fetch_values=[query]
    )


def import_query_process(
    *, run_id: int, query: str, client: Any, on_progress: ProgressCallback | None = None
) -> ImportRun:
    """Import the works an OpenAlex API filter returns, page by page, one batch per page.

    Re-running the same query is safe: unchanged works are recognised and skipped. A run that
    is not pending (another delivery of its task took it) is left alone and returned.
    """
    if not import_run_mark_running(run_id):
        return ImportRun.objects.get(id=run_id)
    line_number = 0
    for page in client.iter_work_pages(query):
        lines = []
        for record in page:
            line_number += 1
            lines.append((line_number, orjson.dumps(record)))
        parsed = parse_batch(
            lines,
            mapper=sources.mapper_of(OPENALEX, entity="works"),
            source=OPENALEX,
            path=f"openalex api: {query}",
            run_id=run_id,
        )
        with transaction.atomic():
            totals = batch_write_isolating_refusals(
                parsed, run_id=run_id, path=f"openalex api: {query}"
            )
            run_counts_add(run_id, read=parsed.read, totals=totals, chunk_finished=False)
        if on_progress:
            on_progress(len(lines))
    ImportRun.objects.filter(id=run_id).update(
        status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now(), records_total=F("read_count")
    )
    return ImportRun.objects.get(id=run_id)


def import_fetch_run_create(*, source: str, option: str, values: Sequence[str]) -> ImportRun:
    """A run of records fetched from a source's API (--orcid, --doi, --arxiv-query)."""
    sources.fetcher_of(source, option)  # UnknownSource now rather than on the worker
    return ImportRun.objects.create(
        source=source,
        description=f"{option}: " + "\n".join(values),
        fetch_option=option,
        fetch_values=list(values),
    )


def orcid_record_run_create(*, orcid: str, request_id: int | None) -> ImportRun | None:
    """The run of a claimant's ORCID record, created in the transaction that takes the owed
    request over from claims (the run owes the import from then on, swept as a pending API
    run); None when another delivery of the task took it. request_id None: a message queued
    before imports were owed."""
    with transaction.atomic():
        if request_id is not None and not orcid_import_request_take(request_id=request_id):
            return None
        return import_fetch_run_create(source=ORCID, option="orcid", values=[orcid])


def import_fetch_process(
    *,
    run_id: int,
    source: str,
    option: str,
    values: Sequence[str],
    on_progress: ProgressCallback | None = None,
) -> ImportRun:
    """Import what a source's API fetcher yields, one batch of IMPORT_BATCH_SIZE records at a
    time, each its own transaction. Re-running it is safe: unchanged records are skipped. A
    run that is not pending (another delivery of its task took it) is left alone and returned."""
    if not import_run_mark_running(run_id):
        return ImportRun.objects.get(id=run_id)
    fetch = sources.fetcher_of(source, option)
    path = f"{source} api: {option} " + " ".join(values)
    batch: list[tuple[int, Any]] = []

    def write(batch: list[tuple[int, Any]]) -> None:
        parsed = parse_batch(
            batch, mapper=sources.mapper_of(source), source=source, path=path[:1000], run_id=run_id
        )
        with transaction.atomic():
            totals = batch_write_isolating_refusals(parsed, run_id=run_id, path=path[:1000])
            run_counts_add(run_id, read=parsed.read, totals=totals, chunk_finished=False)
        if on_progress:
            on_progress(len(batch))

    for number, raw in enumerate(fetch(list(values)), start=1):
        batch.append((number, raw))
        if len(batch) >= settings.IMPORT_BATCH_SIZE:
            write(batch)
            batch = []
    if batch:
        write(batch)
    ImportRun.objects.filter(id=run_id).update(
        status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now(), records_total=F("read_count")
    )
    return ImportRun.objects.get(id=run_id)
