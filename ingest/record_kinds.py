"""The kinds of records a batch carries from the mappers to the writer, and how each is written.

Every source's mapper yields plain records (ingest.records); the record's type says its kind,
and its kind says the key that finds duplicates within a batch, the writer's database-free part
(prepare, run by the parser in the reading thread) and the set-based writer. A batch is written
kind by kind in WRITE_ORDER (ingest.services.batches.batch_write). The registry is plain
imports, so a reader follows a batch from here to each writer by going to its definition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from . import writer
from .orcid.writer import write_cv_entries
from .records import (
    CvEntryRecord,
    InstitutionRecord,
    ListedWorksRecord,
    ResearcherRecord,
    SourceRecord,
    TopicWithAncestors,
    WorkRecord,
)

R = TypeVar("R")


@dataclass(frozen=True)
class RecordKind(Generic[R]):
    name: str  # as batches, issues (ImportIssue.entity) and snapshot folders name it
    record_type: type[R]
    key: Callable[[R], str]
    # write(cursor, records, [prepared=...]) -> writer.WriteResult; set-based, the caller holds
    # the transaction.
    write: Callable[..., writer.WriteResult]
    prepare: Callable[[Sequence[R]], Any] | None = None


def _researcher_key(record: ResearcherRecord) -> str:
    # ORCID's researchers have no OpenAlex id: their iD is their key.
    return record.openalex_id or f"orcid:{record.orcid}"


TOPICS = RecordKind(
    "topics", TopicWithAncestors, lambda r: r.topic.external_id, writer.write_topics
)
SOURCES = RecordKind("sources", SourceRecord, lambda r: r.openalex_id or "", writer.write_sources)
INSTITUTIONS = RecordKind(
    "institutions", InstitutionRecord, lambda r: r.openalex_id, writer.write_institutions
)
AUTHORS = RecordKind("authors", ResearcherRecord, _researcher_key, writer.write_researchers)
# A researcher's CV (ORCID), after the researchers: an owner's iD finds its record.
CV_ENTRIES = RecordKind(
    "cv_entries", CvEntryRecord, lambda r: f"{r.source}:{r.entry.source_key}", write_cv_entries
)
WORKS = RecordKind(
    "works", WorkRecord, writer.work_key, writer.write_works, prepare=writer.prepare_works
)
# Every work an owner's ORCID record lists: the listings it dropped go (after the works).
# Keyed by owner: a second answer of one owner starts the next batch of a chunk of files
# (services/chunks.py), so it prunes after the first, as an import of its own would.
LISTINGS = RecordKind(
    "listings", ListedWorksRecord, lambda r: f"{r.origin}:{r.owner_orcid}", writer.listings_prune
)

# Works reference the others, which are then already there in full.
WRITE_ORDER: tuple[RecordKind[Any], ...] = (
    TOPICS,
    SOURCES,
    INSTITUTIONS,
    AUTHORS,
    CV_ENTRIES,
    WORKS,
    LISTINGS,
)
KINDS: dict[str, RecordKind[Any]] = {kind.name: kind for kind in WRITE_ORDER}
KIND_OF_RECORD: dict[type, RecordKind[Any]] = {kind.record_type: kind for kind in WRITE_ORDER}
