"""Row locks on researcher records, taken one way everywhere (docs/architecture.md, "Lock
order"): in ascending id order, in one statement, and FOR NO KEY UPDATE unless the transaction
changes a key column (a column with a unique index: slug, the identifiers, claimed_by).

Why the weaker mode: every insert of a row that points at a researcher (a follow, an
authorship, an invitation, a conversation side, a claim, an audit event) takes FOR KEY SHARE on
it for its foreign key check, at commit (Django's foreign keys are deferred), in the order of
the constraints, not of the ids. FOR UPDATE conflicts with that; FOR NO KEY UPDATE does not. A
trust refresh holding FOR UPDATE on one record and waiting for a second, while a committing
invitation held FOR KEY SHARE on the second and waited for the first, was the deadlock of
issue 24.
"""

from __future__ import annotations

from collections.abc import Collection

from django.db import connection

from ..models import Researcher


def researchers_lock(researcher_ids: Collection[int], *, keys_change: bool = False) -> list[int]:
    """Lock these researcher rows until the transaction ends, in id order; returns the ids of
    those that exist. Caller is inside a transaction. `keys_change`: the caller will change a
    key column (FOR UPDATE); otherwise FOR NO KEY UPDATE."""
    if not researcher_ids:
        return []
    mode = "FOR UPDATE" if keys_change else "FOR NO KEY UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {Researcher._meta.db_table} WHERE id = ANY(%s) ORDER BY id {mode}",  # noqa: S608
            [sorted(set(researcher_ids))],
        )
        return [row_id for (row_id,) in cursor.fetchall()]
