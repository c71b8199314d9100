"""Raw records of any source to plain records: the source's pure mapper, then the checks that
make each record fit the database (ingest.validation). One parser for every source.

Every raw record that cannot be used becomes an ImportIssue with its reason and text, and so
does every part a mapper drops (a Rejected item) and every value cleaned on the way (a warning).
Nothing here touches the database; the writer takes the records (ingest.services.batches).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ingest.models import ImportIssue
from ingest.record_kinds import KIND_OF_RECORD, KINDS, RecordKind
from ingest.records import MappingError, Rejected
from ingest.validation import record_checked

logger = logging.getLogger(__name__)

RAW_TEXT_LIMIT = 1_000_000

# raw record (bytes) -> records and Rejected parts; MappingError rejects the whole record.
Mapper = Callable[[bytes], Sequence[Any]]


@dataclass
class ParsedBatch:
    read: int = 0
    records: dict[str, list[Any]] = field(default_factory=dict)  # kind name -> records
    issues: list[ImportIssue] = field(default_factory=list)
    prepared: dict[str, Any] = field(default_factory=dict)  # kind name -> its prepare()


def batch_prepare(batch: ParsedBatch) -> ParsedBatch:
    """Run each kind's prepare() (the writer's database-free part) on the batch's records."""
    batch.prepared = {}
    for name, records in batch.records.items():
        prepare = KINDS[name].prepare
        if prepare is not None:
            batch.prepared[name] = prepare(records)
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


def raw_text(raw: bytes | str) -> str:
    """The record as text moderators can read, and PostgreSQL can store (no NUL)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "replace")
    text = raw[:RAW_TEXT_LIMIT].decode("utf-8", errors="replace").rstrip("\n")
    return text.replace("\x00", "\\x00")


def issue_text(value: str, limit: int | None = None) -> str:
    """An id or reason from the record, storable whatever it holds."""
    value = value.replace("\x00", "\\x00")
    return value[:limit] if limit else value


def _key_or_blank(kind: RecordKind[Any], record: Any) -> str:
    """The key of a record the checks refused, to name it in the issue, if it has one."""
    try:
        return str(kind.key(record) or "")
    except Exception:  # noqa: BLE001 - a record too broken to have a key is named by its text
        return ""


def parse_batch(
    raws: Iterable[tuple[int, bytes | Rejected]],
    *,
    mapper: Mapper,
    source: str,
    path: str,
    run_id: int,
    prepare: bool = True,
) -> ParsedBatch:
    """Map raw records (numbered from 1 in their file, or in the API answer) with the source's
    mapper (ingest.sources.mapper_of). Blank lines are skipped; duplicates of a record (same
    kind and key) within the batch keep the first. Without prepare, the batch is left for the
    caller to join to others and prepare (batch_prepare)."""
    batch = ParsedBatch()
    first_of: dict[tuple[str, str], int] = {}

    def issue(
        number: int | None,
        raw: bytes | str,
        reason: str,
        *,
        kind: str = "",
        external_id: str = "",
        severity: str = ImportIssue.Severity.ERROR,
    ) -> None:
        batch.issues.append(
            ImportIssue(
                run_id=run_id,
                severity=severity,
                path=path,
                line_number=number,
                entity=kind,
                external_id=issue_text(external_id, 64),
                reason=issue_text(reason),
                raw=raw_text(raw),
            )
        )

    for number, raw in raws:
        if isinstance(raw, Rejected):
            batch.read += 1
            issue(number, raw.raw, raw.reason, external_id=raw.external_id)
            continue
        if not raw.strip():
            continue
        batch.read += 1
        try:
            mapped = mapper(raw)
        except MappingError as exc:
            issue(number, raw, str(exc), kind=exc.entity, external_id=exc.external_id)
            continue
        except Exception as exc:  # noqa: BLE001 - a mapper bug must not lose the record silently
            logger.exception("%s mapper failed on record %s of %s", source, number, path)
            issue(number, raw, f"the {source} mapper failed: {exc!r}")
            continue
        for item in mapped:
            if isinstance(item, Rejected):
                issue(number, item.raw or raw, item.reason, external_id=item.external_id)
                continue
            kind = KIND_OF_RECORD.get(type(item))
            if kind is None:
                issue(
                    number, raw, f"the {source} mapper gave a {type(item).__name__}, not a record"
                )
                continue
            try:
                # Made to fit the database: a value PostgreSQL would refuse is cleaned with a
                # warning or rejects the record here, instead of aborting the batch's write.
                record, warnings = record_checked(item)
            except MappingError as exc:
                issue(number, raw, str(exc), kind=kind.name, external_id=_key_or_blank(kind, item))
                continue
            key = kind.key(record)
            if warnings:
                issue(
                    number,
                    raw,
                    "Stored with changes: " + "; ".join(warnings),
                    kind=kind.name,
                    external_id=key,
                    severity=ImportIssue.Severity.WARNING,
                )
            if (kind.name, key) in first_of:
                issue(
                    number,
                    raw,
                    f"duplicate of {key} at line {first_of[(kind.name, key)]} in the same batch",
                    kind=kind.name,
                    external_id=key,
                )
                continue
            first_of[(kind.name, key)] = number
            batch.records.setdefault(kind.name, []).append(record)
    return batch_prepare(batch) if prepare else batch
