"""Which work each record of a batch is (writer/works.py, step 3), and what the other sources
already said about those works. One query per kind, whatever the batch's size.

Two works that are one: when a record's identifiers (the work its source record made before,
its DOI, its arXiv id) lead to two different works, for instance an arXiv preprint stored as
one work and its publisher's DOI as another, and then a record carrying both, the works become
one: the target with an OpenAlex id, else the oldest, survives and absorbs the others
(Target.absorbed; writer/absorb.py moves what hangs off them). Two works with different
OpenAlex ids are never united here (OpenAlex decides its own identities, and its merged_ids
files say when two are one): the record then goes to the first and an import warning says
which identifier belongs to the other."""

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
    # Existing works found to be this one: merged into it (writer/absorb.py) before it is written.
    absorbed: list[int] = field(default_factory=list)


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


@dataclass
class _Assignment:
    """The batch's targets as they are found: by work id, by the identifier keys that lead to
    them, and which targets were united into which (merged_into, by Target.ref)."""

    targets: list[Target] = field(default_factory=list)
    by_id: dict[int, Target] = field(default_factory=dict)
    keys: dict[tuple[str, str], Target] = field(default_factory=dict)
    merged_into: dict[int, Target] = field(default_factory=dict)

    def existing(self, work_id: int, openalex_id: str | None) -> Target:
        """The target of a stored work, added the first time it is met."""
        if work_id not in self.by_id:
            self.by_id[work_id] = Target(len(self.targets), work_id, openalex_id)
            self.targets.append(self.by_id[work_id])
        return self.by_id[work_id]

    def find(self, target: Target) -> Target:
        """The target `target` was united into, or itself."""
        while target.ref in self.merged_into:
            target = self.merged_into[target.ref]
        return target

    def unite(self, candidates: list[Target]) -> Target:
        """Make the candidates one target: the one with an OpenAlex id, else the oldest,
        survives and takes the others' records and stored works."""
        survivor = min(
            candidates,
            key=lambda t: (t.openalex_id is None, t.id is None, t.id or 0, t.ref),
        )
        for other in candidates:
            if other is survivor:
                continue
            self.merged_into[other.ref] = survivor
            survivor.records += other.records
            other.records = []
            if other.id is not None:
                survivor.absorbed += [other.id, *other.absorbed]
            other.absorbed = []
            survivor.openalex_id = survivor.openalex_id or other.openalex_id
        return survivor


def _existing_targets(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    contributions: Sequence[dict[str, Any]],
    todo: list[int],
    known_work: dict[int, int],
) -> _Assignment:
    """The stored works the batch's identifiers lead to, each keyed by its identifiers, and the
    works the batch's WorkSource rows name."""
    assignment = _Assignment()
    for work_id, openalex_id, doi, arxiv_id, key in _find_existing(
        cursor, records, contributions, todo
    ):
        found = assignment.existing(work_id, openalex_id)
        for kind, value in (
            ("openalex", openalex_id),
            ("doi", doi),
            ("arxiv", arxiv_id),
            ("title", key),
        ):
            if value:
                assignment.keys.setdefault((kind, value), found)
    if known_work:
        cursor.execute(
            "SELECT id, openalex_id FROM publications_work WHERE id = ANY(%s)",
            [list(set(known_work.values()))],
        )
        for work_id, openalex_id in cursor.fetchall():
            assignment.existing(work_id, openalex_id)
    return assignment


def _record_keys(fields: dict[str, Any]) -> list[tuple[str, str]]:
    """The identifier keys a record is matched by: DOI and arXiv id, its title key only when it
    has neither."""
    record_keys = [("doi", fields["doi"]), ("arxiv", fields["arxiv_id"])]
    if not fields["doi"] and not fields["arxiv_id"]:
        record_keys.append(("title", fields["title_key"]))
    return [(kind, value) for kind, value in record_keys if value]


