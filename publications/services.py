"""Writes for publications: import runs, their chunks and batches.

An import is an ImportRun split into ImportChunks (line ranges of input files). A chunk is
processed in batches; each batch is one transaction that writes the records, its issues,
the run's counts and the chunk's progress together, so a worker killed mid-batch loses
nothing and counts nothing twice: the chunk resumes at its last committed batch.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import orjson
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from claims.trust import researchers_trust_refresh
from graph.services import coauthor_bylines_before, researcher_metrics_refresh
from graph.tasks import coauthor_edges_record_batch, coauthor_edges_schedule
from researchers.services import researcher_pages_invalidate

from .importers import writer
from .importers.openalex import mapper, snapshot
from .importers.records import MappingError
from .models import Authorship, ImportChunk, ImportIssue, ImportRun

logger = logging.getLogger(__name__)

RAW_TEXT_LIMIT = 1_000_000
ProgressCallback = Callable[[int], None]


@dataclass(frozen=True)
class EntityHandler:
    map: Callable[[Any], Any]
    write: Callable[..., writer.WriteResult]
    key: Callable[[Any], str]
    # The writer's database-free part, run by parse_batch; write() then takes its result.
    prepare: Callable[[Sequence[Any]], Any] | None = None


ENTITY_HANDLERS: dict[str, EntityHandler] = {
    "works": EntityHandler(
        mapper.map_work, writer.write_works, lambda r: r.openalex_id, writer.prepare_works
    ),
    "authors": EntityHandler(mapper.map_author, writer.write_researchers, lambda r: r.openalex_id),
    "institutions": EntityHandler(
        mapper.map_institution, writer.write_institutions, lambda r: r.openalex_id
    ),
    "sources": EntityHandler(mapper.map_source, writer.write_sources, lambda r: r.openalex_id),
    "topics": EntityHandler(mapper.map_topic, writer.write_topics, lambda r: r[0].external_id),
}


@dataclass
class ParsedBatch:
    read: int = 0
    records: dict[str, list[Any]] = field(default_factory=dict)
    issues: list[ImportIssue] = field(default_factory=list)
    prepared: dict[str, Any] = field(default_factory=dict)  # kind -> its handler's prepare()


def _raw_text(raw: bytes) -> str:
    return raw[:RAW_TEXT_LIMIT].decode("utf-8", errors="replace").rstrip("\n")


def parse_batch(
    lines: Iterable[tuple[int, bytes]], *, entity: str | None, path: str, run_id: int
) -> ParsedBatch:
    """Parse and map raw lines. Every line that cannot be used becomes an ImportIssue with its
    reason and text; duplicates of an id within the batch keep the first occurrence."""
    batch = ParsedBatch()
    first_line_of: dict[tuple[str, str], int] = {}

    def reject(
        line_number: int, raw: bytes, reason: str, *, kind: str = "", external_id: str = ""
    ) -> None:
        batch.issues.append(
            ImportIssue(
                run_id=run_id,
                path=path,
                line_number=line_number,
                entity=kind,
                external_id=external_id[:64],
                reason=reason,
                raw=_raw_text(raw),
            )
        )

    for line_number, raw in lines:
        if not raw.strip():
            continue
        batch.read += 1
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            reject(line_number, raw, f"malformed JSON: {exc}")
            continue
        raw_id = obj.get("id") if isinstance(obj, dict) else None
        external_id = mapper.short_id_or_raw(raw_id)
        kind = entity or mapper.entity_of_id(raw_id)
        if kind is None:
            reason = (
                f"record is {mapper._type_name(obj)}, expected an object"
                if not isinstance(obj, dict)
                else "record has no id"
                if not raw_id
                else f"id is {mapper._type_name(raw_id)}, expected a string"
                if not isinstance(raw_id, str)
                else f"id {raw_id!r} is not an OpenAlex work, author, institution, source or topic id"
            )
            reject(line_number, raw, reason, external_id=external_id)
            continue
        handler = ENTITY_HANDLERS[kind]
        try:
            record = handler.map(obj)
        except MappingError as exc:
            reject(line_number, raw, str(exc), kind=kind, external_id=external_id)
            continue
        key = handler.key(record)
        if (kind, key) in first_line_of:
            reject(
                line_number,
                raw,
                f"duplicate of {key} at line {first_line_of[(kind, key)]} in the same batch",
                kind=kind,
                external_id=key,
            )
            continue
        first_line_of[(kind, key)] = line_number
        batch.records.setdefault(kind, []).append(record)
    for kind, records in batch.records.items():
        prepare = ENTITY_HANDLERS[kind].prepare
        if prepare is not None:
            batch.prepared[kind] = prepare(records)
    return batch


# Entity order matters: works reference the others, which are then already there in full.
_WRITE_ORDER = ("topics", "sources", "institutions", "authors", "works")
_RETRYABLE_SQLSTATES = {"40P01", "40001"}  # deadlock detected, serialization failure


def _is_retryable(exc: DatabaseError) -> bool:
    if isinstance(exc, IntegrityError):
        return True  # a concurrent batch took an identifier first; the retry sees it and adapts
    return getattr(getattr(exc, "__cause__", None), "sqlstate", None) in _RETRYABLE_SQLSTATES


def researchers_follow_up(*, researcher_ids: Collection[int]) -> None:
    """Everything derived from the works of these researchers: their metrics and trust score now,
    in the caller's transaction; their coauthor edges and cached pages once it commits."""
    researcher_metrics_refresh(researcher_ids=researcher_ids)
    researchers_trust_refresh(researcher_ids=researcher_ids)
    # Coauthor edges and graph slices follow once the batch has committed (a coalesced task).
    coauthor_edges_schedule(researcher_ids=researcher_ids)
    # Their cached profile pages list these works: drop them once the batch is visible.
    transaction.on_commit(partial(researcher_pages_invalidate, researcher_ids=researcher_ids))


