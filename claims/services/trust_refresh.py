"""Scheduling trust score refreshes (claims.trust computes them) after a change commits."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from claims.tasks.trust import researchers_trust_refresh


def trust_refresh_on_commit(researcher_ids: Iterable[int], *, include_coauthors: bool) -> None:
    """Recompute trust for these records (and their coauthors, whose verified-coauthor links
    change with a record's level) in a task once the transaction commits."""
    ids = sorted(set(researcher_ids))
    if not ids:
        return
    transaction.on_commit(
        lambda: researchers_trust_refresh.delay(
            researcher_ids=ids, include_coauthors=include_coauthors
        )
    )
