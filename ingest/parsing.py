"""Raw input lines to plain records: parse, map, reject what cannot be used.

Every line that cannot be used becomes an ImportIssue with its reason and text. Nothing here
touches the database; the writer (ingest.writer) takes the records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ingest import sources, writer
from ingest.models import ImportIssue
from ingest.openalex import mapper
from ingest.records import CvEntryRecord, MappingError
from ingest.validation import record_checked

RAW_TEXT_LIMIT = 1_000_000


@dataclass(frozen=True)
class EntityHandler:
    map: Callable[[Any], Any]
    write: Callable[..., writer.WriteResult]
    key: Callable[[Any], str]
    # The writer's database-free part, run by parse_batch; write() then takes its result.
    prepare: Callable[[Sequence[Any]], Any] | None = None


ENTITY_HANDLERS: dict[str, EntityHandler] = {
    "works": EntityHandler(
        mapper.map_work, writer.write_works, writer.work_key, writer.prepare_works
    ),
    # ORCID's researchers have no OpenAlex id: their iD is their key.
    "authors": EntityHandler(
        mapper.map_author, writer.write_researchers, lambda r: r.openalex_id or f"orcid:{r.orcid}"
    ),
    "institutions": EntityHandler(
        mapper.map_institution, writer.write_institutions, lambda r: r.openalex_id
    ),
    "sources": EntityHandler(mapper.map_source, writer.write_sources, lambda r: r.openalex_id),
    "topics": EntityHandler(mapper.map_topic, writer.write_topics, lambda r: r[0].external_id),
    # ORCID's CV entries, written by the ORCID package's writer (sources.EXTRA_RECORD_KINDS).
    "cv_entries": EntityHandler(
        lambda obj: obj,
        lambda cursor, records: _cv_writer()(cursor, records),
        lambda r: f"{r.origin}:{r.origin_id}",
    ),
    # Every work an owner's ORCID record lists: the listings it dropped go (after the works).
    # Keyed by owner: a second answer of one owner starts the next batch of a chunk of files
    # (chunks._files_batches), so it prunes after the first, as an import of its own would.
    "listings": EntityHandler(
        lambda obj: obj,
        writer.listings_prune,
        lambda r: f"{r.origin}:{r.owner_orcid}",
    ),
}


def _cv_writer() -> Callable[..., writer.WriteResult]:
    return sources.load(sources.EXTRA_RECORD_KINDS[CvEntryRecord][1])


@dataclass
class ParsedBatch:
    read: int = 0
    records: dict[str, list[Any]] = field(default_factory=dict)
    issues: list[ImportIssue] = field(default_factory=list)
    prepared: dict[str, Any] = field(default_factory=dict)  # kind -> its handler's prepare()


def batch_prepare(batch: ParsedBatch) -> ParsedBatch:
    """Run each kind's prepare() (the writer's database-free part) on the batch's records."""
    batch.prepared = {}
    for kind, records in batch.records.items():
        prepare = ENTITY_HANDLERS[kind].prepare
        if prepare is not None:
            batch.prepared[kind] = prepare(records)
    return batch


def batches_joined(parts: Sequence[ParsedBatch]) -> ParsedBatch:
    """One batch of the records and issues of parts, in order, not prepared yet. The caller
    knows that no record of one part has the kind and key of a record of another."""
    joined = ParsedBatch()
    for part in parts:
        joined.read += part.read
        joined.issues.extend(part.issues)
        for kind, records in part.records.items():
            joined.records.setdefault(kind, []).extend(records)
    return joined


def _raw_text(raw: bytes) -> str:
    """The line as text moderators can read, and PostgreSQL can store (no NUL)."""
    text = raw[:RAW_TEXT_LIMIT].decode("utf-8", errors="replace").rstrip("\n")
    return text.replace("\x00", "\\x00")


def issue_text(value: str, limit: int | None = None) -> str:
    """An id or reason from the record, storable whatever it holds."""
    value = value.replace("\x00", "\\x00")
    return value[:limit] if limit else value


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
                external_id=issue_text(external_id, 64),
                reason=issue_text(reason),
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
                f"record is {mapper.type_name(obj)}, expected an object"
                if not isinstance(obj, dict)
                else "record has no id"
                if not raw_id
                else f"id is {mapper.type_name(raw_id)}, expected a string"
                if not isinstance(raw_id, str)
                else f"id {raw_id!r} is not an OpenAlex work, author, institution, source or topic id"
            )
            reject(line_number, raw, reason, external_id=external_id)
            continue
        handler = ENTITY_HANDLERS[kind]
        try:
            # Mapped, then made to fit the database (ingest.validation): a
            # value PostgreSQL would refuse is cleaned with a warning or rejects the record
            # here, instead of aborting the batch's write.
            record, warnings = record_checked(handler.map(obj))
        except MappingError as exc:
            reject(line_number, raw, str(exc), kind=kind, external_id=external_id)
            continue
        if warnings:
            batch.issues.append(
                ImportIssue(
                    run_id=run_id,
                    severity=ImportIssue.Severity.WARNING,
                    path=path,
                    line_number=line_number,
                    entity=kind,
                    external_id=issue_text(external_id, 64),
                    reason="Stored with changes: " + "; ".join(warnings),
                    raw=_raw_text(raw),
                )
            )
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
WRITE_ORDER = ("topics", "sources", "institutions", "authors", "cv_entries", "works", "listings")
