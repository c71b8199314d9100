"""Authors a work must not name again: a researcher said the work is not theirs and a moderator
agreed (claims' accepted split requests). The writer leaves them off the bylines it writes,
gives them no slot (a listing or a merged work's byline) and keeps no listing of theirs for the
work, so a later import does not undo the decision. The apps above register where the
decisions are (work_author_refusals_register, from their ready()), so the writer does not
import them. One query per batch for each registered source."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from .staging import Cursor

RefusalSource = Callable[[Cursor, Collection[int]], Iterable[tuple[int, int]]]
_SOURCES: list[RefusalSource] = []


def work_author_refusals_register(source: RefusalSource) -> None:
    """source(cursor, work ids) gives the (work, researcher) pairs refused among those works."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def work_author_refusals(cursor: Cursor, work_ids: Collection[int]) -> set[tuple[int, int]]:
    if not work_ids:
        return set()
    return {pair for source in _SOURCES for pair in source(cursor, work_ids)}


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
