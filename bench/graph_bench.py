"""The collaborator-graph benchmark: `python -m bench.graph_bench`, run by `make bench`
after the import benchmark.

On a database holding an imported corpus it measures, in one run:

1. a plain aggregation: one `INSERT ... SELECT ... GROUP BY` counting the coauthor pairs of the
   same authorships into a plain table, as a yardstick;
2. `rebuild_graph` (graph.services.coauthor_edges_rebuild), with the time of each step;
3. the incremental refresh for 5,000-work batches: the bylines of 5,000 works taken at random
   are taken out of the graph (their authorships lose their researchers, and -1 bylines are
   applied by the drain: an exact recompute of every pair that lost a work), then put back as
   if newly imported (+1 bylines: the drain's usual
   work after an import batch), each timed; and the time a batch spends recording them;
4. the graph-slice endpoint (`GET /api/v1/researchers/<slug>/graph/`, through Django's test
   client in this process): p50/p99 cold (a new slice version before each request) and cached,
   for random researchers and for the one with the most coauthors; beside it a plain 2-hop SQL
   ego query over the authorships for the same people;
5. `graph_stats`.

It prints the figures with the machine and corpus size and writes bench-data/graph-report.json.
Nothing asserts a duration: these are figures, not a test.

By default it uses the import benchmark's database (bzpeer_bench), after `import_bench` loaded
it. `--load-works N` instead loads a synthetic corpus of N works into bzpeer_graph_bench (the
same generator and cache as the import benchmark) through `import_openalex --sync` first.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

from bench import smoke
from bench.graph_incremental import incremental_measure
from bench.harness import (
    DATA_DIR,
    REPO_ROOT,
    bench_database_url,
    corpus_prepare,
    ensure_database,
    manage,
    migrate,
    say,
    shown,
)
from bench.measure import machine_describe

DATA_TABLES = (
    "publications_worktopic",
    "publications_authorship",
    "publications_work",
    "researchers_affiliation",
    "researchers_researcher",
    "researchers_institution",
    "publications_source",
    "publications_topic",
    "graph_coauthoredge",
)


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def _ms(values: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(_percentile(values, 0.5) * 1000, 1),
        "p99_ms": round(_percentile(values, 0.99) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1) if values else 0.0,
        "mean_ms": round(statistics.fmean(values) * 1000, 1) if values else 0.0,
    }


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def load_corpus(url: str, works: int, seed: int) -> dict:
    """Empty the data tables and import a synthetic corpus of `works` works."""
    corpus = corpus_prepare(
        works=works, authors=max(1, works // 2), seed=seed, files=1, gzipped=False
    )
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local"}
    migrate(env, log=DATA_DIR / "graph-migrate.log")
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"TRUNCATE {', '.join(DATA_TABLES)} RESTART IDENTITY CASCADE")
    say(f"importing {works:,} works into {url.rsplit('/', 1)[1]} (import_openalex --sync) ...")
    seconds = _timed(
        lambda: manage(
            [
                "import_openalex",
                str(REPO_ROOT / corpus.path),
                "--sync",
                "--no-progress",
                "--defer-graph",
            ],
            env=env,
            log=DATA_DIR / "graph-import.log",
        )
    )
    say(f"  imported in {seconds:.0f}s")
    return {"works": works, "seed": seed, "path": corpus.path, "import_seconds": round(seconds, 1)}


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default=None, help="bzpeer_bench, or bzpeer_graph_bench")
    parser.add_argument("--load-works", type=int, default=0, help="load a corpus of N works first")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batches", type=int, default=3, help="5,000-work batches to refresh")
    parser.add_argument("--batch-works", type=int, default=5000)
    parser.add_argument("--researchers", type=int, default=200, help="random slices to fetch")
    parser.add_argument("--slices", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-plain", action="store_true", help="skip the plain aggregation")
    parser.add_argument("--skip-rebuild", action="store_true", help="use the edges as they are")
    smoke.add_argument(parser)
    args = parser.parse_args(argv)
    if args.smoke:  # its own tiny corpus, one batch, a few slices, one rebuild process
        smoke.apply(
            parser,
            args,
            database=smoke.default_database("graph"),
            load_works=smoke.WORKS,
            batches=1,
            batch_works=50,
            researchers=10,
            slices=2,
            workers=1,
        )
        smoke.begin(args.database)
    return args


def _database_prepare(url: str, args: argparse.Namespace) -> dict | None:
    """The database migrated, with a corpus loaded first when asked; returns what was loaded."""
    ensure_database(url)
    DATA_DIR.mkdir(exist_ok=True)
    loaded = load_corpus(url, args.load_works, args.seed) if args.load_works else None
    if not loaded:
        env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local"}
        migrate(env, log=DATA_DIR / "graph-migrate.log")
    return loaded


def _django_setup(url: str) -> None:
    """Django for this database, in this process; no anonymous rate limit on the API."""
    os.environ["DATABASE_URL"] = url
    os.environ["API_ANON_RATE"] = "100000000/min"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    import django

    django.setup()


def _corpus_counts() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        counts = {}
        for table in ("publications_work", "publications_authorship", "researchers_researcher"):
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
    return counts


def _start_even() -> None:
    """The same starting point for every contender: no queued refreshes, fresh statistics,
    warm buffers."""
    from django.db import connection

    from graph import keys

    redis = keys.redis_client()
    for key in redis.scan_iter(match=keys.key("graph:*")):
        redis.delete(key)  # the import queued its researchers; the rebuild covers them

    # Statistics as autovacuum would leave them after a bulk load (it may not have run yet).
    with connection.cursor() as cursor:
        for table in DATA_TABLES:
            cursor.execute(f"ANALYZE {table}")
    with connection.cursor() as cursor:  # warm the buffers the same way for both contenders
        cursor.execute("SELECT count(*), sum(researcher_id) FROM publications_authorship")
        cursor.execute("SELECT count(*), sum(authors_count) FROM publications_work")


def _plain_aggregation() -> dict:
    """Phase 1, the yardstick: every coauthor pair counted into a plain table."""
    from django.db import connection

    say("plain aggregation (INSERT ... SELECT ... GROUP BY into a plain table) ...")
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_plain_pairs")
        cursor.execute("CREATE TABLE bench_plain_pairs (a bigint, b bigint, works integer)")
        seconds = _timed(
            lambda: cursor.execute(
                """
                INSERT INTO bench_plain_pairs
                SELECT x.researcher_id, y.researcher_id, count(*)
                FROM publications_authorship x
                JOIN publications_authorship y
                  ON y.work_id = x.work_id AND y.researcher_id > x.researcher_id
                GROUP BY x.researcher_id, y.researcher_id
                """
            )
        )
        rows = cursor.rowcount
        cursor.execute("DROP TABLE bench_plain_pairs")
    plain = {"seconds": round(seconds, 1), "pairs": rows}
    say(f"  {seconds:.1f}s for {rows:,} pairs")
    return plain


@dataclass(frozen=True)
class SliceTimes:
    """Phase 4's timings, in seconds: the slice endpoint and the plain ego query."""

    random_cold: list[float]
    random_cached: list[float]
    hub_degree: int
    hub_cold: list[float]
    hub_cached: list[float]
    ego_random: list[float]
    ego_hub: list[float]


