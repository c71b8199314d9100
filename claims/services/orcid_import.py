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

from django.db import transaction

from bzpeer.queueing import task_enqueue_on_commit
from bzpeer.users.models import User
from claims.checks import normalize_orcid
from claims.ratelimit import rate_limit_check
from claims.selectors import user_connected_orcids
from researchers.models import Researcher

from .errors import ClaimError

logger = logging.getLogger(__name__)

# ingest.tasks.orcid_record_import(orcid): the pipeline's import of one ORCID record.
IMPORT_FETCH_TASK = "ingest.tasks.orcid_record_import"


def _import_on_commit(*, researcher: Researcher, orcid: str) -> None:
    """The import of the iD, sent to the ingest worker once the current transaction commits
    (a rolled-back approval imports nothing)."""
    # robust: the approval or refresh has committed; a broker that cannot take the task now
    # is logged, not turned into an error page (the claimant can refresh later).
    task_enqueue_on_commit(IMPORT_FETCH_TASK, orcid, robust=True)
    logger.info("ORCID %s of researcher %s queued for import", orcid, researcher.pk)


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
