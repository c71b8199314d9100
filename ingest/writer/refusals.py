"""Authors a work must not name again: a researcher said the work is not theirs and a moderator
agreed (claims' accepted split requests). The writer leaves them off the bylines it writes,
gives them no slot (a listing or a merged work's byline) and keeps no listing of theirs for the
work, so a later import does not undo the decision. One query per batch."""

from __future__ import annotations

from collections.abc import Collection

from claims.services.work_merges import accepted_splits_of_works

from .staging import Cursor


def work_author_refusals(cursor: Cursor, work_ids: Collection[int]) -> set[tuple[int, int]]:
    if not work_ids:
        return set()
    return set(accepted_splits_of_works(cursor, work_ids))


def refusals_apply(cursor: Cursor, refused: Collection[tuple[int, int]]) -> None:
    """Take the refused researchers off the bylines just written (a source's byline names
    them by an identifier, or a merged work's byline brought them) and drop their listings of
    those works. Two statements, only when the batch's works have refusals."""
    if not refused:
        return
    pairs = [[work_id for work_id, _ in refused], [rid for _, rid in refused]]
    cursor.execute(
        """
        UPDATE publications_authorship a SET researcher_id = NULL
        FROM unnest(%s::int8[], %s::int8[]) AS k(work_id, researcher_id)
        WHERE a.work_id = k.work_id AND a.researcher_id = k.researcher_id
        """,
        pairs,
    )
    cursor.execute(
        """
        DELETE FROM publications_worklistedby l
        USING unnest(%s::int8[], %s::int8[]) AS k(work_id, researcher_id)
        WHERE l.work_id = k.work_id AND l.researcher_id = k.researcher_id
        """,
        pairs,
    )
