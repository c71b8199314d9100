"""The CV writer the import pipeline calls for CvEntryRecord (ingest.sources:
EXTRA_RECORD_KINDS). Each owner's entries replace that owner's ORCID entries, through
researchers.services.cv_entries_replace_for_source (set-based, idempotent by put-code).

Precondition: the caller holds the transaction and has written the batch's ResearcherRecords
first, so an owner's iD finds its researcher. An owner with no researcher is a warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ingest.records import CvEntryRecord, PartialDate
from ingest.writer import Warning_, WriteResult
from researchers.models import Researcher
from researchers.services import CvEntryData, cv_entries_replace_for_source


def _parts(date: PartialDate | None) -> tuple[int | None, int | None, int | None]:
    if date is None:
        return (None, None, None)
    return (date.year, date.month, date.day)


def cv_entry_data(record: CvEntryRecord) -> CvEntryData:
    return CvEntryData(
        section=record.kind,
        source_key=record.origin_id,
        organisation=record.organisation,
        role=record.role,
        department=record.department,
        city=record.city,
        region=record.region,
        country=record.country,
        start=_parts(record.start),
        end=_parts(record.end),
        url=record.url,
        organisation_ids=record.organisation_ids,
        amount=record.amount,
        currency=record.currency,
        display_order=record.display_index or 0,
    )


def write_cv_entries(cursor: Any, records: Sequence[CvEntryRecord]) -> WriteResult:
    by_owner: dict[tuple[str, str], list[CvEntryRecord]] = defaultdict(list)
    for record in records:
        by_owner[(record.owner_orcid, record.origin)].append(record)
    researcher_ids = dict(
        Researcher.objects.filter(orcid__in={orcid for orcid, _ in by_owner}).values_list(
            "orcid", "id"
        )
    )
    result = WriteResult()
    for (orcid, origin), owned in by_owner.items():
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
            researcher_id=researcher_id, source=origin, entries=[cv_entry_data(r) for r in owned]
        )
        result.updated += replaced.written
        result.unchanged += len(owned) - replaced.written
        if replaced.written or replaced.deleted:
            result.touched_researcher_ids.add(researcher_id)
    return result
