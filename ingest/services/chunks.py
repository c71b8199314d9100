"""One chunk of an import (a line range of one file, or of several small files read one after
the other), read, parsed ahead and written batch by batch from where it last committed."""

from __future__ import annotations

import itertools
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from ingest import sources
from ingest.models import ImportChunk, ImportRun
from ingest.openalex import snapshot
from ingest.records import OPENALEX

from ..parsing import ParsedBatch, batch_prepare, batches_joined, parse_batch
from ..record_kinds import KINDS
from .batches import import_batch_commit
from .runs import import_run_finish_if_complete, import_run_mark_running

ProgressCallback = Callable[[int], None]


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


def _chunk_lines(chunk: ImportChunk, source: str) -> Iterator[tuple[int, int | None, bytes]]:
    """(number, byte offset or None, raw record) of a chunk of one file from its next record
    on. OpenAlex files are read by line (and byte offset); other sources by their reader, whose
    records are numbered from 1 in the file (ingest.sources)."""
    path = Path(chunk.path)
    if source == OPENALEX:
        yield from snapshot.read_lines(
            path,
            start_line=chunk.next_line,
            end_line=chunk.end_line,
            start_byte=chunk.next_byte,
            is_document=snapshot.is_document(path),
        )
        return
    reader = sources.reader_of(source)
    for number, raw in sources.read_records(
        reader, path, start=chunk.next_line, end=chunk.end_line
    ):
        yield number, None, raw


def _file_pieces(
    records: Iterable[tuple[int, int, bytes]], size: int
) -> Iterator[list[tuple[int, bytes]]]:
    """(number, raw) of the records of each file in turn, cut every `size` records from the
    file's first. records: (number, file index, raw), the files one after the other."""
    for _, file_records in itertools.groupby(records, key=lambda record: record[1]):
        rows = ((number, raw) for number, _, raw in file_records)
        while piece := list(itertools.islice(rows, size)):
            yield piece


def _record_keys(batch: ParsedBatch) -> set[tuple[str, str]]:
    return {
        (kind, KINDS[kind].key(record))
        for kind, records in batch.records.items()
        for record in records
    }


def _files_batches(chunk: ImportChunk, *, source: str, batch_size: int) -> Iterator[_ChunkBatch]:
    """The batches of a chunk of several files (ImportChunk.paths), written as each file would
    be in a chunk of its own: a batch holds whole files up to batch_size records (a larger file
    is cut every batch_size records from its first, as its own chunk would be), and a file
    that carries a record of an earlier file of the batch (the same kind and key: two copies
    of one ORCID record) starts the next batch. Its copy is then written after the first, an
    update, instead of being rejected as a duplicate within the batch. Two copies within one
    file stay such a duplicate, as in a chunk of their own."""
    reader = sources.reader_of(source)
    records = sources.read_records_of_files_by_file(
        reader, [Path(p) for p in chunk.paths], start=chunk.next_line, end=chunk.end_line
    )
    lines: list[tuple[int, bytes]] = []
    parts: list[ParsedBatch] = []
    keys: set[tuple[str, str]] = set()
    for piece in _file_pieces(records, batch_size):
        part = parse_batch(
            piece,
            mapper=sources.mapper_of(source),
            source=source,
            path=chunk.path,
            run_id=chunk.run_id,
            prepare=False,
        )
        part_keys = _record_keys(part)
        if lines and (len(lines) + len(piece) > batch_size or not keys.isdisjoint(part_keys)):
            yield _ChunkBatch(
                lines, batch_prepare(batches_joined(parts)), lines[-1][0], None, False
            )
            lines, parts, keys = [], [], set()
        lines += piece
        parts.append(part)
        keys |= part_keys
    yield _ChunkBatch(lines, batch_prepare(batches_joined(parts)), chunk.end_line, None, True)


def _chunk_batches(chunk: ImportChunk, *, batch_size: int) -> Iterator[_ChunkBatch]:
    """The chunk's batches from its next record on, read and parsed."""
    source = ImportRun.objects.filter(id=chunk.run_id).values_list("source", flat=True).first()
    source = source or OPENALEX
    if source != OPENALEX and chunk.paths:
        yield from _files_batches(chunk, source=source, batch_size=batch_size)
        return
    lines = _chunk_lines(chunk, source)
    mapper = sources.mapper_of(source, entity=chunk.entity or None)

    def parsed(batch: list[tuple[int, bytes]], next_line: int, next_byte: int | None, final: bool):  # noqa: ANN202
        parsed_batch = parse_batch(
            batch, mapper=mapper, source=source, path=chunk.path, run_id=chunk.run_id
        )
        return _ChunkBatch(batch, parsed_batch, next_line, next_byte, final)

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
    finish_run: bool = True,
) -> bool:
    """Import one chunk from where it last committed. Returns quietly if it is gone or done.

    The researchers its batches touched are left pending for the follow-up drain. With
    finish_run (a worker's chunk), the run is marked succeeded when this was its last chunk;
    returns True when this call did that, so the caller queues the drain.
    """
    chunk = ImportChunk.objects.filter(id=chunk_id).first()
    if chunk is None:
        return False
    if chunk.done:
        return finish_run and import_run_finish_if_complete(run_id=chunk.run_id)
    batch_size = batch_size or settings.IMPORT_BATCH_SIZE
    import_run_mark_running(chunk.run_id)
    for batch in _parse_ahead(_chunk_batches(chunk, batch_size=batch_size)):
        committed = import_batch_commit(
            chunk=chunk,
            lines=batch.lines,
            next_line=batch.next_line,
            next_byte=batch.next_byte,
            final=batch.final,
            parsed=batch.parsed,
        )
        if not committed:
            if batch.final:
                break  # another worker finished the chunk; the run may be complete
            return False
        if on_progress:
            on_progress(len(batch.lines))
    return finish_run and import_run_finish_if_complete(run_id=chunk.run_id)
