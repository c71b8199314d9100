"""The citation graph: what each written work cites (WorkRecord.references), in any order.

A reference names a work by an identifier ('openalex:W123', 'doi:10.1000/x'). When a work with
it is held (by its OpenAlex id, an OpenAlex id it answered to before, or its DOI), the reference
is a Citation; otherwise it waits as an UnresolvedReference, which the work's arrival turns
into a Citation, whichever source brings it and in whichever batch (citations_resolve_arrived,
called for every batch's works). Both tables are keyed by their pair, so a re-import adds
nothing; a work never cites itself. References are added, never taken away: each source lists
what it knows, and the union is the work's reference list.

Set-based: a fixed number of statements per batch, whatever the number of references.
Concurrent batches: a batch that stores a reference as unresolved while another, not yet
committed, brings the cited work leaves it waiting; ingest.services.citations resolves what
waits after each run and periodically, so nothing is left behind.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from publications.services import related_works_mark_pending_sql

from ..records import WorkRecord
from .staging import Cursor, copy_rows

# Both ends of every citation a statement inserted wait for their related works to be
# recomputed (publications.services.related_works_drain): one row of PendingRelatedWorks per
# statement, in the batch's transaction, which no other batch waits on.
_MARK_INSERTED_PENDING = related_works_mark_pending_sql(
    "SELECT citing_id FROM inserted UNION SELECT cited_id FROM inserted"
)

# An identifier as stored: scheme and value, e.g. 'openalex:W123'.
_IDENTIFIERS_OF_WORKS = """
SELECT id AS work_id, 'openalex:' || openalex_id AS identifier
FROM publications_work WHERE id = ANY(%(ids)s) AND openalex_id IS NOT NULL
UNION ALL
SELECT id, 'doi:' || doi FROM publications_work WHERE id = ANY(%(ids)s) AND doi IS NOT NULL
UNION ALL
SELECT work_id, 'openalex:' || openalex_id
FROM publications_formeropenalexworkid WHERE work_id = ANY(%(ids)s)
"""


# The held works a batch's references name, by identifier: each distinct value looked up once
# through its unique index (work's OpenAlex id, a former OpenAlex id of a merged work, DOI), so
# the cost follows the batch, not the corpus (a join of the references against the works
# table hashed the whole table on every batch: two sequential scans of it, growing with each).
_HELD_BY_IDENTIFIER = """
SELECT 'openalex', openalex_id, id FROM publications_work
WHERE openalex_id = ANY(%(openalex)s::text[])
UNION ALL
SELECT 'openalex', f.openalex_id, f.work_id FROM publications_formeropenalexworkid f
WHERE f.openalex_id = ANY(%(openalex)s::text[])
  AND NOT EXISTS (SELECT FROM publications_work w WHERE w.openalex_id = f.openalex_id)
