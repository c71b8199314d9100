"""Helpers shared by the claims tests (service calls with their on-commit tasks run)."""

from __future__ import annotations

from claims import services
from claims.models import Claim


def submit(
    user, researcher, *, email: str | None = None, name: str | None = None, **extra
) -> Claim:
    return services.claim_submit(
        user=user,
        researcher=researcher,
        claimant_name=name or user.display_name or "Someone",
        statement=extra.pop("statement", "I wrote these papers at Wonderland University."),
        presented_email=email or user.email,
        evidence_links=extra.pop("evidence_links", ["https://wonderland.example.edu/~alice"]),
    )


def approved_claimant(user, researcher, *, level: int = 3, moderator=None) -> Claim:
    """Make `user` the approved claimant of `researcher` through the real services."""
    claim = submit(user, researcher)
    claim.refresh_from_db()
    if claim.status != "approved":
        claim = services.claim_approve(claim=claim, moderator=moderator, level=level)
    return claim
