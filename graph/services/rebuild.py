"""The full rebuild of every coauthor edge and close-collaborators count from the authorships,
into new tables swapped in at the end. It gives the same rows as the incremental routes
(graph.services.edges, graph.services.bylines)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

from ..models import CLOSE_SQL, MAX_AUTHORS_FOR_EDGES
from .edges import EDGES_LOCK_KEY
from .slice_cache import graph_slices_invalidate_all

# The rebuild reads each work once, as a byline: its identified researchers as a sorted array
# without repeats, and its share of a pair's weight, round(1 / (authors - 1), 12), as a whole
# number of 1e-12 units (share_units, exact: the rounded share has 12 decimals).
#
# One slice's pairs: each researcher of the slice on a byline, paired with the researchers
# after them on it (so a < b, and each pair of a work comes once), all unnested in the select
# list, streamed, with no join: on the 1M-work bench a slice took ~4 s this way against ~6 s
# for a self-join of the authorships on the work, most of which went to hashing all 5.2M
# authorships again for every slice. Summing the bigint units and scaling the sum once per pair
# gives the very numeric the drain gets by summing the rounded shares, for less than a numeric
# division and addition per joint work (another ~0.6 s a slice).
# The pairs are written in (a, b) order so each researcher's edges sit together on disk:
# a drain's updates for one researcher then touch a few pages instead of one page per pair,
# and a slice reads a researcher's edges from neighbouring pages. The same pairs, still in
# memory, give this slice's part of every close-collaborators count (a-ends fall in this
# slice only, b-ends in any), so the rebuild never scans the new table to count them.
_REBUILD_SLICE_SQL = f"""
WITH e AS MATERIALIZED (
    SELECT p.a AS researcher_a_id, p.b AS researcher_b_id, count(*) AS joint_works_count,
           sum(p.share_units) * 0.000000000001 AS weight,
           min(p.publication_year) AS first_year, max(p.publication_year) AS last_year
    FROM (
        SELECT x.a, unnest(x.researcher_ids[x.position + 1:]) AS b, x.share_units,
               x.publication_year
        FROM (
            SELECT unnest(researcher_ids) AS a, generate_subscripts(researcher_ids, 1) AS position,
                   researcher_ids, share_units, publication_year
            FROM graph_rebuild_bylines
            WHERE slices_mask & %(slice_bit)s <> 0
        ) x
        WHERE x.a %% %(slices)s = %(slice)s
    ) p
    GROUP BY p.a, p.b
),
written AS (
    INSERT INTO graph_coauthoredge_build
        (researcher_a_id, researcher_b_id, joint_works_count, weight, first_year, last_year)
    SELECT researcher_a_id, researcher_b_id, joint_works_count, weight, first_year, last_year
    FROM e ORDER BY researcher_a_id, researcher_b_id
),
counted AS (
    INSERT INTO graph_rebuild_close (researcher_id, close_collaborators_count)
    SELECT id, count(*) FROM (
        SELECT e.researcher_a_id AS id FROM e WHERE {CLOSE_SQL}
        UNION ALL
        SELECT e.researcher_b_id FROM e WHERE {CLOSE_SQL}
    ) ends GROUP BY id
)
SELECT count(*) FROM e
"""

# The counts summed over the slices, as the new table of close-collaborators counts (only
# researchers with at least one: a missing row is 0), swapped in with the new edges. A table of
# its own, not the researchers rows: updating the ~480k counts of a fresh 1M-work corpus there
# took 36-49 s (twenty-odd indexes, several GIN, at about 75 us a row); writing them here as a
# new table takes a second or two, whatever changed.
_REBUILD_CLOSE_SQL = (
    "CREATE TABLE graph_closecollaboratorscount_build"
    " (LIKE graph_closecollaboratorscount INCLUDING DEFAULTS INCLUDING CONSTRAINTS)",
    """
INSERT INTO graph_closecollaboratorscount_build (researcher_id, close_collaborators_count)
SELECT researcher_id, sum(close_collaborators_count)
FROM graph_rebuild_close GROUP BY researcher_id ORDER BY researcher_id
""",
    "CREATE UNIQUE INDEX graph_closecollaboratorscount_build_pkey"
    " ON graph_closecollaboratorscount_build (researcher_id)",
)


# Each byline carries a mask of the slices its researchers fall in (bit slice % MASK_BITS, so a
# bit may stand for several slices when there are more than MASK_BITS of them: the mask only
# skips bylines, the exact test on each researcher stays), so a slice unnests only the bylines
# with a researcher in it instead of every byline. See docs/graph.md, "Benchmark".
MASK_BITS = 63  # bits 0..62 of a bigint: 1 << 63 is not a positive bigint


def _slice_bit(number: int) -> int:
    return 1 << (number % MASK_BITS)


# Free room in each page, so the drain's updates (no indexed column changes) stay on their page
# and need no new index entries (heap-only tuples).
EDGES_FILLFACTOR = 85


@dataclass(frozen=True)
class RebuildResult:
    edges: int
    seconds: float
    step_seconds: dict[str, float]


def _run_in_threads(jobs: list[Callable[[], None]], *, workers: int) -> None:
    """Run jobs on `workers` threads, each with a database connection of its own."""

    def run(job: Callable[[], None]) -> None:
        try:
            job()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(run, job) for job in jobs]:
            future.result()


def _sql(statement: str, params: dict[str, Any] | None = None, *, work_mem: str) -> None:
    """Run one statement on a cursor of its own, with the rebuild's work_mem."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET work_mem = '{work_mem}'")
        cursor.execute(statement, params)


