"""Sources (journals, repositories, conferences): full records, and the references works make."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from researchers.names import normalize_name

from ..records import SourceRecord, content_hash
from .staging import (
    Column,
    Cursor,
    UpsertTable,
    WriteResult,
    ids_by_key,
    stage_and_upsert,
    stage_rows,
)

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
    rows = _source_rows({s.openalex_id: s for s in sources if s.openalex_id}.values(), hashed=False)
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


def venue_key(source: SourceRecord) -> str | None:
    """The key of a venue without an OpenAlex id: its first ISSN, else its normalised name."""
    issns = [i.strip().upper() for i in (source.issn_l, *source.issns) if i and i.strip()]
    if issns:
        return f"issn:{issns[0]}"[:300]
    name = normalize_name(source.name)
    return f"name:{name}"[:300] if name else None


def upsert_venue_refs(cursor: Cursor, sources: Iterable[SourceRecord]) -> dict[str, int]:
    """Find or insert the venues of records without OpenAlex ids; returns their ids by
    venue_key. A venue whose ISSN an OpenAlex source already has (its issn_l) is that source."""
    unique = {key: s for s in sources if not s.openalex_id and (key := venue_key(s))}
    if not unique:
        return {}
    issns = {key[5:]: key for key in unique if key.startswith("issn:")}
    ids: dict[str, int] = {}
    if issns:
        cursor.execute(
            "SELECT issn_l, min(id) FROM publications_source WHERE issn_l = ANY(%s) GROUP BY issn_l",
            [list(issns)],
        )
        ids.update({issns[issn]: source_id for issn, source_id in cursor.fetchall()})
    missing = [(key, s) for key, s in unique.items() if key not in ids]
    if missing:
        stage_rows(
            cursor,
            "stage_venue_ref",
            [("venue_key", "text"), ("name", "text"), ("issn_l", "text")],
            [
                (key, (s.name or key[5:])[:500], key[5:14] if key.startswith("issn:") else "")
                for key, s in missing
            ],
        )
        cursor.execute(
            """
            INSERT INTO publications_source
                (venue_key, name, abbreviated_name, issn_l, type, homepage, content_hash, created_at, updated_at)
            SELECT venue_key, name, '', issn_l, '', '', '', now(), now()
            FROM stage_venue_ref ORDER BY venue_key
            ON CONFLICT DO NOTHING
            """
        )
        ids.update(ids_by_key(cursor, "publications_source", "venue_key", [k for k, _ in missing]))
    return ids