def _write_parsed(
    batch: ParsedBatch, *, run_id: int, path: str, researchers_pending: set[int] | None = None
) -> dict[str, int]:
    """Write one parsed batch; the caller holds the transaction.

    The researchers whose works changed are followed up in this transaction, or, when the caller
    gives researchers_pending, added to it for the caller to follow up once for many batches
    (the --sync run, see import_run_process). Researchers a batch removed from every byline it
    changed are followed up here either way: nothing in the database would show them later.
    """
    totals = {"created": 0, "updated": 0, "unchanged": 0}
    touched: set[int] = set()
    unlinked: set[int] = set()
    issues = list(batch.issues)
    # The bylines this batch may replace, kept so the coauthor edges can follow (below).
    work_ids = [record.openalex_id for record in batch.records.get("works", ())]
    coauthor_bylines_before(work_openalex_ids=work_ids)
    with connection.cursor() as cursor:
        raw_cursor = cursor.cursor  # psycopg's own cursor, for COPY
        for kind in _WRITE_ORDER:
            records = batch.records.get(kind)
            if not records:
                continue
            write = ENTITY_HANDLERS[kind].write
            if kind in batch.prepared:
                write = partial(write, prepared=batch.prepared[kind])
            result = write(raw_cursor, records)
            totals["created"] += result.created
            totals["updated"] += result.updated
            totals["unchanged"] += result.unchanged
            touched |= result.touched_researcher_ids
            unlinked |= result.unlinked_researcher_ids
            issues.extend(
                ImportIssue(
                    run_id=run_id,
                    severity=ImportIssue.Severity.WARNING,
                    path=path,
                    entity=kind,
                    external_id=warning.external_id,
                    reason=warning.reason,
                )
                for warning in result.warnings
            )
    if issues:
        ImportIssue.objects.bulk_create(issues, batch_size=1000)
    # Bylines that changed are queued, in this transaction, for the coalesced edge drain.
    coauthor_edges_record_batch(work_openalex_ids=work_ids)
    if researchers_pending is None:
        researchers_follow_up(researcher_ids=touched)
    else:
        researchers_pending |= touched - unlinked
        if unlinked:
            researchers_follow_up(researcher_ids=unlinked)
    totals["failed"] = sum(
        1 for issue in batch.issues if issue.severity == ImportIssue.Severity.ERROR
    )
    return totals


