"""What an import changes beyond its own rows: the metrics and trust scores of the researchers
whose works changed, their coauthor edges and their cached pages, and the works' embeddings.

A small import (an API query, a fetched ORCID record, a merge) follows its researchers up in
its own transaction (researchers_follow_up). A run of chunks does not: a prolific author is in
nearly every batch, and refreshing her after each one re-reads everything imported so far
(issue 13: the follow-up grew to three quarters of a worker's time, and the row locks it held
made a second worker wait for the first). Each batch instead records the researchers it touched
in a PendingFollowUp row of its own transaction (researchers_follow_up_defer), and a drain
refreshes them once for many batches and workers (researchers_follow_up_drain): when a run
finishes (the --sync process itself, or a task the run's last chunk queues), and from beat
whenever rows wait and no run is importing, or have waited longer than
IMPORT_FOLLOW_UP_MAX_LAG during a long run.

This is why the import pipeline sits above graph and claims: it calls their services.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from claims.trust import researchers_trust_refresh
from discovery.services.embeddings import work_embeddings_sweep_on_commit
from graph.services import coauthor_edges_schedule, researcher_metrics_refresh
from ingest.models import ImportRun
from researchers.name_words import name_words_refresh_on_commit
from researchers.services import researcher_pages_invalidate

from ..models import PendingFollowUp

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
    # The works' embeddings (and so these researchers'): a sweep of the works whose text changed
    # or that have none, once this commits (discovery; beat sweeps too, should it be lost).
    work_embeddings_sweep_on_commit()
    # New names' words into the name search's vocabulary (researchers.name_words): read from
    # the researchers it has not read yet, once this commits; found by trigrams until then.
    name_words_refresh_on_commit()


def researchers_follow_up_defer(*, researcher_ids: Collection[int]) -> None:
    """In an import batch's transaction: leave the follow-up of these researchers to the drain.
    One INSERT of one row, whatever the number of ids; it conflicts with no other batch."""
    if researcher_ids:
        PendingFollowUp.objects.create(researcher_ids=sorted(researcher_ids))


# Researchers are followed up in slices of at least IMPORT_FOLLOW_UP_SLICE, each its own
# transaction, so row locks stay short; but in no more than about ten, since each slice's
# statements read whole tables (works, work topics) once PostgreSQL judges the slice large,
# which after a bulk load it does.
FOLLOW_UP_SLICES = 10
# The tables a run grows, analysed before the follow-up: statistics from before a bulk load
# make the planner read every authorship for each slice instead of looking them up.
_FOLLOW_UP_TABLES = (
    "publications_work",
    "publications_authorship",
    "publications_worktopic",
    "researchers_researcher",
)
# Rows of pending researchers one drain takes at a time: each is one batch's researchers (about
# five per work), so this covers a run of a few million works in one pass.
DRAIN_ROWS = 2000
# A drain holds the rows it took this long; one that died lets them go to the next drain then.
DRAIN_LEASE = timedelta(hours=1)
# A slice handed out waits this long for its task; one whose message was lost goes back to
# the next drain then (a slice being refreshed is row-locked, so no drain takes it meanwhile).
SLICE_LEASE = timedelta(minutes=10)


def _slice_bounds(count: int) -> range:
    size = max(settings.IMPORT_FOLLOW_UP_SLICE, -(-count // FOLLOW_UP_SLICES))
    return range(0, count, size)


# Every GIN index of the tables a run grows (the works' words, the researchers' names and their
# trigrams): each keeps the rows inserted since the last vacuum in a pending list, which every
# search through the index then reads in full. After a bulk load the list holds up to
# gin_pending_list_limit (4 MB) of entries, and until autovacuum came round a search for a word
# no work holds took 87 ms at 1M works instead of 1.6 ms once merged (issue 30's profile).
_PENDING_GIN_LISTS_MERGE_SQL = """
SELECT gin_clean_pending_list(i.indexrelid)
FROM pg_index i
JOIN pg_class index_class ON index_class.oid = i.indexrelid
JOIN pg_am am ON am.oid = index_class.relam
WHERE am.amname = 'gin' AND i.indrelid = ANY(%s::regclass[])
"""


def _tables_analyze_before(count: int) -> None:
    # Only after a bulk load do the statistics mislead; a small drain (a beat tick after a few
    # batches) would spend longer sampling the large tables than refreshing its rows.
    if count >= settings.IMPORT_FOLLOW_UP_SLICE:
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {', '.join(_FOLLOW_UP_TABLES)}")


def _pending_gin_lists_merge_after(count: int) -> None:
    # After the refresh, not before: it rewrites the researchers' rows, and each new row version
    # goes into the pending lists of their name indexes too. Only after a bulk load are the
    # lists long enough to matter; autovacuum merges the short ones.
    if count >= settings.IMPORT_FOLLOW_UP_SLICE:
        with connection.cursor() as cursor:
            cursor.execute(_PENDING_GIN_LISTS_MERGE_SQL, [list(_FOLLOW_UP_TABLES)])


def _slice_follow_up(researcher_ids: list[int]) -> None:
    """One slice in the caller's transaction."""
    with connection.cursor() as cursor:
        # Compiling these statements took PostgreSQL's JIT longer (1-2 s each) than running
        # them gained from it.
        cursor.execute("SET LOCAL jit = off")
    researchers_follow_up(researcher_ids=researcher_ids)


