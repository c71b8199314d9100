"""The shape of one CV entry as a source states it, from the importer's mapper to the CV writer
(researchers.services.cv_entries_replace_for_source): plain data, no database, so the mappers
of the ingest app build it directly (ingest.records.CvEntryRecord carries it with its owner)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CvEntryData:
    """One entry as a source states it. Dates are (year, month, day) with None for what the
    source did not give; source_key is the source's stable id of the entry (ORCID put-code)."""

    section: str
    source_key: str
    organisation: str = ""
    role: str = ""
    department: str = ""
    city: str = ""
    region: str = ""
    country: str = ""
    start: tuple[int | None, int | None, int | None] = (None, None, None)
    end: tuple[int | None, int | None, int | None] = (None, None, None)
    url: str = ""
    organisation_ids: tuple[tuple[str, str], ...] = ()
    amount: str = ""
    currency: str = ""
    display_order: int = 0