def _count(run_id: int, *, read: int, totals: dict[str, int], chunk_finished: bool) -> None:
    ImportRun.objects.filter(id=run_id).update(
        read_count=F("read_count") + read,
        created_count=F("created_count") + totals["created"],
        updated_count=F("updated_count") + totals["updated"],
        unchanged_count=F("unchanged_count") + totals["unchanged"],
        failed_count=F("failed_count") + totals["failed"],
        chunks_done=F("chunks_done") + (1 if chunk_finished else 0),
        last_progress_at=timezone.now(),
    )


def import_batch_commit(
    *,
    chunk: ImportChunk,
    lines: Sequence[tuple[int, bytes]],
    next_line: int,
    next_byte: int | None,
    final: bool,
    parsed: ParsedBatch | None = None,
    researchers_pending: set[int] | None = None,
) -> bool:
    """Commit one batch of a chunk. Returns False when another worker already committed it.

    The chunk row is advanced with a compare-and-set on next_line in the same transaction as
    the writes: of two workers that got the same chunk, only one commits each batch.
    `parsed` is parse_batch(lines) when the caller parsed them already; researchers_pending is
    passed on to _write_parsed.
    """
    if parsed is None:
        parsed = parse_batch(
            lines, entity=chunk.entity or None, path=chunk.path, run_id=chunk.run_id
        )
    for attempt in range(3):
        try:
            with transaction.atomic():
                advanced = ImportChunk.objects.filter(
                    id=chunk.id, next_line=chunk.next_line, done=False
                ).update(next_line=next_line, next_byte=next_byte, done=final)
                if not advanced:
                    return False
                pending_here: set[int] | None = None if researchers_pending is None else set()
                totals = _write_parsed(
                    parsed, run_id=chunk.run_id, path=chunk.path, researchers_pending=pending_here
                )
                _count(chunk.run_id, read=parsed.read, totals=totals, chunk_finished=final)
            break
        except DatabaseError as exc:
            if attempt == 2 or not _is_retryable(exc):
                raise
            logger.warning("import batch of chunk %s retried after %s", chunk.id, exc)
    if pending_here:
        researchers_pending |= pending_here  # only what a committed attempt wrote
    chunk.next_line, chunk.next_byte, chunk.done = next_line, next_byte, final
    return True


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
            _WRITE_ORDER.index(plan.entity) if plan.entity in _WRITE_ORDER else 9,
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
    run.refresh_from_db()
    return run, skipped


def _mark_running(run_id: int) -> None:
    now = timezone.now()
    ImportRun.objects.filter(id=run_id, status=ImportRun.Status.PENDING).update(
        status=ImportRun.Status.RUNNING, started_at=now, last_progress_at=now
    )


def import_runs_claim_stalled(*, idle_for: timedelta) -> list[int]:
    """Runs on the workers that made no progress for idle_for (their chunk messages were lost,
    e.g. a broker restarted without persistence). Claims them by moving last_progress_at, so
    two beat ticks never resend the same run. Returns their ids."""
    now = timezone.now()
    with transaction.atomic():
        run_ids = list(
            ImportRun.objects.select_for_update(skip_locked=True)
            .filter(status=ImportRun.Status.RUNNING, last_progress_at__lt=now - idle_for)
            .values_list("id", flat=True)
        )
        ImportRun.objects.filter(id__in=run_ids).update(last_progress_at=now)
    return run_ids


def import_run_finish_if_complete(*, run_id: int) -> bool:
    """Mark the run succeeded once every chunk is done. Safe to call any number of times."""
    finished = (
        ImportRun.objects.filter(
            id=run_id, status__in=[ImportRun.Status.PENDING, ImportRun.Status.RUNNING]
        )
        .exclude(chunks__done=False)
        .update(status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now())
    )
    return bool(finished)


def import_run_fail(*, run_id: int, error: str) -> None:
    ImportRun.objects.filter(id=run_id).exclude(status=ImportRun.Status.SUCCEEDED).update(
        status=ImportRun.Status.FAILED, error=error[:10_000], finished_at=timezone.now()
    )


