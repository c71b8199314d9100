"""When the importer finds two works to be one (ingest.writer.absorb), the
split requests on the absorbed work follow it into the survivor; and an accepted split request
keeps the importer from putting the researcher back on the work. Registered by claims.apps."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from claims.models import SplitRequest, SplitRequestStatus
from researchers.models import Researcher


def split_requests_follow_work_merge(cursor: Any, pairs: Sequence[tuple[int, int]]) -> None:
    """Move the split requests of each absorbed work (first of a pair) to its survivor (second),
    in the writer's transaction; an open request that would be a second open one for the same
    researcher and work goes (the first stays). Two statements, whatever the number of works."""
    table = SplitRequest._meta.db_table
    cursor.execute(
        f"""
        WITH k AS (SELECT * FROM unnest(%s::int8[], %s::int8[]) AS k(absorbed_id, survivor_id)),
        grouped AS (
            SELECT r.id, row_number() OVER (
                       PARTITION BY coalesce(k.survivor_id, r.work_id), r.researcher_id
                       ORDER BY (k.absorbed_id IS NOT NULL), r.id) AS n
            FROM {table} r
            LEFT JOIN k ON k.absorbed_id = r.work_id
            WHERE r.status = %s
              AND (r.work_id IN (SELECT absorbed_id FROM k) OR r.work_id IN (SELECT survivor_id FROM k))
        )
        DELETE FROM {table} r USING grouped g WHERE r.id = g.id AND g.n > 1
        """,
        [[a for a, _ in pairs], [s for _, s in pairs], SplitRequestStatus.OPEN],
    )
    cursor.execute(
        f"""
        UPDATE {table} r SET work_id = k.survivor_id
        FROM unnest(%s::int8[], %s::int8[]) AS k(absorbed_id, survivor_id)
        WHERE r.work_id = k.absorbed_id
        """,
        [[a for a, _ in pairs], [s for _, s in pairs]],
    )


def accepted_splits_of_works(cursor: Any, work_ids: Collection[int]) -> list[tuple[int, int]]:
    """The (work, researcher) pairs of these works that a moderator took apart (an accepted
    split request): the importer's writer never puts them together again (publications.
    importers.writer.refusals). A merged-away researcher's decision holds for the record they
    became. One query."""
    cursor.execute(
        f"""
        SELECT s.work_id, coalesce(r.merged_into_id, r.id)
        FROM {SplitRequest._meta.db_table} s
        JOIN {Researcher._meta.db_table} r ON r.id = s.researcher_id
        WHERE s.status = %s AND s.work_id = ANY(%s)
        """,
        [SplitRequestStatus.ACCEPTED, sorted(work_ids)],
    )
    return [(work_id, researcher_id) for work_id, researcher_id in cursor.fetchall()]
