"""Writes of the collaborator graph, by responsibility:

- metrics: researcher metrics and slice summaries, after a researcher's works changed;
- edges: coauthor edges and close-collaborators counts, refreshed for researchers or pairs;
- bylines: the bylines an import batch changed, recorded as pending and applied to the edges;
- drain: pending refreshes of merged or split records, queueing the drain after a change
  and applying everything pending;
- rebuild: the full rebuild of edges and counts into new tables;
- slice_cache: invalidation of the cached graph slices.

Every name other apps use is importable from graph.services.
"""

from __future__ import annotations

# bench/graph_bench.py records bylines with this query, read from here.
from .bylines import _BYLINES_OF_WORKS as _BYLINES_OF_WORKS
from .bylines import (
    PENDING_BYLINES_PER_TRANSACTION,
    coauthor_bylines_apply,
    coauthor_bylines_before,
    coauthor_bylines_record,
)
from .drain import (
    DRAIN_QUEUED_SECONDS,
    coauthor_edges_drain,
    coauthor_edges_drain_wanted,
    coauthor_edges_mark_pending,
    coauthor_edges_record_batch,
    coauthor_edges_refresh_record,
    coauthor_edges_schedule,
)
from .edges import (
    EDGES_LOCK_KEY,
    EdgesRefreshResult,
    close_collaborators_counts_add,
    coauthor_edge_pairs_refresh,
    coauthor_edges_refresh,
    researcher_ids_with_coauthors,
)
from .metrics import researcher_metrics_refresh, slice_summaries_refresh
from .rebuild import EDGES_FILLFACTOR, RebuildResult, coauthor_edges_rebuild
from .slice_cache import graph_slices_invalidate, graph_slices_invalidate_all

__all__ = [
    "DRAIN_QUEUED_SECONDS",
    "EDGES_FILLFACTOR",
    "EDGES_LOCK_KEY",
    "PENDING_BYLINES_PER_TRANSACTION",
    "EdgesRefreshResult",
    "RebuildResult",
    "close_collaborators_counts_add",
    "coauthor_bylines_apply",
    "coauthor_bylines_before",
    "coauthor_bylines_record",
    "coauthor_edge_pairs_refresh",
    "coauthor_edges_drain",
    "coauthor_edges_drain_wanted",
    "coauthor_edges_mark_pending",
    "coauthor_edges_record_batch",
    "coauthor_edges_refresh_record",
    "coauthor_edges_schedule",
    "coauthor_edges_rebuild",
    "coauthor_edges_refresh",
    "graph_slices_invalidate",
    "graph_slices_invalidate_all",
    "researcher_ids_with_coauthors",
    "researcher_metrics_refresh",
    "slice_summaries_refresh",
]
