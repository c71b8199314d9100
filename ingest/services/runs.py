"""Import runs and their chunks: planned, started, finished, failed, found stalled."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bzpeer.queueing import task_enqueue_on_commit
from ingest import sources
from ingest.models import ImportChunk, ImportRun
from ingest.openalex import snapshot
from ingest.records import OPENALEX
from publications.services import DRAIN_TASK as RELATED_WORKS_DRAIN_TASK

from ..record_kinds import KINDS, WRITE_ORDER
from .merged_ids import openalex_merges_apply_for_run


def import_run_create(
    *, paths: Sequence[str], chunk_lines: int | None = None
) -> tuple[ImportRun, list[str]]:
    """Plan an import of snapshot files: one run, its chunks. Raises SnapshotPathError."""
    files, skipped = snapshot.discover(list(paths))
    chunk_lines = chunk_lines or settings.IMPORT_CHUNK_LINES
    plans = [plan for file in files for plan in snapshot.plan_chunks(file, chunk_lines=chunk_lines)]
    # Referenced entities first, so works find their authors and venues already complete.
    plans.sort(
        key=lambda plan: (
            WRITE_ORDER.index(KINDS[plan.entity]) if plan.entity in KINDS else 9,
            str(plan.path),
        )
    )
    with transaction.atomic():
        run = ImportRun.objects.create(
            source="openalex",
            description="\n".join(str(p) for p in paths),
            records_total=sum(plan.end_line - plan.start_line for plan in plans),
            chunks_total=len(plans),
        )
        ImportChunk.objects.bulk_create(
            ImportChunk(
                run=run,
                path=str(plan.path),
                entity=plan.entity or "",
                start_line=plan.start_line,
                end_line=plan.end_line,
                start_byte=plan.start_byte,
                next_line=plan.start_line,
                next_byte=plan.start_byte,
            )
            for plan in plans
        )
        if not plans:
            ImportRun.objects.filter(id=run.id).update(
                status=ImportRun.Status.SUCCEEDED,
                started_at=timezone.now(),
                finished_at=timezone.now(),
            )
    if not plans:
        openalex_merges_apply_for_run(run_id=run.id)  # a run of merged_ids files only
    run.refresh_from_db()
    return run, skipped


# ImportRun.fetch_option of a run of an OpenAlex API query (ingest.tasks.import_query).
QUERY = "query"
# An API run still pending this long after it was queued (or queued again) lost its message:
# the sweep sends it again. A run waiting behind a long queue of chunks gets a second message,
# which finds the run taken and does nothing.
API_RUN_PENDING_OWED_AFTER = timedelta(minutes=10)


def import_run_mark_running(run_id: int) -> bool:
    """Take a pending run (a conditional UPDATE): whether this caller took it. An API run's task
    delivered twice (a late message and the sweep's) imports once."""
    now = timezone.now()
    return bool(
        ImportRun.objects.filter(id=run_id, status=ImportRun.Status.PENDING).update(
            status=ImportRun.Status.RUNNING, started_at=now, last_progress_at=now
        )
    )


def import_runs_claim_stalled(
    *, idle_for: timedelta, pending_for: timedelta = API_RUN_PENDING_OWED_AFTER
) -> list[int]:
    """Runs on the workers whose task messages were lost (e.g. a broker restarted without
    persistence): running runs that made no progress for idle_for, and API runs still pending
    pending_for after they were queued. Claims them by moving last_progress_at, so two beat
    ticks never resend the same run, and puts a stalled API run back to pending, for its
    task (import_run_mark_running) to take again. Returns their ids."""
    now = timezone.now()
    stalled = Q(status=ImportRun.Status.RUNNING, last_progress_at__lt=now - idle_for)
    api_pending = (
        Q(status=ImportRun.Status.PENDING)
        & ~Q(fetch_option="")
        & (
            Q(last_progress_at__lt=now - pending_for)
            | Q(last_progress_at__isnull=True, created_at__lt=now - pending_for)
        )
    )
    with transaction.atomic():
        runs = list(
            ImportRun.objects.select_for_update(skip_locked=True)
            .filter(stalled | api_pending)
            .values_list("id", "fetch_option")
        )
        run_ids = [run_id for run_id, _ in runs]
        api_run_ids = [run_id for run_id, fetch_option in runs if fetch_option]
        ImportRun.objects.filter(id__in=run_ids).update(last_progress_at=now)
        ImportRun.objects.filter(id__in=api_run_ids).update(status=ImportRun.Status.PENDING)
    return run_ids


def import_run_fetch_resend(*, run_id: int) -> bool:
    """Queue again the task of an API run (once the current transaction commits); False for a
    run of files, whose chunks are sent instead."""
    run = ImportRun.objects.filter(id=run_id).exclude(fetch_option="").first()
    if run is None:
        return False
    if run.fetch_option == QUERY:
        task_enqueue_on_commit("ingest.tasks.import_query", run.pk, run.fetch_values[0])
    else:
        task_enqueue_on_commit(
            "ingest.tasks.import_fetch", run.pk, run.source, run.fetch_option, run.fetch_values
        )
    return True


def import_run_finish_if_complete(*, run_id: int) -> bool:
    """Mark the run succeeded once every chunk is done. Safe to call any number of times."""
    finished = (
        ImportRun.objects.filter(
            id=run_id, status__in=[ImportRun.Status.PENDING, ImportRun.Status.RUNNING]
        )
        .exclude(chunks__done=False)
        .update(status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now())
    )
    if finished:
        # Exactly once per run (the update above): OpenAlex's merged ids, now that the
        # survivors are in (issue 15, item 8).
        openalex_merges_apply_for_run(run_id=run_id)
        # The related works of the works whose citations the run changed (beat drains them
        # too; this is so they follow the run at once).
        task_enqueue_on_commit(RELATED_WORKS_DRAIN_TASK)
    return bool(finished)


def import_run_fail(*, run_id: int, error: str) -> None:
    ImportRun.objects.filter(id=run_id).exclude(status=ImportRun.Status.SUCCEEDED).update(
        status=ImportRun.Status.FAILED, error=error[:10_000], finished_at=timezone.now()
    )


def import_source_run_create(
    *, source: str, paths: Sequence[str], chunk_records: int | None = None
) -> tuple[ImportRun, list[str]]:
    """Plan an import of files of a source other than OpenAlex (ingest.sources):
    one run, a chunk per chunk_records records of each file. Raises SourcePathError for a path
    that cannot be read, UnknownSource for a source whose reader is not available."""
    if source == OPENALEX:
        return import_run_create(paths=paths, chunk_lines=chunk_records)
    reader = sources.reader_of(source)
    files, skipped = reader.files(list(paths))
    chunk_records = chunk_records or settings.IMPORT_CHUNK_LINES
    plans = _source_chunk_plans(reader, files, chunk_records=chunk_records)
    with transaction.atomic():
        run = ImportRun.objects.create(
            source=source,
            description="\n".join(str(p) for p in paths),
            records_total=sum(plan.end - plan.start for plan in plans),
            chunks_total=len(plans),
        )
        ImportChunk.objects.bulk_create(
            ImportChunk(
                run=run,
                path=plan.path,
                paths=plan.paths,
                entity="",
                start_line=plan.start,
                end_line=plan.end,
                next_line=plan.start,
            )
            for plan in plans
        )
        if not plans:
            ImportRun.objects.filter(id=run.id).update(
                status=ImportRun.Status.SUCCEEDED,
                started_at=timezone.now(),
                finished_at=timezone.now(),
            )
    run.refresh_from_db()
    return run, skipped


@dataclass
class _SourceChunkPlan:
    path: str
    start: int
    end: int
    paths: list[str] = field(default_factory=list)


def _source_chunk_plans(
    reader: sources.Reader, files: Sequence[Path], *, chunk_records: int
) -> list[_SourceChunkPlan]:
    """Chunks of at most chunk_records records: a large file is split into several; small files
    that follow each other are read as one chunk (an ORCID folder holds one record per file:
    a chunk each would make a transaction, a task and a commit per record)."""
    plans: list[_SourceChunkPlan] = []
    group: list[Path] = []
    grouped = 0

    def close_group() -> None:
        nonlocal group, grouped
        if len(group) == 1:
            plans.append(_SourceChunkPlan(str(group[0]), 0, grouped))
        elif group:
            plans.append(
                _SourceChunkPlan(
                    os.path.commonpath([str(p) for p in group]), 0, grouped, [str(p) for p in group]
                )
            )
        group, grouped = [], 0

    for path in files:
        total = sources.count_records(reader, path)
        if total == 0:
            continue
        if total >= chunk_records:
            close_group()
            plans += [
                _SourceChunkPlan(str(path), start, min(start + chunk_records, total))
                for start in range(0, total, chunk_records)
            ]
            continue
        if grouped + total > chunk_records:
            close_group()
        group.append(path)
        grouped += total
    close_group()
    return plans