def _bylines_snapshot(*, slices: int, work_mem: str) -> None:
    """Drop what a failed rebuild left, read every byline into a table of its own and create
    the empty tables the slices write into. Caller holds the edges lock."""
    _sql(
        "DROP TABLE IF EXISTS graph_coauthoredge_build, graph_rebuild_bylines,"
        " graph_rebuild_close, graph_closecollaboratorscount_build",
        work_mem=work_mem,
    )
    # One snapshot for both: the bylines and refreshes pending now are in the authorships
    # read here, so they are dropped; those committed later stay pending and are applied
    # afterwards.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute("DELETE FROM graph_pendingbyline")
        cursor.execute("DELETE FROM graph_pendingedgerefresh")
        cursor.execute(
            f"""
        CREATE UNLOGGED TABLE graph_rebuild_bylines AS
        SELECT array_agg(DISTINCT au.researcher_id ORDER BY au.researcher_id)
                   AS researcher_ids,
               (round(1::numeric / (w.authors_count - 1), 12) * 1000000000000)::bigint
                   AS share_units,
               bit_or(1::bigint << (au.researcher_id % {slices} % {MASK_BITS})::int)
                   AS slices_mask,
               w.publication_year
        FROM publications_authorship au JOIN publications_work w ON w.id = au.work_id
        WHERE au.researcher_id IS NOT NULL
          AND w.authors_count BETWEEN 2 AND {MAX_AUTHORS_FOR_EDGES}
        GROUP BY au.work_id, w.authors_count, w.publication_year
        HAVING count(DISTINCT au.researcher_id) >= 2
        """
        )
    _sql("ANALYZE graph_rebuild_bylines", work_mem=work_mem)
    _sql(
        "CREATE TABLE graph_coauthoredge_build"
        " (LIKE graph_coauthoredge INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"
        f" WITH (fillfactor = {EDGES_FILLFACTOR})",
        work_mem=work_mem,
    )
    _sql(
        "CREATE UNLOGGED TABLE graph_rebuild_close"
        " (researcher_id bigint NOT NULL, close_collaborators_count integer NOT NULL)",
        work_mem=work_mem,
    )


def _pairs_build(
    *, slices: int, workers: int, work_mem: str, say: Callable[[str], None]
) -> list[int]:
    """Write every slice's edges and its part of the close-collaborators counts, `workers`
    slices at once; return the number of edges of each slice, in the order they finished."""
    slice_edges: list[int] = []

    def build_slice(number: int) -> Callable[[], None]:
        def job() -> None:
            with connection.cursor() as cursor:
                cursor.execute(f"SET work_mem = '{work_mem}'")
                # The planner takes each unnest for 100 rows, so it costs a slice at
                # ~100 times its size and would spend ~0.2 s compiling it (JIT) for nothing.
                cursor.execute("SET jit = off")
                # Almost every pair of a slice comes from one work (on the 200k-work bench,
                # 313k pair rows made 299k edges), so hashing them builds a group per row:
                # sorting them and aggregating in order took about half the time, and hands
                # the rows to the insert already in (a, b) order (the insert's own sort then
                # finds them sorted). See docs/graph.md, "Benchmark".
                cursor.execute("SET enable_hashagg = off")
                cursor.execute(
                    _REBUILD_SLICE_SQL,
                    {"slices": slices, "slice": number, "slice_bit": _slice_bit(number)},
                )
                slice_edges.append(cursor.fetchone()[0])
            say(f"slice {number + 1}/{slices}")

        return job

    _run_in_threads([build_slice(n) for n in range(slices)], workers=workers)
    return slice_edges


