"""Template helpers for trust and verification (the claims app owns their definitions)."""

from __future__ import annotations

from django import template
from django.contrib.auth.models import AnonymousUser

from bzpeer.users.models import User
from claims import trust
from claims.selectors import ClaimPanel, claim_panel
from researchers.models import Researcher

register = template.Library()


@register.filter
def trust_band(score: int | None) -> str:
    """The band a trust score falls in, as shown beside it: "Trust 13 - Unverified"."""
    return trust.trust_band(score)


@register.simple_tag
def claim_panel_for(researcher: Researcher, user: User | AnonymousUser) -> ClaimPanel:
    """{% claim_panel_for researcher user as panel %}: what the identity panel shows."""
    return claim_panel(researcher=researcher, user=user)
