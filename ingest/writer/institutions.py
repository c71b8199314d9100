"""Institutions: full records, and the references bylines and affiliations make."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..records import InstitutionRecord, InstitutionRef, content_hash
from .staging import (
    Column,
    Cursor,
    UniqueIdentifier,
    UpsertTable,
    WriteResult,
    stage_and_upsert,
    stage_rows,
)

_INSTITUTION_COLUMNS = [
    ("openalex_id", "text"),
    ("ror", "text"),
    ("name", "text"),
    ("country_code", "text"),
    ("type", "text"),
    ("homepage", "text"),
    ("email_domains", "text[]"),
    ("content_hash", "text"),
    ("source_updated_at", "timestamptz"),
]

_INSTITUTIONS = UpsertTable(
    table="researchers_institution",
    stage="stage_institution",
    staged=_INSTITUTION_COLUMNS,
    columns=[
        Column("ror"),
        Column("name"),
        Column("country_code"),
        Column("type"),
        Column("homepage"),
        # Merged, not replaced: domains already stored (added in the admin, say) stay.
        Column(
            "email_domains",
            update="ARRAY(SELECT DISTINCT unnest(t.email_domains || EXCLUDED.email_domains))",
        ),
    ],
    unique_identifiers=[
        UniqueIdentifier("ror", "ROR already belongs to {holder}; imported without it")
    ],
)


def upsert_institution_refs(cursor: Cursor, institutions: Iterable[InstitutionRef]) -> None:
    """Insert the institutions a batch names, when they are new; existing rows are untouched."""
    unique = {i.openalex_id: i for i in institutions if i.name}
    if not unique:
        return
    stage_rows(
        cursor,
        "stage_institution_ref",
        _INSTITUTION_COLUMNS,
        [
            (i.openalex_id, i.ror, i.name[:500], i.country_code, i.type[:50], "", [], "", None)
            for i in unique.values()
        ],
    )
    # A ROR already held by another record would make the row conflict on ror and be skipped;
    # the second statement inserts those without the ROR so the institution itself is not lost.
    for ror_expression in ("ror", "NULL"):
        cursor.execute(
            f"""
            INSERT INTO researchers_institution
                (openalex_id, ror, name, country_code, type, homepage, email_domains, content_hash,
                 created_at, updated_at)
            SELECT openalex_id, {ror_expression}, name, country_code, type, homepage, email_domains,
                   '', now(), now()
            FROM stage_institution_ref s
            WHERE NOT EXISTS (SELECT 1 FROM researchers_institution i WHERE i.openalex_id = s.openalex_id)
            ORDER BY openalex_id
            ON CONFLICT DO NOTHING
            """
        )


def write_institutions(cursor: Cursor, records: Sequence[InstitutionRecord]) -> WriteResult:
    result = WriteResult()
    stage_and_upsert(
        cursor,
        _INSTITUTIONS,
        [
            (
                r.openalex_id,
                r.ror,
                r.name[:500],
                r.country_code,
                r.type[:50],
                r.homepage,
                list(r.email_domains),
                content_hash(r),
                r.source_updated_at,
            )
            for r in records
        ],
        result,
    )
    return result
