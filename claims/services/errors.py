"""The refusals of the claims rules, as bzpeer service errors (bzpeer.errors maps them to HTTP)."""

from __future__ import annotations

from bzpeer.errors import Conflict, InvalidRequest


class ClaimError(InvalidRequest):
    """A claims rule refused the action; the message is written for the person acting."""


# Conflict first: its 409 wins over ClaimError's 400, and it stays a ClaimError for callers
# that catch every refusal of the claims rules (the admin actions, the bulk decision).
class ClaimConflict(Conflict, ClaimError):
    """The record (or the user) is already taken by another approved claim."""
