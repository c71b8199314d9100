"""Queueing a claim's automatic checks once the transaction commits.

The checks task (claims.tasks.checks) calls claims.services.decisions; the services that queue
it (a claim submitted, a vouch added) import it from here. Neither the decisions nor anything
they import comes back to this module, so tasks and services import each other in one
direction only.
"""

from __future__ import annotations

from django.db import transaction

# The task module, not its task: when claims.tasks is imported first, this module is reached
# while claims.tasks.checks is still loading, and the task is looked up only when queued.
from claims.tasks import checks as checks_tasks


def claim_checks_run_on_commit(claim_id: int) -> None:
    """Run the claim's automatic checks in a task once the current transaction commits."""
    transaction.on_commit(lambda: checks_tasks.claim_checks_run.delay(claim_id))
