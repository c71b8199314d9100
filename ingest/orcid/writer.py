"""The CV writer the import pipeline calls for CvEntryRecord (ingest.record_kinds:
CV_ENTRIES). Each owner's entries replace that owner's ORCID entries, through
researchers.services.cv_entries_replace_for_source (set-based, idempotent by put-code); the
current employments among them become the owner's ORCID affiliations
(researchers.services.affiliations_replace_for_source).

Precondition: the caller holds the transaction and has written the batch's ResearcherRecords
first, so an owner's iD finds its researcher. An owner with no researcher is a warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ingest.openalex.mapper.fields import normalize_ror
from ingest.records import CvEntryRecord
from ingest.writer import Warning_, WriteResult
from researchers.cv_entry import CvEntryData
from researchers.models import Researcher
from researchers.services import (
    StatedAffiliation,
    affiliations_replace_for_source,
    cv_entries_replace_for_source,
)


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
    written_owners: dict[str, set[int]] = defaultdict(set)  # source -> researcher ids
    current: dict[str, list[StatedAffiliation]] = defaultdict(list)
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
        written_owners[source].add(researcher_id)
        current[source].extend(
            _current_position(researcher_id, r.entry)
            for r in owned
            if _is_current_position(r.entry)
        )
        result.updated += replaced.written
        result.unchanged += len(owned) - replaced.written
        if replaced.written or replaced.deleted:
            result.touched_researcher_ids.add(researcher_id)
    # The current positions are affiliations too, labelled with their source (issue 24, item 6):
    # a record without an OpenAlex last known institution shows its ORCID employment.
    for source, owners in written_owners.items():
        affiliations_replace_for_source(
            source=source, researcher_ids=owners, stated=current[source]
        )
    return result


def _is_current_position(entry: CvEntryData) -> bool:
    return entry.section == "employment" and entry.end[0] is None and bool(entry.organisation)


def _current_position(researcher_id: int, entry: CvEntryData) -> StatedAffiliation:
    ror = next((value for scheme, value in entry.organisation_ids if scheme == "ror"), None)
    return StatedAffiliation(
        researcher_id=researcher_id,
        organisation=entry.organisation,
        ror=normalize_ror(ror) or "",
        country=entry.country,
        role=entry.role,
        start_year=entry.start[0],
    )
