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
from .staging import Cursor

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


# One statement for a batch's references: resolved once (a CTE used twice is materialised),
# then written as citations or as waiting references. Arrays rather than a staging table: no
# temporary table to create per batch.
_WRITE_REFERENCES = (
    """
WITH resolved AS MATERIALIZED (
    SELECT s.citing_id, s.scheme || ':' || s.value AS identifier,
           coalesce(wo.id, fo.work_id, wd.id) AS cited_id
    FROM unnest(%s::int8[], %s::text[], %s::text[]) AS s(citing_id, scheme, value)
    LEFT JOIN publications_work wo ON s.scheme = 'openalex' AND wo.openalex_id = s.value
    LEFT JOIN publications_formeropenalexworkid fo
           ON s.scheme = 'openalex' AND wo.id IS NULL AND fo.openalex_id = s.value
    LEFT JOIN publications_work wd ON s.scheme = 'doi' AND wd.doi = s.value
),
inserted AS (
    INSERT INTO publications_citation (citing_id, cited_id)
    SELECT DISTINCT citing_id, cited_id FROM resolved
    WHERE cited_id IS NOT NULL AND cited_id <> citing_id
    ORDER BY citing_id, cited_id
    ON CONFLICT DO NOTHING
    RETURNING citing_id, cited_id
),
waiting AS (
    INSERT INTO publications_unresolvedreference (citing_id, identifier)
    SELECT DISTINCT citing_id, identifier FROM resolved WHERE cited_id IS NULL
    ORDER BY citing_id, identifier
    ON CONFLICT DO NOTHING
)
"""
    + _MARK_INSERTED_PENDING
)


def write_citations(
    cursor: Cursor, records: Sequence[WorkRecord], work_of: Mapping[int, int]
) -> None:
    """The references of the written records (index -> its work in work_of): a Citation each
    where the cited work is held, an UnresolvedReference where it is not. One statement."""
    citing: list[int] = []
    schemes: list[str] = []
    values: list[str] = []
    for index, record in enumerate(records):
        work_id = work_of.get(index)
        if work_id is None or not record.references:
            continue
        for scheme, value in record.references:
            citing.append(work_id)
            schemes.append(scheme)
            values.append(value)
    if citing:
        cursor.execute(_WRITE_REFERENCES, [citing, schemes, values])


def citations_resolve_arrived(cursor: Cursor, work_ids: Collection[int]) -> int:
    """The references that waited for these works (by any identifier they have) become
    citations. Returns how many did."""
    if not work_ids:
        return 0
    cursor.execute(
        f"""
        WITH arrived AS ({_IDENTIFIERS_OF_WORKS}),
        matched AS (
            DELETE FROM publications_unresolvedreference u USING arrived a
            WHERE u.identifier = a.identifier
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
