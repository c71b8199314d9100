"""What an import changes beyond its own rows: the metrics and trust scores of the researchers
whose works changed, their coauthor edges and their cached pages.

This is why the import pipeline sits above graph and claims: it calls their services.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import timedelta
from functools import partial

from django.db import connection, transaction

from claims.trust import researchers_trust_refresh
from graph.services import researcher_metrics_refresh
from graph.tasks import coauthor_edges_schedule
from researchers.services import researcher_pages_invalidate

logger = logging.getLogger(__name__)


def researchers_follow_up(*, researcher_ids: Collection[int]) -> None:
    """Everything derived from the works of these researchers: their metrics and trust score now,
    in the caller's transaction; their coauthor edges and cached pages once it commits."""
    researcher_metrics_refresh(researcher_ids=researcher_ids)
    researchers_trust_refresh(researcher_ids=researcher_ids)
    # Coauthor edges and graph slices follow once the batch has committed (a coalesced task).
    coauthor_edges_schedule(researcher_ids=researcher_ids)
    # Their cached profile pages list these works: drop them once the batch is visible.
    transaction.on_commit(partial(researcher_pages_invalidate, researcher_ids=researcher_ids))


# Researchers are followed up in slices, each its own transaction, so row locks stay short; but
# in no more than about ten, since each slice's statements read whole tables (works, work topics)
# once PostgreSQL judges the slice large, which after a bulk load it does.
FOLLOW_UP_SLICE = 5000
FOLLOW_UP_SLICES = 10
# The tables a run grows, analysed before the follow-up: statistics from before a bulk load
# make the planner read every authorship for each slice instead of looking them up.
_FOLLOW_UP_TABLES = (
    "publications_work",
    "publications_authorship",
    "publications_worktopic",
    "researchers_researcher",
)
# Works changed by a run have updated_at >= its start by the database clock; started_at is the
# application's clock, so allow for some skew between the two.
CLOCK_SKEW = timedelta(minutes=10)


def researchers_follow_up_in_slices(researcher_ids: list[int], *, run_id: int) -> None:
    if not researcher_ids:
        return
    logger.info(
        "import run %s: following up %d researchers whose works changed",
        run_id,
        len(researcher_ids),
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {', '.join(_FOLLOW_UP_TABLES)}")
    size = max(FOLLOW_UP_SLICE, -(-len(researcher_ids) // FOLLOW_UP_SLICES))
    for start in range(0, len(researcher_ids), size):
        with transaction.atomic():
            with connection.cursor() as cursor:
                # Compiling these statements took PostgreSQL's JIT longer (1-2 s each) than
                # running them gained from it.
                cursor.execute("SET LOCAL jit = off")
            researchers_follow_up(researcher_ids=researcher_ids[start : start + size])
