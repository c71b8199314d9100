"""The CV writer the import pipeline calls for CvEntryRecord (ingest.record_kinds:
CV_ENTRIES). Each owner's entries replace that owner's ORCID entries, through
researchers.services.cv_entries_replace_for_source (set-based, idempotent by put-code).

Precondition: the caller holds the transaction and has written the batch's ResearcherRecords
first, so an owner's iD finds its researcher. An owner with no researcher is a warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ingest.records import CvEntryRecord
from ingest.writer import Warning_, WriteResult
from researchers.models import Researcher
from researchers.services import cv_entries_replace_for_source


def write_cv_entries(cursor: Any, records: Sequence[CvEntryRecord]) -> WriteResult:
    by_owner: dict[tuple[str, str], list[CvEntryRecord]] = defaultdict(list)
    for record in records:
        by_owner[(record.owner_orcid, record.source)].append(record)
    researcher_ids = dict(
        Researcher.objects.filter(orcid__in={orcid for orcid, _ in by_owner}).values_list(
            "orcid", "id"
        )
    )
    result = WriteResult()
    for (orcid, source), owned in by_owner.items():
        researcher_id = researcher_ids.get(orcid)
        if researcher_id is None:
            result.warnings.append(
                Warning_(
                    external_id=orcid,
                    reason=f"{len(owned)} CV entries of {orcid}: no researcher with this ORCID iD",
                )
            )
            continue
        replaced = cv_entries_replace_for_source(
            researcher_id=researcher_id, source=source, entries=[r.entry for r in owned]
        )
        result.updated += replaced.written
        result.unchanged += len(owned) - replaced.written
        if replaced.written or replaced.deleted:
            result.touched_researcher_ids.add(researcher_id)
    return result
