"""Which work each record of a batch is (writer/works.py, step 3), and what the other sources
already said about those works. One query per kind, whatever the batch's size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..records import OPENALEX, WorkRecord
from .merge import Contribution
from .staging import Cursor, Warning_, WriteResult


def _key(record: WorkRecord) -> str:
    if record.origin == OPENALEX:
        return record.origin_key
    return f"{record.origin}:{record.origin_key}"


@dataclass
class Target:
    """A work the batch writes: an existing one (id) or a new one (id drawn in step 4)."""

    ref: int
    id: int | None
    openalex_id: str | None
    records: list[int] = field(default_factory=list)  # indexes into the batch


def _find_existing(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    contributions: Sequence[dict[str, Any]],
    todo: list[int],
):  # noqa: ANN202
    openalex_ids = [
        records[i].openalex_id
        for i in todo
        if records[i].origin == OPENALEX and records[i].openalex_id
    ]
    dois = [contributions[i]["doi"] for i in todo if contributions[i]["doi"]]
    arxiv_ids = [contributions[i]["arxiv_id"] for i in todo if contributions[i]["arxiv_id"]]
    title_keys = [
        contributions[i]["title_key"]
        for i in todo
        if contributions[i]["title_key"]
        and not contributions[i]["doi"]
        and not contributions[i]["arxiv_id"]
    ]
    cursor.execute(
        """
        SELECT id, openalex_id, doi, arxiv_id, title_key FROM publications_work
        WHERE openalex_id = ANY(%s) OR doi = ANY(%s) OR arxiv_id = ANY(%s) OR title_key = ANY(%s)
        ORDER BY id
        """,
        [openalex_ids, dois, arxiv_ids, title_keys],
    )
    return cursor.fetchall()


def assign_targets(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    contributions: Sequence[dict[str, Any]],
    todo: list[int],
    known_work: dict[int, int],
    result: WriteResult,
) -> list[Target]:
    """Each record of `todo` to its work (see the module's step 3). known_work: the work its
    WorkSource row names, by record index."""
    targets: list[Target] = []
    by_id: dict[int, Target] = {}
    keys: dict[tuple[str, str], Target] = {}

    def existing(work_id: int, openalex_id: str | None) -> Target:
        if work_id not in by_id:
            by_id[work_id] = Target(len(targets), work_id, openalex_id)
            targets.append(by_id[work_id])
        return by_id[work_id]

    for work_id, openalex_id, doi, arxiv_id, key in _find_existing(
        cursor, records, contributions, todo
    ):
        found = existing(work_id, openalex_id)
        for kind, value in (
            ("openalex", openalex_id),
            ("doi", doi),
            ("arxiv", arxiv_id),
            ("title", key),
        ):
            if value:
                keys.setdefault((kind, value), found)
    if known_work:
        cursor.execute(
            "SELECT id, openalex_id FROM publications_work WHERE id = ANY(%s)",
            [list(set(known_work.values()))],
        )
        for work_id, openalex_id in cursor.fetchall():
            existing(work_id, openalex_id)

    for index in todo:
        record, fields = records[index], contributions[index]
        is_openalex = record.origin == OPENALEX
        record_keys = [("doi", fields["doi"]), ("arxiv", fields["arxiv_id"])]
        if not fields["doi"] and not fields["arxiv_id"]:
            record_keys.append(("title", fields["title_key"]))
        record_keys = [(kind, value) for kind, value in record_keys if value]
        target: Target | None = by_id.get(known_work[index]) if index in known_work else None
        if target is None and is_openalex:
            target = keys.get(("openalex", record.openalex_id or ""))
        if target is None:
            for kind, value in record_keys:
                candidate = keys.get((kind, value))
                # OpenAlex decides its own identities: two W ids are never one work here.
                if candidate and not (
                    is_openalex and candidate.openalex_id not in (None, record.openalex_id)
                ):
                    target = candidate
                    break
        if target is None:
            target = Target(len(targets), None, record.openalex_id if is_openalex else None)
            targets.append(target)
        elif is_openalex and target.openalex_id is None:
            target.openalex_id = record.openalex_id
        for kind, value in record_keys:
            holder = keys.setdefault((kind, value), target)
            if holder is not target and not is_openalex:
                result.warnings.append(
                    Warning_(
                        _key(record)[:64],
                        f"{kind} {value} belongs to another work (#{holder.id or 'new'}); "
                        "the two are not linked",
                    )
                )
        if is_openalex and record.openalex_id:
            keys.setdefault(("openalex", record.openalex_id), target)
        target.records.append(index)
    return [t for t in targets if t.records]


def stored_contributions(
    cursor: Cursor, targets: Sequence[Target], replaced: set[tuple[str, str]]
) -> dict[int, list[Contribution]]:
    """The contributions already stored for the existing targets, minus the batch's records.
    A work written before WorkSource existed (OpenAlex only) contributes its current row."""
    work_ids = [t.id for t in targets if t.id is not None]
    stored: dict[int, list[Contribution]] = {work_id: [] for work_id in work_ids}
    if not work_ids:
        return stored
    cursor.execute(
        "SELECT work_id, origin, origin_id, fields FROM publications_worksource WHERE work_id = ANY(%s)",
        [work_ids],
    )
    with_rows: set[int] = set()
    for work_id, origin, origin_id, fields in cursor.fetchall():
        with_rows.add(work_id)
        if (origin, origin_id) not in replaced:
            stored[work_id].append(
                Contribution(
                    origin, origin_id, fields if isinstance(fields, dict) else orjson.loads(fields)
                )
            )
    legacy = [work_id for work_id in work_ids if work_id not in with_rows]
    if legacy:
        cursor.execute(
            """
            SELECT w.id, w.openalex_id, w.title, w.abstract, w.type, w.publication_date::text,
                   w.publication_year, s.openalex_id, w.cited_by_count, w.counts_by_year,
                   w.open_access_url, w.code_url, w.language, w.doi, w.arxiv_id, w.authors_count,
                   w.title_key
            FROM publications_work w LEFT JOIN publications_source s ON s.id = w.source_id
            WHERE w.id = ANY(%s) AND w.openalex_id IS NOT NULL
            """,
            [legacy],
        )
        for row in cursor.fetchall():
            if (OPENALEX, row[1]) in replaced:
                continue
            counts = row[9] if isinstance(row[9], dict) else orjson.loads(row[9] or "{}")
            stored[row[0]].append(
                Contribution(
                    OPENALEX,
                    row[1],
                    {
                        "title": row[2],
                        "abstract": row[3],
                        "type": row[4],
                        "publication_date": row[5],
                        "publication_year": row[6],
                        "date_precision": "",
                        "venue": f"openalex:{row[7]}" if row[7] else None,
                        "cited_by_count": row[8],
                        "counts_by_year": counts,
                        "open_access_url": row[10],
                        "code_url": row[11],
                        "language": row[12],
                        "doi": row[13],
                        "arxiv_id": row[14],
                        "openalex_id": row[1],
                        "journal_ref": "",
                        "versions": [],
                        "authors_count": row[15],
                        "title_key": row[16],
                    },
                )
            )
    return stored
