"""Reads of the collaborator graph."""

from __future__ import annotations

# The one definition of "close collaborators", shown as the tooltip of the profile count and
# used for every count and list (the graph issue makes it precise and keeps the count fresh).
CLOSE_COLLABORATORS_DEFINITION = "Coauthors with at least one joint work."