@dataclass
class _ChunkBatch:
    lines: list[tuple[int, bytes]]
    parsed: ParsedBatch
    next_line: int
    next_byte: int | None
    final: bool


# Batches parsed ahead of the one being written: bounds the memory a chunk takes, whatever its size.
_PARSE_AHEAD = 2
_GIL_SWITCH_INTERVAL = 0.0005  # seconds
_DONE = object()


def _chunk_batches(chunk: ImportChunk, *, batch_size: int) -> Iterator[_ChunkBatch]:
    """The chunk's batches from its next line on, read and parsed."""
    path = Path(chunk.path)
    lines = snapshot.read_lines(
        path,
        start_line=chunk.next_line,
        end_line=chunk.end_line,
        start_byte=chunk.next_byte,
        is_document=snapshot.is_document(path),
    )

    def parsed(batch: list[tuple[int, bytes]], next_line: int, next_byte: int | None, final: bool):  # noqa: ANN202
        return _ChunkBatch(
            batch,
            parse_batch(batch, entity=chunk.entity or None, path=chunk.path, run_id=chunk.run_id),
            next_line,
            next_byte,
            final,
        )

    batch: list[tuple[int, bytes]] = []
    next_byte = chunk.next_byte
    for line_number, offset, raw in lines:
        batch.append((line_number, raw))
        next_byte = offset
        if len(batch) >= batch_size and line_number < chunk.end_line:
            yield parsed(batch, line_number, next_byte, False)
            batch = []
    yield parsed(batch, chunk.end_line, next_byte, True)


def _parse_ahead(batches: Iterator[_ChunkBatch]) -> Iterator[_ChunkBatch]:
    """The same batches, read and parsed in a thread while the caller writes the previous ones.

    Reading and parsing is Python work; writing mostly waits for PostgreSQL, and psycopg lets
    other threads run while it waits, so the two overlap. At most _PARSE_AHEAD batches wait in
    between. An error in the thread is raised here, after the batches that came before it.
    """
    handoff: queue.Queue = queue.Queue(maxsize=_PARSE_AHEAD)
    stopped = threading.Event()

    def hand(item: object) -> bool:
        while not stopped.is_set():
            try:
                handoff.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for batch in batches:
                if not hand(batch):
                    return
            hand(_DONE)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            hand(exc)

    thread = threading.Thread(target=produce, name="import-parse-ahead", daemon=True)
    # The writer gets the GIL back sooner after each statement (CPython's default is 5 ms, a
    # wait that would otherwise follow most statements of a batch, inside its transaction).
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(min(switch_interval, _GIL_SWITCH_INTERVAL))
    thread.start()
    try:
        while True:
            item = handoff.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stopped.set()
        thread.join()
        sys.setswitchinterval(switch_interval)


def import_chunk_process(
    *,
    chunk_id: int,
    batch_size: int | None = None,
    on_progress: ProgressCallback | None = None,
    researchers_pending: set[int] | None = None,
) -> None:
    """Import one chunk from where it last committed. Returns quietly if it is gone or done.

    With researchers_pending, the follow-up of the researchers it touched is left to the caller
    (see _write_parsed), and so is finishing the run.
    """
    chunk = ImportChunk.objects.filter(id=chunk_id).first()
    if chunk is None:
        return
    if chunk.done:
        if researchers_pending is None:
            import_run_finish_if_complete(run_id=chunk.run_id)
        return
    batch_size = batch_size or settings.IMPORT_BATCH_SIZE
    _mark_running(chunk.run_id)
    for batch in _parse_ahead(_chunk_batches(chunk, batch_size=batch_size)):
        committed = import_batch_commit(
            chunk=chunk,
            lines=batch.lines,
            next_line=batch.next_line,
            next_byte=batch.next_byte,
            final=batch.final,
            parsed=batch.parsed,
            researchers_pending=researchers_pending,
        )
        if not committed:
            if batch.final:
                break  # another worker finished the chunk; the run may be complete
            return
        if on_progress:
            on_progress(len(batch.lines))
    if researchers_pending is None:
        import_run_finish_if_complete(run_id=chunk.run_id)


