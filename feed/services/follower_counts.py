"""The stored follower counts (researchers, topics, institutions) checked against the follow
rows, set-based: `follower_counts_recompute` finds every record whose stored count differs from
its follow rows and, unless told only to report, writes the recomputed count.

The services keep the counts exact as they add and remove follows (researchers.services,
feed.services.follows, account deletion, merges); this is the net under them, run by beat
(feed.tasks.follower_counts_recompute) and by hand (`manage.py recompute_follower_counts`), for
whatever a path outside the services (a cascade from the admin, a manual SQL fix) left behind.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import connection, transaction

from feed.models import InstitutionFollow, TopicFollow
from publications.models import Topic
from researchers.models import Follow, Institution, Researcher

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CountedTable:
    kind: str
    table: str
    follow_table: str
    column: str


COUNTED_TABLES = (
    CountedTable("researchers", Researcher._meta.db_table, Follow._meta.db_table, "researcher_id"),
    CountedTable("topics", Topic._meta.db_table, TopicFollow._meta.db_table, "topic_id"),
    CountedTable(
        "institutions",
        Institution._meta.db_table,
        InstitutionFollow._meta.db_table,
        "institution_id",
    ),
)


@dataclass(frozen=True)
class FollowerCountDrift:
    """How many records of each kind had a stored count unlike their follow rows, and how many
    of those were rewritten (0 when only reporting)."""

    off: dict[str, int]
    fixed: dict[str, int]

    @property
    def total_off(self) -> int:
        return sum(self.off.values())

    @property
    def total_fixed(self) -> int:
        return sum(self.fixed.values())


def _drifted_sql(counted: CountedTable) -> str:
    # One pass over the follow rows (an aggregate), joined to the records whose stored count
    # differs: the records without any follow count 0.
    return f"""
        SELECT t.id
        FROM {counted.table} t
        LEFT JOIN (
            SELECT {counted.column} AS id, count(*) AS n
            FROM {counted.follow_table} GROUP BY {counted.column}
        ) f ON f.id = t.id
        WHERE t.followers_count <> coalesce(f.n, 0)
        ORDER BY t.id
    """  # noqa: S608 - table names from the models


def _lock_sql(counted: CountedTable) -> str:
    # The rows are locked first, in id order and FOR NO KEY UPDATE (the lock order rule in
    # docs/architecture.md), then counted in a later statement: a follow service holds the same
    # row lock while it adds a row and moves the count, so once we hold it the count we read
    # is the one to store.
    return f"""
        WITH locked AS (
            SELECT id FROM {counted.table} WHERE id = ANY(%(ids)s) ORDER BY id FOR NO KEY UPDATE
        )
        SELECT count(*) FROM locked
    """  # noqa: S608 - table names from the models


def _update_sql(counted: CountedTable) -> str:
    return f"""
        UPDATE {counted.table} t SET followers_count = coalesce(f.n, 0)
        FROM unnest(%(ids)s::bigint[]) AS ids(id)
        LEFT JOIN (
            SELECT {counted.column} AS id, count(*) AS n
            FROM {counted.follow_table} WHERE {counted.column} = ANY(%(ids)s)
            GROUP BY {counted.column}
        ) f ON f.id = ids.id
        WHERE t.id = ids.id AND t.followers_count <> coalesce(f.n, 0)
    """  # noqa: S608 - table names from the models


def follower_counts_recompute(*, fix: bool = True) -> FollowerCountDrift:
    """Compare every stored follower count with its follow rows; with `fix`, store the
    recomputed counts. A few statements per kind of record, whatever their number."""
    off: dict[str, int] = {}
    fixed: dict[str, int] = {}
    for counted in COUNTED_TABLES:
        with connection.cursor() as cursor:
            cursor.execute(_drifted_sql(counted))
            ids = [row_id for (row_id,) in cursor.fetchall()]
        off[counted.kind] = len(ids)
        fixed[counted.kind] = 0
        if not ids or not fix:
            continue
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_lock_sql(counted), {"ids": ids})
            cursor.execute(_update_sql(counted), {"ids": ids})
            fixed[counted.kind] = cursor.rowcount
    drift = FollowerCountDrift(off=off, fixed=fixed)
    if drift.total_off:
        # Drift means a path changed follows without its count: worth a look, not an alarm.
        logger.warning("follower counts off: %s; fixed: %s", off, fixed)
    return drift
