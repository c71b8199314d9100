"""Importing a claimant's ORCID record: once when their claim is approved with their own ORCID
iD on the record, and again whenever they ask for a refresh (rate-limited).

The import is the pipeline's: an ImportRun of source "orcid" fetched by the `--orcid`
fetcher (publications.importers.orcid.client) and written by the shared writer, run by the
imports app's task. imports sits above claims (apps import downward only), so the task is
looked up in Celery's registry by its name instead of being imported; the name is pinned by
a test (tests/claims/test_profile_cv.py) so a rename cannot silently break it.
"""

from __future__ import annotations

import logging

from celery import Task, current_app
from django.db import transaction

from bzpeer.users.models import User
from claims.checks import normalize_orcid
from claims.ratelimit import rate_limit_check
from claims.selectors import user_connected_orcids
from publications.importers.records import ORCID
from publications.models import ImportRun
from researchers.models import Researcher

from .errors import ClaimError

logger = logging.getLogger(__name__)

# imports.tasks.import_fetch(run_id, source, option, values): the pipeline's API import.
IMPORT_FETCH_TASK = "imports.tasks.import_fetch"


def _import_fetch_task() -> Task:
    if IMPORT_FETCH_TASK not in current_app.tasks:
        # Outside a worker the apps' task modules are imported only when something imports
        # them; load them all as a worker does at start (Celery's autodiscovery).
        current_app.loader.import_default_modules()
    return current_app.tasks[IMPORT_FETCH_TASK]


def _import_on_commit(*, researcher: Researcher, orcid: str) -> ImportRun:
    """An ImportRun of the iD, sent to the imports worker once the current transaction commits
    (a rolled-back approval imports nothing: the run row goes with it)."""
    run = ImportRun.objects.create(source=ORCID, description=f"orcid: {orcid}")
    run_id = run.pk

    def enqueue() -> None:
        _import_fetch_task().delay(run_id, ORCID, "orcid", [orcid])

    # robust: the approval or refresh has committed; a broker that cannot take the task now
    # is logged, not turned into an error page (the claimant can refresh later).
    transaction.on_commit(enqueue, robust=True)
    logger.info(
        "ORCID %s of researcher %s queued for import (run %s)", orcid, researcher.pk, run_id
    )
    return run


def orcid_import_after_approval(*, researcher: Researcher, user: User) -> ImportRun | None:
    """Queue the import of the record's ORCID iD when the approved claimant connected that very
    iD (signed in to ORCID with it). Precondition: inside the approval's transaction."""
    if not researcher.orcid:
        return None
    orcid = normalize_orcid(researcher.orcid)
    if orcid not in {normalize_orcid(connected) for connected in user_connected_orcids(user)}:
        return None
    return _import_on_commit(researcher=researcher, orcid=orcid)


def orcid_record_refresh(*, researcher: Researcher, user: User) -> ImportRun:
    """The claimant's "Refresh from ORCID". The caller has checked that `user` is the record's
    approved claimant. Raises RateLimited over CLAIMS_RATE_LIMITS["orcid_refresh"], ClaimError
    for a record without an ORCID iD."""
    if not researcher.orcid:
        raise ClaimError("This record has no ORCID iD to refresh from.")
    rate_limit_check(action="orcid_refresh", key=str(user.pk))
    with transaction.atomic():
        return _import_on_commit(researcher=researcher, orcid=normalize_orcid(researcher.orcid))
