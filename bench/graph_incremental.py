"""The graph benchmark's third phase (`python -m bench.graph_bench`): the incremental refresh of
the collaborator graph, batch by batch, each batch's bylines taken out of the graph and put back
as an import would, each drain timed. Split from bench/graph_bench.py to keep it readable.
"""

from __future__ import annotations

import argparse
import random
import time

from bench.harness import say


def incremental_measure(args: argparse.Namespace, rng: random.Random) -> list[dict]:
    """Phase 3: each batch's bylines recorded as an import batch would, taken out of the graph
    and put back, each drain timed."""
    from django.db import connection, transaction

    from graph import services
    from publications.models import Work

    say(f"incremental refresh of {args.batches} random {args.batch_works:,}-work batches ...")
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id) FROM publications_work")
        low, high = cursor.fetchone()
    record_sql = f"""
        INSERT INTO graph_pendingbyline
            (work_id, sign, researcher_ids, authors_count, publication_year)
        SELECT work_id, %(sign)s, researcher_ids, authors_count, publication_year
        FROM ({services._BYLINES_OF_WORKS}) bylines
        WHERE cardinality(researcher_ids) >= 2 AND authors_count BETWEEN 2 AND 100
    """

    def apply_all() -> tuple[float, int]:
        started, applied = time.perf_counter(), 0
        while True:
            with transaction.atomic():
                count, _ = services.coauthor_bylines_apply()
            applied += count
            if not count:
                return time.perf_counter() - started, applied

    def edges_checksum() -> str:
        with connection.cursor() as cursor:
            cursor.execute(
                # A sum of row hashes: one string of 22M rows would pass text's 1 GB limit.
                "SELECT count(*), sum(hashtextextended(e::text, 0)) FROM graph_coauthoredge e"
            )
            count, digest = cursor.fetchone()
        return f"{count}:{digest}"

    before = edges_checksum()
    incremental = []
    for _ in range(args.batches):
        sampled = rng.sample(range(low, high + 1), min(args.batch_works, high - low + 1))
        held = list(Work.objects.filter(id__in=sampled).values_list("id", "openalex_id"))
        work_ids = [work_id for work_id, _ in held]
        openalex_ids = [openalex_id for _, openalex_id in held]
        # What an import batch adds to its transaction: the bylines before and after it writes.
        started = time.perf_counter()
        with transaction.atomic():
            services.coauthor_bylines_before(work_openalex_ids=openalex_ids)
            services.coauthor_bylines_record(work_openalex_ids=openalex_ids)
        record = time.perf_counter() - started
        # Take the works out of the graph (as if their bylines were replaced by empty ones),
        # then put them back as new works: the drain applies their bylines. Out for real: their
        # authorships lose their researchers meanwhile, so the exact recompute of the pairs
        # that lost a work no longer finds it (left in place, it recomputed the same edges,
        # and putting the bylines back then counted their pairs twice).
        with connection.cursor() as cursor:
            cursor.execute(record_sql, {"sign": -1, "ids": [], "work_ids": work_ids})
            cursor.execute(
                "CREATE TEMPORARY TABLE graph_bench_taken_out AS"
                " SELECT id, researcher_id FROM publications_authorship"
                " WHERE work_id = ANY(%s) AND researcher_id IS NOT NULL",
                [work_ids],
            )
            cursor.execute(
                "UPDATE publications_authorship a SET researcher_id = NULL"
                " FROM graph_bench_taken_out t WHERE a.id = t.id"
            )
        removal, removed = apply_all()
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE publications_authorship a SET researcher_id = t.researcher_id"
                " FROM graph_bench_taken_out t WHERE a.id = t.id"
            )
            cursor.execute("DROP TABLE graph_bench_taken_out")
            cursor.execute(record_sql, {"sign": 1, "ids": [], "work_ids": work_ids})
        addition, added = apply_all()
        incremental.append(
            {
                "works": len(work_ids),
                "bylines": added,
                "record_in_batch_seconds": round(record, 3),
                "seconds": round(addition, 3),
                "removal_seconds": round(removal, 3),
            }
        )
        say(
            f"  {added:,} bylines: applied as new works in {addition:.2f}s; taken out (exact "
            f"recompute of the pairs that lost a work) in {removal:.2f}s; recording them in a "
            f"batch {record:.3f}s"
        )
    # Each batch went out and came back: the drains must have left the edges as they were.
    say(f"  edges after the batches as before them: {edges_checksum() == before}")
    return incremental
