"""Row locks and record-level steps shared by the claim services.

Decisions about one researcher record are serialised by a row lock on it (researcher_lock),
taken before the claim, dispute or split request rows it concerns.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

from bzpeer.users.models import User
from claims.models import Claim, ClaimStatus
from claims.selectors import base_verification_level
from researchers.models import Researcher

from .errors import ClaimError
from .trust_refresh import trust_refresh_on_commit


def researcher_lock(researcher_id: int) -> Researcher:
    """The record, its row locked until the transaction ends. Caller is inside a transaction."""
    return Researcher.objects.select_for_update().get(pk=researcher_id)


def require_approved_claimant(*, researcher: Researcher, user: User | AnonymousUser) -> None:
    if not (
        user.is_authenticated
        and researcher.claimed_by_id == user.pk
        and Claim.objects.filter(
            researcher=researcher, user=user, status=ClaimStatus.APPROVED
        ).exists()
    ):
        raise ClaimError("Only the approved claimant can do this.")


def record_release(claim: Claim, researcher: Researcher) -> None:
    """The record goes back to unclaimed at its base level. Caller holds both row locks."""
    if researcher.claimed_by_id == claim.user_id:
        researcher.claimed_by = None
        researcher.verification_level = base_verification_level(researcher)
        researcher.save(update_fields=["claimed_by", "verification_level", "updated_at"])
    trust_refresh_on_commit([researcher.pk], include_coauthors=True)