def researchers_follow_up_in_slices(researcher_ids: list[int], *, label: str = "") -> None:
    """Follow these researchers up (sorted ids) in a few transactions of their own, in id order,
    so the row locks of one are never held while waiting for another's."""
    if not researcher_ids:
        return
    logger.info("%sfollowing up %d researchers whose works changed", label, len(researcher_ids))
    _tables_analyze_before(len(researcher_ids))
    bounds = _slice_bounds(len(researcher_ids))
    for start in bounds:
        with transaction.atomic():
            _slice_follow_up(researcher_ids[start : start + bounds.step])
    _pending_gin_lists_merge_after(len(researcher_ids))


def _slices_hand_out(*, row_ids: list[int], researcher_ids: list[int]) -> list[int]:
    """Replace the taken rows by one row per slice of their researchers (sorted ids, disjoint),
    leased for SLICE_LEASE, in one transaction. Returns the new rows' ids."""
    _tables_analyze_before(len(researcher_ids))
    bounds = _slice_bounds(len(researcher_ids))
    lease_end = timezone.now() + SLICE_LEASE
    with transaction.atomic():
        slices = PendingFollowUp.objects.bulk_create(
            PendingFollowUp(
                researcher_ids=researcher_ids[start : start + bounds.step],
                claimed_until=lease_end,
            )
            for start in bounds
        )
        PendingFollowUp.objects.filter(id__in=row_ids).delete()
    return [row.id for row in slices]


def researchers_follow_up_slice(*, row_id: int) -> int:
    """Follow up the researchers of one pending row (a slice a drain handed out) and delete it,
    in one transaction: a slice refreshed is gone, one whose worker died is rolled back and
    stays. The row is locked (SKIP LOCKED), so a second delivery of the same slice, or a drain,
    never refreshes it at the same time. Returns the number of researchers followed up."""
    with transaction.atomic():
        row = PendingFollowUp.objects.select_for_update(skip_locked=True).filter(id=row_id).first()
        if row is None:
            return 0
        _slice_follow_up(sorted(row.researcher_ids))
        row.delete()
    # Each slice of a bulk load merges what it added (two at once wait for each other).
    _pending_gin_lists_merge_after(len(row.researcher_ids))
    logger.info("follow-up slice %d: %d researchers", row_id, len(row.researcher_ids))
    return len(row.researcher_ids)


