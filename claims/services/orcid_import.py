"""Importing a claimant's ORCID record: once when their claim is approved with their own ORCID
iD on the record, and again whenever they ask for a refresh (rate-limited).

The import is the pipeline's: the ingest app's task makes an ImportRun of source "orcid",
fetched by the `--orcid` fetcher (ingest.orcid.client) and written by the shared writer.
ingest sits above claims (apps import downward only), so the task is queued by its name
(bzpeer.queueing), which is checked when it is queued; a test (tests/claims/test_profile_cv.py)
pins it too.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from bzpeer.queueing import task_enqueue_on_commit
from bzpeer.users.models import User
from claims.checks import normalize_orcid
from claims.models import OrcidImportRequest
from claims.ratelimit import rate_limit_check
from claims.selectors import user_connected_orcids
from researchers.models import Researcher

from .errors import ClaimError

logger = logging.getLogger(__name__)

# ingest.tasks.orcid_record_import(orcid, request_id): the pipeline's import of one ORCID record.
IMPORT_FETCH_TASK = "ingest.tasks.orcid_record_import"
# A request its task has not taken this long after it was queued lost its message (the broker
# down or emptied); the task takes it within seconds on a healthy imports queue.
IMPORT_OWED_AFTER = timedelta(minutes=5)


def _import_on_commit(*, researcher: Researcher, orcid: str) -> None:
    """The import of the iD, owed from the current transaction (an OrcidImportRequest) and sent
    to the ingest worker once it commits (a rolled-back approval imports nothing)."""
    request = OrcidImportRequest.objects.create(researcher=researcher, orcid=orcid)
    # robust: the approval or refresh has committed; a broker that cannot take the task now
    # is logged, not turned into an error page (orcid_imports_owed_send sends it again).
    task_enqueue_on_commit(IMPORT_FETCH_TASK, orcid, request.pk, robust=True)
    logger.info("ORCID %s of researcher %s queued for import", orcid, researcher.pk)


def orcid_import_request_take(*, request_id: int) -> bool:
    """Hand an owed import over to the run its task is creating, in the caller's transaction:
    whether this caller took it (a task delivered twice finds it taken, and imports once)."""
    deleted, _ = OrcidImportRequest.objects.filter(pk=request_id).delete()
    return bool(deleted)


def orcid_imports_owed_send(*, limit: int = 500) -> int:
    """Queue again the ORCID imports whose task never took them (a periodic sweep); how many
    were queued. Each is claimed by moving queued_at, so the next sweep leaves it alone for
    IMPORT_OWED_AFTER; a task that was only late finds it taken and does nothing."""
    now = timezone.now()
    with transaction.atomic():
        owed = list(
            OrcidImportRequest.objects.select_for_update(skip_locked=True)
            .filter(queued_at__lte=now - IMPORT_OWED_AFTER)
            .order_by("queued_at")
            .values_list("pk", "orcid")[:limit]
        )
        OrcidImportRequest.objects.filter(pk__in=[pk for pk, _ in owed]).update(queued_at=now)
        for request_id, orcid in owed:
            task_enqueue_on_commit(IMPORT_FETCH_TASK, orcid, request_id)
    if owed:
        logger.info("ORCID imports owed: %d queued again (first %s)", len(owed), owed[:20])
    return len(owed)


def orcid_import_after_approval(*, researcher: Researcher, user: User) -> None:
    """Queue the import of the record's ORCID iD when the approved claimant connected that very
    iD (signed in to ORCID with it). Precondition: inside the approval's transaction."""
    if not researcher.orcid:
        return
    orcid = normalize_orcid(researcher.orcid)
    if orcid not in {normalize_orcid(connected) for connected in user_connected_orcids(user)}:
        return
    _import_on_commit(researcher=researcher, orcid=orcid)


def orcid_record_refresh(*, researcher: Researcher, user: User) -> None:
    """The claimant's "Refresh from ORCID". The caller has checked that `user` is the record's
    approved claimant. Raises RateLimited over CLAIMS_RATE_LIMITS["orcid_refresh"], ClaimError
    for a record without an ORCID iD."""
    if not researcher.orcid:
        raise ClaimError("This record has no ORCID iD to refresh from.")
    rate_limit_check(action="orcid_refresh", key=str(user.pk))
    with transaction.atomic():
        _import_on_commit(researcher=researcher, orcid=normalize_orcid(researcher.orcid))
