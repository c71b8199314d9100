"""When the importer finds two works to be one (ingest.writer.absorb), an
invitation anchored on the absorbed work is anchored on the survivor. Registered by
collaboration.apps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from collaboration.models import Invitation


def invitation_anchors_follow_work_merge(cursor: Any, pairs: Sequence[tuple[int, int]]) -> None:
    """Re-anchor on each survivor (second of a pair) the invitations anchored on the absorbed
    work (first), once; in the writer's transaction, two statements."""
    table = Invitation.anchor_works.through._meta.db_table
    absorbed, survivors = [a for a, _ in pairs], [s for _, s in pairs]
    cursor.execute(
        f"""
        INSERT INTO {table} (invitation_id, work_id)
        SELECT DISTINCT a.invitation_id, k.survivor_id
        FROM {table} a JOIN unnest(%s::int8[], %s::int8[]) AS k(absorbed_id, survivor_id)
          ON k.absorbed_id = a.work_id
        ON CONFLICT DO NOTHING
        """,
        [absorbed, survivors],
    )
    cursor.execute(f"DELETE FROM {table} WHERE work_id = ANY(%s)", [absorbed])
