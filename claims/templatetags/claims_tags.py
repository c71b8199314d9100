"""Template helpers for trust and verification (the claims app owns their definitions)."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def trust_band(score: int | None) -> str:
    """The band a trust score falls in, as shown beside it: "Trust 13 - Unverified"."""
    score = score or 0
    if score >= 80:
        return "Highly trusted"
    if score >= 60:
        return "Trusted"
    if score >= 35:
        return "Emerging"
    return "Unverified"
