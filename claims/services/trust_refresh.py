"""Scheduling trust score refreshes (claims.trust computes them) after a change commits."""

from __future__ import annotations

from collections.abc import Iterable

from bzpeer.queueing import task_enqueue_on_commit


def trust_refresh_on_commit(researcher_ids: Iterable[int], *, include_coauthors: bool) -> None:
    """Recompute trust for these records (and their coauthors, whose verified-coauthor links
    change with a record's level) in a task once the transaction commits."""
    ids = sorted(set(researcher_ids))
    if not ids:
        return
    task_enqueue_on_commit(
        "claims.tasks.researchers_trust_refresh",
        researcher_ids=ids,
        include_coauthors=include_coauthors,
        robust=False,
    )
