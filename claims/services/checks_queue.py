"""Queueing a claim's automatic checks once the transaction commits.

The checks task (claims.tasks.claim_checks_run) calls claims.services.decisions; it is queued
by its name (bzpeer.queueing), so services never import the tasks that call them.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from bzpeer.queueing import task_enqueue_on_commit
from claims.models import Claim, ClaimStatus

logger = logging.getLogger(__name__)

# A pending claim whose checks have not run this long after it was made (or after a vouch asked
# for them again) is owed them: the task message was lost (the broker down or emptied). Checks
# take seconds on a healthy queue.
CHECKS_OWED_AFTER = timedelta(minutes=2)


def claim_checks_run_on_commit(claim_id: int) -> None:
    """Run the claim's automatic checks in a task once the current transaction commits."""
    task_enqueue_on_commit("claims.tasks.claim_checks_run", claim_id, robust=False)


def claim_checks_owed_send(*, limit: int = 500) -> int:
    """Queue again the checks of pending claims that never had them, or whose re-check after a
    vouch never ran (a periodic sweep); how many were queued. The checks leave a claim that is
    no longer pending or no longer owed them alone, so a task that was only late decides
    nothing twice."""
    owed_before = timezone.now() - CHECKS_OWED_AFTER
    owed = list(
        Claim.objects.filter(
            Q(checks_completed_at__isnull=True, created_at__lte=owed_before)
            | Q(recheck_requested_at__lte=owed_before),
            status=ClaimStatus.PENDING,
        )
        .order_by("created_at")
        .values_list("pk", flat=True)[:limit]
    )
    for claim_id in owed:
        task_enqueue_on_commit("claims.tasks.claim_checks_run", claim_id)
    if owed:
        logger.info("claim checks owed: %d queued again (first %s)", len(owed), owed[:20])
    return len(owed)