def _candidates(
    assignment: _Assignment,
    index: int,
    record: WorkRecord,
    record_keys: list[tuple[str, str]],
    known_work: dict[int, int],
) -> list[Target]:
    """The distinct targets a record leads to, in order: the work its WorkSource row names, its
    OpenAlex id's, then its keys' (never one with another OpenAlex id, for an OpenAlex record)."""
    is_openalex = record.origin == OPENALEX
    leads: list[Target | None] = []
    if index in known_work:
        leads.append(assignment.by_id.get(known_work[index]))
    if is_openalex:
        leads.append(assignment.keys.get(("openalex", record.openalex_id or "")))
    for kind, value in record_keys:
        candidate = assignment.keys.get((kind, value))
        # OpenAlex decides its own identities: two W ids are never one work here.
        if candidate and not (
            is_openalex and assignment.find(candidate).openalex_id not in (None, record.openalex_id)
        ):
            leads.append(candidate)
    return list({id(t): t for t in (assignment.find(c) for c in leads if c)}.values())


def _target_choose(assignment: _Assignment, record: WorkRecord, candidates: list[Target]) -> Target:
    """The record's target: its candidates united when at most one OpenAlex id is among them
    (else the first), or a new work when it has none."""
    is_openalex = record.origin == OPENALEX
    target: Target | None = candidates[0] if candidates else None
    if len(candidates) > 1:
        openalex_ids = {t.openalex_id for t in candidates if t.openalex_id}
        if is_openalex and record.openalex_id:
            openalex_ids.add(record.openalex_id)
        if len(openalex_ids) <= 1:
            target = assignment.unite(candidates)
    if target is None:
        target = Target(len(assignment.targets), None, record.openalex_id if is_openalex else None)
        assignment.targets.append(target)
    elif is_openalex and target.openalex_id is None:
        target.openalex_id = record.openalex_id
    return target


def _keys_note(
    assignment: _Assignment,
    record: WorkRecord,
    fields: dict[str, Any],
    record_keys: list[tuple[str, str]],
    target: Target,
    result: WriteResult,
) -> None:
    """Key the target by the record's identifiers, so later records of the batch find it; an
    identifier already held by another work gets a warning (not for OpenAlex records)."""
    is_openalex = record.origin == OPENALEX
    for kind, value in record_keys:
        holder = assignment.find(assignment.keys.setdefault((kind, value), target))
        if holder is not target and not is_openalex:
            result.warnings.append(
                Warning_(
                    _key(record)[:64],
                    f"{kind} {value} belongs to another work (#{holder.id or 'new'}); "
                    "the two are not linked",
                )
            )
    if is_openalex and record.openalex_id:
        assignment.keys.setdefault(("openalex", record.openalex_id), target)
    # A stored work is found by its title key whatever identifiers it has (_find_existing);
    # a work new in this batch is found the same way by a later record that has only a title,
    # so the batch unites what two batches would.
    if fields["title_key"] and ("title", fields["title_key"]) not in record_keys:
        assignment.keys.setdefault(("title", fields["title_key"]), target)


def assign_targets(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    contributions: Sequence[dict[str, Any]],
    todo: list[int],
    known_work: dict[int, int],
    result: WriteResult,
) -> list[Target]:
    """Each record of `todo` to its work (see the module's step 3). known_work: the work its
    WorkSource row names, by record index.

    The records are taken in order: each one's keys lead later records of the batch to its
    target, so a batch unites what two batches would.
    """
    assignment = _existing_targets(cursor, records, contributions, todo, known_work)
    for index in todo:
        record, fields = records[index], contributions[index]
        record_keys = _record_keys(fields)
        candidates = _candidates(assignment, index, record, record_keys, known_work)
        target = _target_choose(assignment, record, candidates)
        _keys_note(assignment, record, fields, record_keys, target, result)
        target.records.append(index)
    return [t for t in assignment.targets if t.records]


def stored_contributions(
    cursor: Cursor, targets: Sequence[Target], replaced: set[tuple[str, str]]
) -> dict[int, list[Contribution]]:
    """The contributions already stored for the existing targets and the works they absorb, by
    work id, minus the batch's records. A work written before WorkSource existed (OpenAlex
    only) contributes its current row."""
    work_ids = [w for t in targets if t.id is not None for w in (t.id, *t.absorbed)]
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