UNION ALL
SELECT 'doi', doi, id FROM publications_work WHERE doi = ANY(%(doi)s::text[])
"""

# The batch's citations and waiting references of works held before the batch, resolved,
# deduplicated and sorted by the writer: inserted straight from the arrays, no join for the
# planner to choose (the statement is prepared after a few batches, and a generic plan cannot
# see the arrays' sizes). Sorted by key, as every writer inserts, so concurrent batches take
# index pages in the same order. The works the batch created were copied before (their rows
# cannot exist yet): their ids join the related works' pending row here, one a batch.
_WRITE_REFERENCES = """
WITH inserted AS (
    INSERT INTO publications_citation (citing_id, cited_id)
    SELECT * FROM unnest(%(citing)s::int8[], %(cited)s::int8[])
    ON CONFLICT DO NOTHING
    RETURNING citing_id, cited_id
),
waiting AS (
    INSERT INTO publications_unresolvedreference (citing_id, identifier)
    SELECT * FROM unnest(%(waiting_citing)s::int8[], %(waiting)s::text[])
    ON CONFLICT DO NOTHING
)
""" + related_works_mark_pending_sql(
    "SELECT citing_id FROM inserted UNION SELECT cited_id FROM inserted"
    " UNION SELECT unnest(%(copied)s::int8[])"
)

_CITATION_COLUMNS = [("citing_id", "int8"), ("cited_id", "int8")]
_WAITING_COLUMNS = [("citing_id", "int8"), ("identifier", "text")]


def _held(
    cursor: Cursor, references: Mapping[int, set[tuple[str, str]]]
) -> dict[tuple[str, str], int]:
    """The held works the references name, by (scheme, value): one statement."""
    values: dict[str, set[str]] = {"openalex": set(), "doi": set()}
    for work_references in references.values():
        for scheme, value in work_references:
            values.setdefault(scheme, set()).add(value)
    cursor.execute(
        _HELD_BY_IDENTIFIER, {"openalex": list(values["openalex"]), "doi": list(values["doi"])}
    )
    return {(scheme, value): work_id for scheme, value, work_id in cursor.fetchall()}


def write_citations(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    work_of: Mapping[int, int],
    *,
    new_work_ids: Collection[int] = (),
) -> None:
    """The references of the written records (index -> its work in work_of): a Citation each
    where the cited work is held, an UnresolvedReference where it is not.

    new_work_ids: works this batch created (ids just drawn from the sequence, no work absorbed
    into them). No row of either table can name them as citing yet, so theirs are copied
    (COPY, no ON CONFLICT check); a work held before the batch (re-imported, a merge's
    survivor) goes through ON CONFLICT DO NOTHING. On a first import nearly every row is
    copied: one batch's 56,000 citations and 14,000 waiting references took 1.3-1.7 s instead
    of 2.5-2.8 s (bench/README.md). Three to five statements, whatever the references."""
    # Each work's references once, as (scheme, value) tuples: no string built per reference
    # but for the ones that wait (a batch holds some 70,000 references).
    references: dict[int, set[tuple[str, str]]] = {}
    for index, record in enumerate(records):
        if record.references and (work_id := work_of.get(index)) is not None:
            references.setdefault(work_id, set()).update(record.references)
    if not references:
        return
    held = _held(cursor, references)
    new = set(new_work_ids)
    # By work, in id order: the pairs come out sorted by key without sorting them all.
    copied: list[tuple[int, int]] = []
    copied_waits: list[tuple[int, str]] = []
    pairs: list[tuple[int, int]] = []
    waits: list[tuple[int, str]] = []
    for citing_id in sorted(references):
        work_references = references[citing_id]
        cited = {held[r] for r in work_references if r in held}
        cited.discard(citing_id)  # a work never cites itself
        waiting = sorted({f"{s}:{v}" for s, v in work_references if (s, v) not in held})
        into, waits_into = (copied, copied_waits) if citing_id in new else (pairs, waits)
        into.extend((citing_id, cited_id) for cited_id in sorted(cited))
        waits_into.extend((citing_id, identifier) for identifier in waiting)
    if copied:
        copy_rows(cursor, "publications_citation", _CITATION_COLUMNS, copied)
    if copied_waits:
        copy_rows(cursor, "publications_unresolvedreference", _WAITING_COLUMNS, copied_waits)
    cursor.execute(
        _WRITE_REFERENCES,
        {
            "citing": [c for c, _ in pairs],
            "cited": [c for _, c in pairs],
            "waiting_citing": [c for c, _ in waits],
            "waiting": [i for _, i in waits],
            "copied": sorted({w for pair in copied for w in pair}),
        },
    )


def citations_resolve_arrived(cursor: Cursor, work_ids: Collection[int]) -> int:
    """The references that waited for these works (by any identifier they have) become
    citations. Returns how many did.

    The waiting references are found through their identifier's index, one probe per
    identifier of the batch's works (the array says so to the planner): a join left to it
    hashed the whole table, which holds every reference to a work not held, on every batch."""
    if not work_ids:
        return 0
    cursor.execute(
        f"""
        WITH arrived AS MATERIALIZED ({_IDENTIFIERS_OF_WORKS}),
        matched AS (
            DELETE FROM publications_unresolvedreference u USING arrived a
            WHERE u.identifier = ANY(ARRAY(SELECT identifier FROM arrived))
              AND u.identifier = a.identifier
            RETURNING u.citing_id, a.work_id AS cited_id
        ),
        inserted AS (
            INSERT INTO publications_citation (citing_id, cited_id)
            SELECT DISTINCT citing_id, cited_id FROM matched WHERE citing_id <> cited_id
            ORDER BY citing_id, cited_id
            ON CONFLICT DO NOTHING
            RETURNING citing_id, cited_id
        ),
        pending AS ({_MARK_INSERTED_PENDING})
        SELECT count(*) FROM inserted
        """,
        {"ids": list(work_ids)},
    )
    (inserted,) = cursor.fetchone() or (0,)
    return int(inserted)


def _pairs(alias: str) -> str:
    return f"unnest(%s::int8[], %s::int8[]) AS {alias}(absorbed_id, survivor_id)"


def citations_move(cursor: Cursor, pairs: Sequence[tuple[int, int]]) -> None:
    """The citations and waiting references of each absorbed work (first of a pair) become its
    survivor's (second), in both directions; a pair that would be a work citing itself (the
    survivor cited the absorbed work, or the other way round) goes. Five statements."""
    if not pairs:
        return
    columns = [[absorbed for absorbed, _ in pairs], [survivor for _, survivor in pairs]]
    # The survivors and every work an absorbed work cited or was cited by: their citations
    # change here, so their related works are recomputed (the absorbed works' own rows go with
    # them).
    cursor.execute(
        related_works_mark_pending_sql(
            f"""
            SELECT k.survivor_id FROM {_pairs("k")}
            UNION SELECT c.cited_id FROM publications_citation c JOIN {_pairs("k")}
                  ON c.citing_id = k.absorbed_id
            UNION SELECT c.citing_id FROM publications_citation c JOIN {_pairs("k")}
                  ON c.cited_id = k.absorbed_id
            """
        ),
        columns * 3,
    )
    # The absorbed works' citations, found through the two indexes (citing, then cited).
    cursor.execute(
        f"""
        INSERT INTO publications_citation (citing_id, cited_id)
        SELECT DISTINCT coalesce(kc.survivor_id, c.citing_id), coalesce(kd.survivor_id, c.cited_id)
        FROM (
            SELECT c.citing_id, c.cited_id
            FROM publications_citation c JOIN {_pairs("k")} ON c.citing_id = k.absorbed_id
            UNION
            SELECT c.citing_id, c.cited_id
            FROM publications_citation c JOIN {_pairs("k")} ON c.cited_id = k.absorbed_id
        ) c
        LEFT JOIN {_pairs("kc")} ON kc.absorbed_id = c.citing_id
        LEFT JOIN {_pairs("kd")} ON kd.absorbed_id = c.cited_id
        WHERE coalesce(kc.survivor_id, c.citing_id) <> coalesce(kd.survivor_id, c.cited_id)
        ORDER BY 1, 2
        ON CONFLICT DO NOTHING
        """,
        columns * 4,
    )
    for side in ("citing_id", "cited_id"):
        cursor.execute(
            f"""
            DELETE FROM publications_citation c USING {_pairs("k")}
            WHERE c.{side} = k.absorbed_id
            """,
            columns,
        )
    cursor.execute(
        f"""
        INSERT INTO publications_unresolvedreference (citing_id, identifier, created_at)
        SELECT k.survivor_id, u.identifier, u.created_at
        FROM publications_unresolvedreference u JOIN {_pairs("k")} ON u.citing_id = k.absorbed_id
        ORDER BY 1, 2
        ON CONFLICT DO NOTHING
        """,
        columns,
    )
    cursor.execute(
        f"""
        DELETE FROM publications_unresolvedreference u USING {_pairs("k")}
        WHERE u.citing_id = k.absorbed_id
        """,
        columns,
    )
