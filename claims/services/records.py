"""Row locks and record-level steps shared by the claim services.

Decisions about one researcher record are serialised by a row lock on it (researcher_lock),
taken before the claim, dispute or split request rows it concerns.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser

from bzpeer.users.models import User
from claims.models import Claim
from claims.selectors import base_verification_level, user_is_approved_claimant
from researchers.models import Researcher

from .errors import ClaimError
from .trust_refresh import trust_refresh_on_commit


def researcher_lock(researcher_id: int, *, keys_change: bool = False) -> Researcher:
    """The record, its row locked until the transaction ends. Caller is inside a transaction.

    FOR NO KEY UPDATE unless `keys_change` (the caller may set or clear claimed_by, a unique
    column: an approval, a revocation, a release): the lock order rule in
    researchers.services.locks. The weaker lock still serialises every decision on the record,
    and does not make the foreign key checks of rows pointing at it (follows, invitations,
    bylines) wait."""
    return Researcher.objects.select_for_update(no_key=not keys_change).get(pk=researcher_id)


def require_approved_claimant(*, researcher: Researcher, user: User | AnonymousUser) -> None:
    if not user_is_approved_claimant(researcher=researcher, user=user):
        raise ClaimError("Only the approved claimant can do this.")


# What an approved claimant may say on the profile (researcher_profile_update), with the value
# the record has when nobody has said anything: the importer's defaults for a new record.
CLAIMANT_CONTENT_DEFAULTS: dict[str, Any] = {
    "tagline": "",
    "homepage": "",
    "links": [],
    "open_to_collaborate": True,
}


def record_release(claim: Claim, researcher: Researcher) -> dict[str, Any]:
    """The record goes back to unclaimed at its base level, and what its claimant wrote on it
    (tagline, homepage, links, "Open to collaborate") stops being shown: a revoked impersonator's
    phishing link must not stay on a record nobody answers for. Returns what was removed, for
    the caller's audit log entry ({} when the record was not this claimant's).

    Caller holds both row locks, inside the transaction that changes the claim."""
    removed: dict[str, Any] = {}
    if researcher.claimed_by_id == claim.user_id:
        for field, default in CLAIMANT_CONTENT_DEFAULTS.items():
            if getattr(researcher, field) != default:
                removed[field] = getattr(researcher, field)
            setattr(researcher, field, default)
        researcher.claimed_by = None
        researcher.verification_level = base_verification_level(researcher)
        researcher.save(
            update_fields=[
                "claimed_by",
                "verification_level",
                *CLAIMANT_CONTENT_DEFAULTS,
                "updated_at",
            ]
        )
    trust_refresh_on_commit([researcher.pk], include_coauthors=True)
    return removed