_CLAIM_SQL = """
UPDATE imports_pendingfollowup SET claimed_until = now() + make_interval(secs => %(lease)s)
WHERE id IN (
    SELECT id FROM imports_pendingfollowup
    WHERE claimed_until IS NULL OR claimed_until < now()
    ORDER BY id LIMIT %(rows)s
    FOR UPDATE SKIP LOCKED
)
RETURNING id
"""
_RESEARCHERS_OF_SQL = """
SELECT DISTINCT researcher_id
FROM imports_pendingfollowup p, unnest(p.researcher_ids) AS researcher_id
WHERE p.id = ANY(%s)
ORDER BY researcher_id
"""


def researchers_follow_up_drain(
    *,
    rows: int = DRAIN_ROWS,
    slices_send: Callable[[list[int]], None] | None = None,
) -> int:
    """Follow up every researcher that committed batches left pending, until none is left.

    Rows are taken with a lease (a conditional UPDATE, SKIP LOCKED), so two drains at once take
    different rows and one that dies leaves its rows to the next after DRAIN_LEASE; a row is
    deleted only after every slice of its researchers committed. The refresh is idempotent, so
    a researcher refreshed twice (in two drains' rows) only costs time.

    With slices_send (a drain on a worker), two slices' worth of researchers or more are not
    refreshed here: their rows become one row per slice (_slices_hand_out) and slices_send is called with
    those rows' ids once that commits, to queue researchers_follow_up_slice for each.
    Returns the number of researchers followed up or handed out.
    """
    handled = 0
    while True:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(_CLAIM_SQL, {"lease": DRAIN_LEASE.total_seconds(), "rows": rows})
                row_ids = [row_id for (row_id,) in cursor.fetchall()]
                if not row_ids:
                    return handled
                cursor.execute(_RESEARCHERS_OF_SQL, [row_ids])
                researcher_ids = [researcher_id for (researcher_id,) in cursor.fetchall()]
        # Two slices or more (the end of a run of chunks) go to the workers: the slices are
        # independent (disjoint researchers, locked in id order), and in one process they were
        # the tail of a worker import, after the last chunk, while the other workers sat idle.
        if slices_send is not None and len(researcher_ids) >= 2 * settings.IMPORT_FOLLOW_UP_SLICE:
            slice_row_ids = _slices_hand_out(row_ids=row_ids, researcher_ids=researcher_ids)
            logger.info(
                "follow-up drain (%d batches): %d researchers handed out in %d slices",
                len(row_ids),
                len(researcher_ids),
                len(slice_row_ids),
            )
            transaction.on_commit(partial(slices_send, slice_row_ids))
            handled += len(researcher_ids)
            continue
        researchers_follow_up_in_slices(
            researcher_ids, label=f"follow-up drain ({len(row_ids)} batches): "
        )
        PendingFollowUp.objects.filter(id__in=row_ids).delete()
        handled += len(researcher_ids)


def researchers_follow_up_drain_due(*, now: datetime | None = None) -> bool:
    """Whether beat should queue a drain: rows wait that no drain holds, and either no run is
    importing (a run that failed or was stopped left them) or the oldest has waited longer than
    IMPORT_FOLLOW_UP_MAX_LAG (a long run: its researchers are refreshed that often)."""
    now = now or timezone.now()
    claimable = PendingFollowUp.objects.exclude(claimed_until__gte=now)
    oldest = claimable.order_by("id").values_list("created_at", flat=True).first()
    if oldest is None:
        return False
    if oldest < now - settings.IMPORT_FOLLOW_UP_MAX_LAG:
        return True
    return not runs_importing(now=now)


# A run with no progress for this long is stalled, not importing (ingest.tasks.STALLED_AFTER).
IMPORTING_WITHIN = timedelta(minutes=30)


def runs_importing(*, now: datetime | None = None) -> bool:
    now = now or timezone.now()
    return ImportRun.objects.filter(
        status=ImportRun.Status.RUNNING, last_progress_at__gte=now - IMPORTING_WITHIN
    ).exists()
