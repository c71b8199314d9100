"""Putting a known researcher on a byline slot: the slot whose name is compatible with theirs
(researchers.names, initials included), when it names nobody or an unclaimed name-only record,
never one that names an identified or claimed person. Used when two works become one
(absorb.py) and for the works an ORCID record's owner lists (listed_by.py). Set-based: one
query reads the bylines, one UPDATE writes the slots."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from researchers.names import GivenNames, PersonName, names_compare, person_name

from .staging import Cursor, WriteResult


@dataclass
class Slot:
    position: int
    raw_name: str
    researcher_id: int | None
    replaceable: bool  # names nobody, or an unclaimed name-only record


# An unclaimed name-only (L0) record without identifiers: the writer's own guess, which a
# researcher with better evidence replaces.
NAME_ONLY_SQL = """(r.verification_level = 0 AND r.claimed_by_id IS NULL
    AND coalesce(r.openalex_id, '') = '' AND coalesce(r.orcid, '') = '')"""


def byline_slots(cursor: Cursor, work_ids: Iterable[int]) -> dict[int, list[Slot]]:
    """The current bylines of these works, slot by slot (one query)."""
    cursor.execute(
        f"""
        SELECT a.work_id, a.position, a.raw_name, a.researcher_id,
               a.researcher_id IS NULL OR {NAME_ONLY_SQL}
        FROM publications_authorship a LEFT JOIN researchers_researcher r ON r.id = a.researcher_id
        WHERE a.work_id = ANY(%s) ORDER BY a.work_id, a.position
        """,
        [sorted(set(work_ids))],
    )
    bylines: dict[int, list[Slot]] = {}
    for work_id, position, raw_name, researcher_id, replaceable in cursor.fetchall():
        bylines.setdefault(work_id, []).append(
            Slot(position, raw_name, researcher_id, bool(replaceable))
        )
    return bylines


def best_slot(
    slots: Sequence[Slot],
    names: Sequence[PersonName],
    *,
    near: int | None = None,
    name_only: bool = False,
) -> Slot | None:
    """The replaceable slot most compatible with one of `names` (then the nearest to `near`,
    then the first); a name-only researcher only takes a slot that names nobody."""
    best: tuple[int, int, int] | None = None
    chosen = None
    for slot in slots:
        if not slot.replaceable or (name_only and slot.researcher_id is not None):
            continue
        slot_name = person_name(slot.raw_name)
        level = max((names_compare(slot_name, name) for name in names), default=0)
        if level == GivenNames.INCOMPATIBLE:
            continue
        score = (int(level), -abs(slot.position - near) if near is not None else 0, -slot.position)
        if best is None or score > best:
            best, chosen = score, slot
    return chosen


@dataclass
class SlotWrites:
    """Slots to give to researchers, written by slots_write."""

    updates: list[tuple[int, int, int]] = field(
        default_factory=list
    )  # (work, position, researcher)
    displaced: list[tuple[int, int, int]] = field(default_factory=list)  # (work, L0, researcher)

    def take(self, work_id: int, slot: Slot, researcher_id: int, result: WriteResult) -> None:
        if slot.researcher_id is not None:
            result.unlinked_researcher_ids.add(slot.researcher_id)
            self.displaced.append((work_id, slot.researcher_id, researcher_id))
        slot.researcher_id, slot.replaceable = researcher_id, False
        self.updates.append((work_id, slot.position, researcher_id))
        result.touched_researcher_ids.add(researcher_id)


def slots_write(cursor: Cursor, writes: SlotWrites) -> None:
    """Write the slots (one UPDATE); the name-only record a slot held is, on the work's source
    records, the researcher who took it, so re-importing them links the slot to them again."""
    if writes.updates:
        cursor.execute(
            """
            UPDATE publications_authorship a SET researcher_id = k.researcher_id
            FROM unnest(%s::int8[], %s::int2[], %s::int8[]) AS k(work_id, position, researcher_id)
            WHERE a.work_id = k.work_id AND a.position = k.position
            """,
            [
                [u[0] for u in writes.updates],
                [u[1] for u in writes.updates],
                [u[2] for u in writes.updates],
            ],
        )
    if writes.displaced:
        cursor.execute(
            """
            UPDATE publications_nameonlyauthor n SET researcher_id = k.researcher_id
            FROM unnest(%s::int8[], %s::int8[], %s::int8[]) AS k(work_id, displaced_id, researcher_id)
            JOIN publications_worksource s ON s.work_id = k.work_id
            WHERE n.researcher_id = k.displaced_id AND n.origin = s.origin
              AND n.origin_id = s.origin_id
            """,
            [
                [d[0] for d in writes.displaced],
                [d[1] for d in writes.displaced],
                [d[2] for d in writes.displaced],
            ],
        )
