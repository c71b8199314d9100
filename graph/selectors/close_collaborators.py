"""The definition of "close collaborators" in words."""

from __future__ import annotations

# The one definition of "close collaborators", shown as the tooltip of the profile count and
# used for every count and list (graph.models.CLOSE_SQL is the same rule in SQL).
# tests/graph/test_coauthor_edges.py checks that the words and the numbers agree.
CLOSE_COLLABORATORS_DEFINITION = (
    "Close collaborators are coauthors with at least two joint works, or with one joint work "
    "that has at most 10 authors. Works with more than 100 authors are not counted."
)