# Researchers are followed up in slices, each its own transaction, so row locks stay short; but
# in no more than about ten, since each slice's statements read whole tables (works, work topics)
# once PostgreSQL judges the slice large, which after a bulk load it does.
FOLLOW_UP_SLICE = 5000
FOLLOW_UP_SLICES = 10
# The tables a run grows, analysed before the follow-up: statistics from before a bulk load
# make the planner read every authorship for each slice instead of looking them up.
_FOLLOW_UP_TABLES = (
    "publications_work",
    "publications_authorship",
    "publications_worktopic",
    "researchers_researcher",
)
# Works changed by a run have updated_at >= its start by the database clock; started_at is the
# application's clock, so allow for some skew between the two.
_CLOCK_SKEW = timedelta(minutes=10)


def _researchers_follow_up_in_slices(researcher_ids: list[int], *, run_id: int) -> None:
    if not researcher_ids:
        return
    logger.info(
        "import run %s: following up %d researchers whose works changed",
        run_id,
        len(researcher_ids),
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {', '.join(_FOLLOW_UP_TABLES)}")
    size = max(FOLLOW_UP_SLICE, -(-len(researcher_ids) // FOLLOW_UP_SLICES))
    for start in range(0, len(researcher_ids), size):
        with transaction.atomic():
            with connection.cursor() as cursor:
                # Compiling these statements took PostgreSQL's JIT longer (1-2 s each) than
                # running them gained from it.
                cursor.execute("SET LOCAL jit = off")
            researchers_follow_up(researcher_ids=researcher_ids[start : start + size])


def import_run_process(*, run_id: int, on_progress: ProgressCallback | None = None) -> ImportRun:
    """Process every chunk of a run in this process (the --sync path).

    Researchers whose works changed are followed up (metrics, trust, edges, pages) once for the
    whole run, after its last batch and before it is marked succeeded, instead of after every
    batch: a prolific author is in nearly every batch, and refreshing her each time costs work
    that grows with everything imported so far. When the run was begun by an earlier process
    that stopped, the researchers of every work the run changed are followed up, since that
    process's list is gone.
    """
    run = ImportRun.objects.get(id=run_id)
    resumed = (
        ImportChunk.objects.filter(run_id=run_id)
        .filter(Q(done=True) | Q(next_line__gt=F("start_line")))
        .exists()
    )
    pending: set[int] = set()
    for chunk_id in ImportChunk.objects.filter(run_id=run_id, done=False).values_list(
        "id", flat=True
    ):
        import_chunk_process(
            chunk_id=chunk_id, on_progress=on_progress, researchers_pending=pending
        )
    if resumed and run.started_at:
        pending.update(
            Authorship.objects.filter(
                work__updated_at__gte=run.started_at - _CLOCK_SKEW, researcher__isnull=False
            )
            .values_list("researcher_id", flat=True)
            .distinct()
        )
    _researchers_follow_up_in_slices(sorted(pending), run_id=run_id)
    import_run_finish_if_complete(run_id=run_id)
    return ImportRun.objects.get(id=run_id)


def import_query_run_create(*, query: str) -> ImportRun:
    return ImportRun.objects.create(source="openalex-api", description=query)


def import_query_process(
    *, run_id: int, query: str, client: Any, on_progress: ProgressCallback | None = None
) -> ImportRun:
    """Import the works an OpenAlex API filter returns, page by page, one batch per page.

    Re-running the same query is safe: unchanged works are recognised and skipped.
    """
    _mark_running(run_id)
    line_number = 0
    for page in client.iter_work_pages(query):
        lines = []
        for record in page:
            line_number += 1
            lines.append((line_number, orjson.dumps(record)))
        parsed = parse_batch(lines, entity="works", path=f"openalex api: {query}", run_id=run_id)
        with transaction.atomic():
            totals = _write_parsed(parsed, run_id=run_id, path=f"openalex api: {query}")
            _count(run_id, read=parsed.read, totals=totals, chunk_finished=False)
        if on_progress:
            on_progress(len(lines))
    ImportRun.objects.filter(id=run_id).update(
        status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now(), records_total=F("read_count")
    )
    return ImportRun.objects.get(id=run_id)
