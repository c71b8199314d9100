"""Queueing a claim's automatic checks once the transaction commits.

The checks task (claims.tasks.claim_checks_run) calls claims.services.decisions; it is queued
by its name (bzpeer.queueing), so services never import the tasks that call them.
"""

from __future__ import annotations

from bzpeer.queueing import task_enqueue_on_commit


def claim_checks_run_on_commit(claim_id: int) -> None:
    """Run the claim's automatic checks in a task once the current transaction commits."""
    task_enqueue_on_commit("claims.tasks.claim_checks_run", claim_id, robust=False)