def _indexes_and_counts_build(*, work_mem: str, maintenance_work_mem: str) -> float:
    """Build the new edges' two indexes while a third connection writes the new counts table;
    return the seconds the counts took.

    maintenance_work_mem is set for the builds, not left to the server: more is slower here. On
    the 1M-work bench (22M rows, two builds at once) 64MB took 12 s, 1GB 15-18 s and 2GB 19 s:
    the external sort's small runs stay in the CPU caches, one big in-memory sort does not.
    """
    close_seconds: list[float] = []

    def index(statement: str) -> Callable[[], None]:
        def job() -> None:
            with connection.cursor() as cursor:
                cursor.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
                cursor.execute(statement)

        return job

    def close_counts() -> None:
        close_began = time.monotonic()
        with connection.cursor() as cursor:
            cursor.execute(f"SET work_mem = '{work_mem}'")
            for statement in _REBUILD_CLOSE_SQL:
                cursor.execute(statement)
        close_seconds.append(time.monotonic() - close_began)

    _run_in_threads(
        [
            index(
                "CREATE UNIQUE INDEX graph_coauthoredge_build_pkey"
                " ON graph_coauthoredge_build (researcher_a_id, researcher_b_id)"
            ),
            index(
                "CREATE INDEX graph_coauthoredge_build_b_idx"
                " ON graph_coauthoredge_build (researcher_b_id, researcher_a_id)"
            ),
            close_counts,
        ],
        workers=3,
    )
    return close_seconds[0]


def _tables_swap(*, work_mem: str) -> None:
    """Put the new edges and counts in place of the old ones in one short transaction (the
    only moment pages wait), drop the work tables and analyze the new ones."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            """
            ALTER TABLE graph_coauthoredge_build ADD CONSTRAINT graph_coauthoredge_build_pkey
                PRIMARY KEY USING INDEX graph_coauthoredge_build_pkey;
            ALTER TABLE graph_closecollaboratorscount_build
                ADD CONSTRAINT graph_closecollaboratorscount_build_pkey
                PRIMARY KEY USING INDEX graph_closecollaboratorscount_build_pkey;
            LOCK TABLE graph_coauthoredge, graph_closecollaboratorscount
                IN ACCESS EXCLUSIVE MODE;
            DROP TABLE graph_coauthoredge, graph_closecollaboratorscount;
            ALTER TABLE graph_coauthoredge_build RENAME TO graph_coauthoredge;
            ALTER TABLE graph_coauthoredge
                RENAME CONSTRAINT graph_coauthoredge_build_pkey TO graph_coauthoredge_pkey;
            ALTER INDEX graph_coauthoredge_build_b_idx RENAME TO coauthor_edge_b_idx;
            ALTER TABLE graph_closecollaboratorscount_build
                RENAME TO graph_closecollaboratorscount;
            ALTER TABLE graph_closecollaboratorscount
                RENAME CONSTRAINT graph_closecollaboratorscount_build_pkey
                TO graph_closecollaboratorscount_pkey;
            DROP TABLE graph_rebuild_bylines, graph_rebuild_close;
            """
        )
    _sql("ANALYZE graph_coauthoredge", work_mem=work_mem)
    _sql("ANALYZE graph_closecollaboratorscount", work_mem=work_mem)


def coauthor_edges_rebuild(
    *,
    slices: int = 16,
    workers: int = 2,
    work_mem: str = "1GB",
    maintenance_work_mem: str = "64MB",
    on_progress: Callable[[str], None] | None = None,
) -> RebuildResult:
    """Rebuild every coauthor edge and every close-collaborators count from scratch.

    The new edges go into a table of their own, built by `workers` connections at once, each
    taking slices of the researchers (by id modulo `slices`, so every slice holds whole groups
    and no pair is counted in two) and counting the close collaborators of its pairs as it
    goes; the indexes are built after the rows, both at once (`maintenance_work_mem` each),
    while a third connection writes the counts as a new table too; then both new tables
    replace the old ones in one short transaction. Pages keep reading the old edges and counts
    until then. Refreshes after import batches wait for the
    rebuild (the edges lock), and the ones that queued up meanwhile are drained afterwards by
    the caller. The steps run in this order, each timed, all under the edges lock.
    """
    say = on_progress or (lambda step: None)
    steps: dict[str, float] = {}
    started = time.monotonic()

    def step(name: str, began: float) -> None:
        steps[name] = round(time.monotonic() - began, 3)
        say(name)

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [EDGES_LOCK_KEY])
    try:
        began = time.monotonic()
        _bylines_snapshot(slices=slices, work_mem=work_mem)
        step("authorships", began)

        began = time.monotonic()
        slice_edges = _pairs_build(slices=slices, workers=workers, work_mem=work_mem, say=say)
        step("pairs", began)

        began = time.monotonic()
        close_seconds = _indexes_and_counts_build(
            work_mem=work_mem, maintenance_work_mem=maintenance_work_mem
        )
        steps["close collaborators"] = round(close_seconds, 3)
        say("close collaborators")
        step("indexes", began)

        began = time.monotonic()
        _tables_swap(work_mem=work_mem)
        step("swap", began)
        edges = sum(slice_edges)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [EDGES_LOCK_KEY])
    graph_slices_invalidate_all()
    return RebuildResult(edges, round(time.monotonic() - started, 3), steps)
