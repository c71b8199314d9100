"""The header box's suggestions: a few researchers by name while a visitor types."""

from __future__ import annotations

from researchers.models import Researcher
from researchers.name_search import MAX_QUERY_LENGTH, researchers_best_matching_name
from researchers.names import normalize_name

# The header box answers from this many characters on; shorter input gets an empty response.
SUGGESTION_MIN_LENGTH = 2
SUGGESTION_LIMIT = 8
# Two letters can match tens of thousands of names, and ranking a match costs reading its row:
# past this many matches only the first ones found are ranked (see
# researchers.name_search.researchers_best_matching_name). Keeps each answer within a few tens of
# milliseconds on the benchmark's 500,000 researchers.
SUGGESTION_RANKED_AT_MOST = 1000


def researcher_suggestions(query: str) -> list[Researcher]:
    """A few researchers for the header box, best match first, institution joined. One query,
    or none when the query has fewer than SUGGESTION_MIN_LENGTH letters or digits."""
    if len(normalize_name(query[:MAX_QUERY_LENGTH])) < SUGGESTION_MIN_LENGTH:
        return []
    return list(
        researchers_best_matching_name(
            query, limit=SUGGESTION_LIMIT, ranked_at_most=SUGGESTION_RANKED_AT_MOST
        ).select_related("last_known_institution")
    )
