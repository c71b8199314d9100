"""Sources (journals, repositories, conferences): full records, and the references works make."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..records import SourceRecord, content_hash
from .staging import Column, Cursor, UpsertTable, WriteResult, stage_and_upsert, stage_rows

_SOURCE_COLUMNS = [
    ("openalex_id", "text"),
    ("name", "text"),
    ("abbreviated_name", "text"),
    ("issn_l", "text"),
    ("type", "text"),
    ("homepage", "text"),
    ("content_hash", "text"),
    ("source_updated_at", "timestamptz"),
]

_SOURCES = UpsertTable(
    table="publications_source",
    stage="stage_source",
    staged=_SOURCE_COLUMNS,
    columns=[
        Column("name"),
        Column("abbreviated_name"),
        Column("issn_l"),
        Column("type"),
        Column("homepage"),
    ],
)


def _source_rows(records: Iterable[SourceRecord], *, hashed: bool) -> list[tuple[object, ...]]:
    return [
        (
            r.openalex_id,
            r.name[:500],
            r.abbreviated_name,
            r.issn_l,
            r.type[:50],
            r.homepage,
            content_hash(r) if hashed else "",
            r.source_updated_at,
        )
        for r in records
    ]


def upsert_source_refs(cursor: Cursor, sources: Iterable[SourceRecord]) -> None:
    """Insert the sources a batch of works names, when they are new; existing rows are untouched.
    Without a hash or date of their own, a later full record of them always updates them."""
    rows = _source_rows({s.openalex_id: s for s in sources}.values(), hashed=False)
    if not rows:
        return
    stage_rows(cursor, "stage_source_ref", _SOURCE_COLUMNS, rows)
    cursor.execute(
        """
        INSERT INTO publications_source
            (openalex_id, name, abbreviated_name, issn_l, type, homepage, content_hash, created_at, updated_at)
        SELECT openalex_id, name, abbreviated_name, issn_l, type, homepage, '', now(), now()
        FROM stage_source_ref ORDER BY openalex_id
        ON CONFLICT DO NOTHING
        """
    )


def write_sources(cursor: Cursor, records: Sequence[SourceRecord]) -> WriteResult:
    result = WriteResult()
    stage_and_upsert(cursor, _SOURCES, _source_rows(records, hashed=True), result)
    return result
