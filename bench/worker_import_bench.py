"""The worker-import benchmark (issue 13): `make bench`, or
`python -m bench.worker_import_bench --works N --processes 1,2,4`.

In one run, on one synthetic OpenAlex corpus (import_bench's, cached under bench-data/), into the
same database emptied before each phase, it times until the data is complete:

1. `manage.py import_openalex CORPUS --sync` (metrics, trust, slice summaries and the coauthor
   edges all done in the command's process);
2. raw COPY of the rows that import produced, loaded back into the same tables (the yardstick);
3. for each worker count N: a Celery worker with N processes, started by the benchmark on
   queues of its own (imports, graph and default), then `manage.py import_openalex CORPUS`
   (the default path, fanned out to the workers); the clock stops when every run finished, no
   researcher waits for its follow-up and no byline for the edge drain. The worker's start-up
   is not timed.

For each worker phase it reports works per second and its share of the --sync rate, the time
from the run's end until the data was complete (the follow-up drain), the first and the last
chunk's durations (from the worker's log), the share of the workers' sampled database time spent
waiting on a lock (and on researcher rows), the statements that took the most samples, and a
fingerprint of the derived tables (counts, sums of every researcher's figures, edges, slice
summaries) that must equal the --sync one. Figures, not a test: nothing asserts a duration.
The report goes to bench-data/<database>/worker-import-report.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime

import psycopg

from bench import smoke
from bench.harness import (
    BOOKKEEPING_TABLES,
    DATA_TABLES,
    bench_environment,
    corpus_prepare,
    say,
    shown,
    table_counts,
    truncate,
)
from bench.import_bench import copy_measure
from bench.measure import (
    git_revision,
    machine_describe,
    other_imports_running,
)
from bench.worker_runs import (
    DERIVED,
    sync_measure,
    workers_measure,
)

TARGET_SHARE_OF_SYNC = 0.9
TARGET_TWO_OVER_ONE = 1.4
TARGET_LOCK_SHARE = 0.05
TARGET_LAST_OVER_FIRST_CHUNK = 1.2


def empty(connection: psycopg.Connection) -> None:
    truncate(connection, (*DATA_TABLES, *BOOKKEEPING_TABLES, *DERIVED))


def report_print(report: dict) -> None:
    sync, copy = report["sync"], report["raw_copy"]
    say()
    say(f"worker import benchmark, revision {report['revision']}, {report['measured_at']}")
    machine = report["machine"]
    say(f"machine: {machine}")
    corpus = report["corpus"]
    say(
        f"corpus: {corpus['works']:,} works, {corpus['authorships']:,} authorships, "
        f"{corpus['distinct_authors']:,} authors; chunks of {report['chunk_lines']:,} lines, "
        f"batches of {report['batch_size']}"
    )
    say()
    say(f"{'path':<28}{'time to complete':>18}{'works/s':>10}{'of --sync':>11}")
    say(f"{'raw COPY (yardstick)':<28}{copy['seconds']:>16.1f} s{copy['works_per_second']:>10,}")
    say(f"{'--sync':<28}{sync['seconds']:>16.1f} s{sync['works_per_second']:>10,}{1:>11.2f}")
    one = None
    for figures in report["workers"]:
        label = f"worker, {figures['processes']} process(es)"
        say(
            f"{label:<28}{figures['seconds']:>16.1f} s{figures['works_per_second']:>10,}"
            f"{figures['share_of_sync']:>11.2f}"
        )
        one = one or figures
    say()
    for figures in report["workers"]:
        say(
            f"{figures['processes']} process(es): run done at {figures['run_seconds']} s, "
            f"complete {figures['complete_after_run_seconds']} s later (follow-up drain "
            f"{figures['follow_up_drain_seconds']} s, then {len(figures['follow_up_slice_seconds'])} "
            f"slices on the workers, {sum(figures['follow_up_slice_seconds']):.1f} s in all); "
            f"chunks {figures['chunks']}, first "
            f"{figures['first_chunk_seconds']:.1f} s, last {figures['last_chunk_seconds']:.1f} s "
            f"(x{figures['last_over_first_chunk']}); lock waits {figures['lock_wait_share']:.1%} "
            f"of active samples ({figures['researcher_lock_wait_share']:.1%} on researcher rows); "
            f"CPU worker {figures['worker_cpu_seconds']} s, database "
            f"{figures['database_cpu_seconds']} s; other work {figures['other_work_share']:.0%}; "
            f"tables equal --sync: {figures['fingerprint_equals_sync']}"
            + (
                f" {figures['fingerprint_differences']}"
                if figures["fingerprint_differences"]
                else ""
            )
        )
        say(
            "    busiest statements: "
            + "; ".join(f"{s} {p}%" for s, p in figures["top_statements"])
        )
        if one and figures["processes"] == 2:
            say(
                f"    two processes over one: x{figures['works_per_second'] / one['works_per_second']:.2f}"
                f" (target x{TARGET_TWO_OVER_ONE})"
            )
    for note in report["notes"]:
        say(f"note: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.worker_import_bench"
    )
    parser.add_argument("--works", type=int, default=200_000)
    parser.add_argument("--authors", type=int, help="author ids drawn from (default works / 2)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--processes", default="1,2,4", help="worker process counts (1,2,4)")
    parser.add_argument("--chunk-lines", type=int, default=10_000, help="lines per chunk")
    parser.add_argument("--database", default="bzpeer_bench_workers")
    parser.add_argument("--redis-db", type=int, default=12)
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        # Chunks of 100 lines: the run still fans out to several chunks and follow-up tasks.
        smoke.apply(
            parser,
            options,
            works=smoke.WORKS,
            processes="1",
            chunk_lines=100,
            database=smoke.default_database("worker_import"),
        )
        smoke.begin(options.database, redis_db=options.redis_db)
    authors = options.authors or max(1, options.works // 2)

    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    env["IMPORT_CHUNK_LINES"] = str(options.chunk_lines)
    if options.smoke:  # the Redis database may hold a parallel run's queues
        smoke.redis_keys_delete(env["REDIS_URL"], options.database)
    else:
        subprocess.run(
            ["redis-cli", "-u", env["REDIS_URL"], "FLUSHDB"], check=False, capture_output=True
        )
    corpus = corpus_prepare(
        works=options.works, authors=authors, seed=options.seed, files=1, gzipped=False
    )
    others_before = other_imports_running()
    notes: list[str] = []
    with psycopg.connect(url, autocommit=True) as connection:
        machine = machine_describe(connection)
        empty(connection)
        say(f"--sync import of {corpus.works:,} works, until complete ...")
        sync = sync_measure(corpus=corpus, env=env, connection=connection, work_dir=work_dir)
        say(f"  {sync.seconds} s")
        rows = table_counts(connection)
        say("raw COPY of the same rows ...")
        raw_copy = copy_measure(
            corpus=corpus, connection=connection, rows=sum(rows.values()), work_dir=work_dir
        )
        say(f"  {raw_copy.seconds} s")
        workers = []
        for processes in (int(p) for p in options.processes.split(",")):
            empty(connection)
            say(f"worker with {processes} process(es), until complete ...")
            figures = workers_measure(
                processes=processes,
                corpus=corpus,
                env=env,
                connection=connection,
                work_dir=work_dir,
                sync=sync,
            )
            say(f"  {figures.seconds} s")
            workers.append(figures)
    others = sorted(set(others_before) | set(other_imports_running()))
    if others:
        notes.append("other imports or benchmarks ran meanwhile: " + "; ".join(others))
    busy = [f for f in workers if f.other_work_share >= 0.1]
    if sync.other_work_share >= 0.1 or busy:
        notes.append("other processes used 10% or more of the CPUs during a phase: figures are low")
    report = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "revision": git_revision(),
        "machine": machine,
        "load_average_at_end": os.getloadavg(),
        "corpus": asdict(corpus),
        "chunk_lines": options.chunk_lines,
        "batch_size": int(env.get("IMPORT_BATCH_SIZE", "2000")),
        "sync": asdict(sync),
        "raw_copy": asdict(raw_copy),
        "workers": [asdict(f) for f in workers],
        "targets": {
            "share_of_sync": TARGET_SHARE_OF_SYNC,
            "two_over_one": TARGET_TWO_OVER_ONE,
            "lock_wait_share": TARGET_LOCK_SHARE,
            "last_over_first_chunk": TARGET_LAST_OVER_FIRST_CHUNK,
        },
        "notes": notes,
    }
    report_print(report)
    (work_dir / "worker-import-report.json").write_text(
        json.dumps(report, indent=2, default=str) + "\n"
    )
    say(f"\nwritten to {shown(work_dir / 'worker-import-report.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
