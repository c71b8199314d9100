"""Writes of researchers' CVs: the entries a source states, replaced set-based per source.

A source (ORCID) states a researcher's whole CV at once; its entries replace that source's
previous ones: new ones are inserted, changed ones updated in place (the claimant's `hidden`
survives), unchanged ones cost nothing, and the ones the source no longer lists are deleted.
Entries of another source (the claimant's own) are never touched.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from .. import page_cache
from ..cv_entry import CvEntryData
from ..models import CVEntry, CvSection

_COLUMNS = (
    ("section", "text"),
    ("organisation", "text"),
    ("role", "text"),
    ("department", "text"),
    ("city", "text"),
    ("region", "text"),
    ("country", "text"),
    ("start_year", "smallint"),
    ("start_month", "smallint"),
    ("start_day", "smallint"),
    ("end_year", "smallint"),
    ("end_month", "smallint"),
    ("end_day", "smallint"),
    ("url", "text"),
    ("organisation_ids", "jsonb"),
    ("amount", "text"),
    ("currency", "text"),
    ("source_key", "text"),
    ("display_order", "integer"),
)
_SECTIONS = frozenset(CvSection.values)


@dataclass(frozen=True, slots=True)
class CvReplaceResult:
    written: int  # inserted or changed
    deleted: int


def _row(entry: CvEntryData) -> list[object]:
    return [
        entry.section,
        entry.organisation[:500],
        entry.role[:500],
        entry.department[:500],
        entry.city[:200],
        entry.region[:200],
        entry.country[:2].upper(),
        *entry.start,
        *entry.end,
        entry.url[:1000],
        json.dumps([list(pair) for pair in entry.organisation_ids]),
        entry.amount[:50],
        entry.currency[:3],
        entry.source_key[:100],
        entry.display_order,
    ]


@transaction.atomic
def cv_entries_replace_for_source(
    *, researcher_id: int, source: str, entries: Sequence[CvEntryData]
) -> CvReplaceResult:
    """Make the researcher's entries from `source` exactly `entries`, in three statements.

    Idempotent: a second call with the same entries writes nothing (the upsert's WHERE skips
    rows whose every column is unchanged) and deletes nothing. Entries of an unknown section
    are refused with ValueError (a mapper bug, not bad data).
    """
    unknown = {entry.section for entry in entries} - _SECTIONS
    if unknown:
        raise ValueError(f"unknown CV sections: {sorted(unknown)}")
    # One entry per key: the source's last statement of a key wins.
    by_key = {entry.source_key: entry for entry in entries}
    rows = [_row(entry) for entry in by_key.values()]
    table = CVEntry._meta.db_table
    names = [name for name, _ in _COLUMNS]
    with connection.cursor() as cursor:
        written = 0
        if rows:
            columns = list(zip(*rows, strict=True))
            unnest = ", ".join(f"%s::{kind}[]" for _, kind in _COLUMNS)
            updates = ", ".join(
                f"{name} = EXCLUDED.{name}" for name in names if name != "source_key"
            )
            changed = " OR ".join(
                f"{table}.{name} IS DISTINCT FROM EXCLUDED.{name}"
                for name in names
                if name != "source_key"
            )
            cursor.execute(
                f"INSERT INTO {table} (researcher_id, source, hidden, updated_at, {', '.join(names)})"
                f" SELECT %s, %s, false, now(), * FROM unnest({unnest})"
                f" ON CONFLICT (researcher_id, source, source_key) DO UPDATE SET {updates},"
                f" updated_at = now() WHERE {changed}",
                [researcher_id, source, *[list(column) for column in columns]],
            )
            written = cursor.rowcount
        cursor.execute(
            f"DELETE FROM {table} WHERE researcher_id = %s AND source = %s"
            " AND NOT (source_key = ANY(%s::text[]))",
            [researcher_id, source, list(by_key)],
        )
        deleted = cursor.rowcount
    if written or deleted:
        transaction.on_commit(
            lambda: page_cache.profile_pages_invalidate(researcher_ids=[researcher_id])
        )
    return CvReplaceResult(written=written, deleted=deleted)


def cv_entry_hidden_set(*, researcher_id: int, entry_id: int, hidden: bool) -> bool:
    """Hide (or show again) one entry of the researcher's CV. False when the entry is not theirs.

    The caller has checked that the user may edit this researcher (claims: the approved
    claimant)."""
    changed = CVEntry.objects.filter(pk=entry_id, researcher_id=researcher_id).update(hidden=hidden)
    if changed:
        transaction.on_commit(
            lambda: page_cache.profile_pages_invalidate(researcher_ids=[researcher_id])
        )
    return bool(changed)
