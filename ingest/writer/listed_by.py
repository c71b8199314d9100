"""ORCID decides what the researcher says is theirs (merge.py): a work their ORCID record lists
(WorkRecord.listed_by) has the record's owner, the researcher with that ORCID iD, as an author.

After the batch's bylines are written (writer/works.py), for each work a record of the batch
lists, and each work of the batch that an owner listed before (WorkListedBy: another source may
just have rewritten its byline), the owner is put on the byline slot compatible with their
name (display name or an alternate name, initials included: slots.py), when that slot names
nobody or an unclaimed name-only record. When the owner is on the byline already, nothing
changes; when no slot can be them (no compatible name, or an identified person holds it), the
signal is kept without a slot (WorkListedBy.position empty) and an import warning says why.
A fixed number of statements per batch.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from researchers.names import person_name

from ..records import AuthorRef, ListedWorksRecord, WorkRecord
from .authors import researchers_by_orcid
from .identity import orcid_is_valid
from .slots import SlotWrites, best_slot, byline_slots, slots_write
from .staging import Cursor, Warning_, WriteResult, stage_rows


def apply_listed_by(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    *,
    work_of: dict[int, int],
    result: WriteResult,
    refused: Collection[tuple[int, int]] = frozenset(),
) -> None:
    """See the module docstring. work_of: the work of each written record, by index.
    refused: (work, researcher) pairs a moderator took apart (refusals.py): no slot, no
    listing, whatever the owner's record says."""
    owners_refs: list[AuthorRef] = [
        owner
        for index in work_of
        if (owner := records[index].listed_by) is not None
        and owner.orcid
        and orcid_is_valid(owner.orcid)
    ]
    owners = researchers_by_orcid(cursor, owners_refs) if owners_refs else {}
    listed: dict[tuple[int, int], tuple[str, str]] = {}  # (work, owner) -> (origin, origin id)
    for index, work_id in work_of.items():
        owner = records[index].listed_by
        if owner is not None and owner.orcid in owners:
            record = records[index]
            listed[(work_id, owners[owner.orcid])] = (record.origin, record.origin_key[:400])
    cursor.execute(
        "SELECT work_id, researcher_id, origin, origin_id FROM publications_worklistedby"
        " WHERE work_id = ANY(%s)",
        [sorted(set(work_of.values()))],
    )
    for work_id, researcher_id, origin, origin_id in cursor.fetchall():
        listed.setdefault((work_id, researcher_id), (origin, origin_id))
    for pair in refused:
        listed.pop(pair, None)
    if not listed:
        return
    bylines = byline_slots(cursor, {work_id for work_id, _ in listed})
    cursor.execute(
        "SELECT id, display_name, alternate_names FROM researchers_researcher WHERE id = ANY(%s)",
        [sorted({researcher_id for _, researcher_id in listed})],
    )
    names = {
        rid: [person_name(n) for n in dict.fromkeys([display, *(alternates or [])]) if n]
        for rid, display, alternates in cursor.fetchall()
    }
    writes = SlotWrites()
    rows = []
    for (work_id, researcher_id), (origin, origin_id) in sorted(listed.items()):
        slots = bylines.get(work_id, [])
        slot = next((s for s in slots if s.researcher_id == researcher_id), None)
        if slot is None:
            slot = best_slot(slots, names.get(researcher_id, []))
            if slot is not None:
                writes.take(work_id, slot, researcher_id, result)
            elif slots:
                result.warnings.append(
                    Warning_(
                        f"{origin}:{origin_id}"[:64],
                        f"researcher {researcher_id} lists work {work_id}, whose author list "
                        "has no free slot with a name that can be theirs; kept as listed by them",
                    )
                )
        result.touched_researcher_ids.add(researcher_id)
        rows.append((work_id, researcher_id, origin, origin_id, slot.position if slot else None))
    slots_write(cursor, writes)
    stage_rows(
        cursor,
        "stage_listed_by",
        [
            ("work_id", "int8"),
            ("researcher_id", "int8"),
            ("origin", "text"),
            ("origin_id", "text"),
            ("position", "int2"),
        ],
        rows,
    )
    cursor.execute(
        """
        INSERT INTO publications_worklistedby AS t
            (work_id, researcher_id, origin, origin_id, position, updated_at)
        SELECT work_id, researcher_id, origin, origin_id, position, now() FROM stage_listed_by
        ORDER BY work_id, researcher_id
        ON CONFLICT (work_id, researcher_id) DO UPDATE SET
            origin = EXCLUDED.origin, origin_id = EXCLUDED.origin_id,
            position = EXCLUDED.position, updated_at = now()
        WHERE (t.origin, t.origin_id, t.position)
              IS DISTINCT FROM (EXCLUDED.origin, EXCLUDED.origin_id, EXCLUDED.position)
        """
    )


def listings_prune(cursor: Cursor, records: Sequence[ListedWorksRecord]) -> WriteResult:
    """Each record is every work an owner's record lists, read completely: that owner's
    listings from the same origin and record (origin_id '<iD>:...') of works it no longer
    lists are deleted, and the owners who lost one are followed up.

    Three statements, each one index lookup of an id array: the owners' records, their
    listings, then the delete of the listings not listed any more (compared here, in a set).
    Joined in one statement, the plan depended on the listings table's statistics: planned
    while it was nearly empty (the first batches of a first import), PostgreSQL scanned the
    whole table once per owner, about 9 s a batch by 48,000 records in the sources benchmark.

    Precondition: the batch's works are written first (apply_listed_by has refreshed the
    origin_id of the listings the record still has)."""
    result = WriteResult()
    owners = [r for r in records if r.owner_orcid and orcid_is_valid(r.owner_orcid)]
    if not owners:
        return result
    cursor.execute(
        "SELECT orcid, coalesce(merged_into_id, id) FROM researchers_researcher"
        " WHERE orcid = ANY(%s)",
        [sorted({r.owner_orcid for r in owners})],
    )
    researcher_of = dict(cursor.fetchall())
    # researcher id -> the (iD, origin) of the records read for them (a merged-away record's
    # iD leads to its survivor, whose listings it made).
    records_of: dict[int, set[tuple[str, str]]] = {}
    for record in owners:
        if (researcher_id := researcher_of.get(record.owner_orcid)) is not None:
            records_of.setdefault(researcher_id, set()).add((record.owner_orcid, record.origin))
    if not records_of:
        return result
    cursor.execute(
        "SELECT id, researcher_id, origin, origin_id FROM publications_worklistedby"
        " WHERE researcher_id = ANY(%s)",
        [sorted(records_of)],
    )
    kept = {(r.owner_orcid, origin_id[:400]) for r in owners for origin_id in r.origin_ids}
    gone = sorted(
        listing_id
        for listing_id, researcher_id, origin, origin_id in cursor.fetchall()
        for orcid, record_origin in records_of[researcher_id]
        if origin == record_origin
        and origin_id.startswith(f"{orcid}:")
        and (orcid, origin_id) not in kept
    )
    if not gone:
        return result
    cursor.execute(
        "DELETE FROM publications_worklistedby WHERE id = ANY(%s) RETURNING researcher_id",
        [gone],
    )
    result.touched_researcher_ids.update(researcher_id for (researcher_id,) in cursor.fetchall())
    return result
