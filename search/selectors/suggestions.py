"""The header box's suggestions: a few researchers by name while a visitor types."""

from __future__ import annotations

from researchers.models import Researcher
from researchers.name_search import MAX_QUERY_LENGTH, researchers_matching_name
from researchers.names import normalize_name
from researchers.selectors import researchers_public

# The header box answers from this many characters on; shorter input gets an empty response.
SUGGESTION_MIN_LENGTH = 2
SUGGESTION_LIMIT = 8


def researcher_suggestions(query: str) -> list[Researcher]:
    """A few researchers for the header box, best match first, institution joined. One query,
    or none when the query has fewer than SUGGESTION_MIN_LENGTH letters or digits."""
    if len(normalize_name(query[:MAX_QUERY_LENGTH])) < SUGGESTION_MIN_LENGTH:
        return []
    return list(
        researchers_matching_name(researchers_public(), query).select_related(
            "last_known_institution"
        )[:SUGGESTION_LIMIT]
    )