def _slices(args: argparse.Namespace, rng: random.Random) -> SliceTimes:
    """Phase 4: the graph-slice endpoint, cold and cached, for random researchers and the one
    with the most coauthors; beside it a plain 2-hop SQL ego query for the same people."""
    from django.db import connection
    from django.test import Client

    from graph import services
    from researchers.models import Researcher

    say("graph slices ...")
    client = Client(SERVER_NAME="127.0.0.1")
    ids = list(
        Researcher.objects.filter(works_count__gt=0).values_list("id", flat=True).order_by("id")
    )
    sample = rng.sample(ids, min(args.researchers, len(ids)))
    slugs = dict(Researcher.objects.filter(id__in=sample).values_list("id", "slug"))
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT id, count(*) FROM (
                SELECT researcher_a_id AS id FROM graph_coauthoredge
                UNION ALL SELECT researcher_b_id FROM graph_coauthoredge
            ) ends GROUP BY id ORDER BY count(*) DESC LIMIT 1
            """
        )
        hub_id, hub_degree = cursor.fetchone()
    hub = Researcher.objects.get(id=hub_id)

    def fetch(slug: str) -> None:
        response = client.get(f"/api/v1/researchers/{slug}/graph/")
        if response.status_code != 200:
            raise SystemExit(f"slice of {slug}: HTTP {response.status_code}")

    def cold(researcher_id: int, slug: str) -> float:
        services.graph_slices_invalidate(researcher_ids=[researcher_id])
        return _timed(lambda: fetch(slug))

    fetch(slugs[sample[0]])  # imports, URL resolver, first connection
    random_cold = [cold(i, slugs[i]) for i in sample]
    random_cached = [_timed(lambda s=slugs[i]: fetch(s)) for i in sample]
    hub_cold = [cold(hub.id, hub.slug) for _ in range(20)]
    hub_cached = [_timed(lambda: fetch(hub.slug)) for _ in range(50)]
    say(f"  random researchers: cold {_ms(random_cold)}, cached {_ms(random_cached)}")
    say(f"  most coauthors ({hub_degree:,}): cold {_ms(hub_cold)}, cached {_ms(hub_cached)}")

    ego_sql = """
        WITH first AS (
            SELECT DISTINCT y.researcher_id AS id FROM publications_authorship x
            JOIN publications_authorship y ON y.work_id = x.work_id
            WHERE x.researcher_id = %(id)s AND y.researcher_id <> %(id)s
        )
        SELECT count(DISTINCT z.researcher_id) FROM first f
        JOIN publications_authorship w ON w.researcher_id = f.id
        JOIN publications_authorship z ON z.work_id = w.work_id
    """

    def ego(researcher_id: int) -> float:
        with connection.cursor() as cursor:
            return _timed(lambda: cursor.execute(ego_sql, {"id": researcher_id}))

    ego_random = [ego(i) for i in sample[:100]]
    ego_hub = [ego(hub.id) for _ in range(3)]
    say(f"  plain 2-hop SQL ego query: random {_ms(ego_random)}, most coauthors {_ms(ego_hub)}")
    return SliceTimes(
        random_cold, random_cached, hub_degree, hub_cold, hub_cached, ego_random, ego_hub
    )


def _graph_stats() -> float:
    """Phase 5: `graph_stats`, printed; returns its seconds."""
    from django.core.management import call_command

    out = io.StringIO()
    stats_seconds = _timed(lambda: call_command("graph_stats", stdout=out))
    say(f"graph_stats in {stats_seconds:.1f}s:")
    say("\n".join("  " + line for line in out.getvalue().splitlines()))
    return stats_seconds


def _summary_print(
    args: argparse.Namespace, report: dict, *, rebuild: Any, times: SliceTimes, path: Path
) -> None:
    """The report's figures, one line each."""
    counts, plain, incremental = (
        report["corpus"],
        report["plain_aggregation"],
        report["incremental"],
    )
    m = report["machine"]
    say("")
    say(
        f"machine     {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, PostgreSQL {m['postgresql']}"
    )
    say(
        f"corpus      {counts['publications_work']:,} works, "
        f"{counts['publications_authorship']:,} authorships, "
        f"{counts['researchers_researcher']:,} researchers"
    )
    if plain:
        say(f"plain agg   {plain['seconds']:.1f}s ({plain['pairs']:,} pairs)")
    if rebuild:
        say(f"rebuild     {rebuild.seconds:.1f}s ({rebuild.edges:,} edges)")
    worst = max(incremental, key=lambda b: b["seconds"]) if incremental else None
    if worst:
        say(
            f"incremental {worst['seconds']:.2f}s worst of {len(incremental)} batches of {args.batch_works:,} works"
        )
    say(
        f"slice p99   random cold {_ms(times.random_cold)['p99_ms']} ms, cached {_ms(times.random_cached)['p99_ms']} ms; "
        f"most coauthors cold {_ms(times.hub_cold)['p99_ms']} ms, cached {_ms(times.hub_cached)['p99_ms']} ms"
    )
    say(f"report      {shown(path)}")


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    name = args.database or ("bzpeer_graph_bench" if args.load_works else "bzpeer_bench")
    url = bench_database_url(name)
    loaded = _database_prepare(url, args)
    _django_setup(url)
    from graph import services

    with psycopg.connect(url) as raw:
        machine = machine_describe(raw)
    counts = _corpus_counts()
    if not counts["publications_authorship"]:
        say(f"{name} holds no authorships: run the import benchmark first, or --load-works N")
        return 2
    say(
        f"corpus: {counts['publications_work']:,} works, {counts['publications_authorship']:,} "
        f"authorships, {counts['researchers_researcher']:,} researchers ({name})"
    )
    _start_even()

    plain = None if args.skip_plain else _plain_aggregation()
    rebuild = None
    if not args.skip_rebuild:
        say(f"rebuild_graph (slices={args.slices}, workers={args.workers}) ...")
        rebuild = services.coauthor_edges_rebuild(slices=args.slices, workers=args.workers)
        say(f"  {rebuild.seconds:.1f}s for {rebuild.edges:,} edges {rebuild.step_seconds}")
    rng = random.Random(args.seed)
    incremental = incremental_measure(args, rng)
    times = _slices(args, rng)
    stats_seconds = _graph_stats()

    report = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "database": name,
        "machine": machine,
        "corpus": {**counts, "loaded": loaded},
        "plain_aggregation": plain,
        "rebuild": rebuild
        and {
            "seconds": rebuild.seconds,
            "edges": rebuild.edges,
            "steps": rebuild.step_seconds,
            "slices": args.slices,
            "workers": args.workers,
        },
        "incremental": incremental,
        "slices": {
            "random_cold": _ms(times.random_cold),
            "random_cached": _ms(times.random_cached),
            "most_coauthors": {
                "coauthors": times.hub_degree,
                "cold": _ms(times.hub_cold),
                "cached": _ms(times.hub_cached),
            },
            "plain_ego_query_random": _ms(times.ego_random),
            "plain_ego_query_most_coauthors": _ms(times.ego_hub),
        },
        "graph_stats_seconds": round(stats_seconds, 1),
    }
    path = DATA_DIR / "graph-report.json"
    path.write_text(json.dumps(report, indent=2))
    _summary_print(args, report, rebuild=rebuild, times=times, path=path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
