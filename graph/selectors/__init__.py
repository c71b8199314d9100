"""Reads of the collaborator graph, by responsibility:

- close_collaborators: the definition of close collaborators in words;
- slices: a researcher's graph slice, built and cached;
- paths: the shortest chain of coauthors between two researchers;
- coi: conflicts of interest among researchers, and resolving the lines that name them;
- researcher_refs: how paths and conflicts name a researcher.

Every name other apps use is importable from graph.selectors.
"""

from __future__ import annotations

from .close_collaborators import CLOSE_COLLABORATORS_DEFINITION
from .coi import (
    COI_DEFAULT_YEARS,
    COI_MAX_RESEARCHERS,
    COI_WORKS_PER_PAIR,
    Resolved,
    conflicts_of_interest,
    researchers_resolve,
)
from .paths import MAX_PATH_HOPS, MAX_PATH_VISITED, WORKS_PER_HOP, collaboration_path
from .researcher_refs import researcher_ref
from .slices import SLICE_CAPS, graph_slice_build, graph_slice_for

__all__ = [
    "CLOSE_COLLABORATORS_DEFINITION",
    "COI_DEFAULT_YEARS",
    "COI_MAX_RESEARCHERS",
    "COI_WORKS_PER_PAIR",
    "MAX_PATH_HOPS",
    "MAX_PATH_VISITED",
    "SLICE_CAPS",
    "WORKS_PER_HOP",
    "Resolved",
    "collaboration_path",
    "conflicts_of_interest",
    "graph_slice_build",
    "graph_slice_for",
    "researcher_ref",
    "researchers_resolve",
]
