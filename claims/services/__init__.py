"""Writes for claims, verification, disputes, vouches, merges and profile edits.

Every state change of the claims app goes through a function of this package: the HTML views,
the API, the admin actions and the Celery tasks all call the same code. One module per
responsibility:

- claims:        the claimant opens a claim (its checks are queued) or withdraws it
- decisions:     the automatic checks' verdict; a moderator approves, rejects, revokes
- vouches:       a verified coauthor vouches for a pending claim
- reports:       impersonation disputes and their resolution
- merge:         merging duplicate records; split requests (a work that is not the claimant's)
- same_person:   the name resolver's queue ("possibly the same person"): merge or keep apart,
                 and its recorder of links and close calls
- profile:       the claimant edits their profile
- orcid_import:  the claimant's ORCID record imported on approval and on their refresh
- audit:         the moderation audit log
- links:         the pages claims' notifications point to (notifications.services sends them)
- trust_refresh: trust score refreshes queued after a change commits
- records, checks_queue, errors: row locks, queueing the checks task, the refusals

Reads (verified emails, institution domains, check results, vouch eligibility) are in
claims.selectors. Rules that must survive concurrency are enforced twice: a row lock on the
researcher record serialises the decisions about one record, and the partial unique
constraints on Claim catch anything that slips past.
"""

from __future__ import annotations

from claims.selectors import user_connected_orcids

from .audit import audit
from .claims import claim_submit, claim_withdraw
from .decisions import (
    MODERATION_NOTE_CONTESTED,
    MODERATION_NOTE_RECORD_CLAIMED,
    MODERATION_NOTE_UNCORROBORATED,
    claim_approve,
    claim_checks_run,
    claim_reject,
    claim_revoke,
    claims_bulk_decide,
)
from .errors import ClaimConflict, ClaimError
from .merge import researcher_merge, split_request_resolve, split_request_submit
from .orcid_import import orcid_record_refresh
from .profile import researcher_profile_update
from .reports import report_resolve, report_submit
from .same_person import name_resolutions_record, same_person_keep_apart, same_person_merge
from .trust_refresh import trust_refresh_on_commit
from .vouches import vouch_submit

__all__ = [
    "MODERATION_NOTE_CONTESTED",
    "MODERATION_NOTE_RECORD_CLAIMED",
    "MODERATION_NOTE_UNCORROBORATED",
    "ClaimConflict",
    "ClaimError",
    "audit",
    "claim_approve",
    "claim_checks_run",
    "claim_reject",
    "claim_revoke",
    "claim_submit",
    "claim_withdraw",
    "claims_bulk_decide",
    "orcid_record_refresh",
    "report_resolve",
    "report_submit",
    "researcher_merge",
    "researcher_profile_update",
    "name_resolutions_record",
    "same_person_keep_apart",
    "same_person_merge",
    "split_request_resolve",
    "split_request_submit",
    "trust_refresh_on_commit",
    "user_connected_orcids",  # a read (claims.selectors); claims.admin imports it from here
    "vouch_submit",
]
