"""One batch of an import: one transaction that writes the records, their issues, the run's
counts and the chunk's progress together."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from typing import Any

import psycopg
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from graph.services import coauthor_bylines_before, coauthor_edges_record_batch
from ingest.models import ImportChunk, ImportIssue, ImportRun
from ingest.writer import write_work_references

from ..parsing import ParsedBatch, batch_prepare, issue_text
from ..record_kinds import KINDS, WORKS, WRITE_ORDER
from .follow_up import researchers_follow_up, researchers_follow_up_defer

logger = logging.getLogger(__name__)

# Deadlock detected, serialization failure, and a unique violation: a concurrent batch took an
# identifier first, which the retry sees and adapts to. Any other refusal is about the data.
_RETRYABLE_SQLSTATES = {"40P01", "40001", "23505"}


# The writer runs COPY and its statements on psycopg's own cursor, whose errors are psycopg's;
# statements through Django's cursor raise Django's wrappers of them. Both are database errors.
DATABASE_ERRORS = (DatabaseError, psycopg.Error)


def _sqlstate(exc: BaseException) -> str | None:
    sqlstate = getattr(exc, "sqlstate", None)
    return sqlstate or getattr(getattr(exc, "__cause__", None), "sqlstate", None)


def _is_retryable(exc: BaseException) -> bool:
    sqlstate = _sqlstate(exc)
    if sqlstate is None and isinstance(exc, IntegrityError):
        return True
    return sqlstate in _RETRYABLE_SQLSTATES


def batch_write(
    batch: ParsedBatch, *, run_id: int, path: str, defer_follow_up: bool = False
) -> dict[str, int]:
    """Write one parsed batch; the caller holds the transaction.

    The researchers whose works changed (and those a changed byline no longer names) are
    followed up in this transaction, or, with defer_follow_up (a run's chunks), recorded in it
    for the drain that follows them up once for many batches (follow_up.py).
    """
    totals = {"created": 0, "updated": 0, "unchanged": 0}
    touched: set[int] = set()
    unlinked: set[int] = set()
    issues = list(batch.issues)
    # The works written; the writer hands the graph the bylines it is about to replace (by
    # the existing works' ids, once it has found them), so the coauthor edges can follow.
    work_ids: set[int] = set()
    with connection.cursor() as cursor:
        raw_cursor = cursor.cursor  # psycopg's own cursor, for COPY
        for kind in WRITE_ORDER:
            records = batch.records.get(kind.name)
            if not records:
                continue
            write = kind.write
            if kind.name in batch.prepared:
                write = partial(write, prepared=batch.prepared[kind.name])
            if kind is WORKS:
                write = partial(write, before_bylines=_bylines_before)
            result = write(raw_cursor, records)
            work_ids |= result.work_ids
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
                    entity=kind.name,
                    external_id=warning.external_id,
                    reason=warning.reason,
                )
                for warning in result.warnings
            )
    if issues:
        ImportIssue.objects.bulk_create(issues, batch_size=1000)
    # Bylines that changed are queued, in this transaction, for the coalesced edge drain.
    coauthor_edges_record_batch(work_ids=work_ids)
    if defer_follow_up:
        researchers_follow_up_defer(researcher_ids=touched | unlinked)
    else:
        researchers_follow_up(researcher_ids=touched | unlinked)
    totals["failed"] = sum(
        1 for issue in batch.issues if issue.severity == ImportIssue.Severity.ERROR
    )
    return totals


def _bylines_before(work_ids: list[int]) -> None:
    coauthor_bylines_before(work_ids=work_ids)


def _halves(batch: ParsedBatch) -> tuple[ParsedBatch, ParsedBatch]:
    """The batch's records in two halves (in write order), each with what its records need
    prepared; the parse issues go with the first half, so they are stored once."""
    records = _records_in_write_order(batch)
    middle = len(records) // 2
    halves = []
    for part, issues in ((records[:middle], batch.issues), (records[middle:], [])):
        half = ParsedBatch(read=0, issues=list(issues))
        for kind, record in part:
            half.records.setdefault(kind, []).append(record)
        halves.append(batch_prepare(half))
    return halves[0], halves[1]


def _records_in_write_order(batch: ParsedBatch) -> list[tuple[str, Any]]:
    """(kind name, record) of every record of the batch, in write order."""
    return [
        (kind.name, record) for kind in WRITE_ORDER for record in batch.records.get(kind.name, ())
    ]


def batch_write_isolating_refusals(
    batch: ParsedBatch, *, run_id: int, path: str, defer_follow_up: bool = False
) -> dict[str, int]:
    """batch_write, and when the database refuses a record that the checks before the write
    (ingest.validation) did not foresee, that record found by halving the
    batch, each half in a savepoint, and kept as an ImportIssue with the database's reason; the
    others are written. The caller holds the transaction.

    Halving costs a few rewrites of the batch for each refused record, only when one is."""
    try:
        with transaction.atomic():  # a savepoint: a refusal undoes this attempt only
            totals = batch_write(batch, run_id=run_id, path=path, defer_follow_up=defer_follow_up)
    except DATABASE_ERRORS as exc:
        if _is_retryable(exc):
            raise
        records = _records_in_write_order(batch)
        if len(records) > 1:
            first, second = _halves(batch)
            totals = batch_write_isolating_refusals(
                first, run_id=run_id, path=path, defer_follow_up=defer_follow_up
            )
            more = batch_write_isolating_refusals(
                second, run_id=run_id, path=path, defer_follow_up=defer_follow_up
            )
            return {key: totals[key] + more[key] for key in totals}
        refused = ParsedBatch(read=0, issues=list(batch.issues))
        if records:
            kind, record = records[0]
            reason = str(exc).strip().splitlines()[0]
            logger.warning("import run %s: %s %s refused: %s", run_id, kind, record, reason)
            refused.issues.append(
                ImportIssue(
                    run_id=run_id,
                    path=path,
                    entity=kind,
                    external_id=issue_text(KINDS[kind].key(record), 64),
                    reason=issue_text(f"refused by the database: {reason}"),
                )
            )
        return batch_write(refused, run_id=run_id, path=path, defer_follow_up=defer_follow_up)
    return totals


def run_counts_add(run_id: int, *, read: int, totals: dict[str, int], chunk_finished: bool) -> None:
    ImportRun.objects.filter(id=run_id).update(
        read_count=F("read_count") + read,
        created_count=F("created_count") + totals["created"],
        updated_count=F("updated_count") + totals["updated"],
        unchanged_count=F("unchanged_count") + totals["unchanged"],
        failed_count=F("failed_count") + totals["failed"],
        chunks_done=F("chunks_done") + (1 if chunk_finished else 0),
        last_progress_at=timezone.now(),
    )


def _references_commit(batch: ParsedBatch) -> None:
    """Insert the new sources, topics, institutions and researchers the batch's works name, in a
    transaction of its own that commits at once (writer.write_work_references).

    Two workers' batches often name the same new author. Inserted inside the batch, the row
    stays uncommitted until the batch commits, and the other batch's insert of it waits that
    long: with the metrics' row locks gone from the batches, this was what was left of the
    workers' lock waits. Should the batch then fail, these rows stay, as rows any later batch
    naming them would have made; a record the batch refused can leave a researcher without
    works, whom the pages list with none.
    """
    prepared = batch.prepared.get("works")
    if not prepared or prepared.references is not None:
        return  # nothing to name, or committed by an earlier attempt of this batch
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            references = write_work_references(cursor.cursor, prepared)
        # Committed: the batch's write reads these ids instead of writing the rows again.
        prepared.references = references
    except DATABASE_ERRORS as exc:
        if _is_retryable(exc):
            raise
        # A reference the database refuses: the batch's own write meets it again and keeps the
        # record that carries it as an ImportIssue (batch_write_isolating_refusals).
        logger.info("references of a batch left to the batch itself: %s", exc)


def import_batch_commit(
    *,
    chunk: ImportChunk,
    lines: Sequence[tuple[int, bytes]],
    next_line: int,
    next_byte: int | None,
    final: bool,
    parsed: ParsedBatch,
) -> bool:
    """Commit one batch of a chunk. Returns False when another worker already committed it.

    The chunk row is advanced with a compare-and-set on next_line in the same transaction as
    the writes: of two workers that got the same chunk, only one commits each batch.
    `parsed` is what the parser made of lines (ingest.parsing.parse_batch). The follow-up of
    the researchers the batch touched is deferred to the drain (follow_up.py).
    """
    for attempt in range(3):
        try:
            _references_commit(parsed)
            with transaction.atomic():
                advanced = ImportChunk.objects.filter(
                    id=chunk.id, next_line=chunk.next_line, done=False
                ).update(next_line=next_line, next_byte=next_byte, done=final)
                if not advanced:
                    return False
                totals = batch_write_isolating_refusals(
                    parsed, run_id=chunk.run_id, path=chunk.path, defer_follow_up=True
                )
                run_counts_add(chunk.run_id, read=parsed.read, totals=totals, chunk_finished=final)
            break
        except DATABASE_ERRORS as exc:
            if attempt == 2 or not _is_retryable(exc):
                raise
            logger.warning("import batch of chunk %s retried after %s", chunk.id, exc)
    chunk.next_line, chunk.next_byte, chunk.done = next_line, next_byte, final
    return True
