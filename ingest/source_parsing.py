"""Raw records of any source (ORCID, arXiv, Crossref, BibTeX) to plain records: the source's
pure mapper, then the same checks as OpenAlex's (ingest.validation).

Every raw record that cannot be used becomes an ImportIssue with its reason and text, and so
does every part a mapper drops (a Rejected item). Nothing here touches the database.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from ingest import sources
from ingest.models import ImportIssue
from ingest.records import (
    CvEntryRecord,
    ListedWorksRecord,
    MappingError,
    Rejected,
    ResearcherRecord,
    WorkRecord,
)
from ingest.validation import record_checked

from .parsing import ENTITY_HANDLERS, ParsedBatch, _raw_text, batch_prepare, issue_text

logger = logging.getLogger(__name__)

_KINDS: dict[type, str] = {
    WorkRecord: "works",
    ResearcherRecord: "authors",
    CvEntryRecord: "cv_entries",
    ListedWorksRecord: "listings",
}


def parse_source_batch(
    raws: Iterable[tuple[int, bytes | Rejected]],
    *,
    source: str,
    path: str,
    run_id: int,
    prepare: bool = True,
) -> ParsedBatch:
    """Map raw records of `source` (numbered from 1 in their file, or in the API answer).
    Duplicates of a record (same origin and id) within the batch keep the first. Without
    prepare, the batch is left for the caller to join to others and prepare (batch_prepare)."""
    mapper = sources.mapper_of(source)
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
        text = _raw_text(raw if isinstance(raw, bytes) else raw.encode("utf-8", "replace"))
        batch.issues.append(
            ImportIssue(
                run_id=run_id,
                severity=severity,
                path=path,
                line_number=number,
                entity=kind,
                external_id=issue_text(external_id, 64),
                reason=issue_text(reason),
                raw=text,
            )
        )

    for number, raw in raws:
        batch.read += 1
        if isinstance(raw, Rejected):
            issue(number, raw.raw, raw.reason, external_id=raw.external_id)
            continue
        try:
            mapped: Any = mapper(raw)
        except MappingError as exc:
            issue(number, raw, str(exc))
            continue
        except Exception as exc:  # noqa: BLE001 - a mapper bug must not lose the record silently
            logger.exception("%s mapper failed on record %s of %s", source, number, path)
            issue(number, raw, f"the {source} mapper failed: {exc!r}")
            continue
        for item in mapped:
            if isinstance(item, Rejected):
                issue(number, item.raw or raw, item.reason, external_id=item.external_id)
                continue
            kind = _KINDS.get(type(item))
            if kind is None:
                issue(
                    number, raw, f"the {source} mapper gave a {type(item).__name__}, not a record"
                )
                continue
            try:
                record, warnings = record_checked(item)
            except MappingError as exc:
                issue(number, raw, str(exc), kind=kind)
                continue
            key = ENTITY_HANDLERS[kind].key(record)
            if warnings:
                issue(
                    number,
                    raw,
                    "Stored with changes: " + "; ".join(warnings),
                    kind=kind,
                    external_id=key,
                    severity=ImportIssue.Severity.WARNING,
                )
            if (kind, key) in first_of:
                issue(
                    number,
                    raw,
                    f"duplicate of {key} (record {first_of[(kind, key)]}) in the same batch",
                    kind=kind,
                    external_id=key,
                )
                continue
            first_of[(kind, key)] = number
            batch.records.setdefault(kind, []).append(record)
    return batch_prepare(batch) if prepare else batch
