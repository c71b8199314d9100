"""Two works that are one (targets.py found them): the survivor absorbs the others.

Set-based, a fixed number of statements per batch whatever the number of works:
1. absorb_works, before the survivors are written (writer/works.py, step 4): the absorbed
   works' bylines (and the survivors') are kept aside; every source's contribution (WorkSource)
   and the topics move to the survivor; what refers to an absorbed work moves to the survivor
   (work_references_move, which OpenAlex's merged ids apply too): its id in MergedWork, so its
   page answers 301 with the survivor (an older redirect to an absorbed work now points to its
   survivor), who listed it, and what the apps below hang off a work (claims' split requests,
   collaboration's invitation anchors, called directly); the
   absorbed works are deleted. The survivor's versions are rewritten from the merged fields
   (bylines.write_versions).
2. bylines_unite, after the bylines are written: the survivor shows the byline of the source
   the precedence chooses (merge.py); when that source's record is not in the batch, its byline
   is the one the work holding it had, and it moves to the survivor. Every researcher the other
   bylines named and the shown one does not is then put on the shown byline's slot whose name is
   compatible with theirs (researchers.names), when that slot names nobody or an unclaimed
   name-only record (the same conservative rule as the claimant's BibTeX upload; a name-only
   record only takes a slot that names nobody); otherwise they are left off (a warning says so
   for an identified or claimed record). So no researcher is on a work twice, and a work is
   counted once in works, citations and the h-index. Everyone the merged bylines named is in
   result.touched_researcher_ids, so the import's follow-up refreshes their figures.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from claims.services.work_merges import split_requests_follow_work_merge
from collaboration.services.work_merges import invitation_anchors_follow_work_merge
from researchers.names import person_name

from .citations import citations_move
from .slots import NAME_ONLY_SQL, SlotWrites, best_slot, byline_slots, slots_write
from .staging import Cursor, Warning_, WriteResult, stage_rows


@dataclass
class Absorption:
    """What absorb_works kept for bylines_unite."""

    # (origin, origin id) of each contribution -> the work it described before the merge.
    contribution_work: dict[tuple[str, str], int] = field(default_factory=dict)
    survivors: set[int] = field(default_factory=set)


_BYLINE_COLUMNS = (
    "researcher_id, position, raw_name, is_corresponding, institution_ids, affiliation_names"
)


def absorb_works(
    cursor: Cursor, pairs: Sequence[tuple[int, int]], result: WriteResult
) -> Absorption:
    """Merge each absorbed work (first of a pair) into its survivor (second); see the module
    docstring, step 1. The caller holds the transaction and writes the survivors next."""
    absorption = Absorption(survivors={survivor for _, survivor in pairs})
    if not pairs:
        return absorption
    absorbed = [work_id for work_id, _ in pairs]
    every = sorted({*absorbed, *absorption.survivors})
    # Locked in id order, as the writer locks the works it updates.
    cursor.execute(
        "SELECT id FROM publications_work WHERE id = ANY(%s) ORDER BY id FOR UPDATE", [every]
    )
    stage_rows(cursor, "stage_absorb", [("absorbed_id", "int8"), ("survivor_id", "int8")], pairs)
    cursor.execute("DROP TABLE IF EXISTS pg_temp.stash_byline")
    cursor.execute(
        f"""
        CREATE TEMP TABLE stash_byline ON COMMIT DROP AS
        SELECT g.survivor_id, a.work_id, {_BYLINE_COLUMNS}
        FROM publications_authorship a
        JOIN (SELECT absorbed_id AS work_id, survivor_id FROM stage_absorb
              UNION SELECT survivor_id, survivor_id FROM stage_absorb) g ON g.work_id = a.work_id
        """
    )
    cursor.execute(
        "SELECT DISTINCT researcher_id FROM stash_byline WHERE researcher_id IS NOT NULL"
    )
    result.touched_researcher_ids.update(rid for (rid,) in cursor.fetchall())
    cursor.execute(
        "SELECT origin, origin_id, work_id FROM publications_worksource WHERE work_id = ANY(%s)",
        [every],
    )
    absorption.contribution_work = {(o, oid): w for o, oid, w in cursor.fetchall()}
    # A work written before WorkSource existed contributes its OpenAlex row (targets.py).
    cursor.execute(
        "SELECT openalex_id, id FROM publications_work WHERE id = ANY(%s) AND openalex_id IS NOT NULL",
        [every],
    )
    for openalex_id, work_id in cursor.fetchall():
        absorption.contribution_work.setdefault(("openalex", openalex_id), work_id)
    cursor.execute(
        """
        UPDATE publications_worksource w SET work_id = s.survivor_id, updated_at = now()
        FROM stage_absorb s WHERE w.work_id = s.absorbed_id
        """
    )
    cursor.execute(
        """
        INSERT INTO publications_worktopic (work_id, topic_id, score, origin, work_created_at)
        SELECT DISTINCT ON (s.survivor_id, t.topic_id)
               s.survivor_id, t.topic_id, t.score, t.origin, w.created_at
        FROM publications_worktopic t
        JOIN stage_absorb s ON s.absorbed_id = t.work_id
        JOIN publications_work w ON w.id = s.survivor_id
        ORDER BY s.survivor_id, t.topic_id, t.score DESC
        ON CONFLICT (work_id, topic_id) DO NOTHING
        """
    )
    work_references_move(cursor, pairs)
    # Django's foreign keys do not cascade in the database: what is left of each absorbed work
    # goes with it.
    for table in ("publications_authorship", "publications_worktopic", "publications_workversion"):
        cursor.execute(f"DELETE FROM {table} WHERE work_id = ANY(%s)", [absorbed])
    cursor.execute("DELETE FROM publications_work WHERE id = ANY(%s)", [absorbed])
    for work_id, survivor_id in pairs:
        result.warnings.append(
            Warning_(
                f"work {work_id}",
                f"work {work_id} is work {survivor_id} (one record names both); merged into it",
            )
        )
    return absorption


# The pairs of a work_references_move statement, as rows (absorbed_id, survivor_id).
_PAIRS_SQL = "unnest(%s::int8[], %s::int8[]) AS k(absorbed_id, survivor_id)"


def work_references_move(cursor: Cursor, pairs: Sequence[tuple[int, int]]) -> None:
    """What refers to each absorbed work (first of a pair) refers to its survivor (second) from
    now on:
    - its id, in MergedWork, so its page and its API URL answer 301 with the survivor; a
      redirect to the absorbed work (absorbed before, or merged by OpenAlex) now points to the
      survivor too, so a chain (A into B, later B into C) leads from A to C in one hop, and no
      redirect ever leads to another or back;
    - its OpenAlex id (and those it answered to before), in FormerOpenAlexWorkId, so a lookup
      by it finds the survivor;
    - the researchers who listed it (ORCID), without a slot (listed_by.py places them again on
      the survivor's byline when the writer next writes it); one row per researcher;
    - its citations and the references waiting for it (citations.py), both ways;
    - what the apps below hang off it (claims' split requests,
      collaboration's invitation anchors).
    The writer's merge (absorb_works) and OpenAlex's merged ids (ingest.services.merged_ids)
    both apply it. A fixed number of statements whatever the number of pairs; applied again,
    it changes nothing. The caller holds the transaction and the works' row locks, and deletes
    the absorbed works next."""
    if not pairs:
        return
    columns = [[absorbed for absorbed, _ in pairs], [survivor for _, survivor in pairs]]
    cursor.execute(
        f"""
        UPDATE publications_mergedwork m SET survivor_id = k.survivor_id
        FROM {_PAIRS_SQL} WHERE m.survivor_id = k.absorbed_id
        """,
        columns,
    )
    cursor.execute(
        f"""
        INSERT INTO publications_mergedwork AS m (id, survivor_id, merged_at)
        SELECT absorbed_id, survivor_id, now() FROM {_PAIRS_SQL} ORDER BY absorbed_id
        ON CONFLICT (id) DO UPDATE SET survivor_id = EXCLUDED.survivor_id
        WHERE m.survivor_id IS DISTINCT FROM EXCLUDED.survivor_id
        """,
        columns,
    )
    # The absorbed works' OpenAlex ids, and the ids they had taken over before, find the
    # survivor from now on. A survivor answers to its own current id directly.
    cursor.execute(
        f"""
        UPDATE publications_formeropenalexworkid f SET work_id = k.survivor_id
        FROM {_PAIRS_SQL} WHERE f.work_id = k.absorbed_id
        """,
        columns,
    )
    cursor.execute(
        f"""
        INSERT INTO publications_formeropenalexworkid AS f (openalex_id, work_id)
        SELECT w.openalex_id, k.survivor_id
        FROM {_PAIRS_SQL} JOIN publications_work w ON w.id = k.absorbed_id
        WHERE w.openalex_id IS NOT NULL ORDER BY w.openalex_id
        ON CONFLICT (openalex_id) DO UPDATE SET work_id = EXCLUDED.work_id
        WHERE f.work_id IS DISTINCT FROM EXCLUDED.work_id
        """,
        columns,
    )
    # Who listed an absorbed work (ORCID) listed the survivor: the survivor's own row stands,
    # else the first of the absorbed works' rows moves.
    cursor.execute(
        f"""
        WITH k AS (SELECT * FROM {_PAIRS_SQL})
        DELETE FROM publications_worklistedby l USING k s, publications_worklistedby o
        WHERE l.work_id = s.absorbed_id AND o.researcher_id = l.researcher_id
          AND (o.work_id = s.survivor_id OR (o.work_id IN (
                   SELECT absorbed_id FROM k x WHERE x.survivor_id = s.survivor_id)
               AND o.id < l.id))
        """,
        columns,
    )
    cursor.execute(
        f"""
        UPDATE publications_worklistedby l SET work_id = k.survivor_id, position = NULL
        FROM {_PAIRS_SQL} WHERE l.work_id = k.absorbed_id
        """,
        columns,
    )
    citations_move(cursor, pairs)
    # Derived from the citations, recomputed by their runs (citations_move queued the
    # survivors' related works): the absorbed works' rows go before the works do, as database
    # constraints point at them.
    absorbed_ids = [[absorbed for absorbed, _ in pairs]]
    for statement in (
        "DELETE FROM publications_worknovelty WHERE work_id = ANY(%s)",
        "DELETE FROM publications_citationdegree WHERE work_id = ANY(%s)",
        "DELETE FROM publications_relatedwork WHERE work_id = ANY(%s)",
        "DELETE FROM publications_relatedwork WHERE related_id = ANY(%s)",
    ):
        cursor.execute(statement, absorbed_ids)
    # What the apps below hang off a work follows it into its survivor.
    split_requests_follow_work_merge(cursor, pairs)
    invitation_anchors_follow_work_merge(cursor, pairs)


def bylines_unite(
    cursor: Cursor,
    absorption: Absorption,
    *,
    shown: dict[int, tuple[str, str] | None],
    arrivals: dict[int, Any],
    result: WriteResult,
    refused: Collection[tuple[int, int]] = frozenset(),
) -> None:
    """Step 2 of the module docstring. shown: for each survivor, the (origin, origin id) of the
    contribution whose byline it shows when that record is not in the batch (None when the
    batch wrote the byline). refused: (work, researcher) pairs given no slot (refusals.py)."""
    if not absorption.survivors:
        return
    moved: list[tuple[int, int]] = []  # (survivor, the work whose byline it takes)
    for survivor, contribution in shown.items():
        holder = absorption.contribution_work.get(contribution) if contribution else None
        if holder is not None and holder != survivor:
            moved.append((survivor, holder))
    if moved:
        cursor.execute(
            "DELETE FROM publications_authorship WHERE work_id = ANY(%s)",
            [[survivor for survivor, _ in moved]],
        )
        cursor.execute(
            f"""
            INSERT INTO publications_authorship (work_id, work_created_at, {_BYLINE_COLUMNS})
            SELECT b.survivor_id, k.arrival, {_BYLINE_COLUMNS}
            FROM stash_byline b
            JOIN unnest(%s::int8[], %s::int8[], %s::timestamptz[]) AS k(survivor_id, holder_id, arrival)
              ON k.survivor_id = b.survivor_id AND k.holder_id = b.work_id
            ORDER BY b.survivor_id, b.position
            """,
            [
                [survivor for survivor, _ in moved],
                [holder for _, holder in moved],
                [arrivals[survivor] for survivor, _ in moved],
            ],
        )
    # The shown bylines and the researchers the others named, with what the rule needs.
    bylines = byline_slots(cursor, absorption.survivors)
    cursor.execute(
        f"""
        SELECT DISTINCT ON (b.survivor_id, b.researcher_id)
               b.survivor_id, b.researcher_id, b.raw_name, b.position, {NAME_ONLY_SQL}
        FROM stash_byline b JOIN researchers_researcher r ON r.id = b.researcher_id
        ORDER BY b.survivor_id, b.researcher_id, b.position
        """
    )
    writes = SlotWrites()
    for survivor, researcher_id, raw_name, position, name_only in cursor.fetchall():
        slots = bylines.get(survivor, [])
        if (survivor, researcher_id) in refused or any(
            slot.researcher_id == researcher_id for slot in slots
        ):
            continue
        slot = best_slot(slots, [person_name(raw_name)], near=position, name_only=name_only)
        if slot is None:
            if name_only:
                continue  # a name-only record of another byline: the shown byline names them
            result.warnings.append(
                Warning_(
                    f"work {survivor}",
                    f"researcher {researcher_id} ({raw_name!r}) was on a work merged into "
                    f"work {survivor}, whose author list has no free slot for that name; "
                    "not linked to it",
                )
            )
            continue
        writes.take(survivor, slot, researcher_id, result)
    slots_write(cursor, writes)
    result.touched_researcher_ids.update(
        slot.researcher_id for slots in bylines.values() for slot in slots if slot.researcher_id
    )
