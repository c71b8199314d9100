"""The works' own rows (writer/works.py, step 4): new ones inserted with ids drawn first,
changed ones updated by id, through one staging table; an identifier another work holds is
left off with a warning."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import orjson

from .staging import Cursor, Warning_, WriteResult, ids_by_key, stage_rows
from .targets import Target

_WORK_COLUMNS = [
    ("ref", "int"),
    ("id", "int8"),
    ("is_new", "bool"),
    ("openalex_id", "text"),
    ("doi", "text"),
    ("arxiv_id", "text"),
    ("title", "text"),
    ("abstract", "text"),
    ("type", "text"),
    ("publication_date", "date"),
    ("publication_year", "int"),
    ("publication_date_precision", "text"),
    ("source_id", "int8"),
    ("cited_by_count", "int"),
    ("counts_by_year", "jsonb"),
    ("open_access_url", "text"),
    ("code_url", "text"),
    ("language", "text"),
    ("authors_count", "int"),
    ("journal_ref", "text"),
    ("title_key", "text"),
    ("byline_origin", "text"),
    ("content_hash", "text"),
]
_WRITTEN = [name for name, _ in _WORK_COLUMNS[3:]]


def venue_ids_of(
    cursor: Cursor, merged: Sequence[dict[str, Any]], venue_ids: dict[str, int]
) -> dict[str, int]:
    """venue_ids (what the batch wrote, by venue key) with the stored venues the merged works
    name: by OpenAlex id ('openalex:<id>') or by venue key."""
    refs = {m["venue"] for m in merged if m["venue"]}
    openalex = [r.split(":", 1)[1] for r in refs if r.startswith("openalex:")]
    found = {
        f"openalex:{k}": v
        for k, v in ids_by_key(cursor, "publications_source", "openalex_id", openalex).items()
    }
    missing = [r for r in refs if not r.startswith("openalex:") and r not in venue_ids]
    found.update(ids_by_key(cursor, "publications_source", "venue_key", missing))
    return {**venue_ids, **found}


def _new_ids_draw(cursor: Cursor, new: Sequence[Target]) -> None:
    """Draw the new works' ids from the table's sequence and set them on their targets."""
    if new:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('publications_work', 'id')) FROM generate_series(1, %s)",
            [len(new)],
        )
        for target, (work_id,) in zip(new, cursor.fetchall(), strict=True):
            target.id = work_id


def _work_row(
    target: Target, m: dict[str, Any], *, is_new: bool, venue_ids: dict[str, int]
) -> list[Any]:
    """The work's staging row, in _WORK_COLUMNS order, ending with the hash of what is written
    (an unchanged work is then not updated)."""
    row = [
        target.ref,
        target.id,
        is_new,
        m["openalex_id"],
        m["doi"],
        m["arxiv_id"],
        m["title"],
        m["abstract"] or "",
        (m["type"] or "other")[:40],
        m["publication_date"],
        m["publication_year"],
        m["date_precision"] or "",
        venue_ids.get(m["venue"] or ""),
        m["cited_by_count"],
        orjson.dumps(m["counts_by_year"]).decode(),
        (m["open_access_url"] or "")[:1000],
        (m["code_url"] or "")[:1000],
        (m["language"] or "")[:10],
        m["authors_count"],
        m["journal_ref"] or "",
        (m["title_key"] or None) and m["title_key"][:300],
        m["byline_origin"],
    ]
    row.append(hashlib.md5(orjson.dumps(row[3:]), usedforsecurity=False).hexdigest())
    return row


def _held_identifiers_clear(cursor: Cursor, targets: Sequence[Target], result: WriteResult) -> None:
    """Clear, in stage_work, an identifier another work holds (or an earlier work of this
    batch): the work is written without it, with a warning."""
    by_ref = {t.ref: t for t in targets}
    for column in ("openalex_id", "doi", "arxiv_id"):
        cursor.execute(
            f"""
            UPDATE stage_work s SET {column} = NULL FROM publications_work t
            WHERE t.{column} = s.{column} AND t.id <> s.id
            RETURNING s.ref, t.{column}, coalesce(t.openalex_id, t.id::text)
            """
        )
        held = cursor.fetchall()
        cursor.execute(
            f"""
            UPDATE stage_work s SET {column} = NULL FROM stage_work o
            WHERE o.{column} = s.{column} AND o.ref < s.ref
            RETURNING s.ref, o.{column}, coalesce(o.openalex_id, 'this batch')
            """
        )
        for ref, value, holder in [*held, *cursor.fetchall()]:
            result.warnings.append(
                Warning_(
                    _target_label(by_ref[ref]),
                    f"{column} {value} already belongs to {holder}; imported without it",
                )
            )


def _staged_works_write(
    cursor: Cursor, targets: Sequence[Target], new: Sequence[Target], new_refs: set[int]
) -> dict[int, Any]:
    """Insert the new works from stage_work, lock the existing ones and update those whose hash
    changed; returns each work's arrival (created_at) by id."""
    names = ", ".join(_WRITTEN)
    cursor.execute(
        f"""
        INSERT INTO publications_work (id, {names}, created_at, updated_at)
        SELECT id, {names}, now(), now() FROM stage_work WHERE is_new ORDER BY id
        """
    )
    existing = [t.id for t in targets if t.ref not in new_refs]
    arrivals: dict[int, Any] = {}
    if existing:
        # Locked in id order, so two batches touching the same works cannot deadlock.
        cursor.execute(
            "SELECT id, created_at FROM publications_work WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
            [existing],
        )
        arrivals.update(cursor.fetchall())
        cursor.execute(
            f"""
            UPDATE publications_work t SET {", ".join(f"{n} = s.{n}" for n in _WRITTEN)}, updated_at = now()
            FROM stage_work s
            WHERE t.id = s.id AND NOT s.is_new AND t.content_hash IS DISTINCT FROM s.content_hash
            """
        )
    if new:
        cursor.execute(
            "SELECT id, created_at FROM publications_work WHERE id = ANY(%s)", [[t.id for t in new]]
        )
        arrivals.update(cursor.fetchall())
    return arrivals


def write_work_rows(
    cursor: Cursor,
    targets: Sequence[Target],
    merged: Sequence[dict[str, Any]],
    venue_ids: dict[str, int],
    result: WriteResult,
) -> dict[int, Any]:
    """Insert the new works and update the changed ones, through one staging table; returns
    each target's arrival (created_at) by id, and sets target.id on the new ones."""
    new = [t for t in targets if t.id is None]
    new_refs = {t.ref for t in new}
    _new_ids_draw(cursor, new)
    rows = [
        _work_row(target, m, is_new=target.ref in new_refs, venue_ids=venue_ids)
        for target, m in zip(targets, merged, strict=True)
    ]
    stage_rows(cursor, "stage_work", _WORK_COLUMNS, rows)
    _held_identifiers_clear(cursor, targets, result)
    return _staged_works_write(cursor, targets, new, new_refs)


def _target_label(target: Target) -> str:
    return (target.openalex_id or f"work {target.id}")[:64]
