"""The task that runs a claim's automatic checks and decides (claims.services.decisions)."""

from __future__ import annotations

import logging

from celery import shared_task

from claims.services import checks_queue
from claims.services.decisions import claim_checks_run as claim_checks_decide

logger = logging.getLogger(__name__)


# The checks read a few rows and write a few; a minute is generous and keeps a stuck database
# call from holding a worker.
@shared_task(name="claims.tasks.claim_checks_run", time_limit=60)
def claim_checks_run(claim_id: int) -> None:
    claim = claim_checks_decide(claim_id=claim_id)
    if claim is None:
        logger.info("claim %s is gone; nothing to check", claim_id)


# Every five minutes (beat): pending claims whose checks task message was lost.
@shared_task(name="claims.tasks.claim_checks_owed_send", time_limit=5 * 60)
def claim_checks_owed_send() -> int:
    return checks_queue.claim_checks_owed_send()
