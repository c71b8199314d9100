"""The related-works benchmark (issue 25, item 4): `python -m bench.related_bench`.

On a synthetic citation graph of its own (bzpeer_related_bench) it measures:

1. the full computation (`compute_related_works`): in this process, then on Celery with one
   worker of one process and one of two processes (`--on-workers`: the degrees counted, a task
   per range of work ids, the command waiting until every range reports done), wall time from
   the command's start to its end; and the ratio of one process to two (the issue's target is
   at least 1.6);
2. the incremental cost: INCREMENT_WORKS new works arrive in writer-sized batches (2,000 works,
   each batch's citations inserted with the writer's pending row, as
   ingest.writer.citations does), then the drain (publications.services.related_works_drain)
   runs in this process: seconds per 10,000 new works, and how many lists it rewrote;
3. the drift the incremental route allows: the lists after the drain against a full
   computation from there (rows that differ in work, related work or rank).

The corpus: `--works` works in arrival (id) order, each citing 10 to 49 earlier works (one in a
thousand, a review, 300), drawn with a quadratic skew towards the oldest, so early works are
cited thousands of times (the fan-out caps matter) and most only a few times, as in OpenAlex.
It is generated in SQL, once per parameter set (kept while the parameters match).

Figures, not a test: nothing asserts a duration.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import redis

from bench import smoke
from bench.harness import DATA_DIR, REPO_ROOT, bench_environment, say, worker_ready_wait
from bench.measure import machine_describe

BATCH_WORKS = 2_000

# One statement for a batch of new works' citations: the works [first, last] cite earlier ones.
_CITE_SQL = """
WITH refs AS (
    SELECT w.id AS citing_id,
           (%(low)s + floor((w.id - %(low)s) * power(random(), 2)))::bigint AS cited_id
    FROM publications_work w
    CROSS JOIN LATERAL generate_series(
        1, CASE WHEN w.id %% 1000 = 7 THEN 300 ELSE 10 + (w.id * 7919) %% 40 END) g
    WHERE w.id BETWEEN %(first)s AND %(last)s AND w.id > %(low)s
),
inserted AS (
    INSERT INTO publications_citation (citing_id, cited_id)
    SELECT DISTINCT citing_id, cited_id FROM refs WHERE cited_id <> citing_id
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING
    RETURNING citing_id, cited_id
)
{pending}
"""


def _works_insert(raw: psycopg.Connection, count: int) -> tuple[int, int]:
    """count new works (titles only); their first and last ids."""
    rows = raw.execute(
        """
        INSERT INTO publications_work (title, abstract, type, language, content_hash,
            open_access_url, code_url, cited_by_count, counts_by_year, authors_count,
            created_at, updated_at)
        SELECT 'Synthetic work ' || n, '', 'article', '', '', '', '', 0, '{}'::jsonb, 0,
               now(), now()
        FROM generate_series(1, %s) n
        RETURNING id
        """,
        [count],
    ).fetchall()
    ids = [row[0] for row in rows]
    return min(ids), max(ids)


def corpus_generate(raw: psycopg.Connection, works: int) -> dict[str, float]:
    started = time.perf_counter()
    raw.execute(
        "TRUNCATE publications_work, publications_citation, publications_relatedwork,"
        " publications_citationdegree, publications_pendingrelatedworks CASCADE"
    )
    low = None
    for start in range(0, works, 100_000):
        first, last = _works_insert(raw, min(100_000, works - start))
        low = first if low is None else low
    say(f"  {works} works in {time.perf_counter() - started:.1f}s")
    high = raw.execute("SELECT max(id) FROM publications_work").fetchone()[0]
    began = time.perf_counter()
    for first in range(low, high + 1, 100_000):
        raw.execute(
            _CITE_SQL.format(pending="SELECT count(*) FROM inserted"),
            {"low": low, "first": first, "last": min(first + 99_999, high)},
        )
    raw.execute("VACUUM ANALYZE publications_work")
    raw.execute("VACUUM ANALYZE publications_citation")
    raw.execute(
        "CREATE TABLE IF NOT EXISTS bench_related_corpus (works int); TRUNCATE bench_related_corpus"
    )
    raw.execute("INSERT INTO bench_related_corpus VALUES (%s)", [works])
    return {
        "works_seconds": round(began - started, 1),
        "citations_seconds": round(time.perf_counter() - began, 1),
    }


def corpus_works(raw: psycopg.Connection) -> int | None:
    try:
        row = raw.execute("SELECT works FROM bench_related_corpus").fetchone()
    except psycopg.errors.UndefinedTable:
        return None
    return row[0] if row else None


def _command(env: dict[str, str], log: Path, *args: str) -> float:
    args = (*args, "--range-size", os.environ["RELATED_BENCH_RANGE_SIZE"])
    started = time.perf_counter()
    with log.open("ab") as output:
        subprocess.run(
            [sys.executable, str(REPO_ROOT / "manage.py"), "compute_related_works",
             "--no-progress", *args],
            env=env, cwd=REPO_ROOT, check=True, stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    return round(time.perf_counter() - started, 2)


def on_workers(env: dict[str, str], work_dir: Path, processes: int) -> float:
    """compute_related_works --on-workers with one Celery worker of `processes` processes on
    the graph queue (where publications' tasks go)."""
    log = work_dir / f"worker-{processes}.log"
    queue = f"{env['CELERY_DEFAULT_QUEUE']}-graph"
    # Ranges an interrupted earlier run left queued would be counted in this run's time.
    redis.Redis.from_url(env["REDIS_URL"]).delete(queue)
    with log.open("wb") as output:
        worker = subprocess.Popen(
            [str(Path(sys.executable).with_name("celery")), "-A", "bzpeer", "worker",
             "-Q", queue, "--concurrency", str(processes), "--prefetch-multiplier", "1",
             "--without-gossip", "--without-mingle", "--without-heartbeat",
             "--loglevel", "info", "-n", f"related-bench-{processes}@%h"],
            env=env, cwd=REPO_ROOT, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            worker_ready_wait(worker, log)  # its start-up is not the computation's time
            return _command(env, work_dir / "command.log", "--on-workers")
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=60)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=1_000_000)
    parser.add_argument("--increment", type=int, default=10_000, help="new works (10,000)")
    parser.add_argument("--database", default="bzpeer_related_bench")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument(
        "--incremental-only",
        action="store_true",
        help="skip the full computations (the lists of the last run must be in place)",
    )
    parser.add_argument(
        "--full-only",
        action="store_true",
        help="skip the incremental step (step 1 only: one process against two)",
    )
    parser.add_argument(
        "--range-size",
        type=int,
        default=0,
        help="work ids per job (default: works / 40, so two processes have ranges to share)",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(
            parser,
            options,
            works=smoke.WORKS,
            increment=50,
            database=smoke.default_database("related"),
        )
        smoke.begin(options.database, redis_db=options.redis_db)
    range_size = options.range_size or max(100, options.works // 40)
    os.environ["RELATED_BENCH_RANGE_SIZE"] = str(range_size)

    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    report: dict[str, object] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "range_size": range_size,
    }
    with psycopg.connect(url, autocommit=True) as raw:
        report["machine"] = machine_describe(raw)
        held = raw.execute("SELECT count(*) FROM publications_work").fetchone()[0]
        # A run's new works stay (the incremental step): a corpus that grew is made again.
        if options.incremental_only:
            pass
        elif options.regenerate or corpus_works(raw) != options.works or held != options.works:
            say(f"generating {options.works} works and their citations ...")
            report["generated"] = corpus_generate(raw, options.works)
        report["corpus"] = {
            "works": raw.execute("SELECT count(*) FROM publications_work").fetchone()[0],
            "citations": raw.execute("SELECT count(*) FROM publications_citation").fetchone()[0],
            "most_cited": raw.execute(
                "SELECT count(*) FROM publications_citation GROUP BY cited_id"
                " ORDER BY 1 DESC LIMIT 1"
            ).fetchone()[0],
        }
    say(f"corpus: {report['corpus']}")

    if options.incremental_only:
        say("the incremental step only, from the lists the last run left")
        report["full"] = "skipped (--incremental-only)"
    else:
        # One worker process in smoke mode: the path is the same, the speed-up is not measured.
        report["full"] = full_measure(env, work_dir, processes=(1,) if options.smoke else (1, 2))
    if not options.full_only:
        _incremental(options, url, env, range_size, report)
    path = DATA_DIR / "related-report.json"
    path.write_text(json.dumps(report, indent=2))
    say(f"report: {path}")
    return 0


def full_measure(
    env: dict[str, str], work_dir: Path, *, processes: Sequence[int] = (1, 2)
) -> dict[str, float]:
    full: dict[str, float] = {}
    say("full computation in this process ...")
    full["in_process_seconds"] = _command(env, work_dir / "command.log")
    for count in processes:
        say(f"full computation on one worker of {count} process(es) ...")
        full[f"workers_{count}_seconds"] = on_workers(env, work_dir, count)
    if "workers_2_seconds" in full:
        full["speed_up_two_over_one"] = round(
            full["workers_1_seconds"] / full["workers_2_seconds"], 2
        )
    say(f"full: {full}")
    return full


def _incremental(
    options: argparse.Namespace,
    url: str,
    env: dict[str, str],
    range_size: int,
    report: dict[str, object],
) -> None:
    """Step 2 and 3 of the module docstring, in this process."""

    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_DEFAULT_QUEUE", "DEBUG"):
        os.environ[name] = env[name]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", env["DJANGO_SETTINGS_MODULE"])
    import django

    django.setup()
    from publications.services import related_works_compute_all, related_works_drain
    from publications.services.related_works import related_works_mark_pending_sql

    with psycopg.connect(url, autocommit=True) as raw:
        low = raw.execute("SELECT min(id) FROM publications_work").fetchone()[0]
        # The generator draws cited works from the ids between the first and the citing one:
        # new works take the ids right after the corpus.
        raw.execute(
            "SELECT setval(pg_get_serial_sequence('publications_work', 'id'), max(id))"
            " FROM publications_work"
        )
        lists_before = raw.execute("SELECT count(*) FROM publications_relatedwork").fetchone()[0]
        began = time.perf_counter()
        for start in range(0, options.increment, BATCH_WORKS):
            first, last = _works_insert(raw, min(BATCH_WORKS, options.increment - start))
            raw.execute(
                _CITE_SQL.format(
                    pending=related_works_mark_pending_sql(
                        "SELECT citing_id FROM inserted UNION SELECT cited_id FROM inserted"
                    )
                ),
                {"low": low, "first": first, "last": last},
            )
        arrive_seconds = time.perf_counter() - began
        pending = raw.execute(
            "SELECT count(DISTINCT u.work_id) FROM publications_pendingrelatedworks p,"
            " unnest(p.work_ids) AS u(work_id)"
        ).fetchone()[0]
    say(f"{options.increment} new works arrived ({pending} works pending); draining ...")
    began = time.perf_counter()
    refreshed = related_works_drain()
    drain_seconds = time.perf_counter() - began
    with psycopg.connect(url, autocommit=True) as raw:
        raw.execute("DROP TABLE IF EXISTS bench_related_after_drain")
        raw.execute(
            "CREATE TABLE bench_related_after_drain AS"
            " SELECT work_id, related_id, rank FROM publications_relatedwork"
        )
    say("full computation from there, to compare ...")
    full_after = related_works_compute_all(range_size=range_size)
    with psycopg.connect(url, autocommit=True) as raw:
        differing = raw.execute(
            """
            SELECT count(*) FROM (
                (SELECT work_id, related_id, rank FROM bench_related_after_drain
                 EXCEPT SELECT work_id, related_id, rank FROM publications_relatedwork)
                UNION ALL
                (SELECT work_id, related_id, rank FROM publications_relatedwork
                 EXCEPT SELECT work_id, related_id, rank FROM bench_related_after_drain)
            ) d
            """
        ).fetchone()[0]
        rows = raw.execute("SELECT count(*) FROM publications_relatedwork").fetchone()[0]
    report["incremental"] = {
        "new_works": options.increment,
        "related_rows_before": lists_before,
        "arrival_seconds": round(arrive_seconds, 2),
        "pending_works": pending,
        "works_refreshed": refreshed,
        "drain_seconds": round(drain_seconds, 2),
        "drain_seconds_per_10000_new_works": round(drain_seconds * 10_000 / options.increment, 2),
        "full_after_seconds": round(full_after.seconds, 2),
        "rows_after": rows,
        "rows_differing_drain_vs_full": differing,
    }
    say(f"incremental: {report['incremental']}")


if __name__ == "__main__":
    raise SystemExit(main())
